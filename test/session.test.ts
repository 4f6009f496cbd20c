import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { BrowserSession, type RemoteChrome, type RemoteConnector } from '../src/drivers/cdp/session.js';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { findChrome, launchChrome, sweepStaleProfiles, type LaunchOptions } from '../src/drivers/cdp/chrome.js';
import { isAlive, sleep } from '../src/processes.js';
import { serveStatic } from '../src/session/static-server.js';
import { PerfError } from '../src/errors.js';
import type { Page } from '../src/drivers/cdp/browser.js';
import { FIXTURES_DIR, ROOT, sharedBrowser } from './helpers.js';

async function waitGone(pid: number, timeoutMs = 8000): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (!isAlive(pid)) return true;
    await sleep(50);
  }
  return !isAlive(pid);
}

test('launch + connect: the browser answers with its version and evaluates in the page', async () => {
  const { session } = await sharedBrowser();
  assert.match(session.browser.version.product, /^(Headless)?Chrome\/\d+/);
  await session.restart('context');
  assert.equal(await session.page.evaluate<number>('6 * 7'), 42);
});

test('a context restart starts the page only: no browser UI targets (omnibox popups) beside it', async () => {
  const { session } = await sharedBrowser();
  const page = await session.restart('context');
  await session.settle();
  const { targetInfos } = await session.browser.conn.send('Target.getTargets', {});
  const inContext = targetInfos.filter((t) => t.browserContextId === page.browserContextId);
  assert.deepEqual(
    inContext.map((t) => t.type),
    ['page'],
  );
  assert.deepEqual(
    targetInfos.filter((t) => t.type === 'browser_ui').map((t) => t.url),
    [],
  );
});

test('restartOpen: the new page sees what prepare set before its first document ran', async () => {
  const { session, demo } = await sharedBrowser();
  const prepare = (p: Page): Promise<unknown> =>
    Promise.all([
      p.send('Page.addScriptToEvaluateOnNewDocument', { source: 'window.__preparedAt = document.readyState' }),
      p.send('Emulation.setDeviceMetricsOverride', { width: 613, height: 500, deviceScaleFactor: 1, mobile: false }),
    ]);
  const page = await session.restartOpen('context', { url: `${demo.url}/list.html`, prepare });
  assert.deepEqual(await page.evaluate('[window.__preparedAt, innerWidth, location.pathname]'), ['loading', 613, '/list.html']);
});

test('restartOpen: a slow set-up still lands before the first document, which then loads', async () => {
  const { session, demo } = await sharedBrowser();
  // A screenshot of a page still booting is answered only after its document commits: a document
  // that did not wait for the set-up would miss the init script sent after it.
  const prepare = async (p: Page): Promise<void> => {
    await p.send('Page.captureScreenshot', {});
    await p.send('Page.addScriptToEvaluateOnNewDocument', { source: 'window.__preparedAt = document.readyState' });
  };
  const page = await session.restartOpen('context', { url: `${demo.url}/list.html`, prepare });
  assert.deepEqual(await page.evaluate('[window.__preparedAt, document.readyState, location.pathname]'), [
    'loading',
    'complete',
    '/list.html',
  ]);
});

test("restartOpen: an unreachable app is a navigation_failed error with Chrome's reason", async () => {
  const { session } = await sharedBrowser();
  await assert.rejects(
    session.restartOpen('context', { url: 'http://127.0.0.1:9/', prepare: async () => undefined }),
    (e: PerfError) => e.code === 'navigation_failed' && /net::ERR_/.test(e.message),
  );
  assert.equal(await (await session.restart('context')).evaluate<number>('6 * 7'), 42);
});

async function writeStorageThenRestart(
  mode: 'reload' | 'context' | 'browser',
): Promise<{ storage: string | null; windowFlag: unknown; title: string }> {
  const { session, demo } = await sharedBrowser();
  await session.restart('context');
  await session.page.navigate(`${demo.url}/list.html`);
  await session.page.evaluate("localStorage.setItem('k', 'v'); window.__flag = 1; document.title = 'dirty'");
  const page = await session.restart(mode, `${demo.url}/list.html`);
  if (mode !== 'reload') await page.navigate(`${demo.url}/list.html`);
  return page.evaluate("({ storage: localStorage.getItem('k'), windowFlag: window.__flag ?? null, title: document.title })");
}

