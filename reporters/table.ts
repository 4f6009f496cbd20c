/**
 * The terminal reporter: what `perf run` and `perf compare` print at the end. cli-table3 boxes, plain
 * by default so CI logs and redirected output carry no escape codes; `{ color: true }` for a TTY.
 */
import Table from 'cli-table3';
import type { BudgetResult, RunFile } from '../src/perf/run-file.js';
import { defineReporter } from './define.js';
import { decidingMetrics, findingLines, findingsHeading } from './screen.js';
import type { CompareContext, CompareReport, RenderOptions } from './define.js';
import type { CompareRow } from '../src/perf/compare.js';
import {
  attributionTexts,
  insightChangeTexts,
  ATTRIBUTION_LINES_SHOWN,
  budgetValue,
  changedRows,
  ciLevelLabel,
  estimatedCandidate,
  compareCounts,
  compareNotes,
  shownChangesLine,
  STATUS_WORD,
  type RowStatus,
  compareTitle,
  countedRepeats,
  failureLine,
  formatBytes,
  formatCi,
  formatDelta,
  formatNumber,
  formatRange,
  formatValue,
  largestRequests,
  LARGEST_REQUESTS,
  lcpElementText,
  loadFacts,
  medianLoad,
  requestChanges,
  requestDeltaText,
  oneLine,
  shortUrl,
  refusedLine,
  rowStatus,
  runFacts,
  runTitle,
  sortMetrics,
  stepLabelsOf,
} from './format.js';

type Paint = (s: string) => string;

/** Minimal SGR colouring; enough for PASS/FAIL and headings without a colour dependency. */
function painter(color: boolean): { red: Paint; green: Paint; yellow: Paint; bold: Paint } {
  const sgr = (code: number): Paint => (color ? (s) => `\u001b[${code}m${s}\u001b[0m` : (s) => s);
  return { red: sgr(31), green: sgr(32), yellow: sgr(33), bold: sgr(1) };
}

/** Marks a metric that decides a compare (the primary family), in the table and in its legend. */
const STAR = '★';
// The first screen's load lines: the three largest requests say what weighs; --all and the reports show LARGEST_REQUESTS.
const LARGEST_REQUESTS_SHOWN = 3;
// The first screen's attribution under a changed row: the two lines that explain most of it; --all shows ATTRIBUTION_LINES_SHOWN.
const ATTRIBUTION_LINES_FIRST_SCREEN = 2;
const NO_TOP_AND_BOTTOM = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
};

function newTable(
  head: string[],
  colAligns: Table.HorizontalAlignment[],
  color: boolean,
  rules: Partial<Record<string, string>> = {},
): Table.Table {
  return new Table({
    head,
    colAligns,
    // No rule between body rows: a 30-metric table stays 30 lines tall instead of 60.
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '', ...rules },
    // Empty style arrays switch cli-table3's own colouring off entirely (it would otherwise emit
    // escape codes into files and CI logs).
    style: color ? { head: ['cyan'], border: ['grey'] } : { head: [], border: [] },
  });
}

function renderRun(run: RunFile, options: RenderOptions = {}): string {
  const color = options.color ?? false;
  const p = painter(color);
  const out: string[] = [p.bold(oneLine(runTitle(run))), oneLine(runFacts(run).join(' · '))];
  out.push(
    ...budgetLines(
      run.budgets.map((budget) => ({ budget })),
      color,
    ),
  );
  const names = sortMetrics(Object.keys(run.summary.metrics), stepLabelsOf(run));
  const deciding = new Set(decidingMetrics(run));
  if (!names.length) out.push('No metrics: no repeat was measured.');
  else if (options.all) out.push(metricTable(run, names, deciding, color, true));
  else if (deciding.size) out.push(metricTable(run, [...deciding], deciding, color, false));
  if (options.all) out.push(...loadLines(run, color));
  else out.push(...loadLines(run, color, LARGEST_REQUESTS_SHOWN));
  const findings = findingLines(run);
  if (findings.length) out.push(findingsHeading(run), ...findings.map((l) => `  ${l}`));
  else if (names.length) out.push(`${findingsHeading(run)} none: no insight fired and no page script ran in its window`);
  if (names.length && !options.all)
    out.push(
      `${STAR} decides a compare: ${deciding.size} of ${names.length} metrics shown; --all prints every one ` +
        '(the run file and the html report keep them all)',
    );

  const repeats = countedRepeats(run);
  const failedLines = repeats.flatMap((r) => (r.status === 'failed' ? [failureLine(r)] : []));
  const refusedLines = repeats.flatMap((r) => (r.status === 'refused' ? [refusedLine(r)] : []));
  if (failedLines.length) out.push(p.red('Failed repeats:'), ...failedLines.map((l) => `  ${l}`));
  if (refusedLines.length) out.push(p.yellow('Refused repeats:'), ...refusedLines.map((l) => `  ${l}`));
  return out.join('\n') + '\n';
}

