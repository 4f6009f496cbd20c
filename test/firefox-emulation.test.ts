/**
 * Device emulation in the real firefox-esr over WebDriver BiDi: the pixel ratio (browsingContext.setViewport's
 * devicePixelRatio) from a scenario's viewport and from resize_viewport, the user agent
 * (emulation.setUserAgentOverride) as the page reads it and as the server receives it, a reset back to the
 * browser's own; and what Firefox 153 cannot emulate (mobile, touch: no emulation.setTouchOverride) refused,
 * at the scenario's line or by the step, never faked.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { openFirefoxTab, startFirefoxSession } from '../src/drivers/bidi/browser.js';
import { firefoxBinary } from '../src/drivers/bidi/firefox.js';
import { firefoxPageDriver, firefoxPageSource } from '../src/session/firefox-page.js';
import { stdioServer } from './mcp-client.js';
import { DEMO_DIR, ROOT } from './helpers.js';

const PERF = path.join(ROOT, 'bin', 'perf');
const NO_FIREFOX = firefoxBinary() ? false : 'Firefox not installed (apt-get install firefox-esr)';
// One repeat plus Firefox's start, on a loaded 2-core machine.
const RUN_TIMEOUT_MS = 150_000;

/** `server` listening on 127.0.0.1, a headless Firefox, and a page driver on a tab of a new user context. */
async function firefoxOn(server: http.Server) {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const session = await startFirefoxSession({ headless: true });
  try {
    const tab = await openFirefoxTab(session, { newUserContext: true });
    const page = await firefoxPageDriver(tab.client, { preload: true, firefoxPid: session.firefox.pid });
    return { url, session, tab, page };
  } catch (e) {
    // The caller's finally never runs for a setup that threw: no Firefox outlives the test.
    await session.close();
    server.close();
    throw e;
  }
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'rehearse-ff-emulation-'));
fs.cpSync(DEMO_DIR, path.join(work, 'app'), { recursive: true });
after(() => {
  spawnSync(process.execPath, [PERF, 'stop'], { timeout: 60_000, cwd: work });
  fs.rmSync(work, { recursive: true, force: true });
});

function perf(args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [PERF, ...args], { cwd: work, encoding: 'utf8', timeout: RUN_TIMEOUT_MS });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

function scenario(name: string, lines: string): string {
  fs.writeFileSync(
    path.join(work, `${name}.yaml`),
    `name: ${name}\napp: { serve: ./app, path: /form.html }\nbrowser: { engine: firefox }\n${lines}\nrepeat: 1\nwarmup: 0\n` +
      `steps:\n  - snap: {}\n`,
  );
  return `${name}.yaml`;
}

