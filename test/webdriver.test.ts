/**
 * The WebDriver driver against real servers: chromedriver (Debian chromium-driver) and
 * WebKitWebDriver driving the WebKitGTK MiniBrowser under an Xvfb it starts (Debian
 * webkit2gtk-driver, xvfb). The same steps as over CDP, through the same page contract: the same refs
 * on the demo form, and effects read back from the page.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SessionHost } from '../src/engine/host.js';
import { isPerfError } from '../src/errors.js';
import { runScenario } from '../src/runner/run.js';
import { loadScenario } from '../src/scenario/load.js';
import { runStep } from '../src/engine/run-step.js';
import { METRICS, PER_FRAME_SUFFIX, resolveMetric, type DriverName } from '../src/perf/metrics.js';
import { findServerBinary, miniBrowserPath, type WebDriverServerKind } from '../src/drivers/webdriver/server.js';
import { openWebDriverPage, type WebDriverPage } from '../src/drivers/webdriver/session.js';
import { cpuBetween } from '../src/drivers/webdriver/proc.js';
import { cropPng, pngSize } from '../src/drivers/png.js';
import zlib from 'node:zlib';
import { findChrome } from '../src/drivers/cdp/chrome.js';
import { isAlive } from '../src/processes.js';
import { serveStatic, type StaticServer } from '../src/session/static-server.js';
import { firefoxBinary } from '../src/drivers/bidi/firefox.js';
import { DEMO_DIR, FIXTURES_DIR, fresh } from './helpers.js';
import { ok } from './step-helpers.js';

let app: StaticServer;
before(async () => {
  app = await serveStatic({ root: DEMO_DIR });
});
after(() => app.close());

/** The ref table of a snapshot: ref → `role "name"`. */
function refTable(snapshot: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of snapshot.matchAll(/- ([a-z]+)(?: "((?:[^"\\]|\\.)*)")?[^\n]*\[ref=(e\d+)\]/g)) out[m[3]!] = `${m[1]} "${m[2] ?? ''}"`;
  return out;
}

const KINDS: { kind: WebDriverServerKind; missing: string | false }[] = [
  {
    kind: 'chromedriver',
    missing: findServerBinary('chromedriver') ? false : 'chromedriver not installed (apt-get install chromium-driver)',
  },
  {
    kind: 'webkit',
    missing:
      findServerBinary('webkit') && miniBrowserPath() ? false : 'WebKitWebDriver not installed (apt-get install webkit2gtk-driver xvfb)',
  },
];

