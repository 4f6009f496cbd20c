/**
 * The HTML report's "Page load" section (issue 29): the median repeat's requests as a waterfall, one row
 * per request (URL shortened, the full one and its status, cache, initiator… in its tooltip; type; transfer size;
 * render-blocking), a bar from its start to its end with the wait for the first byte drawn apart from the download,
 * and vertical marks at TTFB, FCP, LCP, DOMContentLoaded and the load event; the LCP element named above it.
 *
 * Inline SVG, no script: the policy allows no inline style attribute, and SVG geometry is attributes.
 * Every string from the file is escaped; every number goes through `at()`, which prints only finite ones.
 */
import type { RunFile } from '../src/perf/run-file.js';
import {
  formatBytes,
  formatNumber,
  formatValue,
  isLoadRequest,
  lcpElementText,
  loadFacts,
  medianLoad,
  requestFacts,
  shortUrl,
  type LoadRecord,
  type LoadRequestRecord,
  type MedianLoad,
} from './format.js';
import { escapeHtml as e } from './html-markup.js';

// The drawing's own units (the SVG scales to the card): 1000 wide, 18 a row, the bars on the right half.
const WIDTH = 1000;
const ROW = 18;
const HEAD = 22;
const BARS_FROM = 480;
const BARS_TO = 990;
// 46 characters: the URL column ends where the type column starts at 11 px monospace (≈ 6.6 units a character).
const URL_CHARS = 46;
// 200 characters of a URL in its tooltip: a data: URL or a long query says nothing more past that, and two
// waterfalls of 300 such rows keep a compare report under 450 KB (measured), within the report's 500 KB.
const TITLE_CHARS = 200;
// Ticks at 1, 2, 2.5 and 5 times a power of ten: at most 8 along the axis reads at a glance.
const MAX_TICKS = 8;

/** The milestones drawn as marks, in the order of a load. */
const MARKS = [
  ['ttfb', 'TTFB', 'load.ttfbMs', 'ttfbMs'],
  ['fcp', 'FCP', 'load.fcpMs', 'fcpMs'],
  ['lcp', 'LCP', 'load.lcpMs', 'lcpMs'],
  ['dcl', 'DCL', 'load.domContentLoadedMs', 'domContentLoadedMs'],
  ['load', 'load', 'load.loadEventMs', 'loadEventMs'],
] as const;

const TYPES = new Set(['document', 'script', 'stylesheet', 'image', 'font', 'fetch', 'other']);

/** A number for an SVG attribute: one decimal, and 0 for anything that is not a finite number. */
function at(v: number): string {
  return Number.isFinite(v) ? String(Math.round(v * 10) / 10) : '0';
}

const ms = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : null);

/** The waterfall's rows: the run file's requests by start (its first 300), else only the largest it keeps. */
function rowsOf(load: LoadRecord): { rows: LoadRequestRecord[]; all: boolean } {
  const requests = Array.isArray(load.requests) ? load.requests.filter(isLoadRequest) : undefined;
  const rows = requests ?? load.top.filter(isLoadRequest);
  return { rows: [...rows].sort((a, b) => a.startMs - b.startMs), all: requests !== undefined };
}

function marksOf(load: LoadRecord): { key: string; label: string; metric: string; ms: number }[] {
  return MARKS.flatMap(([key, label, metric, field]) => {
    const v = ms(load[field]);
    return v === null ? [] : [{ key, label, metric, ms: v }];
  });
}

/** The time the waterfall spans: its last request or mark, rounded up to a whole tick. */
function spanOf(loads: LoadRecord[]): { spanMs: number; tickMs: number } {
  const ends = loads.flatMap((l) => [...rowsOf(l).rows.map((r) => r.endMs), ...marksOf(l).map((m) => m.ms)]);
  const last = Math.max(1, ...ends.filter((v) => Number.isFinite(v)));
  const steps = [1, 2, 2.5, 5];
  for (let p = 1; ; p *= 10) {
    const step = steps.map((s) => s * p).find((s) => last / s <= MAX_TICKS);
    if (step) return { spanMs: Math.ceil(last / step) * step, tickMs: step };
  }
}

function axis(spanMs: number, tickMs: number, height: number): string {
  const x = (t: number): number => BARS_FROM + (t / spanMs) * (BARS_TO - BARS_FROM);
  const out = [
    `<text x="4" y="14" class="head">request</text><text x="320" y="14" class="head">type</text>`,
    `<text x="450" y="14" class="head" text-anchor="end">size</text>`,
  ];
  for (let t = 0; t <= spanMs + 1e-9; t += tickMs) {
    const label = t >= 1000 ? `${at(t / 1000)} s` : `${at(t)} ms`;
    out.push(`<line class="grid" x1="${at(x(t))}" x2="${at(x(t))}" y1="${HEAD - 4}" y2="${at(height)}"/>`);
    // The last label ends at its tick, so it is not cut at the drawing's right edge.
    const anchor = t + tickMs > spanMs + 1e-9 ? 'end' : 'middle';
    out.push(`<text x="${at(x(t))}" y="14" text-anchor="${anchor}" class="tick">${e(label)}</text>`);
  }
  return out.join('');
}

