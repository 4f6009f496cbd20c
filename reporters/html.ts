/**
 * One self-contained HTML file per run or compare, for a reviewer who would rather look than read:
 * the repeats as dots, the baseline beside the candidate, the slow repeat's frames. It opens offline
 * from disk: uPlot, the styles and the data are inlined, and a Content-Security-Policy forbids every
 * fetch, so a report can never call out (and a stray reference fails loudly instead of leaking).
 *
 * Inert whatever the files held (a report is opened from a run folder someone sent): every
 * interpolated value is escaped (e) or printed by num(), which prints only a finite number; the two
 * inline scripts and styles run by their sha256 in the policy, never 'unsafe-inline', so markup that
 * slipped through could still run nothing; chart data travels as JSON in a non-executed
 * `type="application/json"` element, with `<` escaped so it cannot close that element.
 *
 * A run that measured a page load (issue 29) gets a "Page load" section: the median load's waterfall,
 * inline SVG (html-load.ts).
 *
 * A compare row that carries attribution (issue 27) spans the grid: its chart, and beside it where the
 * change is; the comparison's differential flame graph is inline SVG, no script (html-attribution.ts).
 *
 * Pure like every reporter: what the CLI found beside the run files (frame timelines from the traces,
 * screenshots, trace links) comes in through RenderOptions.html.
 */
import type { InsightChange } from '../src/perf/compare/insight-changes.js';
import { createHash } from 'node:crypto';
import type { CompareRow } from '../src/perf/compare.js';
import { FRAME_BUDGET_MS } from '../src/perf/frames.js';
import { defaultPrimaryMetrics, resolveMetric } from '../src/perf/metrics.js';
import { failedBudgets, type RepeatRecord, type RunFile } from '../src/perf/run-file.js';
import type { CompareContext, CompareReport, FrameTimeline, HtmlRunContext, RenderOptions, ScreenshotShown } from './define.js';
import { defineReporter } from './define.js';
import {
  budgetValue,
  compareCounts,
  compareNotes,
  compareTitle,
  countedRepeats,
  failureWhere,
  formatCi,
  formatDelta,
  formatNumber,
  formatRange,
  formatValue,
  rowStatus,
  runFacts,
  runTitle,
  sortMetrics,
  STATUS_WORD,
  stepLabelsOf,
  VERDICT_WORD,
} from './format.js';
import { attributionBlock, flameSection } from './html-attribution.js';
import { chartAssets } from './html-assets.js';
import { compareLoadSection, loadSection } from './html-load.js';
import { escapeHtml, table } from './html-markup.js';
import { findingsRepeat, isRecord, medianAndSlowest, topFunctions } from './screen.js';

export { escapeHtml };

// ─── escaping ───────────────────────────────────────────────────────────────────────────────────────

/**
 * JSON inside <script type="application/json">: `<` as \u003c so no `</script>` or `<!--` can end or
 * bend the element; U+2028/2029 escaped for old parsers. NaN (an empty arm's median) becomes null.
 */
export function jsonInScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** A link target from the CLI (relative path or data: URL); anything else, e.g. `javascript:`, is dropped. */
function safeHref(href: string): string | undefined {
  if (/^data:image\/(png|jpeg|webp);base64,[A-Za-z0-9+/=]+$/.test(href)) return href;
  if (/^[a-z][a-z0-9+.-]*:/i.test(href)) return undefined;
  return href;
}

const e = escapeHtml;
/** A number for markup: only a finite number prints, anything else (a string slipped into a count) as a dash. */
const num = formatNumber;

// ─── charts (data for the inlined client script) ────────────────────────────────────────────────────

type ChartSpec =
  | { kind: 'strip'; unit: string; points: [number, number, 0 | 1][]; median: number | null; p25: number | null; p75: number | null }
  | { kind: 'ab'; unit: string; a: number[]; b: number[]; aLabel: string; bLabel: string }
  | { kind: 'frames'; budgetMs: number; frames: [number, number, 0 | 1 | 2][] };

/**
 * The repeat slots every strip chart of a run shares: how many, and which failed or were refused. Once
 * per page, not per chart: a run of many failed repeats and many metrics would repeat the list in each.
 */
interface RepeatSlots {
  total: number;
  bad: number[];
}
const NO_SLOTS: RepeatSlots = { total: 0, bad: [] };

/** Collects chart specs while the HTML is written; each chart element names its spec by id. */
class Charts {
  readonly specs: Record<string, ChartSpec> = {};
  private n = 0;
  constructor(readonly slots?: RepeatSlots) {}
  add(spec: ChartSpec, label: string): string {
    const id = `c${this.n++}`;
    this.specs[id] = spec;
    return `<div class="chart" data-chart="${id}" role="img" aria-label="${e(label)}"></div>`;
  }
}

// 4000 frames: over a minute of 60 Hz frames; a longer window keeps its first ones, to bound the file.
const MAX_TIMELINE_FRAMES = 4000;

function unitLabel(metric: string): string {
  const m = resolveMetric(metric);
  if (!m) return '';
  return m.perFrame ? `${m.def.unit} per frame` : m.def.unit;
}

/**
 * A run's measured values by metric, read in one pass: every card takes its own from here, so a report
 * costs the size of the run file, not its metrics times its repeats.
 */
interface RunValues {
  /** [repeat index, value, warmup?] of each measured repeat. */
  points: Map<string, [number, number, 0 | 1][]>;
  /** Counted (non-warmup) measured values: all of them, and the timing-mode ones. */
  counted: Map<string, number[]>;
  countedTiming: Map<string, number[]>;
}

function push<T>(m: Map<string, T[]>, key: string, value: T): void {
  const list = m.get(key);
  if (list) list.push(value);
  else m.set(key, [value]);
}

function valuesOf(run: RunFile): RunValues {
  const v: RunValues = { points: new Map(), counted: new Map(), countedTiming: new Map() };
  for (const r of run.repeats) {
    if (r.status !== 'measured') continue;
    for (const [metric, value] of Object.entries(r.report.metrics)) {
      if (typeof value !== 'number' || !Number.isFinite(value)) continue;
      push(v.points, metric, [r.index, value, r.warmup ? 1 : 0]);
      if (r.warmup) continue;
      push(v.counted, metric, value);
      if (r.mode === 'timing') push(v.countedTiming, metric, value);
    }
  }
  return v;
}