for (const { kind, missing } of KINDS) {
  describe(`webdriver: ${kind}`, { skip: missing }, () => {
    let page: WebDriverPage;
    let host: SessionHost;
    before(async () => {
      const chrome = findChrome().path;
      page = await openWebDriverPage({ kind, chromePath: chrome === '/usr/bin/chromium' ? '/usr/lib/chromium/chromium' : chrome });
      host = new SessionHost({ driver: page.driver }, app.url);
    });
    after(async () => {
      const pids = page?.server?.pids ?? [];
      await page?.close();
      for (const pid of pids) assert.equal(isAlive(pid), false, `server process ${pid} stopped`);
    });

    test('the demo form gets the same refs as over CDP', async () => {
      ok(await runStep(host, 'navigate', { url: '/form.html' }));
      const ours = refTable(String(ok(await runStep(host, 'snap', {})).data!.snapshot));
      const cdp = await fresh(`${app.url}/form.html`);
      const viaCdp = refTable(String(ok(await runStep(cdp.host, 'snap', {})).data!.snapshot));
      assert.ok(Object.keys(ours).length >= 15, JSON.stringify(ours));
      assert.deepEqual(ours, viaCdp);
    });

    test('fill, type, set_checkbox, select_option and tap read their effect back from the page', async () => {
      ok(await runStep(host, 'navigate', { url: '/form.html' }));
      assert.deepEqual(ok(await runStep(host, 'fill', { target: { label: 'Name' }, text: 'Ada' })).effect?.text, {
        verified: true,
        value: 'Ada',
        expected: 'Ada',
      });
      assert.equal(
        ok(await runStep(host, 'type', { target: { label: 'Email' }, text: 'ada@example.com' })).effect?.text?.value,
        'ada@example.com',
      );
      assert.deepEqual(
        ok(await runStep(host, 'set_checkbox', { target: { label: 'Subscribe to newsletter' }, value: true })).effect?.checked,
        { verified: true, before: false, after: true },
      );
      assert.deepEqual(ok(await runStep(host, 'select_option', { target: { label: 'Country' }, option: 'France' })).effect?.selected, {
        verified: true,
        value: 'France',
      });
      assert.deepEqual(ok(await runStep(host, 'tap', { target: { label: 'Pro' } })).effect?.checked, {
        verified: true,
        before: false,
        after: true,
      });
      ok(await runStep(host, 'expect', { target: { label: 'Email' }, value: 'ada@example.com' }));
    });

    test('tap on the list adds an item; a wheel scroll moves the list', async () => {
      ok(await runStep(host, 'navigate', { url: '/list.html' }));
      const before = await page.driver.evaluate<string>('document.getElementById("count").textContent');
      assert.equal(ok(await runStep(host, 'tap', { target: { role: 'button', name: 'Add item' } })).effect?.treeChanged?.changed, true);
      assert.notEqual(await page.driver.evaluate<string>('document.getElementById("count").textContent'), before);
      assert.equal(ok(await runStep(host, 'scroll', { direction: 'down', pixels: 300 })).effect?.scrollOffset?.changed, true);
    });

    test('a measured window over WebDriver: frames from the in-page counter, the sources it lacks named in coverage', async () => {
      ok(await runStep(host, 'navigate', { url: '/list.html' }));
      ok(await runStep(host, 'perf_begin', { mode: 'timing' }));
      ok(await runStep(host, 'scroll', { direction: 'down', pixels: 600 }));
      ok(await runStep(host, 'tap', { target: { role: 'button', name: 'Add item' } }));
      const report = ok(await runStep(host, 'perf_end', { full: true })).data as {
        refused: boolean;
        metrics: Record<string, number>;
        coverage: Record<string, string>;
        missingReasons: Record<string, string>;
      };
      assert.equal(report.refused, false, JSON.stringify(report).slice(0, 500));
      assert.ok(report.metrics['frames.count']! > 0, JSON.stringify(report.metrics));
      assert.equal(report.coverage.trace, 'missing');
      assert.equal(report.coverage.counters, 'missing');
      assert.match(report.missingReasons.trace!, /not available over WebDriver/);
    });

    test('a step the driver cannot do yet is refused by name, not faked', async () => {
      const r = await runStep(host, 'wait_for_network_idle', {});
      assert.equal(r.status, 'failed');
      assert.equal(r.status === 'failed' && r.error.code, 'unsupported_on_driver');
    });

    test('screenshot of an element below the fold is the viewport capture cut to its box', async () => {
      ok(await runStep(host, 'navigate', { url: '/form.html' }));
      // A short viewport: Submit is below the fold.
      ok(await runStep(host, 'resize_viewport', { width: 800, height: 400 }));
      const box = await page.driver.evaluate<{ w: number; h: number; top: number; dpr: number }>(
        "(() => { const b = [...document.querySelectorAll('button')].find((e) => e.textContent.trim() === 'Submit'); const r = b.getBoundingClientRect(); return { w: r.width, h: r.height, top: r.top, dpr: devicePixelRatio }; })()",
      );
      assert.ok(box.top > 400, `Submit is out of view (top ${box.top})`);
      const shot = ok(await runStep(host, 'screenshot', { target: { role: 'button', name: 'Submit' } }));
      const png = Buffer.from(shot.image!.base64, 'base64');
      assert.deepEqual(pngSize(png), { width: Math.round(box.w * box.dpr), height: Math.round(box.h * box.dpr) });
    });

    test('console messages and uncaught errors after a navigation are captured, as over CDP', async () => {
      const fixtures = await serveStatic({ root: FIXTURES_DIR });
      try {
        ok(await runStep(host, 'navigate', { url: `${fixtures.url}/steps-console.html` }));
        ok(await runStep(host, 'tap', { target: { role: 'button', name: 'Fail' } }));
        // The error is thrown from a timer: let it fire before reading.
        ok(await runStep(host, 'evaluate', { expression: 'new Promise((r) => setTimeout(() => r(1), 50))' }));
        const c = ok(await runStep(host, 'console', { level: 'warn' })).data as { messages: { level: string; text: string }[] };
        assert.deepEqual(
          c.messages.map((e) => [e.level, e.text]).filter(([, t]) => t!.startsWith('clicked')),
          [['warn', 'clicked: low fuel']],
        );
        const x = ok(await runStep(host, 'exceptions', {})).data as { exceptions: { kind: string; message: string }[] };
        assert.match(x.exceptions[0]?.message ?? '', /RangeError: boom after click/);
        // chromedriver offers BiDi: capture runs at document start and sees what the page logged while it loaded.
        assert.equal(page.driver.capturesFromDocumentStart, kind === 'chromedriver');
        const all = ok(await runStep(host, 'console', {})).data as { messages: { text: string }[] };
        assert.equal(
          all.messages.some((m) => m.text === 'first log'),
          kind === 'chromedriver',
          JSON.stringify(all.messages),
        );
        assert.equal(
          x.exceptions.some((e) => /boom in timeout/.test(e.message)),
          kind === 'chromedriver',
          JSON.stringify(x.exceptions),
        );
      } finally {
        await fixtures.close();
      }
    });
  });
}

