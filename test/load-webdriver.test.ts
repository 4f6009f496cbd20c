/**
 * `measure: load` over WebDriver, through the real CLI: WebKit (WebKitGTK MiniBrowser through
 * WebKitWebDriver, no BiDi: the probe goes in after the load event) and Chromium through chromedriver
 * (BiDi: the probe is a preload script). The run file holds the load family the registry declares for
 * the engine, and only that; the bytes of every served file; the waterfall; and, for what the engine
 * lacks, a warning with the reason instead of a zero.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findServerBinary, miniBrowserPath } from '../src/drivers/webdriver/server.js';
import { LOAD_METRICS, type DriverName } from '../src/perf/metrics.js';
import type { RunFile } from '../src/perf/run-file.js';
import { LOAD_QUIET_MS } from '../src/perf/measure.js';
import { perfCli as perf } from './helpers.js';

const missingWebKit =
  findServerBinary('webkit') && miniBrowserPath() ? false : 'WebKitWebDriver not installed (apt-get install webkit2gtk-driver xvfb)';
const missingChromedriver = findServerBinary('chromedriver') ? false : 'chromedriver not installed (apt-get install chromium-driver)';

// Resource Timing: transferSize is the encoded body size plus 300, a constant that stands in for the
// headers so their size is not exposed (w3c/resource-timing, "transferSize"; both engines here do it).
const HEADER_ALLOWANCE = 300;

/** A page with a stylesheet, a script and an image of known sizes; the icon is inline, so the browser fetches no favicon. */
function writeApp(dir: string): Record<string, number> {
  const files: Record<string, string> = {
    'index.html':
      '<!doctype html><html><head><meta charset="utf-8"><title>load</title><link rel="icon" href="data:,">' +
      '<link rel="stylesheet" href="style.css"><script src="app.js"></script></head>' +
      '<body><h1>Load over WebDriver</h1><p id="out">waiting</p><img src="logo.svg" width="200" height="100" alt="logo"></body></html>',
    'style.css': `body { font: 16px sans-serif; margin: 2em; }\n/* ${'x'.repeat(4000)} */\n`,
    'app.js': `window.padding = "${'y'.repeat(20_000)}";\naddEventListener('DOMContentLoaded', () => { out.textContent = 'ready'; });\n`,
    'logo.svg':
      '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100"><rect width="200" height="100" fill="#36c"/>' +
      '<text x="20" y="60" font-size="32" fill="#fff">logo</text></svg>',
  };
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, 'app', name), text);
  return Object.fromEntries(Object.keys(files).map((name) => [name, statSync(join(dir, 'app', name)).size]));
}

const ENGINES: { driver: DriverName; browser: string; missing: string | false; preloaded: boolean }[] = [
  { driver: 'webdriver-webkit', browser: '{ engine: webkit }', missing: missingWebKit, preloaded: false },
  { driver: 'webdriver-chromium', browser: '{ driver: webdriver }', missing: missingChromedriver, preloaded: true },
];

