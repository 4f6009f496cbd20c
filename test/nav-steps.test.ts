import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runStep, type StepResult } from '../src/engine/run-step.js';
import type { StepHost } from '../src/steps/define.js';
import { fresh, sharedBrowser } from './helpers.js';

/** The data of a successful step (fails the test with the step's error otherwise). */
async function ok(host: StepHost, name: string, args: unknown): Promise<Record<string, any>> {
  const r = await runStep(host, name, args);
  assert.equal(r.status, 'ok', `${name} failed: ${JSON.stringify(r.status === 'ok' ? '' : r.error)}`);
  return (r as Extract<StepResult, { status: 'ok' }>).data ?? {};
}

async function demo(path: string) {
  const { demo } = await sharedBrowser();
  return fresh(`${demo.url}${path}`);
}

async function h1(host: StepHost): Promise<string> {
  return (await host.page()).evaluate<string>("document.querySelector('h1').textContent");
}

test('navigate: a path resolves against the app URL; exactPath is read back after load', async () => {
  const { host } = await demo('/index.html');
  const d = await ok(host, 'navigate', { url: '/form.html' });
  assert.equal(d.navigated, true);
  assert.equal(new URL(d.url).pathname, '/form.html');
  assert.equal(d.exactPath, true);
  assert.equal(d.newDocument, true);
  assert.equal(await h1(host), 'Form');
});

test('navigate: a page whose router rewrites the path comes back exactPath: false with the real url', async () => {
  const { fixtures } = await sharedBrowser();
  const { host } = await fresh(`${fixtures.url}/steps-delayed.html`);
  const d = await ok(host, 'navigate', { url: '/steps-rewrite.html?from=test' });
  assert.equal(d.navigated, true);
  assert.equal(d.exactPath, false);
  assert.equal(new URL(d.url).pathname, '/rewritten/home');
  assert.equal(new URL(d.requested).pathname, '/steps-rewrite.html');
});

test('navigate: "?page=products" stays on the router page; navigate_back returns to Home', async () => {
  const { host } = await demo('/routes.html');
  const d = await ok(host, 'navigate', { url: '?page=products' });
  assert.equal(new URL(d.url).pathname, '/routes.html');
  assert.equal(new URL(d.url).search, '?page=products');
  assert.equal(d.exactPath, true);
  assert.equal(await h1(host), 'Products');
  const back = await ok(host, 'navigate_back', {});
  assert.equal(new URL(back.url).search, '');
  assert.equal(await h1(host), 'Home');
});

test('navigate_back: a pushState route goes back within the document (popstate re-renders)', async () => {
  const { host } = await demo('/routes.html');
  const page = await host.page();
  await page.evaluate("document.querySelector('a[data-route=about]').click()");
  assert.equal(await h1(host), 'About');
  const back = await ok(host, 'navigate_back', {});
  assert.equal(back.sameDocument, true);
  assert.equal(new URL(back.url).search, '');
  assert.equal(await h1(host), 'Home');
});

test('navigate: a hash is a same-document navigation, read back from location', async () => {
  const { host } = await demo('/form.html');
  const d = await ok(host, 'navigate', { url: '#plan' });
  assert.equal(d.newDocument, false);
  assert.equal(d.navigated, true);
  assert.equal(new URL(d.url).hash, '#plan');
  assert.equal(new URL(d.url).pathname, '/form.html');
});

test('navigate_back: at the start of history fails with no_history', async () => {
  const { session } = await sharedBrowser();
  await session.restart('context');
  const { SessionHost } = await import('../src/engine/host.js');
  const host = new SessionHost(session, 'http://127.0.0.1:1');
  const r = await runStep(host, 'navigate_back', {});
  assert.equal(r.status, 'failed');
  assert.equal(r.status === 'failed' && r.error.code, 'no_history');
});

test('reload: returns the url and the page starts over (in-page state gone)', async () => {
  const { host } = await demo('/routes.html');
  await ok(host, 'navigate', { url: '?page=about' });
  const page = await host.page();
  await page.evaluate('window.__marker = 1');
  const d = await ok(host, 'reload', {});
  assert.equal(new URL(d.url).search, '?page=about');
  assert.equal(await page.evaluate('window.__marker ?? null'), null);
  assert.equal(await h1(host), 'About');
});

test('get_routes: the app routes (window.__routes) paired with their links, plus other links', async () => {
  const { host } = await demo('/routes.html');
  const d = await ok(host, 'get_routes', {});
  assert.equal(d.source, 'window.__routes+links');
  const app = d.routes.filter((r: any) => r.source === 'app');
  assert.deepEqual(
    app.map((r: any) => [r.name, r.path, r.text]),
    [
      ['home', '/routes.html?page=home', 'Home'],
      ['products', '/routes.html?page=products', 'Products'],
      ['product-42', '/routes.html?page=product-42', 'Product 42'],
      ['about', '/routes.html?page=about', 'About'],
    ],
  );
  assert.ok(d.routes.some((r: any) => r.source === 'link' && r.path === '/index.html' && r.text === 'All pages'));
  // Deduplicated: the in-view "product catalogue" link points at an app route already listed.
  assert.equal(new Set(d.routes.map((r: any) => r.path)).size, d.routes.length);
});

test('get_routes: without window.__routes the same-origin links are the routes', async () => {
  const { host } = await demo('/index.html');
  const d = await ok(host, 'get_routes', {});
  assert.equal(d.source, 'links');
  assert.deepEqual(
    d.routes.map((r: any) => r.path),
    ['/list.html', '/grid.html', '/form.html', '/dialog.html', '/routes.html', '/frames.html'],
  );
});

test('navigate: a non-http URL is refused as usage', async () => {
  const { host } = await demo('/index.html');
  const r = await runStep(host, 'navigate', { url: 'file:///etc/passwd' });
  assert.equal(r.status, 'failed');
  assert.equal(r.status === 'failed' && r.error.code, 'unsupported_url');
});