describe('webdriver: a tap on WebKit is answered by the page itself', { skip: KINDS.find((k) => k.kind === 'webkit')!.missing }, () => {
  let page: WebDriverPage;
  let host: SessionHost;
  before(async () => {
    page = await openWebDriverPage({ kind: 'webkit' });
    host = new SessionHost({ driver: page.driver }, app.url);
  });
  after(() => page?.close());

  test("the page reports the tap's settle: the effect is the one read back, and the report was used", async () => {
    ok(await runStep(host, 'navigate', { url: '/list.html' }));
    const count = (): Promise<string> => page.driver.evaluate<string>('document.getElementById("count").textContent');
    const before = await count();
    const reports = page.driver.settleReportsReceived;
    // Which answer comes first is the machine's business; that the page sent its report is not.
    const reported = async (n: number): Promise<number> => {
      for (let i = 0; i < 100 && page.driver.settleReportsReceived < n; i++) await new Promise((r) => setTimeout(r, 20));
      return page.driver.settleReportsReceived;
    };
    assert.equal(ok(await runStep(host, 'tap', { target: { role: 'button', name: 'Add item' } })).effect?.treeChanged?.changed, true);
    assert.equal(await reported(reports + 1), reports + 1);
    assert.notEqual(await count(), before);
    // A click that changes nothing reports that too.
    assert.equal(ok(await runStep(host, 'tap', { target: { role: 'heading' } })).effect?.treeChanged?.changed, false);
    assert.equal(await reported(reports + 2), reports + 2);
  });

  test('a link tapped leaves the page: no report of the old document, the next page is there', async () => {
    ok(await runStep(host, 'navigate', { url: '/index.html' }));
    // The link also changes the DOM as it is clicked: the settle is then known before the next page arrives.
    await page.driver.evaluate(
      `document.querySelector('a[href="form.html"]').addEventListener('click', (e) => e.currentTarget.classList.add('visited'))`,
    );
    const reports = page.driver.settleReportsReceived;
    ok(await runStep(host, 'tap', { target: { role: 'link', name: 'Form' } }));
    ok(await runStep(host, 'wait_for', { text: 'Subscribe to newsletter' }));
    assert.match(await page.driver.evaluate<string>('location.pathname'), /form\.html$/);
    assert.equal(page.driver.settleReportsReceived, reports);
  });

  test('under a CSP that refuses the report the tap still reads its effect, and the page never sees the violation', async () => {
    const html =
      '<h1>CSP</h1><button id="b">Add</button><ul id="l"></ul><script>window.violations = 0; document.addEventListener("securitypolicyviolation", () => window.violations++); document.getElementById("b").onclick = () => document.getElementById("l").append(document.createElement("li"));</script>';
    const strict = http.createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html', 'content-security-policy': "connect-src 'self'" }).end(html),
    );
    await new Promise<void>((r) => strict.listen(0, '127.0.0.1', () => r()));
    try {
      ok(await runStep(host, 'navigate', { url: `http://127.0.0.1:${(strict.address() as { port: number }).port}/` }));
      const reports = page.driver.settleReportsReceived;
      for (let i = 1; i <= 2; i++) {
        assert.equal(ok(await runStep(host, 'tap', { target: { role: 'button', name: 'Add' } })).effect?.treeChanged?.changed, true);
        assert.equal(await page.driver.evaluate<number>('document.querySelectorAll("li").length'), i);
      }
      assert.equal(page.driver.settleReportsReceived, reports);
      // The first report was tried and refused (so the second tap did not try), unseen by the page.
      assert.equal(await page.driver.evaluate<boolean>("globalThis[Symbol.for('rehearse.runtime')].state.reportsRefused"), true);
      assert.equal(await page.driver.evaluate<number>('window.violations'), 0);
    } finally {
      strict.close();
    }
  });
});