for (const { driver, browser, missing, preloaded } of ENGINES) {
  test(
    `${driver}: measure: load through perf run gives the load family the registry declares, the bytes and the waterfall`,
    {
      skip: missing,
      timeout: 300_000,
    },
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'rehearse-load-wd-'));
      try {
        mkdirSync(join(dir, 'app'));
        const sizes = writeApp(dir);
        writeFileSync(
          join(dir, 'load.yaml'),
          `name: load-${driver}\napp: { serve: ./app, path: /index.html }\nbrowser: ${browser}\nmeasure: load\nsteps: []\n`,
        );
        const r = await perf(dir, ['run', 'load.yaml', '--repeat', '2', '--warmup', '0', '--out', 'out', '--json'], 240_000);
        assert.equal(r.code, 0, r.stderr);
        const out = JSON.parse(r.stdout) as { path: string };
        const run = JSON.parse(readFileSync(out.path, 'utf8')) as RunFile;
        const why = JSON.stringify(run.repeats.map((x) => (x.status === 'failed' ? x.failure.error.message : x.status)));
        // Two timing repeats: WebDriver records no CPU profile, so no attribution repeat is scheduled between them.
        assert.deepEqual(
          run.repeats.map((x) => x.mode),
          ['timing', 'timing'],
          why,
        );
        assert.equal(run.summary.measured, 2, why);

        // The load family: exactly what the registry declares for this engine.
        const produced = Object.keys(run.summary.metrics).filter((k) => k.startsWith('load.'));
        const declared = LOAD_METRICS.filter((d) => d.drivers.includes(driver)).map((d) => d.name);
        assert.deepEqual(produced.sort(), [...declared].sort());
        const median = (k: string): number => run.summary.metrics[k]!.median;
        assert.ok(median('load.fcpMs') > 0, 'the page painted');

        // Every served file once, and its bytes: the file's size plus Resource Timing's header allowance.
        const served = Object.values(sizes);
        assert.equal(median('load.requests'), served.length);
        assert.equal(
          median('load.transferBytes'),
          served.reduce((s, n) => s + n + HEADER_ALLOWANCE, 0),
        );
        assert.equal(median('load.transferBytes.script'), sizes['app.js']! + HEADER_ALLOWANCE);
        assert.equal(median('load.transferBytes.stylesheet'), sizes['style.css']! + HEADER_ALLOWANCE);
        assert.equal(median('load.transferBytes.image'), sizes['logo.svg']! + HEADER_ALLOWANCE);
        assert.equal(median('load.transferBytes.document'), sizes['index.html']! + HEADER_ALLOWANCE);

        for (const repeat of run.repeats) {
          assert.equal(repeat.status, 'measured');
          if (repeat.status !== 'measured') continue;
          const load = repeat.report.load!;
          const requests = load.requests ?? [];
          assert.equal(repeat.report.coverage?.load, 'read');
          assert.equal(load.ended, 'quiet');
          // The waterfall: every request, the document first, each with its own bytes.
          const byName = new Map(requests.map((q) => [new URL(q.url).pathname.slice(1), q]));
          assert.deepEqual([...byName.keys()].sort(), Object.keys(sizes).sort());
          assert.equal(requests[0]!.type, 'document');
          for (const [name, size] of Object.entries(sizes)) assert.equal(byName.get(name)!.transferBytes, size + HEADER_ALLOWANCE, name);
          assert.equal(load.top[0]!.url.endsWith('/app.js'), true, 'the largest request first');

          // What the engine lacks is said with its reason, not written as zero.
          const warnings = (repeat.report.warnings ?? []) as string[];
          for (const d of LOAD_METRICS.filter((m) => !m.drivers.includes(driver)))
            assert.ok(
              warnings.some((w) => w.startsWith(`${d.name} not measured: `)),
              `${d.name}: ${JSON.stringify(warnings)}`,
            );
          assert.equal(
            warnings.some((w) => w.startsWith('the load probe went in after the load event')),
            !preloaded,
          );
          if (preloaded) assert.match(load.lcpElement ?? '', /^(h1|img|p)/, 'the LCP element is named');
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
}

test(
  'webdriver-chromium: a request still in flight after the load keeps the window open (BiDi network events)',
  {
    skip: missingChromedriver,
    timeout: 300_000,
  },
  async () => {
    // Twice the quiet time: without the requests in flight, the window would end quiet before the answer.
    // The page reads the body: Chromium ends a fetch whose body nobody reads never (no entry, no responseCompleted).
    const slowMs = 2 * LOAD_QUIET_MS;
    const page =
      '<!doctype html><html><head><link rel="icon" href="data:,"></head><body><p>slow</p>' +
      "<script>addEventListener('load', () => setTimeout(() => fetch('/slow').then((r) => r.text()), 0));</script></body></html>";
    const server = http.createServer((req, res) => {
      const reply = (body: string, type: string): void => {
        res.writeHead(200, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-store' });
        res.end(body);
      };
      if (req.url === '/slow') setTimeout(() => reply('{"late":true}', 'application/json'), slowMs);
      else reply(page, 'text/html');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const dir = mkdtempSync(join(tmpdir(), 'rehearse-load-wd-'));
    try {
      const { port } = server.address() as AddressInfo;
      writeFileSync(
        join(dir, 'slow.yaml'),
        `name: load-slow\napp: { url: "http://127.0.0.1:${port}/" }\nbrowser: { driver: webdriver }\nmeasure: load\nsteps: []\n`,
      );
      const r = await perf(dir, ['run', 'slow.yaml', '--repeat', '1', '--warmup', '0', '--out', 'out', '--json'], 240_000);
      assert.equal(r.code, 0, r.stderr);
      const run = JSON.parse(readFileSync((JSON.parse(r.stdout) as { path: string }).path, 'utf8')) as RunFile;
      const repeat = run.repeats[0]!;
      assert.equal(repeat.status, 'measured', JSON.stringify(repeat.status === 'failed' ? repeat.failure : repeat.status));
      if (repeat.status !== 'measured') return;
      const requests = repeat.report.load!.requests ?? [];
      assert.deepEqual(
        requests.map((q) => `${new URL(q.url).pathname} ${q.type}`),
        ['/ document', '/slow fetch'],
      );
      assert.equal(run.summary.metrics['load.requests']!.median, 2);
    } finally {
      server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

test(
  'webdriver-chromium: soft navigations (an SPA route change by a step) get their next paint and LCP, as over CDP',
  { skip: missingChromedriver, timeout: 300_000 },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rehearse-softnav-wd-'));
    try {
      // The bundled routes scenario (three History API route changes: two taps and a back), over chromedriver.
      const scenario = readFileSync(join(import.meta.dirname, '..', '..', 'scenarios', 'routes.yaml'), 'utf8')
        .replace('serve: ./app', `serve: ${JSON.stringify(join(import.meta.dirname, '..', '..', 'scenarios', 'app'))}`)
        .replace(/^app:/m, 'browser: { driver: webdriver }\napp:');
      writeFileSync(join(dir, 'routes.yaml'), scenario);
      const r = await perf(
        dir,
        ['run', 'routes.yaml', '--repeat', '1', '--warmup', '0', '--out', 'out', '--json', '--allow-outside'],
        240_000,
      );
      assert.equal(r.code, 0, r.stderr);
      const run = JSON.parse(readFileSync((JSON.parse(r.stdout) as { path: string }).path, 'utf8')) as RunFile;
      assert.equal(run.env.browser.driver, 'webdriver');
      assert.equal(run.summary.metrics['softNavs.count']?.median, 3, JSON.stringify(Object.keys(run.summary.metrics)));
      assert.ok(run.summary.metrics['softNavs.nextPaintMs']!.median > 0, 'each route painted');
      assert.ok(run.summary.metrics['softNavs.lcpMs']!.median > 0, 'each route had a contentful paint');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
