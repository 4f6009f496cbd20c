/**
 * Attribution in the HTML compare report (issue 27). Pure: a comparison of the stored dialog baseline
 * with itself, given hand-made attribution (hostile names in every string), renders the two runs' lines
 * side by side, the missing note, and a differential flame graph whose frames, colours and caps are
 * checked. In the browser: the same report opened from disk in our own Chromium draws the flame graph
 * and runs nothing of the payload (no request reaches the beacon it calls, no console error).
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ComparisonFlame, RepeatAttribution, RowAttribution } from '../src/perf/attribution.js';
import { compareRuns, validateRunFile } from '../src/perf/compare-runs.js';
import type { RunFile } from '../src/perf/run-file.js';
import { escapeHtml, htmlReporter } from '../reporters/html.js';
import { flameSection, flameSvg, MAX_FLAME_DEPTH, MAX_FLAME_RECTS, ms } from '../reporters/html-attribution.js';
import type { CompareReport } from '../reporters/define.js';
import { BrowserSession } from '../src/drivers/cdp/session.js';
import { ROOT } from './helpers.js';
import { watchPage, startBeacon, type Beacon } from './report-page.js';

const work = mkdtempSync(join(tmpdir(), 'rehearse-html-attr-'));
after(() => rmSync(work, { recursive: true, force: true }));

const EVIL = '<img src=x onerror=alert(1)>';
type Stacks = RepeatAttribution['stacks'];

/** The stored dialog baseline, and a copy of it as the candidate: the rows are real, the attribution hand-made. */
function runs(): { a: RunFile; b: RunFile } {
  const a = validateRunFile(JSON.parse(readFileSync(join(ROOT, 'baselines/dialog.json'), 'utf8')), 'baselines/dialog.json');
  const b = structuredClone(a);
  b.label = 'candidate';
  return { a, b };
}

/** A busy function `busy` (hostile `name`) grew under onScroll, oldFn went away, paint stayed. */
function flameOf(name: string): ComparisonFlame {
  const a: Stacks = [
    { frames: ['main app.js:1:1', 'onScroll app.js:5:1'], selfMs: 2 },
    { frames: ['main app.js:1:1', 'paint app.js:9:1'], selfMs: 10 },
    { frames: ['main app.js:1:1', 'oldFn app.js:20:1'], selfMs: 3 },
  ];
  const b: Stacks = [
    { frames: ['main app.js:1:1', 'onScroll app.js:5:1'], selfMs: 2 },
    { frames: ['main app.js:1:1', 'onScroll app.js:5:1', `${name} app.js:7:3`], selfMs: 8 },
    { frames: ['main app.js:1:1', 'paint app.js:9:1'], selfMs: 10 },
  ];
  return { a: { repeat: 4, stacks: a }, b: { repeat: 2, stacks: b } };
}

function attributionOf(name: string, url: string): RowAttribution {
  const ci = { lowMs: 6.9, highMs: 9.4 };
  return {
    repeats: { a: 5, b: 5 },
    lines: [
      { kind: 'function', name, url, a: 0.01, b: 8.12, deltaMs: 8.11, ci, share: 0.92 },
      { kind: 'forcedLayout', name: `layout${name}`, url, a: 1, b: 3.5, deltaMs: 2.5, ci: null, share: 0.28 },
      { kind: 'function', name: 'paint', url: 'app.js:9:1', a: 10, b: 10.2, deltaMs: 0.2, ci: { lowMs: -0.4, highMs: 0.7 }, share: 0.02 },
      { kind: 'longTask', name: `task${name}`, url, a: 0, b: 52, deltaMs: 52, ci: null, share: null },
      { kind: 'step', name: `scroll${name}`, url: null, a: 100, b: 109, deltaMs: 9, ci: { lowMs: 7, highMs: 11 }, share: 1.02 },
    ],
  };
}