/** A budget to list, with the run it is of when several runs share one screen (the gate's). */
export interface BudgetLine {
  budget: BudgetResult;
  run?: string;
}

/**
 * The verdict on the budgets, first: a failed budget one line each, the passed ones on one line. perf run
 * lists one run's, perf gate every run's (each named).
 */
export function budgetLines(budgets: readonly BudgetLine[], color: boolean): string[] {
  if (!budgets.length) return [];
  const p = painter(color);
  const failed = budgets.filter((b) => !b.budget.pass);
  const passed = budgets.filter((b) => b.budget.pass);
  const each = (bs: readonly BudgetLine[]): string =>
    bs.map(({ budget: b, run }) => `${run !== undefined ? `${oneLine(run)}: ` : ''}${oneLine(b.expr)}  (${budgetValue(b)})`).join(' · ');
  if (!failed.length) return [`Budgets: all ${budgets.length} passed: ${each(passed)}`];
  return [
    `Budgets: ${p.red(`${failed.length} of ${budgets.length} failed`)}`,
    ...failed.map((b) => `  ${p.red('FAIL')}  ${each([b])}`),
    ...(passed.length ? [`  ${p.green('PASS')}  ${each(passed)}`] : []),
  ];
}

/**
 * Median, spread and n per metric; the ones that decide a compare marked. The first screen's table has no
 * top and bottom rules: two lines fewer for a table of a handful of rows.
 */
function metricTable(run: RunFile, names: string[], deciding: Set<string>, color: boolean, all: boolean): string {
  const head = ['metric', 'median', 'spread p25–p75 (min–max)', 'n'];
  const table = newTable(head, ['left', 'right', 'right', 'right'], color, all ? {} : NO_TOP_AND_BOTTOM);
  for (const metric of names) {
    const s = run.summary.metrics[metric];
    if (!s) continue;
    table.push([
      `${deciding.has(metric) ? STAR : ' '} ${oneLine(metric)}`,
      formatValue(metric, s.median),
      `${formatRange(metric, s.p25, s.p75)} (${formatRange(metric, s.min, s.max)})`,
      formatNumber(s.n),
    ]);
  }
  return table.toString();
}

/** The median load's largest requests and its LCP element, after the metrics; nothing for a run without a load. */
function loadLines(run: RunFile, color: boolean, n = LARGEST_REQUESTS): string[] {
  const m = medianLoad(run);
  if (!m) return [];
  const top = largestRequests(m.load, n);
  const out = [`Largest requests (${loadFacts(m)}):`];
  if (top.length) {
    const table = newTable(['request', 'type', 'size', 'render-blocking'], ['left', 'left', 'right', 'left'], color);
    for (const r of top)
      table.push([shortUrl(r.url, m.load.url), oneLine(r.type), formatBytes(r.transferBytes), r.renderBlocking ? 'yes' : '']);
    out.push(table.toString());
  } else {
    out.push('  none recorded');
  }
  out.push(`LCP element: ${lcpElementText(m.load)}`);
  return out;
}

/** Between two runs that measured a load: the requests whose size changed between their median loads. */
function requestChangeLines(ctx: CompareContext, color: boolean): string[] {
  const a = medianLoad(ctx.a);
  const b = medianLoad(ctx.b);
  if (!a || !b) return [];
  const changes = requestChanges(a.load, b.load);
  if (!changes.length) return ['Requests: none changed in size between the median loads.'];
  const table = newTable(
    ['request', 'type', oneLine(ctx.a.label), oneLine(ctx.b.label), 'change'],
    ['left', 'left', 'right', 'right', 'right'],
    color,
  );
  const size = (v: number | null): string => (v === null ? '' : formatBytes(v));
  for (const c of changes) table.push([shortUrl(c.url, c.pageUrl), oneLine(c.type), size(c.aBytes), size(c.bBytes), requestDeltaText(c)]);
  return ['Requests that changed most (median loads):', table.toString()];
}