describe('device emulation in Firefox over BiDi', { skip: NO_FIREFOX, timeout: 600_000 }, () => {
  test("a scenario's viewport with dpr 2 runs, and the page reads 2 (before: refused at load)", { timeout: RUN_TIMEOUT_MS }, () => {
    const file = scenario('dpr', 'viewport: { width: 640, height: 480, dpr: 2 }');
    const r = perf(['run', file, '--out', 'out-dpr']);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    const run = JSON.parse(fs.readFileSync(path.join(work, 'out-dpr', 'dpr-run.json'), 'utf8')) as {
      env: { viewport: { width: number; height: number; dpr: number } };
    };
    // describeEnv reads the viewport back from the page: what Firefox applied, not what was asked.
    assert.deepEqual([run.env.viewport.width, run.env.viewport.height, run.env.viewport.dpr], [640, 480, 2]);
  });

  test('touch or mobile in a scenario is refused at its line, before Firefox starts (exit 2)', { timeout: 30_000 }, () => {
    const file = scenario('touch', 'viewport: { width: 390, height: 664, dpr: 3, touch: true }');
    const r = perf(['validate', file]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /touch\.yaml:4:\d+.*no mobile or touch emulation: mobile and touch need Chromium/);
  });

  test('the user agent override: navigator.userAgent and the request header; clear() restores both and the ratio', async () => {
    let header = '';
    const server = http.createServer((req, res) => {
      header = req.headers['user-agent'] ?? '';
      res.writeHead(200, { 'content-type': 'text/html' }).end('<title>ua</title><p>ua</p>');
    });
    const { url, session, tab, page } = await firefoxOn(server);
    try {
      const own = page.emulation.browserUserAgent();
      assert.match(own, /Firefox\/\d+/);
      await page.emulation.setUserAgent({ userAgent: 'rehearse-ua-test/1.0', mobile: false });
      await page.emulation.applyViewport({ width: 500, height: 400, dpr: 3, mobile: false, touch: false });
      assert.equal(page.emulation.viewportOverridden(), true);
      await page.navigation.navigate(url, 30_000);
      assert.equal(header, 'rehearse-ua-test/1.0');
      const seen = await page.emulation.readViewport();
      assert.deepEqual([seen.userAgent, seen.width, seen.height, seen.dpr, seen.touch], ['rehearse-ua-test/1.0', 500, 400, 3, false]);

      await page.emulation.clear();
      assert.equal(page.emulation.viewportOverridden(), false);
      await page.navigation.navigate(url, 30_000);
      assert.equal(header, own);
      const back = await page.emulation.readViewport();
      assert.deepEqual([back.userAgent, back.dpr], [own, 1]);
      await tab.close();
    } finally {
      await session.close();
      server.close();
    }
  });

  test("a window.open popup has the opener tab's emulation: innerWidth, devicePixelRatio, navigator.userAgent", async () => {
    const server = http.createServer((req, res) => {
      const body =
        req.url === '/popup'
          ? '<title>popup</title><p>popup</p>'
          : `<title>opener</title><button onclick="window.open('/popup')">open</button>`;
      res.writeHead(200, { 'content-type': 'text/html' }).end(body);
    });
    const { url, session, tab, page } = await firefoxOn(server);
    try {
      // As a repeat starts: the scenario's viewport and a device's user agent, then the app's page.
      await page.emulateEnvironment({ viewport: { width: 520, height: 410, dpr: 2, mobile: false, touch: false }, cpuThrottle: 1 });
      await page.emulation.setUserAgent({ userAgent: 'rehearse-popup-ua/1.0', mobile: false });
      await page.navigation.navigate(url, 30_000);
      const source = firefoxPageSource(page, tab.client, session.firefox.pid);
      const tabs = source.tabs(true)!;
      const b = await page.evaluate<{ x: number; y: number }>(
        `(() => { const r = document.querySelector('button').getBoundingClientRect(); return { x: r.x + 5, y: r.y + 5 }; })()`,
      );
      await page.input.click(b.x, b.y);
      await tabs.select('new', Date.now() + 30_000);
      // The popup's own document, not the about:blank it opens with (the tracker's row may still name that).
      const by = Date.now() + 30_000;
      let at = '';
      while (!at.endsWith('/popup') && Date.now() < by) {
        at = await tabs.driver.evaluate<string>('location.href').catch(() => '');
        if (!at.endsWith('/popup')) await new Promise((r) => setTimeout(r, 50));
      }
      assert.match(at, /\/popup$/);
      const seen = await tabs.driver.emulation.readViewport();
      assert.deepEqual([seen.width, seen.height, seen.dpr, seen.userAgent], [520, 410, 2, 'rehearse-popup-ua/1.0']);
      // The opener keeps its own, and a reset stops the following: a popup opened after it has Firefox's own window.
      await tabs.select(0, Date.now() + 30_000);
      await page.emulation.clear();
      await page.input.click(b.x, b.y);
      await tabs.select('new', Date.now() + 30_000);
      const plain = await tabs.driver.emulation.readViewport();
      assert.notEqual(plain.userAgent, 'rehearse-popup-ua/1.0');
      assert.equal(plain.dpr, 1);
      source.dispose();
      await tab.close();
    } finally {
      await session.close();
      server.close();
    }
  });

  test(
    'MCP: resize_viewport with dpr and device_profile desktop apply; touch and a phone preset are refused',
    { timeout: 180_000 },
    async () => {
      const mcp = await stdioServer(work, { name: 'ff-emulation-test', args: ['--caps', 'core,viewport'], callTimeoutMs: 90_000 });
      try {
        const start = await mcp.call('app_start', { serve: 'app', path: '/form.html', engine: 'firefox' });
        assert.equal(start.isError, false, start.text);
        const resized = await mcp.call('resize_viewport', { width: 400, height: 300, dpr: 2 });
        assert.equal(resized.isError, false, resized.text);
        const data = (resized.json as { data: { width: number; height: number; dpr: number; verified: boolean } }).data;
        assert.deepEqual([data.width, data.height, data.dpr, data.verified], [400, 300, 2, true]);

        const touch = await mcp.call('resize_viewport', { width: 400, height: 300, touch: true });
        assert.equal(touch.isError, true);
        assert.equal((touch.json as { code: string }).code, 'unsupported_on_driver', touch.text);
        assert.match(touch.text, /no mobile or touch emulation/);
        const phone = await mcp.call('device_profile', { name: 'iphone-13' });
        assert.equal(phone.isError, true);
        assert.match(phone.text, /emulating a mobile device is not available on the bidi driver: .*no mobile or touch emulation/);

        const desk = await mcp.call('device_profile', { name: 'desktop-1440' });
        assert.equal(desk.isError, false, desk.text);
        const d = (desk.json as { data: { width: number; dpr: number; verified: boolean; userAgent: string } }).data;
        assert.deepEqual([d.width, d.dpr, d.verified], [1440, 1, true]);
        assert.match(d.userAgent, /Firefox\/\d+/);
        const reset = await mcp.call('device_profile', { reset: true });
        assert.equal(reset.isError, false, reset.text);
        assert.equal((reset.json as { data: { dpr: number } }).data.dpr, 1);
      } finally {
        await mcp.call('app_stop', {}).catch(() => undefined);
        await mcp.close();
      }
    },
  );
});