describe('the example scenarios over WebDriver', () => {
  // The examples unchanged but for the browser key: what a user switching engines writes.
  for (const [kind, browser] of [
    ['webkit', '{ engine: webkit }'],
    ['chromedriver', '{ driver: webdriver }'],
  ] as const) {
    for (const example of ['form-submit', 'dialog']) {
      test(`${example} passes on ${kind}`, { skip: KINDS.find((k) => k.kind === kind)!.missing }, async () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rehearse-wd-example-'));
        try {
          fs.cpSync(DEMO_DIR, path.join(dir, 'app'), { recursive: true });
          const yaml = fs.readFileSync(path.join(DEMO_DIR, '..', `${example}.yaml`), 'utf8');
          assert.doesNotMatch(yaml, /^browser:/m, 'the example sets no browser of its own');
          fs.writeFileSync(path.join(dir, `${example}.yaml`), `${yaml}\nbrowser: ${browser}\nrepeat: 1\nwarmup: 0\n`);
          const sc = loadScenario(path.join(dir, `${example}.yaml`), { cwd: dir });
          const { run } = await runScenario(sc, { label: 'run', outDir: path.join(dir, 'out'), cwd: dir });
          assert.equal(run.summary.measured, 1, JSON.stringify(run.repeats.map((r) => (r.status === 'failed' ? r.failure : r.status))));
          assert.equal(run.env.browser.driver, 'webdriver');
          assert.equal(run.env.browser.engine, kind === 'webkit' ? 'webkit' : 'chromium');
        } finally {
          fs.rmSync(dir, { recursive: true, force: true });
        }
      });
    }
  }
});

