import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { Browser } from '../src/drivers/cdp/browser.js';
import { cdpPageDriver } from '../src/drivers/cdp/page-driver.js';
import { SessionHost } from '../src/engine/host.js';
import { runStep, type StepResult } from '../src/engine/run-step.js';
import type { StepHost } from '../src/steps/define.js';
import { getStep } from '../src/steps/registry.js';
import { fresh, onPortBrowser, sharedBrowser } from './helpers.js';

const shared = await sharedBrowser();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rehearse-read-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

type Ok = Extract<StepResult, { status: 'ok' }>;
async function run(host: StepHost, name: string, args: unknown): Promise<Ok> {
  const r = await runStep(host, name, args);
  assert.equal(r.status, 'ok', `${name} failed: ${JSON.stringify(r.status === 'ok' ? '' : r.error)}`);
  return r as Ok;
}
async function ok(host: StepHost, name: string, args: unknown): Promise<Record<string, any>> {
  return (await run(host, name, args)).data ?? {};
}
async function failed(host: StepHost, name: string, args: unknown): Promise<{ kind: string; code: string; message: string }> {
  const r = await runStep(host, name, args);
  assert.equal(r.status, 'failed', `${name} should have failed`);
  return (r as Extract<StepResult, { status: 'failed' }>).error;
}

/** A page of the fixtures, opened through the navigate step so the capture runtime is there from document start. */
async function fixture(file: string): Promise<SessionHost> {
  const { host } = await fresh('about:blank', shared.fixtures.url);
  host.cwd = tmp;
  await ok(host, 'navigate', { url: `/${file}` });
  return host;
}

