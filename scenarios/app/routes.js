// Client-side router over the History API: routes.html?page=<route>.
// <a href="?page=..."> links are real links (a crawler can read them) intercepted with pushState.
import { markReady } from './common.js';

const ROUTES = ['home', 'products', 'product-42', 'about'];
window.__routes = ROUTES.slice();

const link = (page, text) => `<a href="?page=${page}" data-route="${page}">${text}</a>`;
const backButton = '<button type="button" id="back" data-testid="back" data-action="back">Back</button>';

const VIEWS = {
  home: {
    title: 'Home',
    body: () => `<p>Welcome to the router demo. Browse the ${link('products', 'product catalogue')} or read ${link('about', 'about this demo')}.</p>`,
  },
  products: {
    title: 'Products',
    body: () => `<p>Our catalogue.</p>
      <ul aria-label="Product list">
        <li>${link('product-42', 'View product 42')}</li>
      </ul>`,
  },
  'product-42': {
    title: 'Product 42',
    body: () => `<p>The answer to everything, in a box.</p>
      <p id="price" data-testid="price">Price: 42.00 EUR</p>
      <p>${link('products', 'All products')}</p>`,
  },
  about: {
    title: 'About',
    body: () => `<p>Each view is rendered from <code>?page=</code>; popstate re-renders.</p><p>${link('home', 'Go home')}</p>`,
  },
};
const NOT_FOUND = { title: 'Not found', body: () => `<p>No such page. ${link('home', 'Go home')}</p>` };

function currentRoute() {
  return new URLSearchParams(location.search).get('page') || 'home';
}

function render({ focus = false } = {}) {
  const route = currentRoute();
  const view = VIEWS[route] || NOT_FOUND;
  const main = document.getElementById('view');
  main.dataset.route = route;
  main.innerHTML = `<h1 tabindex="-1">${view.title}</h1>${view.body()}<p>${backButton}</p>`;
  document.title = `${view.title} · rehearse demo`;
  for (const a of document.querySelectorAll('nav a[data-route]')) {
    if (a.dataset.route === route) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  if (focus) main.querySelector('h1').focus();
}

export function navigate(route) {
  const url = new URL(location.href);
  url.searchParams.set('page', route);
  if (url.href !== location.href) history.pushState({ route }, '', url);
  render({ focus: true });
}

document.addEventListener('click', (event) => {
  if (event.defaultPrevented || event.button !== 0) return;
  if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const back = event.target.closest('[data-action=back]');
  if (back) {
    history.back();
    return;
  }
  const a = event.target.closest('a[data-route]');
  if (!a) return;
  event.preventDefault();
  navigate(a.dataset.route);
});

window.addEventListener('popstate', () => render({ focus: true }));

render();
markReady();
