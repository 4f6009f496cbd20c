/**
 * The HTML report. Pure: a hand-made run file with hostile names renders escaped and small. In the
 * browser: real runs of the dialog demo (two labels of 3 repeats), their run report, compare report and
 * `perf report` output opened from disk in our own Chromium (BrowserSession, as the harness drives
 * pages), snapped, and checked for the verdict, every primary metric with its chart, no request that
 * left the page and no console error; readable at 375 px without horizontal scrolling.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { compareRuns, type RunsComparison } from '../src/perf/compare-runs.js';
import { medianLoad } from '../reporters/format.js';
import type { RepeatRecord, RunFile } from '../src/perf/run-file.js';
import { summarize } from '../src/perf/stats.js';
import { escapeHtml, htmlReporter, jsonInScript } from '../reporters/html.js';
import { getReporter } from '../reporters/index.js';
import { BrowserSession } from '../src/drivers/cdp/session.js';
import { SessionHost } from '../src/engine/host.js';
import { runStep } from '../src/engine/run-step.js';
import { htmlRunContext } from '../src/cli/html-report.js';
import { insightsOf } from '../src/runner/records.js';
import { ROOT } from './helpers.js';
import { watchPage } from './report-page.js';

const work = mkdtempSync(join(tmpdir(), 'rehearse-html-'));
after(() => rmSync(work, { recursive: true, force: true }));
const PERF = join(ROOT, 'bin/perf');
// The issue's bound for the demo scenarios' reports.
const MAX_REPORT_BYTES = 500 * 1024;

function perf(args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [PERF, ...args], {
    cwd: work,
    encoding: 'utf8',
    env: { ...process.env, GITHUB_STEP_SUMMARY: '' },
    timeout: 180_000,
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

// ─── pure ───────────────────────────────────────────────────────────────────────────────────────────

const EVIL = '<script>alert(1)</script>';
const EVIL_STEP = `steps.${EVIL}.ms`;

function handMadeRun(label: string, shift = 1): RunFile {
  const samples: Record<string, number[]> = {
    durationMs: [400, 410, 395, 420, 405].map((v) => v * shift),
    'counters.layouts': [10, 10, 10, 10, 10].map((v) => Math.round(v * shift)),
    'frames.overBudget': [1, 0, 1, 2, 1],
    [EVIL_STEP]: [50, 52, 49, 51, 50],
  };
  const measured = (index: number, warmup = false): RepeatRecord => ({
    index,
    mode: 'timing',
    warmup,
    wallMs: 900,
    steps: [{ phase: 'steps', step: 'tap', label: EVIL, status: 'ok', durationMs: 50 }],
    status: 'measured',
    report: {
      metrics: Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, v[index % v.length]!])),
      summary: {
        frames: { worst: [{ atMs: 12, ms: 33.3 }] },
        blocksBySelf: [{ name: `fn${EVIL}`, url: '/app.js:1', selfMs: 3.2, share: 0.4 }],
      },
    },
  });
  return {
    schemaVersion: 1,
    scenario: `demo${EVIL}`,
    variant: null,
    label,
    scenarioFile: 'scenarios/demo.yaml',
    startedAt: '2026-01-01T00:00:00.000Z',
    finishedAt: '2026-01-01T00:01:00.000Z',
    interrupted: false,
    env: {
      tool: { name: 'rehearse', version: '0.1.0' },
      browser: { product: 'Chrome/131', userAgent: 'ua', headless: true },
      host: {
        platform: 'linux',
        arch: 'x64',
        cpuModel: 'cpu',
        cpus: 2,
        memoryBytes: 8e9,
        loadAverage: [0, 0, 0],
        node: 'v20',
        hostname: 'h',
      },
      restartMode: 'context',
      viewport: { width: 1280, height: 800, dpr: 1, mobile: false, touch: false },
      cpuThrottle: 1,
      app: { kind: 'serve', url: 'http://127.0.0.1:1/' },
    },
    thresholds: { warnPct: 10, errorPct: 25, metrics: {} },
    summary: {
      repeats: 7,
      measured: 5,
      refused: 0,
      failed: 1,
      warmup: 1,
      metrics: Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, summarize(v)])),
      timingOnly: false,
    },
    budgets: [{ expr: `${EVIL_STEP} < 10`, metric: EVIL_STEP, op: '<', limit: 10, value: 50, pass: false }],
    insights: [
      {
        id: 'blockSelfMs',
        severity: 'warn',
        title: `fn${EVIL} holds 40%`,
        evidence: { metric: 'x', value: 1, perFrame: null, threshold: 0.3 },
        nextStep: `perf_insight ${EVIL}`,
      },
    ],
    repeats: [
      measured(0, true),
      measured(1),
      measured(2),
      measured(3),
      measured(4),
      measured(5),
      {
        index: 6,
        mode: 'timing',
        warmup: false,
        wallMs: 100,
        steps: [],
        status: 'failed',
        failure: {
          phase: 'steps',
          step: 'tap',
          label: EVIL,
          error: { kind: 'usage', code: 'target_not_found', message: `no <img src=x onerror=alert(2)> here`, suggestion: EVIL },
          screenshot: 'javascript:alert(3)',
        },
      },
    ],
  };
}

/** Text outside the three script elements the report is made of (data, uPlot, client). */
function markupOf(html: string): string {
  return html
    .replace(/<script type="application\/json" id="rehearse-data">[\s\S]*?<\/script>/, '')
    .replace(/<script>[\s\S]*?<\/script>/g, '');
}