/** A comparison whose first two primary rows carry attribution (the second: nothing named, and why). */
function report(name: string, url: string, flame: ComparisonFlame): { result: CompareReport; a: RunFile; b: RunFile } {
  const { a, b } = runs();
  const c = compareRuns(a, b, { primary: ['counters.layouts', 'counters.styleRecalcs'] });
  const gated = c.rows.filter((r) => r.gated);
  assert.equal(gated.length, 2, 'two primary rows to attribute');
  gated[0]!.attribution = attributionOf(name, url);
  gated[1]!.attribution = { repeats: { a: 0, b: 0 }, lines: [], missing: `the webdriver driver records no CPU profile ${name}` };
  return { result: { ...c, attribution: { flame } }, a, b };
}

/** Markup outside the script elements (data, uPlot, client). */
function markupOf(html: string): string {
  const data = /<script type="application\/json" id="rehearse-data">[\s\S]*?<\/script>/;
  return html.replace(data, '').replace(/<script>[\s\S]*?<\/script>/g, '');
}

const rectsOf = (svg: string): string[] => svg.match(/<rect [^>]*>/g) ?? [];

// ─── pure ───────────────────────────────────────────────────────────────────────────────────────────

test('row attribution: both runs side by side, every kind, the missing note; hostile names escaped', { timeout: 60_000 }, () => {
  const { result, a, b } = report(EVIL, `${EVIL}:7:3`, flameOf(EVIL));
  const html = htmlReporter.renderCompare(result, { a, b });
  const markup = markupOf(html);
  assert.doesNotMatch(markup, /<img src=x/, 'no name from the page reaches the markup as markup');
  assert.equal(html.match(/<script[\s>]/g)?.length, 3, 'no script added: the data, uPlot and the client');
  assert.ok(markup.includes(`<code>${escapeHtml(EVIL)}</code><br><span class="muted where">${escapeHtml(`${EVIL}:7:3`)}</span>`));
  for (const heading of ['Functions, by self time', 'Forced layouts', 'Long tasks', 'Steps, by the time of their window']) {
    assert.ok(markup.includes(heading), heading);
  }
  // Baseline | candidate | Δ with its interval | share, for the busy function.
  const busyRow =
    '<td class="num">0.01</td><td class="num">8.1</td>' +
    '<td class="num"><b>+8.1</b><br><span class="muted">+6.9…+9.4</span></td><td class="num">92%</td>';
  assert.ok(markup.includes(busyRow));
  assert.match(markup, /<span class="muted">-0\.40…\+0\.70<\/span>/, 'a negative interval bound keeps its sign');
  assert.ok(markup.includes(`<p class="missing">Not named: the webdriver driver records no CPU profile ${escapeHtml(EVIL)}</p>`));
  assert.equal(markup.match(/class="card metric wide /g)?.length, 2, 'both attributed rows take the whole width');
  assert.equal(markup.match(/<h4 class="attr-title">/g)?.length, 2);
  // Numbers from the file print only when they are finite numbers.
  assert.equal(ms('<b>1</b>'), '–');
  assert.equal(ms(Number.NaN), '–');
  assert.equal(ms(-0.001), '0.00');
});

test('differential flame graph: a frame per call path, width by B, colour by the change of self time, escaped', { timeout: 60_000 }, () => {
  const { result, a, b } = report(EVIL, 'app.js:7:3', flameOf(EVIL));
  const markup = markupOf(htmlReporter.renderCompare(result, { a, b }));
  const svg = /<svg class="flame"[\s\S]*?<\/svg>/.exec(markup)?.[0] ?? '';
  const rects = rectsOf(svg);
  // all, main, onScroll, the busy function, paint, oldFn (only in A).
  assert.equal(rects.length, 6, svg);
  assert.match(markup, /6 frames drawn\./);
  assert.match(markup, /median attribution repeats: A repeat 4, B repeat 2/);
  const frame = (name: string): string => {
    const g = svg.split(/\n(?=<g>)/).find((l) => l.startsWith(`<g><title>${escapeHtml(name)}\n`));
    assert.ok(g, `a frame for ${name}`);
    return g;
  };
  const busy = frame(EVIL);
  assert.match(busy, /fill="rgb\(255,40,40\)"/, 'the largest growth: full red');
  assert.match(busy, /A 0\.00 ms \(self 0\.00\) · B 8\.0 ms \(self 8\.0\)\nΔ self \+8\.0 ms · Δ total \+8\.0 ms\nonly in B: new/);
  assert.match(frame('oldFn'), /fill="rgb\(156,156,255\)"[\s\S]*/, 'went away: blue, 3/8 of the largest change');
  assert.match(frame('oldFn'), /only in A: gone in B/);
  assert.match(frame('paint'), /fill="rgb\(221,221,221\)"/, 'unchanged: grey');
  assert.match(frame('main'), /fill="rgb\(221,221,221\)"/, 'a caller whose own time did not change stays grey');
  // Width: B's 20 ms plus oldFn's 3 ms from A make the 1,000 units; paint is 10 of them.
  assert.match(frame('paint'), /width="434\.8"/);
  assert.match(frame('all'), /width="1000"/);
  assert.doesNotMatch(svg, /<img/);
});

test('flame graph caps: at most MAX_FLAME_RECTS frames, the widest kept; narrow and deep ones counted', { timeout: 60_000 }, () => {
  const stacks: Stacks = [];
  for (let i = 0; i < 800; i++) stacks.push({ frames: [`f${i} u.js:${i}:1`, `g${i} u.js:${i}:9`], selfMs: 1 });
  for (let j = 0; j < 500; j++) stacks.push({ frames: [`h${j} u.js:1:${j}`], selfMs: 0.001 });
  stacks.push({ frames: Array.from({ length: 200 }, (_, d) => `d${d} deep.js:${d}:1`), selfMs: 0.001 });
  const drawing = flameSvg({ a: { repeat: 0, stacks }, b: { repeat: 0, stacks } })!;
  assert.equal(drawing.drawn, MAX_FLAME_RECTS);
  assert.equal(rectsOf(drawing.svg).length, MAX_FLAME_RECTS);
  assert.equal(drawing.overCap, 1 + 1600 - MAX_FLAME_RECTS, 'all, 800 f and 800 g were wide enough');
  assert.equal(drawing.narrow, 500 + MAX_FLAME_DEPTH, 'the h frames and the deep stack, cut at the depth cap');
  assert.equal(drawing.cutStacks, 2, 'the deep stack, once in each run');
  assert.equal(drawing.svg.match(/<title>f\d+\n/g)?.length, 800, 'parents before children: every f stays');
  assert.doesNotMatch(drawing.svg, /fill="rgb\(255,|fill="rgb\(\d+,\d+,255\)"/, 'the same stacks on both sides: all grey');
  const section = flameSection({ a: { repeat: 0, stacks }, b: { repeat: 0, stacks } });
  const notes =
    '1500 frames drawn; 564 frames narrower than half a pixel not drawn; 101 more not drawn past the first 1500; ' +
    '2 stacks deeper than 64 frames cut there.';
  assert.ok(section.includes(notes), section.slice(-400));
  process.stderr.write(`# capped flame graph: ${(Buffer.byteLength(drawing.svg) / 1024).toFixed(0)} KB for ${drawing.drawn} frames\n`);
  assert.ok(Buffer.byteLength(drawing.svg) < 400 * 1024, `${Buffer.byteLength(drawing.svg)} bytes`);
});

test('flame graph with one side missing says so; with neither, nothing is drawn', { timeout: 60_000 }, () => {
  const { b } = flameOf('busy');
  const onlyB = flameSection({ a: null, b });
  assert.ok(onlyB.includes('The baseline (A) kept no attribution repeat with a CPU profile: this is the candidate&#39;s (B) flame graph'));
  assert.match(onlyB, /A: none, B repeat 2/);
  assert.equal(rectsOf(onlyB).length, 5, 'all, main, onScroll, busy, paint');
  assert.doesNotMatch(onlyB, /fill="rgb\(255,|only in B/, 'no difference coloured from one side');
  const onlyA = flameSection({ a: flameOf('x').a, b: null });
  assert.match(onlyA, /The candidate \(B\) kept no attribution repeat/);
  assert.equal(rectsOf(onlyA).length, 5, 'all, main, onScroll, paint, oldFn: drawn as wide as in A');
  const neither = flameSection({ a: null, b: null });
  assert.match(neither, /Neither run kept an attribution repeat/);
  assert.doesNotMatch(neither, /<svg/);
  const empty = flameSection({ a: { repeat: 0, stacks: [] }, b: { repeat: 1, stacks: [{ frames: ['x y'], selfMs: Number.NaN }] } });
  assert.match(empty, /hold no page function time to draw/);
});

// ─── in the browser ─────────────────────────────────────────────────────────────────────────────────

let beacon: Beacon;
before(async () => {
  beacon = await startBeacon();
});
after(() => beacon?.server.close());

let session: BrowserSession | undefined;
after(async () => session?.close());

test('in Chromium: the report with hostile names draws the flame graph and the row charts, runs none', { timeout: 120_000 }, async () => {
  const url = `http://127.0.0.1:${beacon.port}`;
  const js = `document.title='PWNED';fetch('${url}/fetch')`;
  const payload = `<img src=x onerror="${js}"><script>${js}</script><svg onload="${js}"></svg></title></svg></style><!--`;
  const { result, a, b } = report(payload, `${payload}:1:1`, flameOf(payload));
  const file = join(work, 'attribution.html');
  writeFileSync(file, htmlReporter.renderCompare(result, { a, b }));

  session ??= await BrowserSession.open({ prewarm: 'none' });
  await session.restart('context');
  const page = session.page;
  const { requests, errors } = await watchPage(page);
  await page.send('Emulation.setDeviceMetricsOverride', { width: 1000, height: 800, deviceScaleFactor: 1, mobile: false });
  await page.navigate(pathToFileURL(file).href);
  // Two frames and a pause: an error handler or a fetch would have started by then.
  await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 500))))');
  const read = await page.evaluate<{ title: string; rects: number; flameWidth: number; charts: number; text: string; titles: number }>(`({
    title: document.title,
    rects: document.querySelectorAll('svg.flame rect').length,
    flameWidth: document.querySelector('svg.flame').getBoundingClientRect().width,
    charts: document.querySelectorAll('.card.wide .chart .uplot canvas').length,
    titles: [...document.querySelectorAll('svg.flame title')].filter((t) => t.textContent.startsWith('<img src=x')).length,
    text: document.body.innerText,
  })`);
  assert.deepEqual(beacon.hits, [], 'the payload called the beacon');
  assert.deepEqual(
    requests.filter((u) => !/^(file|data):/.test(u)),
    [],
    'no request left the page',
  );
  assert.deepEqual(errors, [], 'no console error (a refused inline handler would mean markup got through)');
  assert.notEqual(read.title, 'PWNED');
  assert.equal(read.rects, 6, 'the flame graph is drawn, every frame');
  assert.ok(read.flameWidth > 500, `the flame graph takes the card's width: ${read.flameWidth} px`);
  assert.equal(read.titles, 1, "the hostile name is the busy frame's tooltip, as text");
  assert.equal(read.charts, 2, 'each attributed row still draws its chart');
  assert.ok(read.text.includes('Not named: the webdriver driver records no CPU profile <img src=x'), 'the missing note shows, as text');

  // At phone width the page does not scroll sideways: the attribution stacks under the chart.
  await page.send('Emulation.setDeviceMetricsOverride', { width: 375, height: 800, deviceScaleFactor: 1, mobile: true });
  await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
  const scrollWidth = await page.evaluate<number>('document.documentElement.scrollWidth');
  assert.ok(scrollWidth <= 375, `${scrollWidth} px wide at 375`);
  assert.deepEqual(errors, []);
});