function renderCompare(result: CompareReport, ctx: CompareContext, options: RenderOptions = {}): string {
  const color = options.color ?? false;
  const p = painter(color);
  const verdictWord = { pass: p.green('PASS'), warn: p.yellow('WARN'), fail: p.red('FAIL'), inconclusive: p.yellow('INCONCLUSIVE') }[
    result.verdict
  ];
  const out: string[] = [`${verdictWord}  ${oneLine(compareTitle(ctx.a, ctx.b))} — ${compareCounts(result.rows)}`];
  out.push(...compareNotes(result, !options.all).map((l) => oneLine(l)));
  if (result.frames && options.all)
    out.push(
      `painted frames: ${formatValue('frames.painted', result.frames.painted.a)}` +
        ` → ${formatValue('frames.painted', result.frames.painted.b)}`,
    );

  const changed = changedRows(result.rows);
  // The first screen: the rows that decide (primary, and set aside as noisy: it still can fail the gate).
  const shown = options.all ? changed : changed.filter((r) => r.gated || r.setAside !== undefined);
  if (shown.length) {
    out.push(compareTable(shown, ctx, p, color, options.all === true));
    // Under the table, not in it: a cell would wrap a function's path:line:col past reading.
    for (const row of shown) {
      const lines = attributionTexts(row, options.all ? ATTRIBUTION_LINES_SHOWN : ATTRIBUTION_LINES_FIRST_SCREEN);
      const metric = oneLine(row.metric);
      out.push(...lines.map((l, i) => `${i === 0 ? metric : ' '.repeat(metric.length)} ↳ ${l}`));
    }
  }
  const insights = insightChangeTexts(result, options.all === true);
  if (insights.lines.length) out.push('Insights that changed:', ...insights.lines.map((l) => `  ${l}`));
  if (insights.more) out.push(`  ${insights.more} more: --all lists them`);
  out.push(...requestChangeLines(ctx, color));
  const moved = shownChangesLine(result.rows);
  if (options.all) {
    if (moved) out.push(oneLine(moved));
    if (result.unchanged.length)
      out.push(`unchanged (${result.unchanged.length}): ${oneLine(sortMetrics(result.unchanged, stepLabelsOf(ctx.a)).join(', '))}`);
  } else {
    const more = changed.length - shown.length + result.rows.filter((r) => r.verdict === 'changed').length;
    const rest = [more ? `${more} more changed (not deciding)` : '', result.unchanged.length ? `${result.unchanged.length} unchanged` : '']
      .filter(Boolean)
      .join(', ');
    if (rest) out.push(`${rest}: --all lists them`);
  }
  return out.join('\n') + '\n';
}

/**
 * Changed rows, worst first. Baseline, candidate, change and interval all come from the estimate the verdict
 * used: the candidate column is the baseline's median plus the estimated shift (format.ts estimatedCandidate).
 */
function compareTable(rows: CompareRow[], ctx: CompareContext, p: ReturnType<typeof painter>, color: boolean, all: boolean): string {
  const table = newTable(
    ['metric', oneLine(ctx.a.label), `${oneLine(ctx.b.label)} (est.)`, 'change', ciLevelLabel(rows), 'status'],
    ['left', 'right', 'right', 'right', 'right', 'left'],
    color,
    all ? {} : NO_TOP_AND_BOTTOM,
  );
  const plain = (s: string): string => s;
  const paintStatus: Record<RowStatus, (s: string) => string> = {
    missing: p.red,
    error: p.red,
    warn: p.yellow,
    inconclusive: p.yellow,
    info: plain,
    improved: p.green,
    changed: plain,
    unchanged: plain,
  };
  for (const row of rows) {
    const status = rowStatus(row);
    const need = row.verdict === 'inconclusive' && row.needRepeats ? ` (≈${formatNumber(row.needRepeats)} repeats)` : '';
    table.push([
      `${row.gated ? STAR : ' '} ${oneLine(row.metric)}`,
      formatValue(row.metric, row.a.median),
      formatValue(row.metric, estimatedCandidate(row)),
      formatDelta(row),
      formatCi(row),
      paintStatus[status](STATUS_WORD[status] + need),
    ]);
  }
  return [
    table.toString(),
    `${oneLine(ctx.b.label)} (est.) = ${oneLine(ctx.a.label)}'s median + the estimated shift the verdict is on ` +
      `(Hodges–Lehmann; of the paired rounds when interleaved); ${STAR} decides. The runs' own medians: --json.`,
  ].join('\n');
}

export const tableReporter = defineReporter({
  name: 'table',
  description: 'Plain-text summary tables for the terminal (metric, median, spread, n; compare deltas)',
  fileExtension: 'txt',
  format: 'text',
  renderRun,
  renderCompare,
});
