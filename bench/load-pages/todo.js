// TodoMVC in plain JavaScript: a model in localStorage (seeded with 20 todos when empty), a render, hash routes.
(function () {
  'use strict';
  var KEY = 'todos-vanillajs';
  var SEED = [
    'Read the issue', 'Sketch the page', 'Write the markup', 'Style the header', 'Wire the input',
    'Toggle a todo', 'Edit on double-click', 'Delete with the cross', 'Filter active', 'Filter completed',
    'Clear completed', 'Count items left', 'Persist to storage', 'Route on hash change', 'Mark all complete',
    'Escape cancels an edit', 'Trim the titles', 'Test in a browser', 'Measure the load', 'Ship it',
  ];
  var todos;
  try { todos = JSON.parse(localStorage.getItem(KEY) || 'null'); } catch (e) { todos = null; }
  if (!Array.isArray(todos)) {
    todos = SEED.map(function (title, i) { return { id: i + 1, title: title, completed: i % 4 === 0 }; });
  }
  var $ = function (s) { return document.querySelector(s); };
  var list = $('.todo-list');
  var save = function () { try { localStorage.setItem(KEY, JSON.stringify(todos)); } catch (e) { /* private mode */ } };
  var route = function () { return (location.hash.replace(/^#\//, '') || 'all'); };
  var escapeHtml = function (s) {
    return s.replace(/[&<>"']/g, function (c) { return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]; });
  };

  function render() {
    var r = route();
    var shown = todos.filter(function (t) { return r === 'active' ? !t.completed : r === 'completed' ? t.completed : true; });
    list.innerHTML = shown.map(function (t) {
      return '<li data-id="' + t.id + '"' + (t.completed ? ' class="completed"' : '') + '><div class="view">' +
        '<input class="toggle" type="checkbox"' + (t.completed ? ' checked' : '') + '><label>' + escapeHtml(t.title) + '</label>' +
        '<button class="destroy"></button></div><input class="edit" value="' + escapeHtml(t.title) + '"></li>';
    }).join('');
    var left = todos.filter(function (t) { return !t.completed; }).length;
    $('.todo-count').innerHTML = '<strong>' + left + '</strong> item' + (left === 1 ? '' : 's') + ' left';
    $('.main').classList.toggle('hidden', todos.length === 0);
    $('.footer').classList.toggle('hidden', todos.length === 0);
    $('.clear-completed').classList.toggle('hidden', left === todos.length);
    $('.toggle-all').checked = todos.length > 0 && left === 0;
    document.querySelectorAll('.filters a').forEach(function (a) { a.classList.toggle('selected', a.getAttribute('href') === '#/' + (r === 'all' ? '' : r)); });
    save();
  }

  var idOf = function (el) { return Number(el.closest('li').dataset.id); };
  var find = function (id) { return todos.filter(function (t) { return t.id === id; })[0]; };
  $('.new-todo').addEventListener('keydown', function (e) {
    var title = e.target.value.trim();
    if (e.key !== 'Enter' || !title) return;
    todos.push({ id: Date.now(), title: title, completed: false });
    e.target.value = '';
    render();
  });
  $('.toggle-all').addEventListener('change', function (e) {
    todos.forEach(function (t) { t.completed = e.target.checked; });
    render();
  });
  $('.clear-completed').addEventListener('click', function () {
    todos = todos.filter(function (t) { return !t.completed; });
    render();
  });
  list.addEventListener('change', function (e) {
    if (!e.target.classList.contains('toggle')) return;
    find(idOf(e.target)).completed = e.target.checked;
    render();
  });
  list.addEventListener('click', function (e) {
    if (!e.target.classList.contains('destroy')) return;
    var id = idOf(e.target);
    todos = todos.filter(function (t) { return t.id !== id; });
    render();
  });
  list.addEventListener('dblclick', function (e) {
    if (e.target.tagName !== 'LABEL') return;
    var li = e.target.closest('li');
    li.classList.add('editing');
    li.querySelector('.edit').focus();
  });
  list.addEventListener('keydown', function (e) {
    if (!e.target.classList.contains('edit')) return;
    if (e.key === 'Escape') { e.target.value = find(idOf(e.target)).title; e.target.blur(); }
    if (e.key === 'Enter') e.target.blur();
  });
  list.addEventListener('focusout', function (e) {
    if (!e.target.classList.contains('edit')) return;
    var t = find(idOf(e.target));
    var title = e.target.value.trim();
    if (title) t.title = title;
    else todos = todos.filter(function (x) { return x !== t; });
    render();
  });
  window.addEventListener('hashchange', render);
  render();
})();