test('restart context: localStorage written before is gone', async () => {
  const r = await writeStorageThenRestart('context');
  assert.equal(r.storage, null);
  assert.equal(r.windowFlag, null);
});

test('restart browser: localStorage written before is gone, and Chrome is a new process', async () => {
  const { session } = await sharedBrowser();
  const before = session.chrome!.pid;
  const r = await writeStorageThenRestart('browser');
  assert.equal(r.storage, null);
  assert.notEqual(session.chrome!.pid, before);
  assert.equal(await waitGone(before), true);
});

test('restart reload: a fresh navigation (page state and title reset), storage kept by design', async () => {
  const r = await writeStorageThenRestart('reload');
  assert.equal(r.windowFlag, null);
  assert.notEqual(r.title, 'dirty');
  assert.equal(r.storage, 'v');
});

test('endpoint: attaches to a running Chrome by http:// and ws://, and leaves it running on close', async () => {
  const chrome = await launchChrome({ devtools: 'port' });
  try {
    for (const endpoint of [`http://127.0.0.1:${chrome.devtools.port}`, chrome.devtools.wsEndpoint]) {
      const s = await BrowserSession.open({ endpoint });
      assert.equal(await s.page.evaluate<number>('1 + 1'), 2);
      await assert.rejects(s.restart('browser'), (e: PerfError) => e.code === 'restart_browser_attached');
      await s.restart('context');
      assert.equal(await s.page.evaluate<string>('location.href'), 'about:blank');
      await s.close();
      assert.equal(isAlive(chrome.pid), true);
    }
  } finally {
    await chrome.close();
  }
});

test('endpoint: nothing listening is an environment error naming the URL', async () => {
  await assert.rejects(
    BrowserSession.open({ endpoint: 'http://127.0.0.1:9' }),
    (e: PerfError) => e.code === 'endpoint_unreachable' && e.kind === 'environment' && /127\.0\.0\.1:9/.test(e.message),
  );
});

test('a Chrome that dies is detected: the pending call fails fast and restart relaunches', async () => {
  const s = await BrowserSession.open({});
  try {
    await s.page.navigate('about:blank');
    const hang = s.page.evaluate('new Promise(() => {})').then(
      () => 'resolved',
      (e: Error) => e.name,
    );
    process.kill(-s.chrome!.pid, 'SIGKILL');
    const t0 = Date.now();
    assert.equal(await hang, 'TargetClosedError');
    assert.ok(Date.now() - t0 < 5000);
    assert.match(s.health() ?? '', /Chrome exited|lost the connection/);
    const page = await s.restart('context');
    assert.equal(await page.evaluate<number>('2 + 2'), 4);
  } finally {
    await s.close();
  }
});

/**
 * A remote connector over Chromes launched here: the seam session/grid.ts fills with a Grid session,
 * exercised without Java. It records each start and reports a lost session as the Grid does.
 */
function localRemote(): { connector: RemoteConnector; started: RemoteChrome[] } {
  const started: RemoteChrome[] = [];
  const start = async (opts: LaunchOptions): Promise<RemoteChrome> => {
    // A remote session is reached over a WebSocket, as a Grid's is.
    const chrome = await launchChrome({ ...opts, devtools: 'port' });
    let closing = false;
    let lostReason: string | undefined;
    const remote: RemoteChrome = {
      ...chrome,
      close: (o) => {
        closing = true;
        return chrome.close(o);
      },
      lost: () => (lostReason ? new PerfError({ code: 'grid_session_lost', message: lostReason }) : undefined),
      markLost: (reason) => {
        // Our own close is not a lost session (the Grid's GridChrome ignores it the same way).
        if (!closing) lostReason ??= reason;
      },
      undeleted: () => undefined,
      connectError: (cause) => new PerfError({ code: 'grid_cdp_failed', message: `local remote: ${String(cause)}` }),
    };
    started.push(remote);
    return remote;
  };
  return { connector: { endpoint: 'selenium+http://127.0.0.1:1', start }, started };
}

