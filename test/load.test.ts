/**
 * `measure: load` end to end (issue 29): the real CLI (`./bin/perf run`) on real Chromium loads the fixture
 * app of test/fixtures/load (a page, a render-blocking stylesheet, a deferred script, a hero image, a web
 * font) and the run file says what was served: transfer bytes per type to the byte, the request count,
 * the LCP element, the milestones in order and the waterfall. Then the cache: a warm load of cacheable
 * assets transfers only the page, a cold one everything, and `app.serve` (no-store) everything either way.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LoadReadings } from '../src/drivers/measure.js';
import { loadReadSource } from '../src/drivers/runtime/load-probe.js';
import type { RunFile } from '../src/perf/run-file.js';
import { FIXTURES_DIR, fresh, ROOT, sharedBrowser } from './helpers.js';

const work = mkdtempSync(join(tmpdir(), 'rehearse-load-'));
after(() => rmSync(work, { recursive: true, force: true }));
// The app beside the scenarios, as in a project: `serve` stays inside the scenario's folder.
cpSync(join(FIXTURES_DIR, 'load'), join(work, 'app'), { recursive: true });
const PERF = join(ROOT, 'bin/perf');

/**
 * Transfer bytes over CDP are what the network stack received (Network.loadingFinished encodedDataLength): the
 * served body plus the real response headers, whose size depends on the server (a date, the length's digits):
 * ~150-200 bytes from these servers. The body is asserted exactly, the headers within a bound; a cache hit is 0.
 */
const HEADERS_MIN = 80;
const HEADERS_MAX = 400;
const SERVED = {
  document: ['index.html'],
  stylesheet: ['app.css'],
  script: ['app.js'],
  image: ['hero.png'],
  font: ['font.woff'],
} as const;
type Served = keyof typeof SERVED;
const sizeOf = (file: string): number => statSync(join(FIXTURES_DIR, 'load', file)).size;
const bodyBytes = (types: readonly Served[]): number => types.flatMap((t) => SERVED[t]).reduce((s, f) => s + sizeOf(f), 0);
/** `actual` is the bodies of `types` plus one response's headers per file. */
function assertServed(actual: number | undefined, types: readonly Served[], ctx: string): void {
  const files = types.flatMap((t) => SERVED[t]).length;
  const body = bodyBytes(types);
  assert.ok(
    actual !== undefined && actual >= body + files * HEADERS_MIN && actual <= body + files * HEADERS_MAX,
    `${actual} bytes for ${types.join(', ')} (bodies ${body} + ${files} headers): ${ctx}`,
  );
}
const REQUESTS = Object.values(SERVED).flat().length;

