/**
 * Desktop apps over WebDriver, against real servers: tauri-driver (the npm package's Linux binary)
 * forwarding to WebKitWebDriver, with the WebKitGTK MiniBrowser standing in for a Tauri app binary
 * (tauri-driver passes `tauri:options.application` through unchanged on Linux), on a fixture page that
 * defines Tauri's IPC entry point. And what a crash of the browser mid-run costs: that repeat only.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SessionHost } from '../src/engine/host.js';
import { runStep } from '../src/engine/run-step.js';
import { isPerfError } from '../src/errors.js';
import { findServerBinary, miniBrowserPath } from '../src/drivers/webdriver/server.js';
import { openWebDriverPage, type WebDriverPage } from '../src/drivers/webdriver/session.js';
import { runScenario } from '../src/runner/run.js';
import { loadScenario } from '../src/scenario/load.js';
import { isAlive } from '../src/processes.js';
import { serveStatic, type StaticServer } from '../src/session/static-server.js';
import { DEMO_DIR, FIXTURES_DIR, processesBelow } from './helpers.js';
import { ok } from './step-helpers.js';

const MINI = miniBrowserPath();
const NO_WEBKIT = findServerBinary('webkit') && MINI ? false : 'WebKitWebDriver not installed (apt-get install webkit2gtk-driver xvfb)';
const NO_TAURI =
  NO_WEBKIT ||
  (findServerBinary('tauri') ? false : 'tauri-driver not installed (npm ci installs @crabnebula/tauri-driver-linux-x64-gnu on Linux x64)');
const APP_DIR = path.join(FIXTURES_DIR, 'tauri-app');

function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

describe('tauri_invoke through tauri-driver', { skip: NO_TAURI }, () => {
  let fixture: StaticServer;
  let page: WebDriverPage;
  let host: SessionHost;
  before(async () => {
    fixture = await serveStatic({ root: APP_DIR });
    page = await openWebDriverPage({ kind: 'tauri', desktop: { binary: MINI!, args: ['--automation'] } });
    host = new SessionHost({ driver: page.driver }, fixture.url);
    ok(await runStep(host, 'navigate', { url: '/' }));
  });
  after(async () => {
    const pids = page?.server?.pids ?? [];
    await page?.close();
    await fixture?.close();
    for (const pid of pids) assert.equal(isAlive(pid), false, `server process ${pid} stopped`);
    assert.deepEqual(processesBelow({ comm: 'MiniBrowser' }), []);
  });

  test('tauri-driver starts the app binary it is given', () => {
    assert.equal(page.driver.capabilities.browserName, 'MiniBrowser');
  });

  test("a command's answer comes back as the value, and its effect is on the page", async () => {
    const r = ok(await runStep(host, 'tauri_invoke', { command: 'greet', args: { name: 'Grace' } }));
    assert.equal(r.data!.value, 'Hello, Grace!');
    ok(await runStep(host, 'wait_for', { text: 'Hello, Grace!' }));
  });

  test("a rejected command fails the step with the app's message", async () => {
    const r = await runStep(host, 'tauri_invoke', { command: 'nope' });
    assert.equal(r.status, 'failed');
    assert.equal(r.status === 'failed' && r.error.code, 'tauri_invoke_failed', JSON.stringify(r));
    assert.match(r.status === 'failed' ? r.error.message : '', /command nope not found/);
  });

  test("a page without Tauri's IPC answers tauri_missing", async () => {
    const demo = await serveStatic({ root: DEMO_DIR });
    try {
      ok(await runStep(host, 'navigate', { url: `${demo.url}/form.html` }));
      const r = await runStep(host, 'tauri_invoke', { command: 'greet' });
      assert.equal(r.status === 'failed' && r.error.code, 'tauri_missing');
    } finally {
      ok(await runStep(host, 'navigate', { url: '/' }));
      await demo.close();
    }
  });
});

describe('perf run on a desktop app', { skip: NO_TAURI }, () => {
  test('app.desktop with driver tauri starts the app anew each repeat and measures it', async () => {
    const dir = tempDir('rehearse-desktop-');
    try {
      fs.cpSync(APP_DIR, path.join(dir, 'app'), { recursive: true });
      fs.writeFileSync(
        path.join(dir, 'greet.yaml'),
        [
          'name: greet-desktop',
          'app:',
          '  serve: ./app',
          `  desktop: { binary: ${MINI}, args: ["--automation", "\${APP_URL}"], driver: tauri }`,
          'repeat: 2',
          'warmup: 0',
          'steps:',
          '  - tauri_invoke: { command: calls, label: fresh }',
          '  - wait_for: { text: Greeter }',
          '  - tap: { target: { role: button, name: Greet }, label: greet }',
          '  - wait_for: { text: "Hello, Ada!" }',
          '',
        ].join('\n'),
      );
      const sc = loadScenario(path.join(dir, 'greet.yaml'), { cwd: dir });
      assert.equal(sc.browser.driver, 'webdriver');
      assert.equal(sc.browser.engine, 'webkit');
      const { run } = await runScenario(sc, { label: 'run', outDir: path.join(dir, 'out'), cwd: dir });
      assert.equal(run.summary.measured, 2, JSON.stringify(run.repeats.map((r) => (r.status === 'failed' ? r.failure : r.status))));
      assert.deepEqual(run.env.app.desktop, { binary: MINI, driver: 'tauri' });
      assert.ok(run.summary.metrics['steps.greet.ms']!.median > 0);
      assert.deepEqual(processesBelow({ comm: 'MiniBrowser' }), []);
      assert.deepEqual(processesBelow({ comm: 'WebKitWebDriver' }), []);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('tauri_invoke in a scenario without app.desktop is refused when it loads, naming the line', () => {
    const dir = tempDir('rehearse-desktop-bad-');
    try {
      fs.mkdirSync(path.join(dir, 'app'));
      fs.writeFileSync(
        path.join(dir, 'bad.yaml'),
        'name: bad\napp: { serve: ./app }\nsteps:\n  - snap: {}\n  - tauri_invoke: { command: greet }\n',
      );
      assert.throws(
        () => loadScenario(path.join(dir, 'bad.yaml'), { cwd: dir }),
        (e: unknown) =>
          isPerfError(e) &&
          e.kind === 'usage' &&
          /bad\.yaml:5:\d+: tauri_invoke calls a desktop app's IPC: it needs app.desktop/.test(e.message),
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a desktop binary that does not exist is refused when the scenario loads', () => {
    const dir = tempDir('rehearse-desktop-bad-');
    try {
      fs.writeFileSync(path.join(dir, 'bad.yaml'), 'name: bad\napp:\n  desktop: { binary: ./target/release/app }\nsteps:\n  - snap: {}\n');
      assert.throws(
        () => loadScenario(path.join(dir, 'bad.yaml'), { cwd: dir }),
        (e: unknown) =>
          isPerfError(e) &&
          e.kind === 'usage' &&
          /bad\.yaml:3:\d+: app\.desktop\.binary \.\/target\/release\/app .* is not an executable file/.test(e.message),
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a browser crash mid-run', { skip: NO_WEBKIT }, () => {
  test('MiniBrowser killed during a repeat fails that repeat only; the run goes on and leaves nothing behind', async () => {
    const dir = tempDir('rehearse-wd-crash-');
    try {
      fs.cpSync(DEMO_DIR, path.join(dir, 'app'), { recursive: true });
      fs.writeFileSync(
        path.join(dir, 'crash.yaml'),
        'name: crash\napp: { serve: ./app, path: /form.html }\nbrowser: { engine: webkit }\nrepeat: 3\nwarmup: 0\nsteps:\n  - evaluate: { expression: "new Promise((r) => setTimeout(() => r(1), 1500))", label: hold }\n  - snap: {}\n',
      );
      const sc = loadScenario(path.join(dir, 'crash.yaml'), { cwd: dir });
      let killed: number[] = [];
      const { run, path: file } = await runScenario(sc, {
        label: 'run',
        outDir: path.join(dir, 'out'),
        cwd: dir,
        onProgress: (p) => {
          if (p.kind === 'step' && p.index === 1 && p.label === 'hold') {
            setTimeout(() => {
              killed = processesBelow({ comm: 'MiniBrowser' });
              for (const pid of killed) process.kill(pid, 'SIGKILL');
            }, 300);
          }
        },
      });
      assert.equal(killed.length, 1, 'one MiniBrowser was running in repeat 1');
      assert.deepEqual(
        run.repeats.map((r) => r.status),
        ['measured', 'failed', 'measured'],
      );
      const failed = run.repeats[1]!;
      assert.equal(failed.status === 'failed' && failed.failure.phase, 'steps');
      assert.equal(failed.status === 'failed' && failed.failure.label, 'hold');
      assert.equal(run.summary.measured, 2);
      assert.ok(fs.existsSync(file), 'the run file was written');
      assert.deepEqual(processesBelow({ comm: 'MiniBrowser' }), []);
      assert.deepEqual(processesBelow({ comm: 'WebKitWebDriver' }), []);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