test('a remote connector: every browser comes from it, no spare browser is started, and a lost session ends with its error', async () => {
  const { connector, started } = localRemote();
  const s = await BrowserSession.open({ remote: connector, prewarm: 'browser' });
  try {
    assert.equal(started.length, 1);
    s.prepareSpare();
    await s.settle();
    assert.equal(started.length, 1, 'a spare would queue for the slot the current remote session holds');
    await s.restart('browser');
    assert.equal(started.length, 2);
    assert.equal(await waitGone(started[0]!.pid), true);
    assert.equal(await s.page.evaluate<number>('2 + 2'), 4);
    assert.equal(s.gridLost(), undefined);
    process.kill(-started[1]!.pid, 'SIGKILL');
    for (const end = Date.now() + 8000; !s.gridLost() && Date.now() < end;) await sleep(50);
    assert.equal(s.gridLost()?.code, 'grid_session_lost');
    await assert.rejects(s.restart('browser'), (e: PerfError) => e.code === 'grid_session_lost');
    assert.equal(started.length, 2, 'no new session after a lost one: the run must not move to another node');
  } finally {
    await s.close();
  }
});

/** A server whose every response hangs: a page opened there waits for its load event forever. */
async function hangingServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const { createServer } = await import('node:http');
  const server = createServer(() => undefined);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((r) => server.close(() => r()).closeAllConnections()) };
}

for (const where of ['navigate', 'restartOpen'] as const) {
  test(`Chrome killed while ${where} waits for the load event: it fails with how Chrome died, not after the 30 s load timeout`, async () => {
    const hang = await hangingServer();
    const s = await BrowserSession.open({});
    try {
      const waiting = (
        where === 'navigate' ? s.page.navigate(hang.url) : s.restartOpen('context', { url: hang.url, prepare: async () => undefined })
      ).then(
        () => 'loaded',
        (e: Error) => e,
      );
      await sleep(500);
      process.kill(-s.chrome!.pid, 'SIGKILL');
      const e = await waiting;
      assert.ok(e instanceof Error, `expected a failure, got ${String(e)}`);
      assert.equal(e.name, 'TargetClosedError');
      assert.match(e.message, /killed by SIGKILL/);
      assert.match(s.health() ?? '', /Chrome exited/);
    } finally {
      await s.close();
      await hang.close();
    }
  });
}

test('prewarm browser: a browser restart takes the spare (a new Chrome with its own profile), the old one is gone, and close ends an unused spare', async () => {
  const srv = await serveStatic({ root: `${ROOT}scenarios/app` });
  const s = await BrowserSession.open({ prewarm: 'browser' });
  const pids = [s.chrome!.pid];
  const profiles = [s.chrome!.userDataDir];
  try {
    for (let i = 0; i < 2; i++) {
      s.prepareSpare();
      await s.settle();
      await s.restartOpen('browser', { url: `${srv.url}/list.html`, prepare: async () => undefined });
      pids.push(s.chrome!.pid);
      profiles.push(s.chrome!.userDataDir);
      assert.equal(await waitGone(pids[pids.length - 2]!), true);
      assert.equal(await s.page.evaluate<number>('localStorage.length'), 0);
    }
    assert.equal(new Set(pids).size, 3);
    assert.equal(new Set(profiles).size, 3);
    s.prepareSpare();
    await s.settle();
  } finally {
    await s.close();
    await srv.close();
  }
  assert.equal(await waitGone(pids[pids.length - 1]!), true);
  // Profiles of replaced browsers are removed in the background: give that a moment.
  const left = (): string[] => profiles.filter((p) => existsSync(p));
  for (const end = Date.now() + 5000; left().length > 0 && Date.now() < end;) await sleep(50);
  assert.deepEqual(left(), []);
});

test('a renderer that crashes is detected and the next restart gives a working page', async () => {
  const { session } = await sharedBrowser();
  await session.restart('context');
  const crashed = new Promise<string>((r) => session.page.onCrash(r));
  await session.page.send('Page.navigate', { url: 'chrome://crash' }).catch(() => undefined);
  assert.match(await crashed, /crash|closed/);
  const page = await session.restart('reload', 'about:blank');
  assert.equal(await page.evaluate<number>('3 + 3'), 6);
});

