/**
 * Navigation in the real firefox-esr told by BiDi events (src/drivers/bidi/navigation.ts), not by reading
 * `location` in a loop: a hash navigation, a pushState link, a link to a new page, back and forward over each,
 * the URL and the text read after every step; the commands a step back sends are counted, so a return of the
 * polling (a script reading location.href until it changes) fails here. Then the same through the steps over MCP.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openFirefoxTab, startFirefoxSession, type FirefoxSession } from '../src/drivers/bidi/browser.js';
import { firefoxBinary } from '../src/drivers/bidi/firefox.js';
import type { BidiSocket } from '../src/drivers/bidi-socket.js';
import { firefoxPageDriver } from '../src/session/firefox-page.js';
import type { WebDriverPageDriver } from '../src/drivers/webdriver/page-driver.js';
import { stdioServer } from './mcp-client.js';

const NO_FIREFOX = firefoxBinary() ? false : 'Firefox not installed (apt-get install firefox-esr)';
const NAV_MS = 30_000;

/** One page per path: its path as text, a #sec link, a pushState button, a link to /b. */
function pageHtml(p: string): string {
  return (
    `<!doctype html><title>${p}</title><p id="t">${p}</p><a href="#sec">to sec</a> ` +
    `<button onclick="history.pushState({}, '', '/pushed'); document.getElementById('t').textContent = 'pushed'">push</button> ` +
    `<a href="/b">to b</a><h2 id="sec">sec</h2><div style="height: 3000px"></div>` +
    // The text follows the route when the history moves within the document (popstate), as a router's does.
    `<script>addEventListener('popstate', () => { document.getElementById('t').textContent = location.pathname === '/pushed' ` +
    `? 'pushed' : location.pathname; });</script>`
  );
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'rehearse-ff-nav-'));
const server = http.createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'text/html' }).end(pageHtml(new URL(req.url ?? '/', 'http://x').pathname));
});
let base = '';
before(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.close();
  fs.rmSync(work, { recursive: true, force: true });
});

/** The page's URL and its #t text. */
async function where(page: WebDriverPageDriver): Promise<[string, string]> {
  const r = await page.evaluate<{ href: string; text: string }>(
    `({ href: location.href, text: document.getElementById('t').textContent })`,
  );
  return [r.href.replace(base, ''), r.text];
}

/** Click the element `css` matches at its centre (scrolled into view), through Actions, as a tap does. */
async function click(page: WebDriverPageDriver, css: string): Promise<void> {
  const r = await page.evaluate<{ x: number; y: number }>(
    `(() => { const e = document.querySelector(${JSON.stringify(css)}); e.scrollIntoView({ block: 'center' }); ` +
      `const b = e.getBoundingClientRect(); ` +
      `return { x: b.x + b.width / 2, y: b.y + b.height / 2 }; })()`,
  );
  await page.input.click(r.x, r.y);
}

/** The BiDi methods sent on `socket` while `fn` runs (script calls named by what they read). */
async function commandsDuring<T>(socket: BidiSocket, fn: () => Promise<T>): Promise<{ value: T; sent: string[] }> {
  const sent: string[] = [];
  const send = socket.send.bind(socket);
  socket.send = ((method: string, params: Record<string, unknown>, timeoutMs?: number) => {
    const what = String(params.expression ?? params.functionDeclaration ?? '');
    sent.push(what ? `${method} ${what.replace(/\s+/g, ' ').slice(0, 80)}` : method);
    return send(method, params, timeoutMs);
  }) as typeof socket.send;
  try {
    return { value: await fn(), sent };
  } finally {
    socket.send = send;
  }
}