function perf(args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [PERF, ...args], { cwd: work, encoding: 'utf8', timeout: 180_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

type Measured = Extract<RunFile['repeats'][number], { status: 'measured' }>;

/** Runs the scenario (repeat 2, no warmup) and returns its measured repeats. */
function runLoad(name: string, body: string): Measured[] {
  writeFileSync(join(work, `${name}.yaml`), `name: ${name}\n${body}measure: load\nrepeat: 2\nwarmup: 0\nsteps: []\n`);
  const r = perf(['run', `${name}.yaml`, '--out', 'out']);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const run = JSON.parse(readFileSync(join(work, 'out', `${name}-run.json`), 'utf8')) as RunFile;
  const measured = run.repeats.filter((x): x is Measured => x.status === 'measured');
  // Two timing repeats and the attribution one between them (a load scenario interleaves timing by default).
  assert.equal(measured.length, 3, JSON.stringify(run.repeats.map((x) => (x.status === 'refused' ? x.reason : x.status))));
  return measured;
}

const metric = (rep: Measured, name: string): number | undefined => rep.report.metrics[name];

/** Every request's bar runs forwards: start ≤ first byte ≤ end (issue 57: a font's first byte came after its end). */
function assertOrdered(rep: Measured): void {
  const requests = rep.report.load?.requests ?? [];
  assert.ok(
    requests.some((x) => x.type === 'font'),
    'the font is in the waterfall',
  );
  for (const x of requests) {
    const at = `${x.url}: ${x.startMs} / ${x.responseStartMs} / ${x.endMs}`;
    assert.ok(x.startMs <= x.endMs, at);
    if (x.responseStartMs !== null) assert.ok(x.startMs <= x.responseStartMs && x.responseStartMs <= x.endMs, at);
  }
}

test('a cold load through `perf run`: bytes per type to the byte, 5 requests, LCP the hero image, the waterfall by start', () => {
  const repeats = runLoad('cold-serve', 'app: { serve: ./app, path: /index.html }\n');
  for (const rep of repeats) {
    const ctx = JSON.stringify(rep.report.load?.requests ?? null);
    for (const type of Object.keys(SERVED) as (keyof typeof SERVED)[]) {
      assertServed(metric(rep, `load.transferBytes.${type}`), [type], ctx);
    }
    assert.equal(metric(rep, 'load.transferBytes.fetch'), 0);
    assert.equal(metric(rep, 'load.transferBytes.other'), 0);
    assertServed(metric(rep, 'load.transferBytes'), Object.keys(SERVED) as Served[], ctx);
    assert.equal(metric(rep, 'load.requests'), REQUESTS, ctx);

    const load = rep.report.load!;
    assert.equal(load.ended, 'quiet');
    assert.match(load.url, /\/index\.html$/);
    assert.equal(load.lcpElement, 'img#hero "Hero banner"');
    assert.match(load.lcpUrl ?? '', /\/hero\.png$/);
    const fcp = metric(rep, 'load.fcpMs')!;
    const lcp = metric(rep, 'load.lcpMs')!;
    assert.ok(fcp > 0 && fcp <= lcp, `fcp ${fcp} lcp ${lcp}`);
    assert.ok(metric(rep, 'load.ttfbMs')! <= fcp);
    assert.equal(metric(rep, 'load.clsScore'), 0, 'the image has its size: nothing shifts');

    // The waterfall: every request, the document first, then by start; the stylesheet holds the first paint.
    const wf = load.requests!;
    assert.equal(wf.length, REQUESTS);
    assert.equal(load.requestsTotal, REQUESTS);
    assert.equal(wf[0]!.type, 'document');
    assert.equal(wf[0]!.startMs, 0);
    for (let i = 1; i < wf.length; i++) assert.ok(wf[i - 1]!.startMs <= wf[i]!.startMs, ctx);
    assert.deepEqual(wf.map((x) => x.url.split('/').pop()).sort(), Object.values(SERVED).flat().sort());
    const byName = new Map(wf.map((x) => [x.url.split('/').pop()!, x]));
    assert.equal(byName.get('app.css')!.renderBlocking, true);
    assert.equal(byName.get('app.css')!.type, 'stylesheet');
    assert.equal(byName.get('app.js')!.renderBlocking, false, 'a deferred script does not block the first paint');
    assertOrdered(rep);
    // The top requests: the largest first (the font, then the image), at most 5.
    assert.deepEqual(
      load.top.map((x) => x.url.split('/').pop()),
      [...wf].sort((a, b) => b.transferBytes - a.transferBytes).map((x) => x.url.split('/').pop()),
    );
    assert.equal(load.top[0]!.type, 'font');
  }
});

test('cache: a warm load (reload restart, cacheable assets) transfers only the page; cache: cold transfers everything', () => {
  const app = 'app: { command: "node app/server.mjs --cache", url: "http://127.0.0.1:${PORT}/index.html" }\n';
  const warm = runLoad('warm', `${app}browser: { restart: reload }\ncache: warm\n`);
  for (const rep of warm) {
    const ctx = JSON.stringify(rep.report.load?.requests ?? null);
    // The page is no-store (a deploy changes it); every asset comes from the HTTP cache: 0 bytes, still a request.
    assertServed(metric(rep, 'load.transferBytes'), ['document'], ctx);
    for (const type of ['script', 'stylesheet', 'image', 'font']) assert.equal(metric(rep, `load.transferBytes.${type}`), 0, type);
    assert.equal(metric(rep, 'load.requests'), REQUESTS);
    assert.equal(rep.report.load!.lcpElement, 'img#hero "Hero banner"');
    assert.equal(rep.report.load!.ended, 'quiet');
    // From the HTTP cache: each request's first byte is still within its start..end.
    assertOrdered(rep);
  }
  // The same restart with cache: cold clears the HTTP cache before the load: everything is fetched again.
  const cold = runLoad('cold-reload', `${app}browser: { restart: reload }\ncache: cold\n`);
  for (const rep of cold) {
    for (const type of Object.keys(SERVED) as (keyof typeof SERVED)[]) {
      assertServed(metric(rep, `load.transferBytes.${type}`), [type], type);
    }
    assertOrdered(rep);
  }
});

test('cache: warm on app.serve still transfers everything: the static server answers no-store (every repeat loads cold)', () => {
  const repeats = runLoad('warm-serve', 'app: { serve: ./app, path: /index.html }\nbrowser: { restart: reload }\ncache: warm\n');
  for (const rep of repeats) {
    for (const type of Object.keys(SERVED) as (keyof typeof SERVED)[]) {
      assertServed(metric(rep, `load.transferBytes.${type}`), [type], type);
    }
    assert.equal(metric(rep, 'load.requests'), REQUESTS);
  }
});

/** Runs a one-repeat load scenario of `body` (no timing repeats) and returns its measured repeat. */
function loadOnce(name: string, body: string): Measured {
  writeFileSync(join(work, `${name}.yaml`), `name: ${name}\n${body}measure: load\nrepeat: 1\nwarmup: 0\ntiming: false\nsteps: []\n`);
  const r = perf(['run', `${name}.yaml`, '--out', 'out']);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const run = JSON.parse(readFileSync(join(work, 'out', `${name}-run.json`), 'utf8')) as RunFile;
  const [rep] = run.repeats.filter((x): x is Measured => x.status === 'measured');
  assert.ok(rep, JSON.stringify(run.repeats));
  return rep;
}

test('loadQuietMs: a fetch 1.2 s after the load event is in a window that waits 2.5 s of quiet, not in one that waits 0.2 s', () => {
  writeFileSync(
    join(work, 'app', 'late.html'),
    '<!doctype html><html><head><meta charset="utf-8"><title>late</title><link rel="icon" href="data:,"></head>' +
      '<body><h1>Late</h1><script>addEventListener("load", () => setTimeout(() => fetch("late.txt").then((r) => r.text()), 1200));' +
      '</script></body></html>',
  );
  writeFileSync(join(work, 'app', 'late.txt'), 'late\n');
  const requests = (name: string, quietMs: number): number | undefined => {
    const rep = loadOnce(name, `app: { serve: ./app, path: /late.html }\nloadQuietMs: ${quietMs}\n`);
    assert.equal(rep.report.load?.ended, 'quiet', JSON.stringify(rep.report.warnings));
    return metric(rep, 'load.requests');
  };
  // The page alone (its icon is a data: URL), then the page and the late fetch. The body is read: Chromium never finishes
  // a fetch whose body nobody reads here, so it would have no Resource Timing entry to count (the next test).
  assert.equal(requests('quiet-short', 200), 1);
  assert.equal(requests('quiet-long', 2500), 2);
});

test('a fetch whose body the page never reads does not hold the load open: the window ends quiet, not at its deadline', () => {
  writeFileSync(
    join(work, 'app', 'unread.html'),
    '<!doctype html><html><head><meta charset="utf-8"><title>unread</title><link rel="icon" href="data:,"></head>' +
      '<body><h1>Unread</h1><script>addEventListener("load", () => setTimeout(() => fetch("late.txt"), 200));</script></body></html>',
  );
  writeFileSync(join(work, 'app', 'late.txt'), 'late\n');
  const rep = loadOnce('unread', 'app: { serve: ./app, path: /unread.html }\n');
  // Chromium keeps such a fetch loading (its body is never drained): it is a stalled response, not network activity.
  assert.equal(rep.report.load?.ended, 'quiet', JSON.stringify(rep.report.warnings));
});

test('a throttled load (fast-4g): every request runs start ≤ first byte ≤ end', { timeout: 180_000 }, () => {
  assertOrdered(loadOnce('throttled', 'app: { serve: ./app, path: /index.html }\nnetwork: { profile: fast-4g }\n'));
});

test('a first byte the browser puts outside its request is left out and listed, the others kept', { timeout: 60_000 }, async () => {
  const { fixtures } = await sharedBrowser();
  const { session } = await fresh(`${fixtures.url}/load/index.html`);
  const fontLoaded = "performance.getEntriesByType('resource').some((e) => e.name.endsWith('/font.woff'))";
  for (let i = 0; i < 250 && !(await session.page.evaluate<boolean>(fontLoaded)); i++) await new Promise((r) => setTimeout(r, 20));
  // Chromium's entry as the review read it (its first byte after its end): added to the real ones of this load.
  await session.page.evaluate(`(() => {
    const real = performance.getEntriesByType.bind(performance);
    const bad = { name: location.origin + '/load/late.woff', initiatorType: 'css', contentType: 'font/woff', startTime: 900,
      responseStart: 1340.3, responseEnd: 958.9, transferSize: 100, renderBlockingStatus: 'non-blocking' };
    performance.getEntriesByType = (type) => (type === 'resource' ? [...real(type), bad] : real(type));
  })()`);
  const read = await session.page.evaluate<Pick<LoadReadings, 'requests' | 'unorderedFirstBytes'>>(loadReadSource());
  const late = read.requests.find((r) => r.url.endsWith('/late.woff'));
  assert.deepEqual(late && [late.type, late.startMs, late.responseStartMs, late.endMs], ['font', 900, null, 958.9]);
  assert.deepEqual(
    read.unorderedFirstBytes?.map((u) => [u.url.split('/').pop(), u.startMs, u.firstByteMs, u.endMs]),
    [['late.woff', 900, 1340.3, 958.9]],
  );
  // The page's own requests keep their first bytes.
  const font = read.requests.find((r) => r.url.endsWith('/font.woff'));
  assert.ok(font && font.responseStartMs !== null && font.startMs <= font.responseStartMs && font.responseStartMs <= font.endMs);
});