function pngSize(b64: string): { width: number; height: number } {
  const buf = Buffer.from(b64, 'base64');
  assert.deepEqual([...buf.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'PNG signature');
  assert.equal(buf.toString('ascii', 12, 16), 'IHDR');
  return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
}

// ---- wait_for ----

test('wait_for: a text that appears after a timer matches, waitedMs > 0', async () => {
  const host = await fixture('steps-delayed.html');
  const d = await ok(host, 'wait_for', { text: 'Data arrived' });
  assert.equal(d.matched, true);
  assert.ok(d.waitedMs > 0, `waitedMs ${d.waitedMs}`);
});

test('wait_for: textGone matches once the text left the page', async () => {
  const host = await fixture('steps-delayed.html');
  const d = await ok(host, 'wait_for', { textGone: 'Loading data' });
  assert.equal(d.matched, true);
  assert.equal(await (await host.page()).evaluate('document.getElementById("status")'), null);
});

test('wait_for: a text that never appears is a failure naming the unmet condition', async () => {
  const host = await fixture('steps-delayed.html');
  const e = await failed(host, 'wait_for', { text: 'Never shown anywhere', timeoutMs: 400 });
  assert.deepEqual([e.kind, e.code], ['failed', 'wait_timeout']);
  assert.match(e.message, /^wait_for: after \d+ ms "Never shown anywhere" is not visible$/);
});

test('wait_for: sees text inside an open shadow root and a same-origin iframe', async () => {
  const { host } = await fresh(`${shared.demo.url}/frames.html`);
  const page = await host.page();
  await page.evaluate("document.getElementById('shadow-host').shadowRoot.getElementById('shadow-button').click()");
  assert.equal((await ok(host, 'wait_for', { text: 'Shadow clicks: 1', timeoutMs: 2000 })).matched, true);
  assert.equal((await ok(host, 'wait_for', { text: 'Child frame', timeoutMs: 2000 })).matched, true);
});

test('wait_for: neither text nor textGone is a usage error', async () => {
  const host = await fixture('steps-delayed.html');
  const e = await failed(host, 'wait_for', {});
  assert.equal(e.kind, 'usage');
});

// ---- console / exceptions ----

test('console: level filter, newest first, formatted like the console', async () => {
  const host = await fixture('steps-console.html');
  const errors = await ok(host, 'console', { level: 'error' });
  assert.deepEqual(
    errors.messages.map((m: any) => m.text),
    ['second error', 'first error {"code":42}'],
  );
  assert.ok(errors.messages.every((m: any) => m.level === 'error' && typeof m.time === 'number' && m.url.endsWith('/steps-console.html')));
  const warn = await ok(host, 'console', { level: 'warn' });
  assert.equal(warn.messages[0].text, 'careful: disk is 93');
  const latest = await ok(host, 'console', { limit: 2 });
  assert.deepEqual(
    latest.messages.map((m: any) => m.level),
    ['error', 'debug'],
  );
  assert.equal(latest.matched, 6);
});

test('console: a second CDP connection to the same page reads what was logged before it attached', async () => {
  await onPortBrowser(shared.fixtures.url, async (host, session) => {
    await ok(host, 'navigate', { url: '/steps-console.html' });
    const page = await host.page();
    await page.evaluate("console.info('logged before the second connection')");
    const second = await Browser.connect(session.browser.wsEndpoint!);
    try {
      const page2 = await second.attach(session.page.targetId);
      const host2 = new SessionHost({ driver: cdpPageDriver(page2) }, shared.fixtures.url);
      const d = await ok(host2, 'console', { level: 'info' });
      assert.deepEqual(
        d.messages.map((m: any) => m.text),
        ['logged before the second connection', 'an info'],
      );
    } finally {
      await second.disconnect();
    }
  });
});

test('console: since drops older messages', async () => {
  const host = await fixture('steps-console.html');
  const page = await host.page();
  const since = Date.now() + 1;
  await new Promise((r) => setTimeout(r, 5));
  await page.evaluate("console.log('after the mark')");
  const d = await ok(host, 'console', { since });
  assert.deepEqual(
    d.messages.map((m: any) => m.text),
    ['after the mark'],
  );
});

test('console: the in-page buffer is bounded (last 500 kept, the rest counted as dropped)', async () => {
  const host = await fixture('steps-delayed.html');
  await (await host.page()).evaluate("for (let i = 0; i < 600; i++) console.log('line ' + i)");
  const d = await ok(host, 'console', { limit: 1 });
  assert.equal(d.matched, 500);
  assert.equal(d.dropped, 100);
  assert.equal(d.messages[0].text, 'line 599');
});

test('exceptions: an error thrown in a timer and an unhandled rejection, newest first; clear empties', async () => {
  const host = await fixture('steps-console.html');
  let d: Record<string, any> = {};
  for (let i = 0; i < 40; i++) {
    d = await ok(host, 'exceptions', {});
    if (d.exceptions.length >= 2) break;
    await new Promise((r) => setTimeout(r, 25));
  }
  const byKind = Object.fromEntries(d.exceptions.map((e: any) => [e.kind, e]));
  assert.equal(byKind.error.message, 'TypeError: boom in timeout');
  assert.match(byKind.error.stack, /^TypeError: boom in timeout\n\s+at /);
  assert.ok(byKind.error.stack.split('\n').length <= 5);
  assert.equal(byKind.unhandledrejection.message, 'Error: nobody caught me');
  assert.ok(d.exceptions[0].time >= d.exceptions[1].time, 'newest first');
  const cleared = await ok(host, 'exceptions', { clear: true });
  assert.equal(cleared.cleared, 2);
  assert.equal((await ok(host, 'exceptions', {})).exceptions.length, 0);
  await (await host.page()).evaluate("setTimeout(() => { throw new Error('later one') }, 0); new Promise((r) => setTimeout(r, 30))");
  assert.deepEqual(
    (await ok(host, 'exceptions', {})).exceptions.map((e: any) => e.message),
    ['Error: later one'],
  );
});

// ---- evaluate ----

test('evaluate: returns JSON values, awaits promises and top-level await', async () => {
  const host = await fixture('steps-delayed.html');
  assert.equal((await ok(host, 'evaluate', { expression: '6 * 7' })).value, 42);
  assert.deepEqual((await ok(host, 'evaluate', { expression: "({ a: [1, 'x'], b: null })" })).value, { a: [1, 'x'], b: null });
  assert.equal((await ok(host, 'evaluate', { expression: "Promise.resolve('later')" })).value, 'later');
  assert.equal((await ok(host, 'evaluate', { expression: 'await new Promise((r) => setTimeout(() => r(5), 10))' })).value, 5);
  const node = await ok(host, 'evaluate', { expression: 'document.body' });
  assert.equal(node.type, 'node');
  assert.equal(node.description, 'body');
  assert.equal(getStep('evaluate').readOnly, false);
});

test('evaluate: a throw is a failed result with code evaluate_failed and the message', async () => {
  const host = await fixture('steps-delayed.html');
  const e = await failed(host, 'evaluate', { expression: "(() => { throw new RangeError('nope, out of range') })()" });
  assert.equal(e.code, 'evaluate_failed');
  assert.equal(e.kind, 'failed');
  assert.match(e.message, /RangeError: nope, out of range/);
  const rejected = await failed(host, 'evaluate', { expression: "Promise.reject(new Error('refused later'))" });
  assert.equal(rejected.code, 'evaluate_failed');
  assert.match(rejected.message, /refused later/);
});

test('evaluate: an endless loop is stopped at timeoutMs and the page stays usable', async () => {
  const host = await fixture('steps-delayed.html');
  const e = await failed(host, 'evaluate', { expression: 'while (true) {}', timeoutMs: 500 });
  assert.equal(e.code, 'timeout');
  assert.match(e.message, /still running after 500 ms/);
  assert.equal(
    (await ok(host, 'evaluate', { expression: 'await new Promise((r) => setTimeout(() => r(document.title), 700))', timeoutMs: 3000 }))
      .value,
    'Delayed text',
  );
});

// ---- screenshot ----

test('screenshot: a viewport PNG is viewport × dpr pixels', async () => {
  const host = await fixture('steps-delayed.html');
  const v = await ok(host, 'resize_viewport', { width: 400, height: 300, dpr: 2 });
  assert.equal(v.verified, true);
  const r = await run(host, 'screenshot', {});
  assert.equal(r.image?.mimeType, 'image/png');
  assert.deepEqual(pngSize(r.image!.base64), { width: 800, height: 600 });
  assert.equal(r.data?.width, 800);
  assert.equal(r.data?.bytes, Buffer.from(r.image!.base64, 'base64').length);
});

test('screenshot: jpeg with quality', async () => {
  const host = await fixture('steps-delayed.html');
  const page = await host.page();
  const { w, h } = await page.evaluate<{ w: number; h: number }>('({ w: innerWidth, h: innerHeight })');
  const r = await run(host, 'screenshot', { format: 'jpeg', quality: 50 });
  assert.equal(r.image?.mimeType, 'image/jpeg');
  const buf = Buffer.from(r.image!.base64, 'base64');
  assert.deepEqual([buf[0], buf[1]], [0xff, 0xd8]);
  assert.deepEqual([r.data?.width, r.data?.height], [w, h]);
});

test('screenshot: fullPage captures the whole document height', async () => {
  const { host } = await fresh(`${shared.demo.url}/form.html`);
  await ok(host, 'resize_viewport', { width: 500, height: 300 });
  const page = await host.page();
  const docHeight = await page.evaluate<number>('document.documentElement.scrollHeight');
  assert.ok(docHeight > 300);
  const r = await run(host, 'screenshot', { fullPage: true });
  const size = pngSize(r.image!.base64);
  assert.equal(size.height, docHeight);
});

test('screenshot: rect without ref or target is a usage error rect_without_ref', async () => {
  const host = await fixture('steps-delayed.html');
  const e = await failed(host, 'screenshot', { rect: { x: 0, y: 0, width: 10, height: 10 } });
  assert.equal(e.code, 'rect_without_ref');
  assert.equal(e.kind, 'usage');
});

test('screenshot: an element target clips to its box; rect is relative to it', async (t) => {
  const host = await fixture('steps-delayed.html');
  const page = await host.page();
  const box = await page.evaluate<{ width: number; height: number }>(
    "(() => { const r = document.querySelector('h1').getBoundingClientRect(); return { width: r.width, height: r.height }; })()",
  );
  const r = await runStep(host, 'screenshot', { target: { css: 'h1' } });
  if (r.status === 'failed' && r.error.code === 'not_implemented') return t.skip('elementBox (src/engine/targets.ts) not implemented yet');
  assert.equal(r.status, 'ok');
  const size = pngSize((r as Ok).image!.base64);
  assert.deepEqual(size, { width: Math.round(box.width), height: Math.round(box.height) });
  const part = await run(host, 'screenshot', { target: { css: 'h1' }, rect: { x: 2, y: 3, width: 20, height: 10 } });
  assert.deepEqual(pngSize(part.image!.base64), { width: 20, height: 10 });
});

test('screenshot: the element clip follows the page scroll (same pixels whatever the scroll position)', async () => {
  const { host } = await fresh(`${shared.demo.url}/form.html`);
  await ok(host, 'resize_viewport', { width: 500, height: 300 });
  const page = await host.page();
  await page.evaluate('scrollTo(0, 0)');
  const top = await run(host, 'screenshot', { target: { css: '#name' } });
  await page.evaluate('scrollTo(0, 40)');
  const bottom = await run(host, 'screenshot', { target: { css: '#name' } });
  assert.equal(await page.evaluate<number>('scrollY'), 40, 'the second capture ran scrolled');
  assert.equal(bottom.image!.base64, top.image!.base64);
  const { width } = await page.evaluate<{ width: number }>("document.getElementById('name').getBoundingClientRect().toJSON()");
  assert.equal(pngSize(bottom.image!.base64).width, Math.round(width));
});

test('screenshot: path writes inside the working folder, refuses overwrite and escapes', async () => {
  const host = await fixture('steps-delayed.html');
  const r = await run(host, 'screenshot', { path: 'shots/page.png' });
  const file = path.join(tmp, 'shots', 'page.png');
  assert.equal(r.data?.path, path.join('shots', 'page.png'));
  assert.deepEqual(fs.readFileSync(file), Buffer.from(r.image!.base64, 'base64'));
  assert.equal((await failed(host, 'screenshot', { path: 'shots/page.png' })).code, 'file_exists');
  await run(host, 'screenshot', { path: 'shots/page.png', overwrite: true });
  const out = await failed(host, 'screenshot', { path: '../outside.png' });
  assert.equal(out.code, 'path_outside_workdir');
  assert.equal(out.kind, 'usage');
  assert.equal((await failed(host, 'screenshot', { path: '/tmp/abs.png' })).code, 'path_outside_workdir');
  const jpg = await run(host, 'screenshot', { path: 'shots/page.jpg' });
  assert.equal(jpg.image?.mimeType, 'image/jpeg');
});

test('screenshot: never through a symlink at the target, a symlinked folder leading out, or a file with other hard links', async () => {
  const host = await fixture('steps-delayed.html');
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'rehearse-victim-'));
  const victim = path.join(outside, 'victim.txt');
  fs.writeFileSync(victim, 'keep me');
  fs.mkdirSync(path.join(tmp, 'links'), { recursive: true });
  fs.symlinkSync(victim, path.join(tmp, 'links', 'shot.png'));
  assert.equal((await failed(host, 'screenshot', { path: 'links/shot.png', overwrite: true })).code, 'path_is_symlink');
  fs.symlinkSync(outside, path.join(tmp, 'links', 'out'));
  assert.equal((await failed(host, 'screenshot', { path: 'links/out/new/shot.png' })).code, 'path_outside_workdir');
  assert.equal(fs.existsSync(path.join(outside, 'new')), false, 'no folder created outside');
  fs.linkSync(victim, path.join(tmp, 'links', 'hard.png'));
  assert.equal((await failed(host, 'screenshot', { path: 'links/hard.png', overwrite: true })).code, 'path_is_hardlink');
  assert.equal(fs.readFileSync(victim, 'utf8'), 'keep me');
  fs.rmSync(outside, { recursive: true, force: true });
});

