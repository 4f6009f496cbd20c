/**
 * Formatting shared by the text reporters (table, markdown), so a metric reads the same in a terminal,
 * a PR summary and a CI log: same order, same precision, same words for the same facts.
 */
import type { CompareResult, CompareRow, RowVerdict, Severity } from '../src/perf/compare.js';
import type { CompareReport } from './define.js';
import type { AttributionKind, AttributionLine } from '../src/perf/attribution.js';
import type { BudgetResult, PerfReportRecord, RepeatRecord, RunFile } from '../src/perf/run-file.js';
import { inBudgetUnit, limitInBudgetUnit } from '../src/perf/budget-units.js';
import { resolveMetric, sortMetricNames } from '../src/perf/metrics.js';
import { insightKeyKind, parseInsightKey } from '../src/perf/insight-budgets.js';
import { networkFact } from '../src/perf/compare-runs.js';
import { oneLine } from '../src/printable.js';

// ─── metric order ───────────────────────────────────────────────────────────────────────────────────

/**
 * Metric names in the registry's reading order (src/perf/metrics.ts): a `.perFrame` form right after its
 * count, steps in the order the scenario runs them when `stepLabels` is given, unknown names last.
 */
export function sortMetrics(names: Iterable<string>, stepLabels: readonly string[] = []): string[] {
  return sortMetricNames(names, stepLabels);
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Labels of the measured steps in scenario order, read from the first repeat that recorded them. */
export function stepLabelsOf(run: RunFile): string[] {
  for (const r of run.repeats) {
    const labels = r.steps.filter((s) => s.phase === 'steps').map((s) => s.label);
    if (labels.length) return labels;
  }
  return [];
}

// ─── numbers ────────────────────────────────────────────────────────────────────────────────────────

export type MetricUnit = 'ms' | 'bytes' | 'perFrame' | 'count' | 'score';

/** How a value is printed, from the metric's declaration (an undeclared name prints as a count). */
export function unitOf(metric: string): MetricUnit {
  const m = resolveMetric(metric);
  if (!m) return insightKeyKind(metric) ?? 'count';
  if (m.perFrame) return 'perFrame';
  return m.def.kind;
}

const MISSING = 'n/a';

/**
 * A count or index as text: a finite number prints as itself, anything else as a dash. Reporters print
 * numbers from files through this, so a string where a number belongs can never reach markup as is.
 */
export function formatNumber(v: unknown): string {
  return typeof v === 'number' && Number.isFinite(v) ? String(v) : '–';
}

/** "-0.0" reads like a regression sign on nothing; print it as 0. */
function noNegativeZero(s: string): string {
  return /^-0(\.0+)?$/.test(s) ? s.slice(1) : s;
}

/**
 * A metric value at the precision its unit deserves: ms to 0.1 (timer resolution is coarser than
 * that), per-frame counts to 0.01, whole counts as integers (medians of an even count of repeats keep
 * up to 2 decimals), bytes in B / KB / MB.
 */
export function formatValue(metric: string, value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return MISSING;
  switch (unitOf(metric)) {
    case 'ms':
      return noNegativeZero(value.toFixed(1));
    case 'perFrame':
      return noNegativeZero(value.toFixed(2));
    case 'bytes':
      return formatBytes(value);
    case 'count':
      return Number.isInteger(value) ? String(value) : noNegativeZero(String(Number(value.toFixed(2))));
    case 'score':
      return noNegativeZero(String(Number(value.toFixed(3))));
  }
}

const KB = 1024;
const MB = 1024 * 1024;

/** Binary multiples, as Chrome's heap tools count them; heap deltas may be negative. */
export function formatBytes(bytes: number): string {
  const abs = Math.abs(bytes);
  if (abs < KB) return `${Math.round(bytes)} B`;
  if (abs < MB) return `${noNegativeZero((bytes / KB).toFixed(1))} KB`;
  return `${noNegativeZero((bytes / MB).toFixed(2))} MB`;
}

export function formatRange(metric: string, low: number, high: number): string {
  return `${formatValue(metric, low)}–${formatValue(metric, high)}`;
}

/** Signed percent: "+12.3%", "−4.0%" (ASCII minus, so logs grep), "+250%" past 100. */
export function formatPct(pct: number | null | undefined): string {
  if (pct === null || pct === undefined || !Number.isFinite(pct)) return MISSING;
  const body = noNegativeZero(Math.abs(pct) >= 100 ? pct.toFixed(0) : pct.toFixed(1));
  return `${pct > 0 ? '+' : ''}${body}%`;
}

function signedPctNumber(pct: number): string {
  return formatPct(pct).slice(0, -1);
}

/**
 * The relative change of a compare row; at a 0 baseline (no relative scale) the absolute shift. A baseline
 * below the metric's floor is scaled by the floor: said, so the percentage is not read against the median.
 */
export function formatDelta(row: CompareRow): string {
  if (row.deltaPct !== null) return `${formatPct(row.deltaPct)}${row.scale?.kind === 'floor' ? ' of floor' : ''}`;
  if (row.shift === null || !Number.isFinite(row.shift)) return MISSING;
  return `${row.shift > 0 ? '+' : ''}${formatValue(row.metric, row.shift)} from 0`;
}

/**
 * The candidate as the verdict sees it: the baseline's median plus the estimated shift (Hodges–Lehmann, of the
 * paired differences in an interleaved run; the rate shift for events). The candidate's own median can sit
 * elsewhere (a bimodal arm), and a column of it beside a change from the shift would not add up.
 */
export function estimatedCandidate(row: CompareRow): number | null {
  return row.shift !== null && Number.isFinite(row.shift) && Number.isFinite(row.a.median) ? row.a.median + row.shift : null;
}

/** "+12.0…+31.5%", or n/a when there is no relative scale. */
export function formatCi(row: CompareRow): string {
  if (!row.ci) return MISSING;
  return `${signedPctNumber(row.ci.lowPct)}…${signedPctNumber(row.ci.highPct)}%`;
}

/** The CI level all rows share, e.g. "95%"; rows with an exact test may achieve a little more. */
export function ciLevelLabel(rows: readonly CompareRow[]): string {
  const level = rows.find((r) => r.ci)?.ci?.level;
  return level === undefined ? 'CI' : `${Math.floor(level * 100)}% CI`;
}

// ─── run facts ──────────────────────────────────────────────────────────────────────────────────────

/** "list (desktop) — run": what a reader needs to know which run this is. */
export function runTitle(run: Pick<RunFile, 'scenario' | 'variant' | 'label'>): string {
  return `${run.scenario}${run.variant ? ` (${run.variant})` : ''} — ${run.label}`;
}

/** `<scenario>[-<variant>]`, the run file's own stem (DESIGN.md run file name). */
export function runId(run: Pick<RunFile, 'scenario' | 'variant'>): string {
  return run.variant ? `${run.scenario}-${run.variant}` : run.scenario;
}

/** The header facts of a run, each a short phrase, in reading order. */
export function runFacts(run: RunFile): string[] {
  const s = run.summary;
  const v = run.env.viewport;
  const facts = [
    `${s.measured} of ${s.repeats} repeats measured, ${s.refused} refused, ${s.failed} failed` +
      (s.warmup ? ` (+${s.warmup} warmup discarded)` : ''),
    `restart ${run.env.restartMode}`,
    `viewport ${v.width}×${v.height} @${v.dpr}x${v.mobile ? ' mobile' : ''}${v.touch ? ' touch' : ''}`,
    `CPU throttle ${run.env.cpuThrottle}×`,
    ...(run.env.network ? [`network ${networkFact(run.env.network)}`] : []),
  ];
  if (s.timingOnly) facts.push('ms metrics from timing-mode repeats only');
  if (run.interrupted) facts.push('INTERRUPTED: partial results');
  return facts;
}

/** Counted repeats: warmups are run to be thrown away and say nothing about the candidate. */
export function countedRepeats(run: RunFile): RepeatRecord[] {
  return run.repeats.filter((r) => !r.warmup);
}

export type FailedRepeat = Extract<RepeatRecord, { status: 'failed' }>;
export type RefusedRepeat = Extract<RepeatRecord, { status: 'refused' }>;

/** Where a failed repeat stopped: `steps › tap "Add item"`, or just the phase (restart, measure). */
export function failureWhere(r: FailedRepeat): string {
  const f = r.failure;
  if (!f.step) return f.phase;
  const label = f.label && f.label !== f.step ? ` "${f.label}"` : '';
  return oneLine(`${f.phase} › ${f.step}${label}`);
}

/** One line per failed repeat, e.g. `repeat 3 (timing) failed at steps › tap: target_not_found: …`. */
export function failureLine(r: FailedRepeat): string {
  return oneLine(`repeat ${r.index} (${r.mode}) failed at ${failureWhere(r)}: ${r.failure.error.code}: ${r.failure.error.message}`);
}

export function refusedLine(r: RefusedRepeat): string {
  return oneLine(`repeat ${r.index} (${r.mode}) refused: ${r.reason}`);
}

/**
 * Budget evidence: "median 84.2", in the unit its limit was written in ("median 412.0 KB"), or why there is none. An
 * insight's count is no median: "fired in 2 of 3 repeats".
 */
export function budgetValue(b: Pick<BudgetResult, 'metric' | 'value' | 'unit' | 'of'>): string {
  if (b.value === null) return b.of === 0 ? 'no measured repeat computed it' : 'no measured value';
  if (b.of !== undefined && parseInsightKey(b.metric)?.field === 'count')
    return `fired in ${formatValue(b.metric, b.value)} of ${b.of} repeats`;
  return `median ${b.unit ? inBudgetUnit(b.value, b.unit) : formatValue(b.metric, b.value)}`;
}

/** A budget's limit as it was written ("<= 300 KB"), not as stored (in the metric's own unit). */
export function budgetLimit(b: Pick<BudgetResult, 'op' | 'limit' | 'unit'>): string {
  return `${b.op} ${b.unit ? limitInBudgetUnit(b.limit, b.unit) : String(b.limit)}`;
}

/** Untrusted text on one line (src/printable.ts, the one sanitiser of everything printed as text). */
export { oneLine };

// ─── compare rows ───────────────────────────────────────────────────────────────────────────────────

const SEVERITY_RANK: Record<Severity, number> = { error: 0, warn: 1, info: 2, none: 3 };
const VERDICT_RANK: Record<RowVerdict, number> = { missing: 0, regressed: 1, inconclusive: 2, improved: 3, changed: 4, unchanged: 5 };

function magnitude(row: CompareRow): number {
  if (row.deltaPct !== null && Number.isFinite(row.deltaPct)) return Math.abs(row.deltaPct);
  return row.shift === null || !Number.isFinite(row.shift) ? 0 : Math.abs(row.shift) * 100;
}

/**
 * The rows a reviewer must see: regressions then improvements, worst first. Re-sorted here rather than
 * trusting the order, because a compare result may come back from a JSON file written by anything.
 */
export function changedRows(rows: readonly CompareRow[]): CompareRow[] {
  return (
    rows
      // A secondary or shown metric only one run has (a renamed step, say) is in the JSON, not in the way.
      .filter((r) => r.verdict !== 'unchanged' && r.verdict !== 'changed' && (r.verdict !== 'missing' || r.gated))
      .sort(
        (p, q) =>
          SEVERITY_RANK[p.severity] - SEVERITY_RANK[q.severity] ||
          VERDICT_RANK[p.verdict] - VERDICT_RANK[q.verdict] ||
          magnitude(q) - magnitude(p) ||
          cmp(p.metric, q.metric),
      )
  );
}

export type RowStatus = 'missing' | 'error' | 'warn' | 'inconclusive' | 'info' | 'improved' | 'changed' | 'unchanged';

/**
 * missing (a lost primary measurement: fails) / error / warn / inconclusive / info (a regression of a
 * secondary metric) / improved / changed (no better direction) / unchanged.
 */
export function rowStatus(row: CompareRow): RowStatus {
  switch (row.verdict) {
    case 'improved':
    case 'unchanged':
    case 'inconclusive':
    case 'changed':
      return row.verdict;
    case 'missing':
      // Excused (the driver cannot measure it) or not gated: said in the reason, not counted as a failure.
      return row.severity === 'error' ? 'missing' : 'unchanged';
    case 'regressed':
      return row.severity === 'none' ? 'info' : row.severity;
  }
}

/** What a status cell says. */
export const STATUS_WORD: Record<RowStatus, string> = {
  missing: 'missing (not measured)',
  error: 'error',
  warn: 'warn',
  inconclusive: 'inconclusive',
  info: 'info (secondary)',
  improved: 'improved',
  changed: 'changed (not judged)',
  unchanged: 'unchanged',
};

/** "2 errors, 1 warning, 3 improved" — counts of the changed rows by status. */
export function compareCounts(rows: readonly CompareRow[]): string {
  const n = { missing: 0, error: 0, warn: 0, inconclusive: 0, info: 0, improved: 0, changed: 0 };
  for (const r of rows) {
    const s = rowStatus(r);
    if (s !== 'unchanged') n[s]++;
  }
  const parts = [
    n.missing ? `${n.missing} missing` : '',
    n.error ? `${n.error} error${n.error === 1 ? '' : 's'}` : '',
    n.warn ? `${n.warn} warning${n.warn === 1 ? '' : 's'}` : '',
    n.inconclusive ? `${n.inconclusive} inconclusive` : '',
    n.info ? `${n.info} secondary` : '',
    n.improved ? `${n.improved} improved` : '',
    n.changed ? `${n.changed} changed` : '',
  ].filter(Boolean);
  return parts.length ? parts.join(', ') : 'no significant change';
}

/** "PASS", "WARN", "FAIL", "INCONCLUSIVE". */
export const VERDICT_WORD: Record<CompareResult['verdict'], string> = {
  pass: 'PASS',
  warn: 'WARN',
  fail: 'FAIL',
  inconclusive: 'INCONCLUSIVE',
};

/**
 * The lines every compare rendering leads with, after its title: what decided, host and timing notes.
 * `brief` (the terminal's first screen) keeps what decided and a busy host; the explanations of another host,
 * of ungated timing and of the sequential design wait for --all (the JSON and the HTML report keep them).
 */
export function compareNotes(result: CompareReport, brief = false): string[] {
  const out: string[] = [];
  if (result.blind) out.push(`cannot detect: ${result.blind}`);
  if (result.gate?.summary) out.push(`gate: ${result.gate.summary}`);
  if (result.gate?.primary?.length) out.push(`primary: ${result.gate.primary.join(', ')}`);
  const aside = result.gate?.setAside ?? [];
  if (aside.length) {
    const each = aside.map((x) => `${x.metric} ${formatPct(x.deltaPct)}`);
    out.push(`set aside as noisy (a quarter of a primary's α; each holds the gate while past warn): ${each.join(', ')}`);
  }
  if (!brief && result.host && !result.host.same && result.host.note) out.push(result.host.note);
  if (result.host?.busy) out.push(result.host.busy.note);
  if (brief) return out;
  if (result.timing && !result.timing.gated) out.push(`timing: ${result.timing.note}`);
  if (result.gate?.sequential?.note) out.push(result.gate.sequential.note);
  return out;
}

// 6 metrics: enough to see what moved among the metrics nobody judged; the JSON has them all.
const SHOWN_CHANGES = 6;

/**
 * One line for the metrics that moved but are not judged (no better direction, another host, a per-frame
 * ratio over too few frames): "not judged, changed: frames.painted +40%, … (+3 more)". Undefined when none.
 */
export function shownChangesLine(rows: readonly CompareRow[]): string | undefined {
  const moved = rows.filter((r) => r.verdict === 'changed').sort((p, q) => magnitude(q) - magnitude(p) || cmp(p.metric, q.metric));
  if (!moved.length) return undefined;
  const shown = moved.slice(0, SHOWN_CHANGES).map((r) => `${r.metric} ${formatDelta(r)}`);
  return `not judged, changed: ${shown.join(', ')}${moved.length > SHOWN_CHANGES ? ` (+${moved.length - SHOWN_CHANGES} more)` : ''}`;
}

/** "list (desktop): baseline → candidate" from the two run files. */
export function compareTitle(a: RunFile, b: RunFile): string {
  const subject = `${a.scenario}${a.variant ? ` (${a.variant})` : ''}`;
  const other = b.scenario !== a.scenario || b.variant !== a.variant ? ` vs ${b.scenario}${b.variant ? ` (${b.variant})` : ''}` : '';
  return `${subject}${other}: ${a.label} → ${b.label}`;
}

// ─── attribution ────────────────────────────────────────────────────────────────────────────────────

/** Lines a text reporter shows under a row (the compare JSON keeps up to 8). */
export const ATTRIBUTION_LINES_SHOWN = 3;

const KIND_WORDS: Record<AttributionKind, string> = {
  function: '',
  forcedLayout: 'forced layout in ',
  forcedStyle: 'forced style in ',
  longTask: 'long tasks in ',
  step: 'step ',
};

/** ms with a sign, to 0.1 under 100 and whole above: "+96.2", "+101", "-3.5". */
export function signedMs(v: number): string {
  const s = Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(1);
  return noNegativeZero(v > 0 ? `+${s}` : s);
}

/**
 * A line's share of the row's change, capped: a function can grow by more than the whole window did when
 * others shrank, and "126% of Δ" reads as an error. Capped rather than normalised: the shares are of one
 * total, and scaling them down would hide which line outgrew it.
 */
export function shareOfDelta(share: number): string {
  return share >= 1 ? '≥100% of Δ' : `${Math.round(share * 100)}% of Δ`;
}

/** One attribution line as text: `burnCpu /jank.js:43:10  +96.2 ms/repeat (CI +90.1…+101, 71% of Δ)`. */
export function attributionLineText(l: AttributionLine): string {
  const where = l.url !== null ? ` ${l.url}` : '';
  const extras = [
    ...(l.ci ? [`CI ${signedMs(l.ci.lowMs)}…${signedMs(l.ci.highMs)}`] : []),
    ...(l.share !== null ? [shareOfDelta(l.share)] : []),
  ];
  const tail = extras.length ? ` (${extras.join(', ')})` : '';
  return oneLine(`${KIND_WORDS[l.kind]}${l.name}${where}  ${signedMs(l.deltaMs)} ms/repeat${tail}`);
}

/** The top lines of a row's attribution as text, then what is missing (if anything); [] without attribution. */
export function attributionTexts(row: CompareRow, max = ATTRIBUTION_LINES_SHOWN): string[] {
  const a = row.attribution;
  if (!a) return [];
  const out = a.lines.slice(0, max).map(attributionLineText);
  if (a.missing) out.push(oneLine(`not named: ${a.missing}`));
  else if (out.length === 0) out.push('no function, forced layout, long task or step grew beyond noise');
  return out;
}

// ─── page load ──────────────────────────────────────────────────────────────────────────────────────

export type MeasuredRepeat = Extract<RepeatRecord, { status: 'measured' }>;
/** A repeat's page load as the run file keeps it (report.load): milestones, LCP element, top requests, waterfall. */
export type LoadRecord = NonNullable<PerfReportRecord['load']>;
export type LoadRequestRecord = LoadRecord['top'][number];

/** The repeat whose load the reports draw, and the metric it is the median of (null: no repeat has either). */
export interface MedianLoad {
  repeat: MeasuredRepeat;
  load: LoadRecord;
  by: 'load.lcpMs' | 'load.loadEventMs' | null;
}

function hasLoad(r: RepeatRecord): r is MeasuredRepeat & { report: { load: LoadRecord } } {
  const load: unknown = r.status === 'measured' ? r.report.load : undefined;
  return typeof load === 'object' && load !== null && Array.isArray((load as { top?: unknown }).top);
}

/**
 * The median counted repeat by LCP, else by the load event (a browser without LCP): the lower middle one
 * of an even count, as the saved median trace is chosen, so every reporter draws the same repeat.
 */
export function medianLoad(run: RunFile): MedianLoad | undefined {
  const loads = run.repeats.filter((r) => !r.warmup).filter(hasLoad);
  if (!loads.length) return undefined;
  for (const by of ['load.lcpMs', 'load.loadEventMs'] as const) {
    const valueOf = (r: MeasuredRepeat): number => r.report.metrics[by] as number;
    const valued = loads.filter((r) => Number.isFinite(r.report.metrics[by]));
    if (!valued.length) continue;
    const sorted = [...valued].sort((a, b) => valueOf(a) - valueOf(b) || a.index - b.index);
    const repeat = sorted[Math.floor((sorted.length - 1) / 2)]!;
    return { repeat, load: repeat.report.load!, by };
  }
  return { repeat: loads[0]!, load: loads[0]!.report.load, by: null };
}

/** One request from a file, checked: a URL and finite numbers (a hand-made or crafted file may hold anything). */
export function isLoadRequest(r: unknown): r is LoadRequestRecord {
  if (typeof r !== 'object' || r === null) return false;
  const q = r as Record<string, unknown>;
  const finite = (v: unknown): boolean => typeof v === 'number' && Number.isFinite(v);
  return (
    typeof q.url === 'string' &&
    typeof q.type === 'string' &&
    finite(q.startMs) &&
    finite(q.endMs) &&
    finite(q.transferBytes) &&
    (q.responseStartMs === null || q.responseStartMs === undefined || finite(q.responseStartMs))
  );
}

// Five: the top list the load source keeps (LOAD_TOP_REQUESTS), what the issue asks the table to print.
export const LARGEST_REQUESTS = 5;

/** The largest requests of a load by transfer size, largest first. */
export function largestRequests(load: LoadRecord, n = LARGEST_REQUESTS): LoadRequestRecord[] {
  return load.top
    .filter(isLoadRequest)
    .sort((a, b) => b.transferBytes - a.transferBytes)
    .slice(0, n);
}

/** One request whose transfer size differs between two loads; null bytes: the request is on one side only. */
export interface RequestChange {
  /** The request's URL as the newer side fetched it (the older one's when gone). */
  url: string;
  /** The page that load opened: with `url`, how shortUrl shows it (the path alone on the page's own origin). */
  pageUrl: string;
  type: string;
  aBytes: number | null;
  bBytes: number | null;
  deltaBytes: number;
}

/** Every request a load kept: the waterfall when the file has it, else the top list. */
function requestsOf(load: LoadRecord): LoadRequestRecord[] {
  const all: unknown = (load as { requests?: unknown }).requests;
  return (Array.isArray(all) ? all : load.top).filter(isLoadRequest);
}

/**
 * What matches a request across two loads: its path and query on the page's own origin, else its whole URL. An app
 * started on a new port each run (`${PORT}`) serves the same `/font.woff` from another origin every time; matched by
 * the whole URL, every request of its own read as one gone and one new.
 */
export function requestKey(url: string, pageUrl: string): string {
  try {
    const u = new URL(url);
    const page = new URL(pageUrl);
    if (u.origin === page.origin && u.origin !== 'null') return u.pathname + u.search;
  } catch {
    // Not a URL the parser takes: matched as it is.
  }
  return url;
}

/**
 * Which requests grew, shrank, appeared or went between the median loads of two runs, largest change first:
 * the question after "transfer bytes went up". Requests are matched by requestKey, the same request summed when
 * fetched twice; a renamed (content-hashed) bundle shows as one gone and one new, which is what happened on the wire.
 */
export function requestChanges(a: LoadRecord, b: LoadRecord, n = LARGEST_REQUESTS): RequestChange[] {
  type Side = { url: string; pageUrl: string; type: string; a: number | null; b: number | null };
  const sides = new Map<string, Side>();
  const add = (side: 'a' | 'b', r: LoadRequestRecord, pageUrl: string): void => {
    const key = requestKey(r.url, pageUrl);
    const e = sides.get(key) ?? { url: r.url, pageUrl, type: r.type, a: null, b: null };
    e[side] = (e[side] ?? 0) + r.transferBytes;
    // The newer load names it: the URL a reader would open now.
    if (side === 'b') Object.assign(e, { url: r.url, pageUrl, type: r.type });
    sides.set(key, e);
  };
  for (const r of requestsOf(a)) add('a', r, a.url);
  for (const r of requestsOf(b)) add('b', r, b.url);
  return [...sides.values()]
    .map((e) => ({ url: e.url, pageUrl: e.pageUrl, type: e.type, aBytes: e.a, bBytes: e.b, deltaBytes: (e.b ?? 0) - (e.a ?? 0) }))
    .filter((c) => c.deltaBytes !== 0 || c.aBytes === null || c.bBytes === null)
    .sort((x, y) => Math.abs(y.deltaBytes) - Math.abs(x.deltaBytes) || x.url.localeCompare(y.url))
    .slice(0, n);
}

/** `+204.8 KB`, `new`, `gone`: a request change's delta cell. */
export function requestDeltaText(c: RequestChange): string {
  if (c.aBytes === null) return 'new';
  if (c.bBytes === null) return 'gone';
  return `${c.deltaBytes > 0 ? '+' : ''}${formatBytes(c.deltaBytes)}`;
}

// 60 characters: a path and file name fit beside the type and size columns of an 80-column terminal.
export const SHORT_URL_CHARS = 60;

/**
 * A request's URL as a reader scans it: the path and query on the page's own origin, host and path on another,
 * cut in the middle past `max` so both the start and the file name stay.
 */
export function shortUrl(url: string, pageUrl: string, max = SHORT_URL_CHARS): string {
  let s = oneLine(url);
  try {
    const u = new URL(url);
    const page = new URL(pageUrl);
    if (u.protocol === 'http:' || u.protocol === 'https:')
      s = u.origin === page.origin ? u.pathname + u.search : u.host + u.pathname + u.search;
  } catch {
    // Not a URL the parser takes: shown as it is, shortened.
  }
  if (s.length <= max) return s;
  const head = Math.floor((max - 1) / 3);
  return `${s.slice(0, head)}…${s.slice(s.length - (max - 1 - head))}`;
}

// 100 characters: every fact of a request on one tooltip line (a 404 over h2 from the disk cache… is ~90); its URL gives way.
export const REQUEST_FACTS_CHARS = 100;

/**
 * `404 · h2 · disk-cache · no-store · parser ← /app.css · VeryHigh · blocking · Google Fonts`: what the run file says
 * of a request beyond its bar (status, protocol, cache, initiator, priority, render-blocking, party), on one line; ''
 * for a file without them. Every field is read as the file has it: only strings and numbers, made printable.
 */
export function requestFacts(r: LoadRequestRecord, pageUrl: string, max = REQUEST_FACTS_CHARS): string {
  const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' && Number.isFinite(v) ? String(v) : '');
  const who = r.initiator && typeof r.initiator === 'object' ? r.initiator : undefined;
  const from = who && typeof who.url === 'string' ? ` ← ${shortUrl(who.url, pageUrl, 30)}` : '';
  const facts = [
    str(r.status),
    str(r.protocol),
    str(r.servedFrom),
    str(r.cacheControl),
    who ? `${str(who.type)}${from}` : '',
    str(r.priority),
    str(r.renderBlockingStatus),
    str(r.entity),
  ];
  const line = oneLine(facts.filter((f) => f.trim()).join(' · '));
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** "median repeat 2 by load.lcpMs · 23 requests · 1.2 MB": which load a section shows. */
export function loadFacts(m: MedianLoad): string {
  const total = m.load.top.filter(isLoadRequest).length;
  const requests = typeof m.load.requestsTotal === 'number' ? m.load.requestsTotal : total;
  const bytes = m.repeat.report.metrics['load.transferBytes'];
  return [
    `${m.by ? `median repeat ${formatNumber(m.repeat.index)} by ${m.by}` : `repeat ${formatNumber(m.repeat.index)}`}`,
    `${formatNumber(requests)} request${requests === 1 ? '' : 's'}`,
    ...(typeof bytes === 'number' ? [formatValue('load.transferBytes', bytes)] : []),
    ...(m.load.ended === 'deadline' ? ['never quiet: ended at the deadline'] : []),
  ].join(' · ');
}

/** `span.hero "Welcome" at 812.0 ms (image /hero.jpg)`, or why there is none; untrusted page text, on one line. */
export function lcpElementText(load: LoadRecord): string {
  if (typeof load.lcpElement !== 'string') return 'none (the browser reported no largest contentful paint)';
  const at = typeof load.lcpMs === 'number' ? ` at ${formatValue('load.lcpMs', load.lcpMs)} ms` : '';
  const image = typeof load.lcpUrl === 'string' ? ` (image ${shortUrl(load.lcpUrl, load.url)})` : '';
  return oneLine(`${load.lcpElement}${at}${image}`);
}

// The first screen's insight changes: the three most telling; --all lists every one the compare kept.
const INSIGHT_LINES_FIRST_SCREEN = 3;

/** Lines for the insights that changed between the runs (ids perf_insight takes), and a count of the rest. */
export function insightChangeTexts(result: CompareReport, all = true): { lines: string[]; more: number } {
  const changes = result.insights ?? [];
  const shown = all ? changes : changes.slice(0, INSIGHT_LINES_FIRST_SCREEN);
  return { lines: shown.map((c) => oneLine(c.line)), more: changes.length - shown.length };
}
