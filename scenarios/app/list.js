import { markReady } from './common.js';
import { installJank, jankLevelFromQuery, JANK_MS_PER_LEVEL } from './jank.js';

const INITIAL_ROWS = 2000;
const TAGS = ['alpha', 'beta', 'gamma', 'delta', 'epsilon'];

const listEl = document.getElementById('list');
const filterEl = document.getElementById('filter');
const countEl = document.getElementById('count');
const addBtn = document.getElementById('add-item');

/** Lower-cased title of each row, parallel to listEl.children. */
const titles = [];
let lastNumber = 0;
let query = '';

function makeRow(n) {
  const row = document.createElement('div');
  row.className = 'row';
  row.setAttribute('role', 'listitem');
  row.dataset.id = String(n);

  const avatar = document.createElement('div');
  avatar.className = 'avatar';
  avatar.setAttribute('aria-hidden', 'true');
  avatar.textContent = String(n % 100).padStart(2, '0');

  const text = document.createElement('div');
  text.className = 'row-text';
  const title = document.createElement('span');
  title.className = 'row-title';
  title.textContent = `Item ${n}`;
  const sub = document.createElement('span');
  sub.className = 'row-sub';
  sub.textContent = `#${String(n).padStart(4, '0')} · ${TAGS[n % TAGS.length]} · updated ${(n * 7) % 59 + 1} min ago`;
  text.append(title, sub);

  const badge = document.createElement('span');
  badge.className = 'badge';
  badge.textContent = `${(n * 37) % 997 + 3} KB`;

  row.append(avatar, text, badge);
  return row;
}

function matches(index) {
  return query === '' || titles[index].includes(query);
}

function updateCount() {
  let visible = 0;
  for (let i = 0; i < titles.length; i++) if (matches(i)) visible++;
  const text = `${visible} ${visible === 1 ? 'item' : 'items'}`;
  if (countEl.textContent !== text) countEl.textContent = text;
}

function appendRows(count) {
  const frag = document.createDocumentFragment();
  for (let k = 0; k < count; k++) {
    const n = ++lastNumber;
    const row = makeRow(n);
    titles.push(`item ${n}`);
    row.hidden = !matches(titles.length - 1);
    frag.append(row);
  }
  listEl.append(frag);
}

function applyFilter() {
  query = filterEl.value.trim().toLowerCase();
  const rows = listEl.children;
  for (let i = 0; i < rows.length; i++) {
    const hide = !matches(i);
    if (rows[i].hidden !== hide) rows[i].hidden = hide;
  }
  updateCount();
}

appendRows(INITIAL_ROWS);
updateCount();
filterEl.addEventListener('input', applyFilter);
addBtn.addEventListener('click', () => {
  appendRows(1);
  updateCount();
});

const level = jankLevelFromQuery();
if (level) {
  installJank(listEl, level);
  document.body.dataset.jank = String(level);
  const note = document.getElementById('jank-note');
  note.textContent = `Jank mode ${level}: each scroll frame thrashes layout and busy-waits ${JANK_MS_PER_LEVEL * level} ms.`;
  note.hidden = false;
}
markReady();