// ---- wait_for_network_idle ----

/** A server whose /slow?ms=N answers after N ms (CORS open: the fixture page is on another port). */
async function slowServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const open = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    const ms = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('ms') ?? 0);
    open.add(res);
    const timer = setTimeout(() => {
      open.delete(res);
      res.writeHead(200, { 'content-type': 'text/plain', 'access-control-allow-origin': '*' }).end(`slow answer after ${ms} ms`);
    }, ms);
    res.on('close', () => clearTimeout(timer));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      for (const res of open) res.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

test('wait_for_network_idle: waits for a slow fetch started at load, then reports idle', async () => {
  const slow = await slowServer();
  try {
    const host = await fixture(`steps-network.html?slow=${encodeURIComponent(`${slow.url}/slow?ms=700`)}`);
    const d = await ok(host, 'wait_for_network_idle', { idleMs: 200 });
    assert.equal(d.idle, true);
    // Idle only once the slow answer came (how long that took from the step's start is a timing: not asserted).
    assert.equal(await (await host.page()).evaluate("document.getElementById('out').textContent"), 'slow answer after 700 ms');
  } finally {
    await slow.close();
  }
});

test('wait_for_network_idle: a request that outlasts the timeout → idle:false listing it', async () => {
  const slow = await slowServer();
  try {
    const host = await fixture(`steps-network.html?slow=${encodeURIComponent(`${slow.url}/slow?ms=10000`)}`);
    const r = await run(host, 'wait_for_network_idle', { idleMs: 200, timeoutMs: 800 });
    assert.equal(r.data?.idle, false);
    assert.deepEqual(r.data?.inFlight, [`${slow.url}/slow?ms=10000`]);
  } finally {
    await slow.close();
  }
});