describe('perf run over WebDriver', { skip: KINDS.find((k) => k.kind === 'webkit')!.missing }, () => {
  test('engine: webkit runs every repeat in a new MiniBrowser session and measures frames', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rehearse-wd-run-'));
    try {
      fs.cpSync(DEMO_DIR, path.join(dir, 'app'), { recursive: true });
      fs.writeFileSync(
        path.join(dir, 'scroll.yaml'),
        'name: scroll-webkit\napp: { serve: ./app, path: /list.html }\nbrowser: { engine: webkit }\nviewport: { width: 1024, height: 700 }\nrepeat: 2\nwarmup: 0\nsetup:\n  - wait_for: { text: "2000 items" }\nsteps:\n  - scroll: { target: { role: list, name: Items }, dy: 3000, label: down }\n  - scroll: { target: { role: list, name: Items }, dy: -3000, label: up }\n',
      );
      const sc = loadScenario(path.join(dir, 'scroll.yaml'), { cwd: dir });
      assert.equal(sc.browser.driver, 'webdriver');
      const { run } = await runScenario(sc, { label: 'run', outDir: path.join(dir, 'out'), cwd: dir });
      // Each repeat ran in its own session; on a loaded machine WebKit may draw a repeat's scrolls in one
      // frame, and the harness then refuses it (a window that drew nothing must not read as fast).
      const outcomes = JSON.stringify(
        run.repeats.map((r) => (r.status === 'failed' ? r.failure : r.status === 'refused' ? r.reason : r.status)),
      );
      assert.equal(run.summary.measured + run.summary.refused, 2, outcomes);
      assert.ok(run.summary.measured >= 1, outcomes);
      assert.equal(run.env.browser.driver, 'webdriver');
      assert.equal(run.env.browser.engine, 'webkit');
      assert.equal(run.env.restartMode, 'browser');
      assert.ok(run.summary.metrics['frames.count']!.median > 0);
      assert.ok(run.summary.metrics['steps.down.ms']!.median > 0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a step the WebDriver driver lacks is refused when the scenario loads, naming the step, the line and the driver', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rehearse-wd-bad-'));
    try {
      fs.mkdirSync(path.join(dir, 'app'));
      fs.writeFileSync(
        path.join(dir, 'bad.yaml'),
        'name: bad\napp: { serve: ./app }\nbrowser: { engine: webkit }\nsteps:\n  - snap: {}\n  - wait_for_network_idle: {}\n',
      );
      assert.throws(
        () => loadScenario(path.join(dir, 'bad.yaml'), { cwd: dir }),
        (e: unknown) =>
          isPerfError(e) &&
          e.kind === 'usage' &&
          /bad\.yaml:6:\d+: wait_for_network_idle is not available on the webdriver driver: WebDriver classic reports no network requests/.test(
            e.message,
          ),
      );
      // The same step on the cdp driver loads.
      fs.writeFileSync(path.join(dir, 'ok.yaml'), 'name: ok\napp: { serve: ./app }\nsteps:\n  - wait_for_network_idle: {}\n');
      assert.equal(loadScenario(path.join(dir, 'ok.yaml'), { cwd: dir }).steps[0]!.name, 'wait_for_network_idle');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('what WebDriver cannot honour is refused when the scenario loads, naming the line', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rehearse-wd-bad-'));
    try {
      fs.mkdirSync(path.join(dir, 'app'));
      fs.writeFileSync(
        path.join(dir, 'bad.yaml'),
        'name: bad\napp: { serve: ./app }\nbrowser: { engine: webkit }\ncpuThrottle: 4\nsteps:\n  - snap: {}\n',
      );
      assert.throws(
        () => loadScenario(path.join(dir, 'bad.yaml'), { cwd: dir }),
        (e: unknown) => isPerfError(e) && e.kind === 'usage' && /bad\.yaml:4:\d+: cpuThrottle needs the cdp driver/.test(e.message),
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

// The registry's `drivers` against what a real window produces: it is what `perf metrics` and the
// README's per-driver table tell a user to expect from a WebDriver run, so it must not drift from it.
describe('the metric registry says which metrics a WebDriver run produces', () => {
  const ENGINES: { driver: DriverName; browser: string; missing: string | false }[] = [
    { driver: 'webdriver-webkit', browser: '{ engine: webkit }', missing: KINDS.find((k) => k.kind === 'webkit')!.missing },
    { driver: 'webdriver-chromium', browser: '{ driver: webdriver }', missing: KINDS.find((k) => k.kind === 'chromedriver')!.missing },
    // Firefox over BiDi runs the same W3C page driver and in-page probe (src/drivers/bidi).
    {
      driver: 'bidi-firefox',
      browser: '{ engine: firefox }',
      missing: firefoxBinary() ? false : 'Firefox not installed (apt-get install firefox-esr)',
    },
  ];
  for (const { driver, browser, missing } of ENGINES) {
    test(
      `${driver}: the run file holds exactly the metrics declared for it; coverage names the sources it lacks`,
      { skip: missing },
      async () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rehearse-wd-metrics-'));
        try {
          fs.cpSync(DEMO_DIR, path.join(dir, 'app'), { recursive: true });
          // A scroll for frames and one tap for an interaction: every source the probe has gets exercised.
          fs.writeFileSync(
            path.join(dir, 'probe.yaml'),
            `name: registry-${driver}\napp: { serve: ./app, path: /list.html }\nbrowser: ${browser}\nviewport: { width: 1024, height: 700 }\nrepeat: 1\nwarmup: 0\nsetup:\n  - wait_for: { text: "2000 items" }\nsteps:\n  - scroll: { target: { role: list, name: Items }, dy: 1500, label: down }\n  - tap: { target: { role: button, name: Add item }, label: add }\n`,
          );
          const { run } = await runScenario(loadScenario(path.join(dir, 'probe.yaml'), { cwd: dir }), {
            label: 'run',
            outDir: path.join(dir, 'out'),
            cwd: dir,
          });
          assert.equal(run.summary.measured, 1, JSON.stringify(run.repeats.map((r) => (r.status === 'failed' ? r.failure : r.status))));
          const produced = Object.keys(run.summary.metrics).sort();
          assert.deepEqual(
            produced.filter((k) => !resolveMetric(k)?.def.drivers.includes(driver)),
            [],
            `produced over ${driver} but not declared for it`,
          );
          // The load family comes out of a measured load only: test/load-webdriver.test.ts holds it against a load run.
          // A soft navigation's times come out only when a step changed an SPA route (this app has none).
          const eventOnly = new Set(['softNavs.nextPaintMs', 'softNavs.lcpMs']);
          const windowMetrics = METRICS.filter((d) => !d.name.startsWith('load.') && !eventOnly.has(d.name));
          const declared = windowMetrics
            .filter((d) => d.drivers.includes(driver))
            .flatMap((d) =>
              d.name.includes('<') ? ['steps.down.ms', 'steps.add.ms'] : d.perFrame ? [d.name, d.name + PER_FRAME_SUFFIX] : [d.name],
            );
          assert.deepEqual(
            declared.filter((k) => !produced.includes(k)),
            [],
            `declared for ${driver} but not produced`,
          );

          // Every metric family a driver lacks is named after its coverage source (counters.*, interactions.*…).
          const repeat = run.repeats[0]!;
          assert.equal(repeat.status, 'measured');
          const coverage = repeat.status === 'measured' ? repeat.report.coverage! : {};
          // A terminal's own metrics (terminal.*) are no source a browser lacks.
          for (const d of windowMetrics.filter((m) => !m.drivers.includes(driver) && m.drivers.some((x) => x !== 'pty')))
            assert.equal(coverage[d.name.split('.')[0]!], 'missing', `${d.name}: coverage ${JSON.stringify(coverage)}`);
          assert.equal(coverage.liveness, 'read');

          const median = (k: string): number | undefined => run.summary.metrics[k]?.median;
          assert.ok(median('frames.painted')! > 1);
          // requestAnimationFrame cannot see a partial frame: none is written rather than a made-up 0.
          assert.equal(run.summary.metrics['frames.partial'], undefined);
          if (driver === 'webdriver-chromium') assert.equal(median('interactions.count'), 1, 'the one tap');
          // The web content process, read from /proc: a browser page holds tens of MB, and scrolling costs CPU.
          assert.ok(median('process.maxRssBytes')! > 20 * 1024 * 1024, `process.maxRssBytes ${median('process.maxRssBytes')}`);
          assert.ok(median('process.cpuMs')! > 0, `process.cpuMs ${median('process.cpuMs')}`);
          assert.equal(coverage.process, 'read');
        } finally {
          fs.rmSync(dir, { recursive: true, force: true });
        }
      },
    );
  }
});

test('CPU between two /proc readings: a process in both counts its difference, a new one all it used, a gone one nothing', () => {
  const before = [
    { pid: 1, cpuMs: 100, maxRssBytes: 0 },
    { pid: 2, cpuMs: 50, maxRssBytes: 0 },
  ];
  const after = [
    { pid: 1, cpuMs: 130, maxRssBytes: 0 },
    { pid: 3, cpuMs: 20, maxRssBytes: 0 },
  ];
  assert.equal(cpuBetween(before, after), 50);
});

test('cropPng undoes every PNG row filter and cuts the rectangle asked for', () => {
  // A 3x2 RGBA image: row 0 written with Sub (filter 1), row 1 with Up (filter 2).
  const px = [
    [
      [10, 20, 30, 255],
      [40, 50, 60, 255],
      [70, 80, 90, 255],
    ],
    [
      [11, 21, 31, 255],
      [41, 51, 61, 255],
      [71, 81, 91, 255],
    ],
  ];
  const row0 = [1, ...px[0]!.flatMap((p, i) => p.map((v, k) => (v - (i > 0 ? px[0]![i - 1]![k]! : 0)) & 0xff))];
  const row1 = [2, ...px[1]!.flatMap((p, i) => p.map((v, k) => (v - px[0]![i]![k]!) & 0xff))];
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(3, 0);
  ihdr.writeUInt32BE(2, 4);
  ihdr[8] = 8;
  ihdr[9] = 6;
  const chunk = (type: string, data: Buffer): Buffer => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length, 0);
    head.write(type, 4, 'ascii');
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(Buffer.concat([head.subarray(4), data])), 0);
    return Buffer.concat([head, data, crc]);
  };
  const png = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(Buffer.from([...row0, ...row1]))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
  const cut = cropPng(png, { x: 1, y: 0, width: 2, height: 2 })!;
  assert.deepEqual(pngSize(cut), { width: 2, height: 2 });
  // The cut is written unfiltered: each row is a 0 and its pixels.
  const idat = cut.subarray(33 + 8, 33 + 8 + cut.readUInt32BE(33));
  assert.deepEqual([...zlib.inflateSync(idat)], [0, ...px[0]![1]!, ...px[0]![2]!, 0, ...px[1]![1]!, ...px[1]![2]!]);
});