function requestRow(r: LoadRequestRecord, i: number, load: LoadRecord, x: (t: number) => number): string {
  const y = HEAD + i * ROW;
  const type = TYPES.has(r.type) ? r.type : 'other';
  const lcp = typeof load.lcpUrl === 'string' && load.lcpUrl === r.url;
  const first = ms(r.responseStartMs);
  const split = first !== null && first >= r.startMs && first <= r.endMs ? first : r.startMs;
  const bar = (cls: string, from: number, to: number): string =>
    `<rect class="${cls}" x="${at(x(from))}" y="${y + 4}" width="${at(Math.max(1.5, x(to) - x(from)))}" height="${ROW - 8}"/>`;
  // The request's facts on their own line; the URL gives up what they take, so a row's tooltip stays TITLE_CHARS.
  const facts = requestFacts(r, load.url);
  const urlChars = TITLE_CHARS - (facts ? facts.length + 1 : 0);
  const title = `${r.url.length > urlChars ? `${r.url.slice(0, urlChars - 1)}…` : r.url}${facts ? `\n${facts}` : ''}`;
  return (
    `<g class="req t-${type}${lcp ? ' lcp' : ''}"><title>${e(title)}</title>` +
    `<text x="4" y="${y + 13}">${e(shortUrl(r.url, load.url, URL_CHARS))}</text><text x="320" y="${y + 13}">${e(r.type)}</text>` +
    `<text x="450" y="${y + 13}" text-anchor="end">${e(formatBytes(r.transferBytes))}</text>` +
    (r.renderBlocking ? `<text x="462" y="${y + 13}" class="rb">■</text>` : '') +
    (split > r.startMs ? bar('wait', r.startMs, split) : '') +
    `${bar('dl', split, r.endMs)}</g>`
  );
}

/** The waterfall of one load on a time axis of `spanMs`: an SVG in its own scrolling box. */
function waterfallSvg(load: LoadRecord, rows: LoadRequestRecord[], scale: { spanMs: number; tickMs: number }): string {
  const height = HEAD + rows.length * ROW + 4;
  const x = (t: number): number => BARS_FROM + (Math.min(Math.max(t, 0), scale.spanMs) / scale.spanMs) * (BARS_TO - BARS_FROM);
  const marks = marksOf(load).map(
    (m) => `<line class="mk mk-${m.key}" x1="${at(x(m.ms))}" x2="${at(x(m.ms))}" y1="${HEAD - 4}" y2="${at(height)}"/>`,
  );
  return (
    `<div class="scroll"><svg class="waterfall" viewBox="0 0 ${WIDTH} ${at(height)}" width="${WIDTH}" height="${at(height)}" ` +
    `role="img" aria-label="${e(`waterfall of ${formatNumber(rows.length)} requests`)}">` +
    `${axis(scale.spanMs, scale.tickMs, height)}${rows.map((r, i) => requestRow(r, i, load, x)).join('')}${marks.join('')}</svg></div>`
  );
}

/** Under the waterfall: what each mark is and when it was, and what the bars' two shades mean. */
function legend(load: LoadRecord, rows: LoadRequestRecord[]): string {
  const marks = marksOf(load).map((m) => `<span class="sw mk-${m.key}"></span> ${e(m.label)} ${e(formatValue(m.metric, m.ms))} ms`);
  const types = [...new Set(rows.map((r) => (TYPES.has(r.type) ? r.type : 'other')))].map((t) => `<span class="sw t-${t}"></span> ${e(t)}`);
  return (
    `<p class="legend muted">${marks.join(' · ')}</p><p class="legend muted">${types.join(' · ')} · pale: waiting for ` +
    `the first byte, solid: downloading · <span class="rb">■</span> render-blocking · size: bytes over the wire (0 from the cache)</p>`
  );
}

/** One load's card: which repeat, the LCP element, the waterfall and its legend. */
function loadCard(title: string, m: MedianLoad, scale: { spanMs: number; tickMs: number }): string {
  const { rows, all } = rowsOf(m.load);
  const total = typeof m.load.requestsTotal === 'number' ? m.load.requestsTotal : rows.length;
  const note = !all
    ? `<p class="muted">This run file keeps only the ${formatNumber(rows.length)} largest requests of the load.</p>`
    : rows.length < total
      ? `<p class="muted">The first ${formatNumber(rows.length)} of ${formatNumber(total)} requests by start (what the run file keeps).</p>`
      : '';
  return (
    `<div class="card load" data-repeat="${formatNumber(m.repeat.index)}"><h3>${e(title)}</h3>` +
    `<p class="facts">${e(loadFacts(m))} · <code>${e(m.load.url)}</code></p>` +
    `<p class="facts">LCP element: <code>${e(lcpElementText(m.load))}</code></p>` +
    (rows.length ? waterfallSvg(m.load, rows, scale) : '<p class="muted">No request was recorded.</p>') +
    `${note}${legend(m.load, rows)}</div>`
  );
}

/** The run report's "Page load" section; empty for a run that measured no load. */
export function loadSection(run: RunFile): string {
  const m = medianLoad(run);
  if (!m) return '';
  return `<h2>Page load</h2>${loadCard('The median load', m, spanOf([m.load]))}`;
}

/** A compare's "Page load" section: each side's median load, baseline above candidate, on one time axis. */
export function compareLoadSection(a: RunFile, b: RunFile): string {
  const sides = [
    ['A · baseline', a],
    ['B · candidate', b],
  ] as const;
  const picked = sides.flatMap(([who, run]) => {
    const m = medianLoad(run);
    return m ? [{ who, run, m }] : [];
  });
  if (!picked.length) return '';
  const scale = spanOf(picked.map((p) => p.m.load));
  const cards = picked.map((p) => loadCard(`${p.who}: ${p.run.label}`, p.m, scale));
  return `<h2>Page load</h2><p class="muted">Both waterfalls share one time axis.</p>${cards.join('\n')}`;
}