function slotsOf(run: RunFile): RepeatSlots {
  let total = 0;
  const bad: number[] = [];
  for (const r of run.repeats) {
    total = Math.max(total, r.index + 1);
    if (r.status !== 'measured') bad.push(r.index);
  }
  return { total, bad };
}

function stripChart(charts: Charts, run: RunFile, values: RunValues, metric: string): string {
  const s = run.summary.metrics[metric];
  return charts.add(
    {
      kind: 'strip',
      unit: unitLabel(metric),
      points: values.points.get(metric) ?? [],
      median: s?.median ?? null,
      p25: s?.p25 ?? null,
      p75: s?.p75 ?? null,
    },
    `${metric}: each repeat as a dot, median and p25–p75 band`,
  );
}

/**
 * The values a compare row was judged on: counted measured repeats, or their timing-mode subset when that
 * is what the row counted (milliseconds judged from timing repeats only).
 */
function armValues(values: RunValues, metric: string, n: number): number[] {
  const all = values.counted.get(metric) ?? [];
  if (all.length === n) return all;
  const timing = values.countedTiming.get(metric) ?? [];
  return timing.length === n ? timing : all;
}

const STATE_CODE = { presented: 0, partial: 1, dropped: 2 } as const;

function framesChart(charts: Charts, t: FrameTimeline): string {
  const frames = t.frames
    .slice(0, MAX_TIMELINE_FRAMES)
    .map((f): [number, number, 0 | 1 | 2] => [Math.round(f.atMs * 10) / 10, Math.round(f.ms * 100) / 100, STATE_CODE[f.state]]);
  return charts.add(
    { kind: 'frames', budgetMs: FRAME_BUDGET_MS, frames },
    `frame durations of repeat ${t.repeat} (${t.which}) against the 16.7 ms budget`,
  );
}

// ─── shared pieces ──────────────────────────────────────────────────────────────────────────────────

const VERDICT_CLASS = { pass: 'pass', warn: 'warn', fail: 'fail', inconclusive: 'inconclusive' } as const;

function badge(cls: string, text: string): string {
  return `<span class="badge ${e(cls)}">${e(text)}</span>`;
}

/** A cell from untrusted JSON: numbers rounded, objects as compact JSON, all escaped. */
function cell(v: unknown): string {
  if (typeof v === 'number') return e(Number.isInteger(v) ? String(v) : String(Math.round(v * 1000) / 1000));
  if (typeof v === 'string') return e(v);
  if (v === null || v === undefined) return '';
  return `<code>${e(JSON.stringify(v))}</code>`;
}

/** A CSP source allowing exactly this inline element body (CSP3 hash-source). */
function hashSource(body: string): string {
  return `'sha256-${createHash('sha256').update(body, 'utf8').digest('base64')}'`;
}

/**
 * No fetch of any kind (default-src 'none'), pictures only inlined, and only the report's own inline
 * scripts and styles by hash: markup injected by a hostile string could run nothing. Styles go by hash
 * too: uPlot sets its styles through the CSSOM (element.style), which a policy does not restrict.
 */
