import { markReady, toast } from './common.js';

const form = document.getElementById('profile-form');
const darkMode = document.getElementById('dark-mode');
const colorBox = document.getElementById('color');
const result = document.getElementById('result');
const options = [...colorBox.querySelectorAll('[role=option]')];

// Switch: a native <button>, so click, Enter and Space all arrive as "click".
darkMode.addEventListener('click', () => {
  const on = darkMode.getAttribute('aria-checked') !== 'true';
  darkMode.setAttribute('aria-checked', String(on));
  document.documentElement.classList.toggle('dark', on);
});

// Listbox (single select, selection follows focus): click or ArrowUp/ArrowDown/Home/End.
let activeIndex = -1;
function selectOption(index) {
  if (index < 0 || index >= options.length) return;
  activeIndex = index;
  options.forEach((opt, i) => {
    opt.setAttribute('aria-selected', String(i === index));
    opt.classList.toggle('active', i === index);
  });
  colorBox.setAttribute('aria-activedescendant', options[index].id);
  options[index].scrollIntoView({ block: 'nearest' });
}
colorBox.addEventListener('click', (event) => {
  const opt = event.target.closest('[role=option]');
  if (!opt) return;
  selectOption(options.indexOf(opt));
  colorBox.focus();
});
colorBox.addEventListener('keydown', (event) => {
  const last = options.length - 1;
  const moves = {
    ArrowDown: Math.min(activeIndex + 1, last),
    ArrowUp: activeIndex < 0 ? 0 : Math.max(activeIndex - 1, 0),
    Home: 0,
    End: last,
  };
  if (!(event.key in moves)) return;
  event.preventDefault();
  selectOption(moves[event.key]);
});

function values() {
  const data = new FormData(form);
  const age = form.elements.age.value;
  const color = options.find((o) => o.getAttribute('aria-selected') === 'true');
  return {
    name: data.get('name'),
    email: data.get('email'),
    age: age === '' ? null : Number(age),
    subscribe: form.elements.subscribe.checked,
    darkMode: darkMode.getAttribute('aria-checked') === 'true',
    country: data.get('country'),
    plan: data.get('plan'),
    color: color ? color.dataset.value : null,
  };
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  result.textContent = 'Submitted: ' + JSON.stringify(values());
  toast('Form submitted');
});

markReady();