test('wait_for_network_idle: requests seen through the Network domain count too (ignore skips them)', async () => {
  const slow = await slowServer();
  try {
    const host = await fixture('steps-network.html');
    await ok(host, 'wait_for_network_idle', { idleMs: 0 });
    // An <img> is not fetch/XHR: only the Network domain sees it.
    await (
      await host.page()
    ).evaluate(
      `(() => { const i = new Image(); i.src = ${JSON.stringify(`${slow.url}/slow?ms=10000&img=1`)}; document.body.append(i); })()`,
    );
    const busy = await ok(host, 'wait_for_network_idle', { idleMs: 100, timeoutMs: 600 });
    assert.equal(busy.idle, false);
    assert.deepEqual(busy.inFlight, [`${slow.url}/slow?ms=10000&img=1`]);
    const ignored = await ok(host, 'wait_for_network_idle', { idleMs: 100, timeoutMs: 600, ignore: ['img=1'] });
    assert.equal(ignored.idle, true);
  } finally {
    await slow.close();
  }
});

test('wait_for_network_idle on a host that watches the network: the page keeps its own fetch, a fetch at document start is waited for', async () => {
  const slow = await slowServer();
  try {
    const { session } = await sharedBrowser();
    await session.restart('context');
    // A run or an MCP server: the browser sees every request from before the document, so the page is not wrapped.
    const host = new SessionHost(session, shared.fixtures.url, tmp, { watchNetwork: true });
    await ok(host, 'navigate', { url: `/steps-network.html?slow=${encodeURIComponent(`${slow.url}/slow?ms=700`)}` });
    const page = await host.page();
    // Function.prototype.toString sees through the counter's toString disguise: the inline script's fetch was native.
    assert.match(await page.evaluate<string>('Function.prototype.toString.call(fetch)'), /\[native code\]/);
    assert.deepEqual(await page.capture.pendingRequests(), [], 'the in-page counter stood down');
    const d = await ok(host, 'wait_for_network_idle', { idleMs: 200 });
    assert.equal(d.idle, true);
    assert.equal(await page.evaluate("document.getElementById('out').textContent"), 'slow answer after 700 ms');

    // A document a connection that leaves loaded (a CLI verb) counts in the page; a watching host that comes later
    // puts back the native fetch and keeps counting what the counter had started.
    await session.restart('context');
    const verb = new SessionHost(session, shared.fixtures.url, tmp);
    await ok(verb, 'navigate', { url: `/steps-network.html?slow=${encodeURIComponent(`${slow.url}/slow?ms=1500`)}` });
    const wrapped = await verb.page();
    assert.doesNotMatch(await wrapped.evaluate<string>('Function.prototype.toString.call(fetch)'), /\[native code\]/);
    assert.equal((await wrapped.capture.pendingRequests()).length, 1);
    const later = new SessionHost(session, shared.fixtures.url, tmp, { watchNetwork: true });
    await later.page();
    assert.match(await wrapped.evaluate<string>('Function.prototype.toString.call(fetch)'), /\[native code\]/);
    assert.match(await wrapped.evaluate<string>('Function.prototype.toString.call(XMLHttpRequest.prototype.send)'), /\[native code\]/);
    const waited = await ok(later, 'wait_for_network_idle', { idleMs: 200 });
    assert.equal(waited.idle, true);
    assert.equal(await wrapped.evaluate("document.getElementById('out').textContent"), 'slow answer after 1500 ms');
  } finally {
    await slow.close();
  }
});

test('arguments are validated once per door: runStep checks raw arguments, and trusts those a door marks validated', async () => {
  const host = new SessionHost(undefined, undefined, tmp);
  // device_profile needs no page: only argument checking can make it fail here.
  const raw = await runStep(host, 'device_profile', { list: true, bogus: 1 });
  assert.equal(raw.status, 'failed');
  assert.equal((raw as Extract<StepResult, { status: 'failed' }>).error.code, 'invalid_arguments');
  const trusted = await runStep(host, 'device_profile', { list: true, bogus: 1 }, { validated: true });
  assert.equal(trusted.status, 'ok', JSON.stringify(trusted));
});