describe('navigation in Firefox over BiDi events', { skip: NO_FIREFOX, timeout: 600_000 }, () => {
  test('hash, pushState link, link to a new page, back and forward: the URL and text after each, no location polling', async () => {
    let session: FirefoxSession | undefined;
    try {
      session = await startFirefoxSession({ headless: true });
      const tab = await openFirefoxTab(session, { newUserContext: true });
      const page = await firefoxPageDriver(tab.client, { preload: true, firefoxPid: session.firefox.pid });
      const nav = page.navigation;

      assert.deepEqual(await nav.navigate(`${base}/a`, NAV_MS), { url: `${base}/a`, newDocument: true });
      assert.deepEqual(await where(page), ['/a', '/a']);
      // The hash: fragmentNavigated with the navigate's own id says the document stayed.
      assert.deepEqual(await nav.navigate(`${base}/a#sec`, NAV_MS), { url: `${base}/a#sec`, newDocument: false });
      assert.deepEqual(await where(page), ['/a#sec', '/a']);

      // The pushState button: historyUpdated, a same-document route, no new document requested.
      const pushWatch = nav.watch();
      await click(page, 'button');
      await page.evaluate('new Promise((r) => requestAnimationFrame(r))');
      assert.deepEqual([pushWatch.requested, pushWatch.sameDocument], [undefined, true]);
      pushWatch.stop();
      assert.deepEqual(await where(page), ['/pushed', 'pushed']);

      // The link to /b: navigationStarted names it, load follows.
      const linkWatch = nav.watch();
      await click(page, 'a[href="/b"]');
      const loadedBy = Date.now() + NAV_MS;
      while (!linkWatch.loaded && Date.now() < loadedBy) await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual([linkWatch.requested, linkWatch.sameDocument, linkWatch.loaded], [`${base}/b`, false, true]);
      linkWatch.stop();
      assert.deepEqual(await where(page), ['/b', '/b']);

      const socket = tab.client.socket;
      const back1 = await commandsDuring(socket, () => nav.back(NAV_MS));
      assert.deepEqual(back1.value, { status: 'committed', kind: 'new-document', loaded: true });
      assert.deepEqual(await where(page), ['/pushed', 'pushed']);
      // One traverseHistory, then at most one readyState read (a page from the back/forward cache fires no load).
      assert.equal(back1.sent[0], 'browsingContext.traverseHistory', back1.sent.join('\n'));
      assert.ok(back1.sent.length <= 2, back1.sent.join('\n'));
      assert.ok(!back1.sent.some((s) => /location/.test(s)), back1.sent.join('\n'));

      const back2 = await commandsDuring(socket, () => nav.back(NAV_MS));
      assert.deepEqual(back2.value, { status: 'committed', kind: 'same-document' });
      assert.deepEqual(back2.sent, ['browsingContext.traverseHistory']);
      assert.deepEqual(await where(page), ['/a#sec', '/a']);
      assert.deepEqual(await nav.back(NAV_MS), { status: 'committed', kind: 'same-document' });
      assert.deepEqual(await where(page), ['/a', '/a']);

      const forward = tab.client.navigationEvents;
      assert.deepEqual(await forward.traverse(1, NAV_MS), { status: 'committed', kind: 'same-document' });
      assert.deepEqual(await where(page), ['/a#sec', '/a']);
      assert.deepEqual(await forward.traverse(1, NAV_MS), { status: 'committed', kind: 'same-document' });
      assert.deepEqual(await where(page), ['/pushed', 'pushed']);
      assert.deepEqual(await forward.traverse(1, NAV_MS), { status: 'committed', kind: 'new-document', loaded: true });
      assert.deepEqual(await where(page), ['/b', '/b']);
      assert.deepEqual(await forward.traverse(1, NAV_MS), { status: 'no_history' });

      // Back to the first entry (/a replaced the new tab's initial about:blank): one more back is the history's start.
      for (const at of ['/pushed', '/a#sec', '/a']) {
        assert.equal((await nav.back(NAV_MS)).status, 'committed');
        assert.equal((await where(page))[0], at);
      }
      assert.deepEqual(await nav.back(NAV_MS), { status: 'no_history' });
      assert.deepEqual(await where(page), ['/a', '/a']);
      await tab.close();
    } finally {
      await session?.close();
    }
  });

  test('over MCP: navigate #sec, tap the pushState button, tap the link, navigate_back twice', { timeout: 180_000 }, async () => {
    const app = path.join(work, 'app');
    fs.mkdirSync(app, { recursive: true });
    for (const p of ['/a', '/b'])
      fs.writeFileSync(path.join(app, `${p.slice(1)}.html`), pageHtml(p).replace('href="/b"', 'href="/b.html"'));
    const mcp = await stdioServer(work, { name: 'ff-nav-test', args: ['--caps', 'core,navigation-extra'], callTimeoutMs: 90_000 });
    try {
      const start = await mcp.call('app_start', { serve: 'app', path: '/a.html', engine: 'firefox' });
      assert.equal(start.isError, false, start.text);
      const data = <T>(r: { json: unknown }): T => (r.json as { data: T }).data;

      const hash = await mcp.call('navigate', { url: '#sec' });
      assert.equal(hash.isError, false, hash.text);
      assert.deepEqual(
        [data<{ url: string }>(hash).url.endsWith('/a.html#sec'), data<{ newDocument: boolean }>(hash).newDocument],
        [true, false],
      );
      const push = await mcp.call('tap', { target: { role: 'button', name: 'push' } });
      assert.equal(push.isError, false, push.text);
      const link = await mcp.call('tap', { target: { role: 'link', name: 'to b' } });
      assert.equal(link.isError, false, link.text);
      // The tap waited for the page it started (navigationStarted, then load) and says so.
      assert.match(link.text, /b\.html/);

      const back1 = await mcp.call('navigate_back', {});
      assert.equal(back1.isError, false, back1.text);
      const b1 = data<{ url: string; sameDocument: boolean }>(back1);
      assert.deepEqual([new URL(b1.url).pathname, b1.sameDocument], ['/pushed', false]);
      const back2 = await mcp.call('navigate_back', {});
      assert.equal(back2.isError, false, back2.text);
      const b2 = data<{ url: string }>(back2);
      assert.equal(new URL(b2.url).pathname + new URL(b2.url).hash, '/a.html#sec');
    } finally {
      await mcp.call('app_stop', {}).catch(() => undefined);
      await mcp.close();
    }
  });
});