test('run report: every name from the run file is escaped, the data cannot close its script element, and the file is small', () => {
  const html = htmlReporter.renderRun(handMadeRun('a'), {
    html: { run: { screenshots: { 6: { status: 'embedded', dataUrl: 'data:image/png;base64,iVBORw0KGgo=' } } } },
  });
  assert.ok(Buffer.byteLength(html) < MAX_REPORT_BYTES, `${Buffer.byteLength(html)} bytes`);
  assert.equal(html.match(/<script[\s>]/g)?.length, 3, 'exactly the data, uPlot and the client script');
  assert.equal(html.match(/<\/script>/g)?.length, 3);
  const markup = markupOf(html);
  assert.doesNotMatch(markup, /<script|<img src=x/);
  assert.ok(markup.includes(escapeHtml(EVIL_STEP)), 'the metric name shows, escaped');
  assert.ok(markup.includes(escapeHtml(`no <img src=x onerror=alert(2)> here`)));
  assert.ok(markup.includes(escapeHtml(`fn${EVIL}`)), 'top functions');
  assert.ok(markup.includes('src="data:image/png;base64,iVBORw0KGgo="'), 'the screenshot is embedded');
  assert.doesNotMatch(html, /javascript:alert/, 'a non-file link from the run file is dropped');
  // The chart data: JSON with < escaped, which still parses back to the same names.
  const data = /<script type="application\/json" id="rehearse-data">([\s\S]*?)<\/script>/.exec(html)![1]!;
  assert.doesNotMatch(data, /</);
  assert.ok(Object.keys(JSON.parse(data).charts).length >= 4);
  assert.equal(jsonInScript({ s: '</script><!--' }), '{"s":"\\u003c/script>\\u003c!--"}');
  // Offline by construction: no external URL, and a policy that forbids fetching any.
  assert.match(html, /Content-Security-Policy" content="default-src 'none'/);
  assert.doesNotMatch(markup, /(src|href)="https?:/);
});

test('run report: terminal recordings are offered to perf replay, Chrome traces to Perfetto or DevTools', () => {
  const run = handMadeRun('a');
  const cast = markupOf(
    htmlReporter.renderRun(run, { html: { run: { traces: [{ which: 'median', repeat: 2, href: 'r/a-median.cast' }] } } }),
  );
  assert.match(cast, /perf replay FILE/);
  assert.doesNotMatch(cast, /Perfetto/);
  const trace = markupOf(
    htmlReporter.renderRun(run, { html: { run: { traces: [{ which: 'median', repeat: 2, href: 'r/a-median.trace.json' }] } } }),
  );
  assert.match(trace, /Perfetto/);
  assert.match(trace, /href="r\/a-median\.trace\.json"/);
});

test("run report: the insights are the median attribution repeat's by durationMs, and the report names that repeat", () => {
  // T,A,T,T,A,T,A: the median window of all seven is a timing repeat's (5: 415 ms); that of the attribution ones is 6's.
  const ms = [400, 600, 410, 405, 640, 415, 620];
  const attribution = [1, 4, 6];
  const insight = (index: number): Record<string, unknown> => ({
    id: 'framesOverBudget',
    severity: 'warn',
    title: `from repeat ${index}`,
    evidence: {},
    nextStep: attribution.includes(index) ? 'perf_insight framesOverBudget' : "measure again with perf_begin { mode: 'attribution' }",
  });
  const repeat = (index: number, durationMs: number, warmup = false): RepeatRecord => ({
    index,
    mode: attribution.includes(index) || warmup ? 'attribution' : 'timing',
    warmup,
    wallMs: 900,
    steps: [],
    status: 'measured',
    report: {
      metrics: { durationMs },
      insights: [insight(index)],
      summary: { blocksBySelf: [{ name: `fnOfRepeat${index}`, url: '/app.js:1', selfMs: 3, share: 0.5 }] },
    },
  });
  const repeats: RepeatRecord[] = [
    ...ms.map((d, i) => repeat(i, d)),
    // A warmup attribution repeat and a refused one are never the pick.
    repeat(7, 620, true),
    { index: 8, mode: 'attribution', warmup: false, wallMs: 900, steps: [], status: 'refused', reason: 'nothing', report: { metrics: {} } },
  ];
  const picked = insightsOf(repeats);
  assert.deepEqual(picked.insightsFrom, { repeat: 6, mode: 'attribution', of: 3 });
  assert.deepEqual(picked.insights, [insight(6)]);
  const markup = markupOf(htmlReporter.renderRun({ ...handMadeRun('a'), repeats, ...picked }, {}));
  assert.match(markup, /Ranked findings of repeat 6 \(attribution mode\), the median by window duration of the 3 attribution repeats/);
  assert.match(markup, /from repeat 6/);
  // Its profile is the one the top functions are read from.
  assert.match(markup, /CPU profile of repeat 6, the one the insights are of \(attribution/);
  assert.match(markup, /fnOfRepeat6/);

  // No attribution repeat: the median timing repeat, and the report says why its insights name no function.
  const timingOnly = repeats.filter((r) => r.mode === 'timing');
  const fromTiming = insightsOf(timingOnly);
  assert.deepEqual(fromTiming.insightsFrom, { repeat: 2, mode: 'timing', of: 4 });
  const timingMarkup = markupOf(htmlReporter.renderRun({ ...handMadeRun('t'), repeats: timingOnly, ...fromTiming }, {}));
  assert.match(
    timingMarkup,
    /Ranked findings of repeat 2 \(timing mode, the median by window duration of the 4 timing repeats: the run measured no attribution/,
  );
  assert.deepEqual(insightsOf([]), { insights: [] });
});

test('compare report: verdict word and colour class, primary metrics first, escaped names; reporter is listed', () => {
  const a = handMadeRun('base');
  const b = handMadeRun('cand', 1.5);
  const c = compareRuns(a, b, { primary: ['counters.layouts', 'durationMs'] });
  const html = htmlReporter.renderCompare(c, { a, b });
  assert.ok(Buffer.byteLength(html) < MAX_REPORT_BYTES);
  const markup = markupOf(html);
  assert.match(markup, new RegExp(`<span class="badge verdict ${c.verdict}">${c.verdict.toUpperCase()}</span>`));
  assert.doesNotMatch(markup, /<script|<img src=x/);
  assert.ok(markup.indexOf('data-metric="counters.layouts"') < markup.indexOf('<details>'), 'primary before the folded rest');
  assert.equal(getReporter('html'), htmlReporter);
});

test("compare report: the candidate's budgets after the verdict, broken ones first and marked FAIL, escaped", () => {
  const a = handMadeRun('base');
  const b = handMadeRun('cand', 1.5);
  b.budgets = [{ expr: 'durationMs < 500', metric: 'durationMs', op: '<', limit: 500, value: 150, pass: true }, ...b.budgets];
  const markup = markupOf(htmlReporter.renderCompare(compareRuns(a, b, { primary: ['durationMs'] }), { a, b }));
  const section =
    /<h2>Budgets of B \(candidate\) <span class="muted">\(1 of 2 failed\)<\/span><\/h2><div class="scroll">(<table[\s\S]*?<\/table>)/.exec(
      markup,
    );
  assert.ok(section, 'a budgets section with its verdict');
  assert.ok(markup.indexOf('<h2>Budgets') < markup.indexOf('<h2>Primary metrics'), 'budgets before the metrics, as on the terminal');
  const rows = section[1]!.split('<tr').slice(2);
  assert.equal(rows.length, 2);
  assert.match(rows[0]!, /badge fail">FAIL<.*<code>/s, 'the broken budget first, marked');
  assert.ok(rows[0]!.includes(`<code>${escapeHtml(`${EVIL_STEP} < 10`)}</code>`), "the broken budget's line, escaped");
  assert.ok(rows[0]!.includes('50'), 'its value');
  assert.match(rows[1]!, /badge pass">PASS<.*<code>durationMs &lt; 500<\/code>/s);
  // A run without budgets shows no section.
  b.budgets = [];
  assert.doesNotMatch(htmlReporter.renderCompare(compareRuns(a, b, {}), { a, b }), /<h2>Budgets/);
});

test('htmlRunContext: a failure screenshot beside the run file is embedded, a missing one is not invented', () => {
  const dir = join(work, 'ctx');
  mkdirSync(dir, { recursive: true });
  const run = handMadeRun('a');
  const failed = run.repeats.find((r) => r.status === 'failed')!;
  if (failed.status === 'failed') failed.failure.screenshot = 'elsewhere/demo-a-repeat6-failure.png';
  // A 1×1 PNG: the CLI finds it by name beside the run file even though the run recorded another folder.
  writeFileSync(
    join(dir, 'demo-a-repeat6-failure.png'),
    Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64'),
  );
  const ctx = htmlRunContext(run, join(dir, 'demo-a.json'), join(dir, 'demo-a.html'), work);
  const shot = ctx.screenshots?.[6];
  assert.match(shot?.status === 'embedded' ? shot.dataUrl : '', /^data:image\/png;base64,iVBOR/);
  assert.equal(ctx.source, 'ctx/demo-a.json');
  rmSync(join(dir, 'demo-a-repeat6-failure.png'));
  assert.deepEqual(htmlRunContext(run, join(dir, 'demo-a.json'), join(dir, 'demo-a.html'), work).screenshots, {
    6: { status: 'not-shown', why: "elsewhere/demo-a-repeat6-failure.png was not found in the run file's folder" },
  });
});

// ─── page load (issue 29) ───────────────────────────────────────────────────────────────────────────

/** A real run file: `perf run test/fixtures/runs/load-list.yaml` (measure: load on scenarios/app/list.html), traces deleted. */
const LOAD_RUN_FILE = join(ROOT, 'test/fixtures/runs/load-list-run.json');
const loadRun = (label = 'run'): RunFile => ({ ...(JSON.parse(readFileSync(LOAD_RUN_FILE, 'utf8')) as RunFile), label });

test('run report: the median load as a waterfall, a row per request with its bars, the five marks and the LCP element', () => {
  const run = loadRun();
  const m = medianLoad(run)!;
  const markup = markupOf(htmlReporter.renderRun(run));
  const section = markup.slice(markup.indexOf('<h2>Page load</h2>'), markup.indexOf('<h2>Frame timeline</h2>'));
  assert.ok(section.length > 0 && markup.indexOf('<h2>Metrics</h2>') < markup.indexOf('<h2>Page load</h2>'), 'after the metrics');
  assert.match(section, new RegExp(`data-repeat="${m.repeat.index}"`), 'the median repeat by LCP');
  assert.equal(section.match(/<g class="req /g)?.length, m.load.requests!.length, 'one row per request');
  for (const r of m.load.requests!) assert.ok(section.includes(`<title>${escapeHtml(r.url)}</title>`), `${r.url} in full in its tooltip`);
  const waits = m.load.requests!.filter((r) => r.responseStartMs !== null && r.responseStartMs > r.startMs).length;
  assert.equal(section.match(/<rect class="wait"/g)?.length, waits, 'the wait for the first byte apart');
  assert.equal(section.match(/<rect class="dl"/g)?.length, m.load.requests!.length, 'and the download');
  assert.equal(section.match(/class="rb">■<\/text>/g)?.length, m.load.requests!.filter((r) => r.renderBlocking).length);
  for (const mark of ['ttfb', 'fcp', 'lcp', 'dcl', 'load']) assert.match(section, new RegExp(`<line class="mk mk-${mark}"`), mark);
  assert.ok(section.includes(`LCP element: <code>${escapeHtml(m.load.lcpElement!)}`), 'the LCP element named');
  assert.match(section, /<g class="req t-stylesheet"><title>[^<]*app\.css<\/title>.*?>6\.8 KB</);
});

test('run report: hostile page text in the waterfall (URLs, the LCP element, a type) is escaped; bad numbers draw nothing', () => {
  const run = loadRun();
  const m = medianLoad(run)!;
  const requests = m.load.requests!;
  requests[1]!.url = `http://x/"><script>alert(1)</script><svg onload=alert(2)>`;
  requests[2]!.type = '"><img src=x onerror=alert(3)>' as never;
  requests[3]!.endMs = Number.NaN;
  m.load.lcpElement = `img#a "</code><script>alert(4)</script>"`;
  m.load.url = `http://127.0.0.1/"><script>alert(5)</script>`;
  const html = htmlReporter.renderRun(run);
  const markup = markupOf(html);
  assert.equal(html.match(/<script[\s>]/g)?.length, 3, 'exactly the data, uPlot and the client script');
  assert.doesNotMatch(markup, /<script|<img src=x|<svg onload/);
  assert.ok(markup.includes(escapeHtml(requests[1]!.url)));
  assert.ok(markup.includes(escapeHtml(m.load.lcpElement)));
  assert.doesNotMatch(markup, /NaN|Infinity/, 'a number that is not finite is not drawn');
  assert.equal(markup.match(/<g class="req /g)?.length, requests.length - 1, 'the request without an end is left out');
});

test('run report: each request with its status, protocol, cache, initiator, priority, render-blocking and party in its tooltip, escaped', () => {
  const run = loadRun();
  const m = medianLoad(run)!;
  const [doc, css, other] = m.load.requests!;
  Object.assign(css!, {
    status: 404,
    protocol: 'h2',
    servedFrom: 'disk-cache',
    cacheControl: 'max-age=60',
    initiator: { type: 'parser', url: doc!.url },
    priority: 'VeryHigh',
    renderBlockingStatus: 'blocking',
    entity: 'first-party',
  });
  // A hostile file: markup in a fact, a long URL, a number where a string goes.
  Object.assign(other!, { url: `${doc!.url}?${'q'.repeat(400)}`, cacheControl: '</title><script>alert(1)</script>', priority: 7 });
  const markup = markupOf(htmlReporter.renderRun(run));
  const titles = [...markup.matchAll(/<g class="req [^"]*"><title>([^<]*)<\/title>/g)].map((x) => x[1]!);
  const path = new URL(doc!.url).pathname;
  assert.ok(
    titles.includes(`${escapeHtml(css!.url)}\n404 · h2 · disk-cache · max-age=60 · parser ← ${path} · VeryHigh · blocking · first-party`),
    titles.join('\n'),
  );
  assert.doesNotMatch(markup, /<script>alert/);
  const long = titles.find((t) => t.includes('qqq'))!;
  assert.ok(long.includes('…\n') && long.length <= 200 + 60, `the URL gives way to its facts: ${long.length}`);
  assert.ok(
    titles.some((t) => t === escapeHtml(doc!.url)),
    'a request without facts: its URL alone',
  );
});

test('compare report: the two median loads one above the other on one time axis, with the load metric rows', () => {
  const a = loadRun('base');
  const b = loadRun('cand');
  const c = compareRuns(a, b, {});
  const markup = markupOf(htmlReporter.renderCompare(c, { a, b }));
  const section = markup.slice(markup.indexOf('<h2>Page load</h2>'), markup.indexOf('<h2>Runs</h2>'));
  assert.equal(section.match(/<div class="card load"/g)?.length, 2);
  assert.ok(section.indexOf('A · baseline: base') < section.indexOf('B · candidate: cand'), 'baseline above the candidate');
  const axes = [...section.matchAll(/viewBox="0 0 1000 [\d.]+"/g)];
  assert.equal(axes.length, 2);
  assert.match(markup, /data-metric="load\.lcpMs"/, 'the load metric rows as usual');
});

test('a compare of two 300-request waterfalls with long URLs stays under the report bound, and says what it left out', () => {
  const big = (label: string): RunFile => {
    const run = loadRun(label);
    for (const r of run.repeats) {
      if (r.status !== 'measured' || !r.report.load) continue;
      r.report.load.requestsTotal = 450;
      r.report.load.requests = Array.from({ length: 300 }, (_, i) => ({
        url: `https://cdn.example.com/assets/${'x'.repeat(250)}/chunk-${i}.js?v=${'y'.repeat(200)}`,
        type: 'script' as const,
        startMs: i * 3,
        responseStartMs: i * 3 + 20,
        endMs: i * 3 + 50,
        transferBytes: 1000 + i,
        renderBlocking: i % 7 === 0,
      }));
    }
    return run;
  };
  const [a, b] = [big('base'), big('cand')];
  const html = htmlReporter.renderCompare(compareRuns(a, b, {}), { a, b });
  assert.ok(Buffer.byteLength(html) < MAX_REPORT_BYTES, `${Buffer.byteLength(html)} bytes`);
  assert.equal(markupOf(html).match(/<g class="req /g)?.length, 600);
  assert.match(html, /The first 300 of 450 requests by start/);
});

// ─── in the browser ─────────────────────────────────────────────────────────────────────────────────

interface PageCheck {
  snapshot: string;
  requests: string[];
  errors: string[];
  charts: Record<string, number>;
  timelineCanvases: number;
  scrollWidth: number;
}

let session: BrowserSession | undefined;
after(async () => session?.close());

/** Open `file` from disk in our Chromium at `width` CSS px, snap it, and read what the assertions need. */
async function openReport(file: string, metrics: string[], width = 1000): Promise<PageCheck> {
  session ??= await BrowserSession.open({ prewarm: 'none' });
  await session.restart('context');
  const page = session.page;
  const { requests, errors } = await watchPage(page);
  await page.send('Emulation.setDeviceMetricsOverride', { width, height: 800, deviceScaleFactor: 1, mobile: width < 500 });
  await page.navigate(pathToFileURL(file).href);
  await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
  const snap = await runStep(new SessionHost(session, pathToFileURL(work).href), 'snap', { maxBytes: 200_000 });
  assert.equal(snap.status, 'ok', JSON.stringify(snap));
  const snapshot = String((snap as { data?: { snapshot?: unknown } }).data?.snapshot ?? '');
  const read = await page.evaluate<{ charts: Record<string, number>; timelineCanvases: number; scrollWidth: number }>(`(() => {
    const charts = {};
    for (const m of ${JSON.stringify(metrics)}) charts[m] = document.querySelectorAll('[data-metric="' + CSS.escape(m) + '"] .chart .uplot canvas').length;
    return { charts, timelineCanvases: document.querySelectorAll('.timeline .chart canvas').length, scrollWidth: document.documentElement.scrollWidth };
  })()`);
  return { snapshot, requests: requests.filter((u) => !/^(file|data):/.test(u)), errors, ...read };
}

test('real runs of the dialog demo: run, compare and `perf report` HTML open offline in Chromium with verdict, primary metrics and charts', async () => {
  const scenario = join(ROOT, 'scenarios/dialog.yaml');
  for (const label of ['a', 'b']) {
    const r = perf(['run', scenario, '--repeat', '3', '--warmup', '0', '--label', label, '--out', 'out', '--reporter', 'html', '--quiet']);
    assert.equal(r.code, 0, r.stderr);
  }
  const runReport = join(work, 'out/dialog-b.html');
  assert.ok(existsSync(runReport), 'perf run --reporter html writes <run>.html beside the run file');
  const cmp = perf(['compare', 'out/dialog-a.json', 'out/dialog-b.json', '--reporter', 'html', '--out', 'out/compare.html']);
  assert.ok(cmp.code === 0 || cmp.code === 1, cmp.stderr);
  assert.match(cmp.stdout, /counters\.layouts|metric/, 'the table still goes to stdout');
  const compareReport = join(work, 'out/compare.html');
  const viaReport = perf(['report', 'out/dialog-a.json', '--json']);
  assert.equal(viaReport.code, 0, viaReport.stderr);
  assert.equal(JSON.parse(viaReport.stdout).kind, 'run');
  assert.ok(existsSync(join(work, 'out/dialog-a.html')));

  for (const f of [runReport, compareReport]) assert.ok(statSync(f).size < MAX_REPORT_BYTES, `${f}: ${statSync(f).size} bytes`);
  const runHtml = readFileSync(runReport, 'utf8');
  assert.match(runHtml, /each bar: one frame/, 'the timeline is read from the trace saved beside the run file');
  assert.match(runHtml, /<a href="dialog-b-median\.trace\.json">/, "a link to the median repeat's trace, relative to the report");
  process.stderr.write(
    `# report sizes: run ${(statSync(runReport).size / 1024).toFixed(0)} KB, compare ${(statSync(compareReport).size / 1024).toFixed(0)} KB\n`,
  );

  const run = JSON.parse(readFileSync(join(work, 'out/dialog-b.json'), 'utf8')) as RunFile;
  const primary = ['counters.layouts', 'counters.styleRecalcs', 'durationMs'].filter((m) => run.summary.metrics[m]);
  const r = await openReport(runReport, primary);
  assert.match(r.snapshot, /\bOK\b|PARTIAL|FAIL/);
  for (const m of primary) {
    assert.ok(r.snapshot.includes(m), `${m} in the snapshot`);
    assert.equal(r.charts[m], 1, `${m} has its chart (one canvas)`);
  }
  assert.ok(r.timelineCanvases >= 1, 'a frame timeline is drawn');
  assert.deepEqual(r.requests, [], 'no request left the page');
  assert.deepEqual(r.errors, [], 'no console error');

  const comparison = JSON.parse(perf(['compare', 'out/dialog-a.json', 'out/dialog-b.json', '--json']).stdout) as RunsComparison;
  const gated = comparison.rows.filter((row) => row.gated).map((row) => row.metric);
  assert.ok(gated.length > 0, 'the dialog compare judges some primary metric');
  const c = await openReport(compareReport, gated);
  assert.ok(
    c.snapshot.includes({ pass: 'PASS', warn: 'WARN', fail: 'FAIL', inconclusive: 'INCONCLUSIVE' }[comparison.verdict]),
    `verdict ${comparison.verdict} in:\n${c.snapshot.slice(0, 600)}`,
  );
  for (const m of gated) {
    assert.ok(c.snapshot.includes(m), `${m} in the snapshot`);
    assert.equal(c.charts[m], 1, `${m} has its chart`);
  }
  assert.deepEqual(c.requests, []);
  assert.deepEqual(c.errors, []);

  // A phone-width window: the page itself never scrolls sideways (tables scroll in their own box).
  for (const f of [runReport, compareReport]) {
    const narrow = await openReport(f, [], 375);
    assert.ok(narrow.scrollWidth <= 375, `${f}: ${narrow.scrollWidth} px wide at 375`);
    assert.deepEqual(narrow.errors, []);
  }
});

test('perf gate --reporter html: one compare report per run beside its run file, verdict first; other reporters are refused', () => {
  const r = perf([
    'gate',
    join(ROOT, 'scenarios/dialog.yaml'),
    '--baselines',
    join(ROOT, 'baselines'),
    '--repeat',
    '3',
    '--warmup',
    '0',
    '--fixed',
    '--reporter',
    'html',
    '--out',
    'gate',
  ]);
  assert.ok(r.code === 0 || r.code === 1, r.stderr);
  assert.match(r.stderr, /reports: gate\/gate\.html, gate\/dialog-gate\.html/);
  const html = readFileSync(join(work, 'gate/dialog-gate.html'), 'utf8');
  assert.match(
    html,
    /<h1><span class="badge verdict (pass|warn|fail|inconclusive)">(PASS|WARN|FAIL|INCONCLUSIVE)<\/span> dialog: baseline → gate<\/h1>/,
  );
  assert.ok(html.indexOf('<h1>') < html.indexOf('Primary metrics'));
  assert.ok(Buffer.byteLength(html) < MAX_REPORT_BYTES);
  // The whole gate on one page, linking each run's report.
  const index = readFileSync(join(work, 'gate/gate.html'), 'utf8');
  assert.match(
    index,
    /<h1><span class="badge verdict (pass|warn|fail|inconclusive)">(PASS|WARN|FAIL|INCONCLUSIVE)<\/span> perf gate<\/h1>/,
  );
  assert.match(index, /<a href="dialog-gate\.html"><code>dialog<\/code><\/a>/);
  const junit = perf(['gate', join(ROOT, 'scenarios/dialog.yaml'), '--reporter', 'junit']);
  assert.equal(junit.code, 2, junit.stderr);
  assert.match(junit.stderr, /the gate writes html reports only/);
});

test('perf report: a missing file and a file that is not a run file are usage errors (exit 2) naming the file', () => {
  const missing = perf(['report', 'nope.json']);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /nope\.json: no such file/);
  assert.doesNotMatch(missing.stderr, /at .*\.js:\d+/);
  writeFileSync(join(work, 'other.json'), '{"hello": 1}');
  const other = perf(['report', 'other.json']);
  assert.equal(other.code, 2);
  assert.match(other.stderr, /other\.json: not a rehearse run file nor a compare result: expected/);
  const three = perf(['report', 'a.json', 'b.json', 'c.json']);
  assert.equal(three.code, 2);
});

test("a load run's report opens offline in Chromium: the waterfall is drawn, nothing is fetched, narrow screens scroll it in its box", async () => {
  const file = join(work, 'load-list-run.html');
  writeFileSync(file, htmlReporter.renderRun(loadRun()));
  const r = await openReport(file, ['load.lcpMs']);
  assert.ok(r.snapshot.includes('Page load'), 'the section is in the page');
  assert.deepEqual(r.requests, [], 'no request left the page');
  assert.deepEqual(r.errors, [], 'no console error (no inline style the policy would refuse)');
  const drawn = await session!.page.evaluate<{ rows: number; width: number; marks: number }>(`(() => {
    const svg = document.querySelector('svg.waterfall');
    return { rows: svg.querySelectorAll('g.req').length, width: svg.getBoundingClientRect().width,
      marks: [...svg.querySelectorAll('line.mk')].filter((l) => getComputedStyle(l).stroke !== 'none').length };
  })()`);
  assert.equal(drawn.rows, medianLoad(loadRun())!.load.requests!.length);
  assert.ok(drawn.width > 700, `${drawn.width} px wide`);
  assert.equal(drawn.marks, 5, 'each mark has its colour from the stylesheet');
  const narrow = await openReport(file, [], 375);
  assert.ok(narrow.scrollWidth <= 375, `${narrow.scrollWidth} px wide at 375`);
});