export function contentSecurityPolicy(scripts: string[], styles: string[]): string {
  return [
    "default-src 'none'",
    'img-src data:',
    `style-src ${styles.map(hashSource).join(' ')}`,
    `script-src ${scripts.map(hashSource).join(' ')}`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

/** What a self-contained page holds besides the shell: the run report, the gate index and the trends page share one shell. */
export interface PageShellParts {
  /** The page title (escaped here). */
  title: string;
  /** Everything inside <main>, already escaped markup. */
  body: string;
  /** The page's own stylesheet, allowed by its hash (after uPlot's). */
  style: string;
  /** The page's own client script, allowed by its hash (run after uPlot). */
  client: string;
  /** The id of the non-executed JSON element the client reads its data from. */
  dataId: string;
  /** That element's data, serialised by jsonInScript. */
  data: unknown;
}

/**
 * The page around a body: doctype, the Content-Security-Policy (only the page's own inline scripts and styles
 * by hash, no fetch), uPlot's script and style, the page's style, its data as inert JSON, then its client.
 * Unescaped here: the policy (constants and base64 digests) and the inlined tool code.
 */
export function pageShell(p: PageShellParts): string {
  const { js, css } = chartAssets();
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy([js, p.client], [css, p.style])}">
<title>${e(p.title)}</title>
<link rel="icon" href="data:,">
<style>${css}</style>
<style>${p.style}</style>
</head>
<body>
<main>
${p.body}
</main>
<script type="application/json" id="${e(p.dataId)}">${jsonInScript(p.data)}</script>
<script>${js}</script>
<script>${p.client}</script>
</body>
</html>
`;
}

/** The report's page around `body`, with its footer and chart data. */
function page(title: string, body: string, charts: Charts): string {
  return pageShell({
    title,
    body: `${body}\n<p class="muted foot">rehearse HTML report · charts drawn with uPlot, inlined: this file needs no network.</p>`,
    style: STYLE,
    client: CLIENT,
    dataId: 'rehearse-data',
    data: { charts: charts.specs, repeats: charts.slots ?? NO_SLOTS },
  });
}

function envTable(run: RunFile): string {
  const env = run.env;
  const v = env.viewport;
  const rows: [string, string][] = [
    ['scenario file', run.scenarioFile],
    ['started', `${run.startedAt} → ${run.finishedAt}`],
    ['tool', `${env.tool.name} ${env.tool.version}`],
    [
      'browser',
      `${env.browser.product}${env.browser.headless ? ' (headless)' : ''}${env.browser.driver ? ` via ${env.browser.driver}` : ''}`,
    ],
    ['app', `${env.app.kind}: ${env.app.url}`],
    ['restart', env.restartMode],
    ['viewport', `${v.width}×${v.height} @${v.dpr}x${v.mobile ? ' mobile' : ''}${v.touch ? ' touch' : ''}`],
    ['CPU throttle', `${env.cpuThrottle}×`],
    [
      'host',
      `${env.host.cpuModel} · ${env.host.cpus} cores · ${(env.host.memoryBytes / 2 ** 30).toFixed(1)}` +
        ` GiB · ${env.host.platform}/${env.host.arch} · node ${env.host.node}`,
    ],
    ['load average', env.host.loadAverage.map((x) => x.toFixed(2)).join(' ')],
  ];
  return table(
    ['', ''],
    rows.map(([k, val]) => [e(k), e(val)]),
  );
}

function traceLinks(ctx: HtmlRunContext | undefined, who = ''): string {
  const links = (ctx?.traces ?? []).flatMap((t) => {
    const href = safeHref(t.href);
    return href
      ? [`<li><a href="${e(href)}">${e(`${who}${t.which} repeat ${t.repeat}`)}</a> <span class="muted">(${e(t.href)})</span></li>`]
      : [];
  });
  return links.length ? `<ul class="links">${links.join('')}</ul>` : '';
}

/** How to open what was saved: a terminal run keeps asciicast recordings, a page run Chrome traces. */
function traceHelp(...sides: (HtmlRunContext | undefined)[]): string {
  const hrefs = sides.flatMap((c) => c?.traces ?? []).map((t) => t.href);
  if (hrefs.length && hrefs.every((h) => h.endsWith('.cast')))
    return (
      'Terminal recordings (asciicast v2, with the input) saved beside the run file: ' +
      'play one in a terminal with perf replay FILE, or with asciinema play FILE.'
    );
  return (
    'Chrome traces saved beside the run file: open in Perfetto (ui.perfetto.dev, ' +
    '"Open trace file") or DevTools (Performance panel, "Load profile").'
  );
}

// ─── run ────────────────────────────────────────────────────────────────────────────────────────────

/** FAIL when the run fails the exit-code rule (budget failed, or nothing measured), PARTIAL when repeats were lost. */
function runStatus(run: RunFile): { cls: string; word: string } {
  if (failedBudgets(run).length || run.summary.measured === 0) return { cls: 'fail', word: 'FAIL' };
  if (run.summary.failed || run.summary.refused || run.interrupted || run.complete === false) return { cls: 'warn', word: 'PARTIAL' };
  return { cls: 'pass', word: 'OK' };
}

/** The metrics charted up front: the primary (gate) metrics, wall time and the steps; the rest (per-frame forms too) are folded. */
function keyMetrics(run: RunFile, names: string[]): Set<string> {
  const primary = new Set(run.gate?.metrics ?? defaultPrimaryMetrics());
  return new Set(names.filter((m) => primary.has(m) || m === 'durationMs' || /^steps\..*\.ms$/.test(m)));
}

function metricCard(charts: Charts, run: RunFile, values: RunValues, metric: string): string {
  const s = run.summary.metrics[metric]!;
  return (
    `<div class="card metric" data-metric="${e(metric)}">
<h3>${e(metric)}</h3>
<div class="facts">median <b>${e(formatValue(metric, s.median))}</b> · p25–p75 ${e(formatRange(metric, s.p25, s.p75))}` +
    ` · min–max ${e(formatRange(metric, s.min, s.max))} · n ${num(s.n)}` +
    `${unitLabel(metric) ? ` · <span class="muted">${e(unitLabel(metric))}</span>` : ''}</div>
${stripChart(charts, run, values, metric)}
</div>`
  );
}

const STRIP_LEGEND =
  '<p class="legend muted"><span class="dot"></span> measured repeat · <span class="dot hollow"></span> warmup ' +
  '(not counted) · <span class="x">✕</span> failed or refused repeat · dashed line: median · band: p25–p75</p>';

function worstFramesOf(r: Extract<RepeatRecord, { status: 'measured' }>): { atMs: number; ms: number }[] {
  const summary = r.report.summary;
  const frames = isRecord(summary) && isRecord(summary.frames) ? summary.frames.worst : undefined;
  return Array.isArray(frames)
    ? frames.filter((f): f is { atMs: number; ms: number } => isRecord(f) && typeof f.atMs === 'number' && typeof f.ms === 'number')
    : [];
}

function timelineSection(charts: Charts, run: RunFile, ctx: HtmlRunContext | undefined): string {
  const picks = medianAndSlowest(run);
  if (!picks.median) return '';
  const out: string[] = ['<h2>Frame timeline</h2>'];
  const seen = new Set<number>();
  for (const which of ['median', 'slowest'] as const) {
    const r = picks[which]!;
    if (seen.has(r.index)) {
      out.push(`<p class="muted">The slowest repeat is the median one (repeat ${num(r.index)}).</p>`);
      continue;
    }
    seen.add(r.index);
    const timeline = ctx?.timelines?.find((t) => t.repeat === r.index && t.frames.length > 0);
    const title =
      `${which} repeat ${r.index} · ${formatValue('durationMs', r.report.metrics.durationMs)} ms window ` +
      `· ${formatValue('frames.overBudget', r.report.metrics['frames.overBudget'])} frames over budget`;
    if (timeline) {
      out.push(
        `<div class="card timeline"><h3>${e(title)}</h3>${framesChart(charts, timeline)}<p class="legend muted">each ` +
          `bar: one frame, as wide and as tall as it stayed on screen (orange: over budget) · red dots: dropped ` +
          `frames · red dashed line: the 16.7 ms budget` +
          (timeline.frames.length > MAX_TIMELINE_FRAMES
            ? ` · first ${num(MAX_TIMELINE_FRAMES)} frames of ${num(timeline.frames.length)}`
            : '') +
          `</p></div>`,
      );
    } else {
      const worst = worstFramesOf(r);
      const spec: ChartSpec = {
        kind: 'frames',
        budgetMs: FRAME_BUDGET_MS,
        frames: worst.map((f): [number, number, 0] => [f.atMs, f.ms, 0]).sort((x, y) => x[0] - y[0]),
      };
      out.push(
        `<div class="card timeline"><h3>${e(title)}</h3>` +
          `${worst.length ? charts.add(spec, `the longest frames of repeat ${num(r.index)}`) : ''}<p ` +
          `class="legend muted">No trace of this repeat was found beside the run file, so only the ${num(worst.length)}` +
          ` longest frames the run file keeps per repeat are drawn (bars as wide and as tall ` +
          `as each frame stayed on screen; red dashed line: the 16.7 ms budget).</p></div>`,
      );
    }
  }
  return out.join('\n');
}

/** Which repeat the insights are of, as the run file says (older files: "the median repeat"). */
function insightsRepeat(run: RunFile): string {
  const from = run.insightsFrom;
  if (!from) return 'the median repeat';
  const of = `the median by window duration of the ${num(from.of)} ${from.mode} repeat${from.of === 1 ? '' : 's'}`;
  return from.mode === 'attribution'
    ? `repeat ${num(from.repeat)} (attribution mode), ${of}`
    : `repeat ${num(from.repeat)} (timing mode, ${of}: the run measured no attribution repeat, so no profile names a function)`;
}

function insightsSection(run: RunFile): string {
  const insights = run.insights.filter(isRecord);
  if (!insights.length) return `<h2>Insights</h2><p class="muted">No insight fired on ${e(insightsRepeat(run))}.</p>`;
  const out = [
    '<h2>Insights</h2>',
    `<p class="muted">Ranked findings of ${e(insightsRepeat(run))}, each with the ` +
      'first rows behind it (all of them: <code>perf_insight {id}</code> in a session).</p>',
  ];
  for (const i of insights) {
    const sev = typeof i.severity === 'string' ? i.severity : 'info';
    const ev = isRecord(i.evidence) ? i.evidence : {};
    const rows: string[][] = [
      ['metric', cell(ev.metric)],
      ['value', cell(ev.value)],
      ['per frame', cell(ev.perFrame)],
      ['threshold', cell(ev.threshold)],
      ...(i.estimatedSavingsMs !== undefined ? [['est. savings ms', cell(i.estimatedSavingsMs)]] : []),
      ['next step', cell(i.nextStep)],
    ];
    const detailRows = Array.isArray(i.rows) ? i.rows.filter(isRecord) : [];
    const keys = [...new Set(detailRows.flatMap((r) => Object.keys(r)))];
    out.push(
      `<div class="card insight">${badge(sev === 'error' ? 'fail' : sev === 'warn' ? 'warn' : 'info', sev.toUpperCase())}` +
        ` <b>${cell(i.title)}</b> <code class="muted">${cell(i.id)}</code>${table(['', ''], rows)}${
          detailRows.length
            ? table(
                keys.map(e),
                detailRows.map((r) => keys.map((k) => cell(r[k]))),
              )
            : ''
        }${typeof i.rowsTotal === 'number' ? rowsOf(detailRows.length, i.rowsTotal) : ''}</div>`,
    );
  }
  return out.join('\n');
}

function topFunctionsSection(run: RunFile): string {
  const from = run.insightsFrom;
  const median = findingsRepeat(run);
  const blocks = topFunctions(median);
  if (!median || !blocks.length) return '';
  return (
    `<h2>Top functions by self time</h2><p class="muted">CPU profile of ${
      from ? `repeat ${num(median.index)}, the one the insights are of` : 'the median repeat'
    } (${e(median.mode)}` +
    ` mode; attribution milliseconds are inflated by the profiler: use them to rank).</p>${table(
      ['function', 'where', 'self ms', 'share'],
      blocks.map((b) => [
        cell(b.name),
        cell(b.url),
        cell(b.selfMs),
        typeof b.share === 'number' ? e(`${(b.share * 100).toFixed(1)}%`) : '',
      ]),
      [2, 3],
    )}`
  );
}

/**
 * The budgets' verdict and one row each, failed first, as the terminal and Markdown say them. A run's own; in a
 * compare the candidate's (perf gate and run --against fail on them whatever the compare says).
 */
function budgetsSection(budgets: RunFile['budgets'], whose = ''): string {
  if (!budgets.length) return '';
  const failed = budgets.filter((b) => !b.pass);
  const head = failed.length ? `${num(failed.length)} of ${num(budgets.length)} failed` : `all ${num(budgets.length)} passed`;
  return `<h2>Budgets${whose} <span class="muted">(${head})</span></h2>${table(
    ['', 'budget', 'value'],
    [...failed, ...budgets.filter((b) => b.pass)].map((b) => [
      b.pass ? badge('pass', 'PASS') : badge('fail', 'FAIL'),
      `<code>${e(b.expr)}</code>`,
      e(budgetValue(b)),
    ]),
  )}`;
}

const NOT_LOOKED_FOR: ScreenshotShown = { status: 'not-shown', why: 'it was not looked for beside the run file' };

/**
 * A failed repeat's screenshot as the CLI found it (src/cli/html-report.ts): never the run file's own
 * path, which may name anything; a screenshot nobody checked is not shown.
 */
function screenshotHtml(index: number, shot: ScreenshotShown = NOT_LOOKED_FOR): string {
  switch (shot.status) {
    case 'embedded': {
      const src = safeHref(shot.dataUrl);
      const alt = `screenshot of repeat ${num(index)} at the failure`;
      return src?.startsWith('data:') ? `<img class="shot" alt="${e(alt)}" src="${e(src)}">` : '';
    }
    case 'linked': {
      const href = safeHref(shot.href);
      return href ? `<p><a href="${e(href)}">screenshot at the failure</a></p>` : '';
    }
    case 'not-shown':
      return `<p class="muted">screenshot not shown: ${e(shot.why)}</p>`;
  }
}

function failuresSection(run: RunFile, ctx: HtmlRunContext | undefined): string {
  const repeats = countedRepeats(run);
  const failed = repeats.filter((r): r is Extract<RepeatRecord, { status: 'failed' }> => r.status === 'failed');
  const refused = repeats.filter((r): r is Extract<RepeatRecord, { status: 'refused' }> => r.status === 'refused');
  if (!failed.length && !refused.length) return '';
  const out = ['<h2>Failed and refused repeats</h2>'];
  for (const r of failed) {
    const err = r.failure.error;
    const shot = r.failure.screenshot === undefined ? '' : screenshotHtml(r.index, ctx?.screenshots?.[r.index]);
    out.push(
      `<div class="card failure" data-repeat="${num(r.index)}">${badge('fail', 'FAILED')} <b>repeat ${num(r.index)}` +
        `</b> (${e(r.mode)}) at ${e(failureWhere(r))}<p><code>${e(err.code)}</code> ${e(err.message)}` +
        `</p>${err.suggestion ? `<p class="muted">hint: ${e(err.suggestion)}</p>` : ''}${shot}</div>`,
    );
  }
  for (const r of refused)
    out.push(
      `<div class="card failure" data-repeat="${num(r.index)}">${badge('warn', 'REFUSED')}` +
        ` <b>repeat ${num(r.index)}</b> (${e(r.mode)}): ${e(r.reason)}</div>`,
    );
  return out.join('\n');
}

function renderRun(run: RunFile, options?: RenderOptions): string {
  const ctx = options?.html?.run;
  const charts = new Charts(slotsOf(run));
  const values = valuesOf(run);
  const status = runStatus(run);
  const names = sortMetrics(Object.keys(run.summary.metrics), stepLabelsOf(run));
  const key = keyMetrics(run, names);
  const keyNames = names.filter((m) => key.has(m));
  const rest = names.filter((m) => !key.has(m));
  const body = [
    `<header><p class="kind muted">rehearse · run report${ctx?.source ? ` · <code>${e(ctx.source)}</code>` : ''}</p>`,
    `<h1>${badge(`verdict ${status.cls}`, status.word)} ${e(runTitle(run))}</h1>`,
    `<p class="facts">${runFacts(run).map(e).join(' · ')}</p></header>`,
    budgetsSection(run.budgets),
    '<h2>Metrics</h2>',
    names.length ? STRIP_LEGEND : '<p>No metrics: no repeat was measured.</p>',
    keyNames.length ? `<div class="grid">${keyNames.map((m) => metricCard(charts, run, values, m)).join('\n')}</div>` : '',
    rest.length
      ? `<details><summary>${num(rest.length)} more metric${rest.length === 1 ? '' : 's'}</summary><div ` +
        `class="grid">${rest.map((m) => metricCard(charts, run, values, m)).join('\n')}</div></details>`
      : '',
    loadSection(run),
    timelineSection(charts, run, ctx),
    insightsSection(run),
    topFunctionsSection(run),
    failuresSection(run, ctx),
    ctx?.traces?.length ? `<h2>Traces</h2><p class="muted">${e(traceHelp(ctx))}</p>${traceLinks(ctx)}` : '',
    '<h2>Environment</h2>',
    envTable(run),
  ];
  return page(`${status.word} · ${runTitle(run)} · rehearse`, body.filter(Boolean).join('\n'), charts);
}

// ─── compare ────────────────────────────────────────────────────────────────────────────────────────

const STATUS_CLASS = {
  missing: 'fail',
  error: 'fail',
  warn: 'warn',
  inconclusive: 'inconclusive',
  info: 'info',
  improved: 'pass',
  changed: 'neutral',
  unchanged: 'neutral',
} as const;

function rowCard(charts: Charts, row: CompareRow, ctx: CompareContext, values: { a: RunValues; b: RunValues }): string {
  const status = rowStatus(row);
  const a = armValues(values.a, row.metric, row.a.n);
  const b = armValues(values.b, row.metric, row.b.n);
  const level = row.ci ? `${Math.floor(row.ci.level * 100)}% interval` : 'interval';
  const chart =
    a.length || b.length
      ? charts.add(
          { kind: 'ab', unit: unitLabel(row.metric), a, b, aLabel: `A ${ctx.a.label}`, bLabel: `B ${ctx.b.label}` },
          `${row.metric}: baseline and candidate repeats side by side`,
        )
      : '';
  const main =
    `<h3>${e(row.metric)}</h3>
<div>${badge(STATUS_CLASS[status], STATUS_WORD[status].toUpperCase())}` +
    `${row.gated ? ' <span class="muted">primary</span>' : ` <span class="muted">${e(row.role)}</span>`}</div>
<div class="facts">A ${e(formatValue(row.metric, row.a.median))} → B ${e(formatValue(row.metric, row.b.median))} · estimate ` +
    `<b>${e(formatDelta(row))}</b> · ${e(level)} ${e(formatCi(row))} · n ${num(row.a.n)} vs ${num(row.b.n)}` +
    `${row.verdict === 'inconclusive' && row.needRepeats ? ` · ≈${num(row.needRepeats)} repeats per arm would decide it` : ''}` +
    `</div>
${chart}
<p class="reason muted">${e(row.reason)}</p>`;
  // A row with attribution takes the grid's whole width: its chart on the left, where the change is beside it.
  if (row.attribution) {
    return `<div class="card metric wide row-${e(status)}" data-metric="${e(row.metric)}"><div class="split"><div>
${main}
</div>
${attributionBlock(row.attribution)}</div></div>`;
  }
  return `<div class="card metric row-${e(status)}" data-metric="${e(row.metric)}">
${main}
</div>`;
}

const AB_LEGEND =
  '<p class="legend muted"><span class="dot a"></span> A = baseline repeats · ' +
  '<span class="dot b"></span> B = candidate repeats · short bars: medians</p>';

/** The insights that changed between the runs: what each arm's repeats said, and the savings DevTools' model gives. */
function insightChangeSection(result: CompareReport): string {
  const changes = result.insights ?? [];
  if (!changes.length) return '';
  const arm = (x: InsightChange['a']): string =>
    `${num(x.fired)} of ${num(x.of)}${x.savingsMs === null ? '' : ` · ${num(Math.round(x.savingsMs))} ms`}`;
  const rows = changes.map(
    (c) => `<tr><td><code>${e(c.id)}</code></td><td>${e(c.change)}</td><td>${arm(c.a)}</td><td>${arm(c.b)}</td><td>${e(c.title)}</td></tr>`,
  );
  return (
    `<h2>Insights that changed <span class="muted">(repeats fired in · est. savings; they explain, never decide)</span></h2>` +
    `<table><thead><tr><th>insight</th><th>change</th><th>baseline</th><th>candidate</th><th>title</th></tr></thead>` +
    `<tbody>${rows.join('')}</tbody></table>`
  );
}

function renderCompare(result: CompareReport, ctx: CompareContext, options?: RenderOptions): string {
  const charts = new Charts();
  const values = { a: valuesOf(ctx.a), b: valuesOf(ctx.b) };
  const verdict = VERDICT_WORD[result.verdict];
  const primary = result.rows.filter((r) => r.gated);
  const rest = sortMetrics(
    result.rows.filter((r) => !r.gated).map((r) => r.metric),
    stepLabelsOf(ctx.a),
  );
  const byMetric = new Map(result.rows.map((r) => [r.metric, r]));
  const changedRest = rest.filter((m) => byMetric.get(m)!.verdict !== 'unchanged');
  const unchangedRest = rest.filter((m) => byMetric.get(m)!.verdict === 'unchanged');
  const warnings =
    'warnings' in result && Array.isArray(result.warnings) ? result.warnings.filter((w): w is string => typeof w === 'string') : [];
  const notes = [...compareNotes(result), ...warnings.map((w) => `warning: ${w}`)];
  const notJudged = result.gate?.notJudged ?? [];
  const side = (who: 'A' | 'B', run: RunFile, c: HtmlRunContext | undefined): string =>
    `<div class="card"><h3>${who} · ${e(who === 'A' ? 'baseline' : 'candidate')}: ${e(runTitle(run))}` +
    `</h3><p class="facts">${runFacts(run).map(e).join(' · ')}</p>` +
    `${c?.source ? `<p class="muted"><code>${e(c.source)}</code></p>` : ''}${traceLinks(c, `${who} `)}</div>`;
  const anyTraces = Boolean(options?.html?.a?.traces?.length || options?.html?.b?.traces?.length);
  const body = [
    `<header><p class="kind muted">rehearse · compare report</p>`,
    `<h1>${badge(`verdict ${VERDICT_CLASS[result.verdict]}`, verdict)} ${e(compareTitle(ctx.a, ctx.b))}</h1>`,
    `<p class="facts">${e(compareCounts(result.rows))}` +
      (result.frames ? ` · painted frames ${e(paintedChange(result.frames.painted))}` : '') +
      `</p>`,
    notes.length ? `<ul class="notes">${notes.map((n) => `<li>${e(n)}</li>`).join('')}</ul>` : '',
    '</header>',
    budgetsSection(ctx.b.budgets, ' of B (candidate)'),
    `<h2>Primary metrics <span class="muted">(decide the verdict)</span></h2>`,
    AB_LEGEND,
    primary.length
      ? `<div class="grid">${primary.map((r) => rowCard(charts, r, ctx, values)).join('\n')}</div>`
      : '<p>No primary metric was judged.</p>',
    notJudged.length
      ? `<p class="muted">Not judged here: ${notJudged.map((n) => `<code>${e(n.metric)}</code> (${e(n.why)})`).join(', ')}</p>`
      : '',
    result.attribution ? flameSection(result.attribution.flame) : '',
    insightChangeSection(result),
    compareLoadSection(ctx.a, ctx.b),
    changedRest.length
      ? `<details><summary>${num(changedRest.length)} other metric${changedRest.length === 1 ? '' : 's'}` +
        ` that moved (secondary or not judged)</summary><div class="grid">` +
        `${changedRest.map((m) => rowCard(charts, byMetric.get(m)!, ctx, values)).join('\n')}</div></details>`
      : '',
    unchangedRest.length
      ? `<details><summary>${num(unchangedRest.length)} unchanged metric${unchangedRest.length === 1 ? '' : 's'}</summary><div ` +
        `class="grid">${unchangedRest.map((m) => rowCard(charts, byMetric.get(m)!, ctx, values)).join('\n')}</div></details>`
      : '',
    '<h2>Runs</h2>',
    anyTraces ? `<p class="muted">${e(traceHelp(options?.html?.a, options?.html?.b))}</p>` : '',
    `<div class="grid">${side('A', ctx.a, options?.html?.a)}${side('B', ctx.b, options?.html?.b)}</div>`,
    `<details><summary>Environment of A (baseline)</summary>${envTable(ctx.a)}</details>`,
    `<details><summary>Environment of B (candidate)</summary>${envTable(ctx.b)}</details>`,
  ];
  return page(`${verdict} · ${compareTitle(ctx.a, ctx.b)} · rehearse`, body.filter(Boolean).join('\n'), charts);
}

/** One run of a gate, as its index page lists it. */
export interface GateIndexRow {
  id: string;
  /** pass | warn | fail | inconclusive: the colour; `word` says it in text. */
  verdict: keyof typeof VERDICT_CLASS;
  word: string;
  detail: string;
  /** The run's own report, relative to the index page. */
  href?: string;
}

/**
 * The gate's one page: its verdict, then a row per run with its word, what decided it, and a link
 * to the run's report (the compare with its baseline, or the run alone).
 */
export function renderGateIndex(verdict: GateIndexRow['verdict'], headline: string, rows: readonly GateIndexRow[]): string {
  const cls = VERDICT_CLASS[verdict];
  const body = [
    '<p class="muted">rehearse · perf gate</p>',
    `<h1>${badge(`verdict ${cls}`, verdict.toUpperCase())} perf gate</h1>`,
    `<p>${e(headline)}</p>`,
    table(
      ['run', 'verdict', 'detail'],
      rows.map((r) => {
        const href = r.href !== undefined ? safeHref(r.href) : undefined;
        return [
          href ? `<a href="${e(href)}"><code>${e(r.id)}</code></a>` : `<code>${e(r.id)}</code>`,
          badge(VERDICT_CLASS[r.verdict], r.word),
          e(r.detail),
        ];
      }),
    ),
  ].join('\n');
  return page(`perf gate: ${verdict}`, body, new Charts());
}

export const htmlReporter = defineReporter({
  name: 'html',
  description: 'One self-contained HTML file with charts (opens offline from disk)',
  fileExtension: 'html',
  format: 'html',
  renderRun,
  renderCompare,
});

// ─── inlined style and client script ────────────────────────────────────────────────────────────────

const STYLE =
  `
:root{--ok:#15803d;--warn:#a16207;--fail:#b91c1c;--inc:#4b5563;--muted:#6b7280;--line:#e5e7eb;--a:#2563eb;--b:#ea580c}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#111827;background:#f9fafb;overflow-wrap:anywhere}
main{max-width:1120px;margin:0 auto;padding:12px}
h1{font-size:1.3rem;margin:.2em 0 .3em;line-height:1.5}
h2{font-size:1.1rem;margin:1.4em 0 .5em;border-bottom:1px solid var(--line);padding-bottom:.2em}
h3{font-size:.95rem;margin:0 0 4px}
.metric h3{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;word-break:break-all}
code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.92em}
.kind{margin:0}
.muted{color:var(--muted)}
.badge{display:inline-block;padding:.05em ` +
  `.5em;border-radius:4px;font-weight:700;font-size:.85em;color:#fff;background:var(--inc);white-space:nowrap;vertical-align:.1em}
.badge.pass{background:var(--ok)}.badge.warn{background:var(--warn)}.badge.fail{background:var(--fail)}.badge.inconclusive,` +
  `.badge.info{background:var(--inc)}.badge.neutral{background:#e5e7eb;color:#111827}
.badge.verdict{font-size:1.05em;padding:.1em .6em}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,340px),1fr));gap:10px}
.card{background:#fff;border:1px solid var(--line);border-radius:8px;padding:10px;min-width:0;margin:0 0 10px}
.grid>.card{margin:0}
.row-error{border-left:4px solid var(--fail)}.row-warn{border-left:4px solid var(--warn)}.row-improved{border-left:4px ` +
  `solid var(--ok)}.row-inconclusive{border-left:4px solid var(--inc)}
.facts{font-size:.9em}
.chart{width:100%;min-height:160px;margin-top:6px}
.reason{font-size:.85em;margin:.3em 0 0}
.legend{font-size:.85em}
.dot{display:inline-block;width:9px;height:9px;border-radius:50%;background:var(--a)}.dot.hollow{background:#fff;border:2px ` +
  `solid #9ca3af}.dot.b{background:var(--b)}
.x{color:var(--fail);font-weight:700}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;font-size:.9em;margin:.4em 0}
th,td{border-bottom:1px solid var(--line);padding:3px 8px;text-align:left;vertical-align:top}
.num{text-align:right;font-variant-numeric:tabular-nums}
details{margin:10px 0}
summary{cursor:pointer;font-weight:600;padding:4px 0}
img.shot{display:block;max-width:100%;height:auto;border:1px solid var(--line);margin-top:6px}
.notes{padding-left:1.2em}
.foot{margin-top:2em;font-size:.8em}
.uplot{max-width:100%}
.card.wide{grid-column:1/-1}
.split{display:grid;grid-template-columns:minmax(0,2fr) minmax(0,3fr);gap:14px}
@media (max-width:760px){.split{grid-template-columns:minmax(0,1fr)}}
.attribution h4{font-size:.9rem;margin:.7em 0 .2em}
.attribution h4.attr-title{margin-top:0}
.where{font-size:.85em}
.missing{border-left:3px solid var(--warn);background:#fffbeb;padding:3px 8px}
svg.flame{display:block;width:100%;height:auto;font:11px ui-monospace,SFMono-Regular,Menlo,monospace}
svg.flame rect{stroke:#fff;stroke-width:.6}
svg.flame g:hover rect{stroke:#111827;stroke-width:1}
svg.flame text{fill:#111827;pointer-events:none}
.sw{display:inline-block;width:12px;height:10px;border:1px solid #9ca3af;vertical-align:-1px}
.sw.grew{background:rgb(255,90,90)}.sw.shrank{background:rgb(90,90,255)}.sw.same{background:rgb(221,221,221)}
.flame-notes{font-size:.85em}
svg.waterfall{display:block;width:100%;min-width:720px;height:auto;font:11px ui-monospace,SFMono-Regular,Menlo,monospace}
svg.waterfall text{fill:#111827}svg.waterfall text.head{font-weight:700}svg.waterfall text.tick{fill:var(--muted)}
svg.waterfall line.grid{stroke:var(--line)}svg.waterfall text.rb{fill:var(--fail)}svg.waterfall g.lcp text{font-weight:700}
svg.waterfall g.req:hover text{fill:var(--a)}svg.waterfall rect.wait{fill-opacity:.3}
svg.waterfall line.mk{stroke-width:1.5;stroke-dasharray:4 3}
.legend .rb{color:var(--fail)}
.t-document rect,.sw.t-document{fill:#2563eb;background:#2563eb}.t-script rect,.sw.t-script{fill:#ca8a04;background:#ca8a04}
.t-stylesheet rect,.sw.t-stylesheet{fill:#7c3aed;background:#7c3aed}.t-image rect,.sw.t-image{fill:#16a34a;background:#16a34a}
.t-font rect,.sw.t-font{fill:#db2777;background:#db2777}.t-fetch rect,.sw.t-fetch{fill:#0891b2;background:#0891b2}
.t-other rect,.sw.t-other{fill:#6b7280;background:#6b7280}
.mk-ttfb{stroke:#6b7280;background:#6b7280}.mk-fcp{stroke:#15803d;background:#15803d}.mk-lcp{stroke:#dc2626;background:#dc2626}
.mk-dcl{stroke:#2563eb;background:#2563eb}.mk-load{stroke:#7c3aed;background:#7c3aed}
`;

/** The client: draws each .chart from its spec once it is visible (folded sections on first open), redraws on resize. */
const CLIENT =
  `
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('rehearse-data').textContent);
  var specs = data.charts, slots = data.repeats;
  var C = { a: '#2563eb', b: '#ea580c', warm: '#9ca3af', median: '#111827', ` +
  `band: 'rgba(37,99,235,0.13)', bad: '#dc2626', frame: '#2563eb' };
  var HEIGHT = 170;
  var made = [];
  function none() { return null; }
  function num(v) {
    if (v == null) return '';
    var a = Math.abs(v);
    if (a >= 1e6) return (v / 1048576).toFixed(1) + 'M';
    if (a >= 1e5) return (v / 1024).toFixed(0) + 'K';
    return String(+v.toFixed(a < 1 ? 3 : a < 10 ? 2 : 1));
  }
  function yAxis(label) { return { label: label, labelSize: 18, size: 48, values: function (u, vs) { return vs.map(num); } }; }
  function range0(u, min, max) {
    if (min == null || max == null) return [0, 1];
    var lo = Math.min(0, min), hi = Math.max(max, 0);
    if (hi === lo) hi = lo + 1;
    return [lo < 0 ? lo * 1.1 : 0, hi * 1.1];
  }
  function median(xs) {
    var s = xs.slice().sort(function (p, q) { return p - q; }), n = s.length;
    return n ? (n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2) : null;
  }
  function hline(u, x0, x1, y, color, dash, width) {
    if (y == null) return;
    var ctx = u.ctx, py = u.valToPos(y, 'y', true);
    ctx.save(); ctx.strokeStyle = color; ctx.lineWidth = (width || 2.5) * devicePixelRatio; ctx.setLineDash(dash || []);
    ctx.beginPath(); ctx.moveTo(u.valToPos(x0, 'x', true), py); ctx.lineTo(u.valToPos(x1, 'x', true), py); ctx.stroke(); ctx.restore();
  }
  function strip(el, s) {
    var xs = [], meas = [], warm = [], i;
    for (i = 0; i < slots.total; i++) { xs.push(i); meas.push(null); warm.push(null); }
    s.points.forEach(function (p) { (p[2] === 1 ? warm : meas)[p[0]] = p[1]; });
    var hi = xs.map(function () { return s.p75; }), lo = xs.map(function ` +
  `() { return s.p25; }), md = xs.map(function () { return s.median; });
    var bad = slots.bad;
    return {
      opts: {
        height: HEIGHT, legend: { show: false }, cursor: { show: false },
        scales: { x: { time: false, range: [-0.5, Math.max(0.5, slots.total - 0.5)] }, y: { range: range0 } },
        axes: [{ label: 'repeat', labelSize: 18, size: 28, incrs: [1, 2, 5, 10, 20, 50], values: function (u, ` +
  `vs) { return vs.map(function (v) { return Number.isInteger(v) ? String(v) : ''; }); } }, yAxis(s.unit)],
        series: [{}, { stroke: 'transparent', points: { show: false } }, { stroke: 'transparent', points: { show: false } },
          { stroke: C.median, width: 1.5, dash: [5, 4], points: { show: false } },
          { stroke: C.a, paths: none, points: { show: true, size: 9, width: 1, fill: C.a, stroke: C.a } },
          { stroke: C.warm, paths: none, points: { show: true, size: 9, width: 2, fill: '#fff', stroke: C.warm } }],
        bands: [{ series: [1, 2], fill: C.band }],
        hooks: { draw: [function (u) {
          var ctx = u.ctx; ctx.save(); ctx.fillStyle = C.bad; ctx.font ` +
  `= (14 * devicePixelRatio) + 'px sans-serif'; ctx.textAlign = 'center';
          bad.forEach(function (x) { ctx.fillText('\\u2715', u.valToPos(x, ` +
  `'x', true), u.bbox.top + u.bbox.height - 4 * devicePixelRatio); });
          ctx.restore();
        }] }
      },
      data: [xs, hi, lo, md, meas, warm]
    };
  }
  function spread(i, n) { return n < 2 ? 0 : -0.22 + 0.44 * i / (n - 1); }
  function ab(el, s) {
    var pts = [];
    s.a.forEach(function (v, i) { pts.push([1 + spread(i, s.a.length), v, 0]); });
    s.b.forEach(function (v, i) { pts.push([2 + spread(i, s.b.length), v, 1]); });
    pts.sort(function (p, q) { return p[0] - q[0]; });
    var ma = median(s.a), mb = median(s.b);
    return {
      opts: {
        height: HEIGHT, legend: { show: false }, cursor: { show: false },
        scales: { x: { time: false, range: [0.5, 2.5] }, y: { range: range0 } },
        axes: [{ size: 28, splits: function () { return [1, 2]; }, values: function (u, vs) { return vs.map(function ` +
  `(v) { return v === 1 ? s.aLabel : v === 2 ? s.bLabel : ''; }); }, grid: { show: false } }, yAxis(s.unit)],
        series: [{}, { stroke: C.a, paths: none, points: { show: true, size: 9, width: 1, fill: C.a, stroke: ` +
  `C.a } }, { stroke: C.b, paths: none, points: { show: true, size: 9, width: 1, fill: C.b, stroke: C.b } }],
        hooks: { draw: [function (u) { hline(u, 0.7, 1.3, ma, C.median); hline(u, 1.7, 2.3, mb, C.median); }] }
      },
      data: [pts.map(function (p) { return p[0]; }), pts.map(function (p) { return p[2] ` +
  `=== 0 ? p[1] : null; }), pts.map(function (p) { return p[2] === 1 ? p[1] : null; })]
    };
  }
  function frames(el, s) {
    var xs = s.frames.map(function (f) { return f[0]; });
    var ms = s.frames.map(function (f) { return f[2] === 2 ? null : f[1]; });
    var dropped = s.frames.map(function (f) { return f[2] === 2 ? 0 : null; });
    var end = 1;
    s.frames.forEach(function (f) { end = Math.max(end, f[0] + (f[2] === 2 ? 0 : f[1])); });
    return {
      opts: {
        height: HEIGHT, legend: { show: false }, cursor: { show: false },
        scales: { x: { time: false, range: [0, end] }, y: { range: function ` +
  `(u, min, max) { return [0, Math.max(max || 0, s.budgetMs) * 1.15]; } } },
        axes: [{ label: 'ms since perf_begin', labelSize: 18, size: 28 }, yAxis('frame ms')],
        series: [{}, { stroke: C.frame, paths: none, points: { show: false } }, { stroke: ` +
  `C.bad, paths: none, points: { show: true, size: 6, fill: C.bad, stroke: C.bad } }],
        hooks: { draw: [function (u) {
          var ctx = u.ctx, y0 = u.valToPos(0, 'y', true), gap = devicePixelRatio;
          ctx.save();
          s.frames.forEach(function (f) {
            if (f[2] === 2) return;
            var x0 = u.valToPos(f[0], 'x', true), x1 = u.valToPos(f[0] + f[1], 'x', true), y1 = u.valToPos(f[1], 'y', true);
            ctx.fillStyle = f[1] > s.budgetMs + 0.6 ? 'rgba(234,88,12,0.8)' : 'rgba(37,99,235,0.6)';
            ctx.fillRect(x0, y1, Math.max(gap, x1 - x0 - gap), y0 - y1);
          });
          ctx.restore();
          hline(u, 0, end, s.budgetMs, C.bad, [6 * devicePixelRatio, 4 * devicePixelRatio], 1.5);
        }] }
      },
      data: [xs, ms, dropped]
    };
  }
  var KINDS = { strip: strip, ab: ab, frames: frames };
  function draw(root) {
    var els = root.querySelectorAll('.chart[data-chart]');
    for (var i = 0; i < els.length; i++) {
      var el = els[i];
      if (el.getAttribute('data-drawn') || el.offsetParent === null) continue;
      var s = specs[el.getAttribute('data-chart')];
      if (!s || !KINDS[s.kind]) continue;
      var c = KINDS[s.kind](el, s);
      c.opts.width = Math.max(160, el.clientWidth);
      made.push({ el: el, u: new uPlot(c.opts, c.data, el) });
      el.setAttribute('data-drawn', '1');
    }
  }
  draw(document);
  var ds = document.querySelectorAll('details');
  for (var i = 0; i < ds.length; i++) ds[i].addEventListener('toggle', function (ev) { draw(ev.target); });
  var pending = false;
  window.addEventListener('resize', function () {
    if (pending) return;
    pending = true;
    requestAnimationFrame(function () {
      pending = false;
      made.forEach(function (m) { if (m.el.offsetParent !== null) m.u.setSize({ ` +
  `width: Math.max(160, m.el.clientWidth), height: HEIGHT }); });
    });
  });
})();
`;

/** "first N of M rows" under an insight's table cut to its first rows. */
function rowsOf(shown: number, total: number): string {
  return `<p class="muted">first ${num(shown)} of ${num(total)} rows</p>`;
}

/** Painted frames, baseline → candidate, as the facts line shows them. */
function paintedChange(p: { a: number | null; b: number | null }): string {
  return `${formatValue('frames.painted', p.a)} → ${formatValue('frames.painted', p.b)}`;
}