test('findChrome: CHROME_PATH that does not exist is an error, not a fallback', () => {
  assert.throws(
    () => findChrome({ CHROME_PATH: '/nope/chrome', PATH: process.env.PATH }),
    (e: PerfError) => e.code === 'chrome_path_invalid' && e.kind === 'environment',
  );
});

test('findChrome: none on PATH gives the install command', () => {
  assert.throws(
    () => findChrome({ PATH: '/nonexistent' }),
    (e: PerfError) =>
      e.code === 'chrome_not_found' && /apt-get install -y chromium/.test(e.suggestion ?? '') && /brew/.test(e.suggestion ?? ''),
  );
});

for (const how of ['exit', 'SIGINT', 'SIGTERM', 'SIGKILL', 'throw'] as const) {
  test(`no orphan: Chrome ends when the harness ${how === 'exit' || how === 'throw' ? how + 's' : 'gets ' + how}`, async () => {
    const child = spawn(process.execPath, [`${FIXTURES_DIR}/orphan-child.mjs`, how === 'exit' || how === 'throw' ? how : 'wait'], {
      stdio: ['ignore', 'pipe', 'ignore'],
      cwd: ROOT,
    });
    const [line] = (await once(child.stdout!, 'data')) as [Buffer];
    const { chromePid } = JSON.parse(line.toString()) as { chromePid: number };
    assert.equal(isAlive(chromePid), true);
    if (how !== 'exit' && how !== 'throw') child.kill(how);
    await once(child, 'exit');
    assert.equal(await waitGone(chromePid), true, `chrome ${chromePid} still alive after the harness ${how}`);
  });
}

test("harness killed outright (SIGKILL): Chrome dies and nothing new is left in the temp folder (profile, Chromium's own temp folders)", async () => {
  const tmp = mkdtempSync(join(tmpdir(), 'rehearse-killtest-'));
  try {
    const child = spawn(process.execPath, [`${FIXTURES_DIR}/orphan-child.mjs`, 'wait'], {
      stdio: ['ignore', 'pipe', 'ignore'],
      cwd: ROOT,
      env: { ...process.env, TMPDIR: tmp },
    });
    const [line] = (await once(child.stdout!, 'data')) as [Buffer];
    const { chromePid } = JSON.parse(line.toString()) as { chromePid: number };
    // The harness did use this temp folder, and Chromium put its own temp folder inside the profile.
    const [profile, ...others] = readdirSync(tmp);
    assert.match(profile ?? '', /^rehearse-profile-/);
    assert.deepEqual(others, []);
    assert.ok(readdirSync(join(tmp, profile!, 'tmp')).some((n) => n.startsWith('org.chromium.')));
    child.kill('SIGKILL');
    assert.equal(await waitGone(chromePid), true);
    const end = Date.now() + 10_000;
    while (readdirSync(tmp).length > 0 && Date.now() < end) await sleep(50);
    assert.deepEqual(readdirSync(tmp), []);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('sweepStaleProfiles removes a profile whose Chrome is gone and keeps one whose Chrome runs, and a fresh unlocked one', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rehearse-sweeptest-'));
  try {
    const make = (name: string, lock?: string): string => {
      const p = join(dir, name);
      mkdirSync(p);
      if (lock) symlinkSync(lock, join(p, 'SingletonLock'));
      return p;
    };
    // 2^22 + 1: above Linux's largest pid, so certainly not running.
    const dead = make('rehearse-profile-dead', `${hostname()}-${2 ** 22 + 1}`);
    make('rehearse-profile-live', `${hostname()}-${process.pid}`);
    make('rehearse-profile-new');
    make('not-ours', `${hostname()}-${2 ** 22 + 1}`);
    assert.deepEqual(await sweepStaleProfiles(dir), [dead]);
    assert.deepEqual(readdirSync(dir).sort(), ['not-ours', 'rehearse-profile-live', 'rehearse-profile-new']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('static server from a fixture folder serves the page the browser then reads', async () => {
  const srv = await serveStatic({ root: `${ROOT}scenarios/app` });
  try {
    const { session } = await sharedBrowser();
    await session.restart('context');
    await session.page.navigate(`${srv.url}/list.html`);
    assert.equal(await session.page.evaluate<number>("document.querySelectorAll('[role=listitem]').length"), 2000);
  } finally {
    await srv.close();
  }
});
