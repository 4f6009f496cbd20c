/**
 * The terminal reporter: what `perf run` and `perf compare` print at the end. cli-table3 boxes, plain
 * by default so CI logs and redirected output carry no escape codes; `{ color: true }` for a TTY.
 */
import Table from 'cli-table3';
import type { RunFile } from '../src/perf/run-file.js';
import { defineReporter } from './define.js';
import type { CompareContext, CompareReport, RenderOptions } from './define.js';
import {
  attributionTexts,
  budgetValue,
  changedRows,
  ciLevelLabel,
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

function newTable(head: string[], colAligns: Table.HorizontalAlignment[], color: boolean): Table.Table {
  return new Table({
    head,
    colAligns,
    // No rule between body rows: a 30-metric table stays 30 lines tall instead of 60.
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
    // Empty style arrays switch cli-table3's own colouring off entirely (it would otherwise emit
    // escape codes into files and CI logs).
    style: color ? { head: ['cyan'], border: ['grey'] } : { head: [], border: [] },
  });
}

function renderRun(run: RunFile, options: RenderOptions = {}): string {
  const color = options.color ?? false;
  const p = painter(color);
  const out: string[] = [p.bold(oneLine(runTitle(run))), oneLine(runFacts(run).join(' · '))];

  const names = sortMetrics(Object.keys(run.summary.metrics), stepLabelsOf(run));
  if (names.length) {
    const table = newTable(['metric', 'median', 'spread p25–p75 (min–max)', 'n'], ['left', 'right', 'right', 'right'], color);
    for (const metric of names) {
      const s = run.summary.metrics[metric];
      if (!s) continue;
      table.push([
        oneLine(metric),
        formatValue(metric, s.median),
        `${formatRange(metric, s.p25, s.p75)} (${formatRange(metric, s.min, s.max)})`,
        formatNumber(s.n),
      ]);
    }
    out.push(table.toString());
  } else {
    out.push('No metrics: no repeat was measured.');
  }
  out.push(...loadLines(run, color));

  if (run.budgets.length) {
    const failed = run.budgets.filter((b) => !b.pass).length;
    out.push(`Budgets: ${failed ? p.red(`${failed} of ${run.budgets.length} failed`) : `all ${run.budgets.length} passed`}`);
    for (const b of run.budgets) {
      out.push(`  ${b.pass ? p.green('PASS') : p.red('FAIL')}  ${oneLine(b.expr)}  (${budgetValue(b)})`);
    }
  }

  const repeats = countedRepeats(run);
  const failedLines = repeats.flatMap((r) => (r.status === 'failed' ? [failureLine(r)] : []));
  const refusedLines = repeats.flatMap((r) => (r.status === 'refused' ? [refusedLine(r)] : []));
  if (failedLines.length) out.push(p.red('Failed repeats:'), ...failedLines.map((l) => `  ${l}`));
  if (refusedLines.length) out.push(p.yellow('Refused repeats:'), ...refusedLines.map((l) => `  ${l}`));
  return out.join('\n') + '\n';
}

/** The median load's largest requests and its LCP element, after the metrics; nothing for a run without a load. */
function loadLines(run: RunFile, color: boolean): string[] {
  const m = medianLoad(run);
  if (!m) return [];
  const top = largestRequests(m.load);
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
  for (const c of changes) table.push([shortUrl(c.url, b.load.url), oneLine(c.type), size(c.aBytes), size(c.bBytes), requestDeltaText(c)]);
  return ['Requests that changed most (median loads):', table.toString()];
}

function renderCompare(result: CompareReport, ctx: CompareContext, options: RenderOptions = {}): string {
  const color = options.color ?? false;
  const p = painter(color);
  const verdictWord = { pass: p.green('PASS'), warn: p.yellow('WARN'), fail: p.red('FAIL'), inconclusive: p.yellow('INCONCLUSIVE') }[
    result.verdict
  ];
  const out: string[] = [`${verdictWord}  ${oneLine(compareTitle(ctx.a, ctx.b))} — ${compareCounts(result.rows)}`];
  out.push(...compareNotes(result).map((l) => oneLine(l)));
  if (result.frames)
    out.push(
      `painted frames: ${formatValue('frames.painted', result.frames.painted.a)}` +
        ` → ${formatValue('frames.painted', result.frames.painted.b)}`,
    );

  const changed = changedRows(result.rows);
  if (changed.length) {
    const table = newTable(
      ['metric', oneLine(ctx.a.label), oneLine(ctx.b.label), 'delta', ciLevelLabel(changed), 'status'],
      ['left', 'right', 'right', 'right', 'right', 'left'],
      color,
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
    for (const row of changed) {
      const status = rowStatus(row);
      const need = row.verdict === 'inconclusive' && row.needRepeats ? ` (≈${formatNumber(row.needRepeats)} repeats)` : '';
      table.push([
        oneLine(row.metric),
        formatValue(row.metric, row.a.median),
        formatValue(row.metric, row.b.median),
        formatDelta(row),
        formatCi(row),
        paintStatus[status](STATUS_WORD[status] + need),
      ]);
    }
    out.push(table.toString());
    // Under the table, not in it: a cell would wrap a function's path:line:col past reading.
    for (const row of changed) {
      const lines = attributionTexts(row);
      if (lines.length) out.push(`${oneLine(row.metric)}:`, ...lines.map((l) => `  ↳ ${l}`));
    }
  }
  out.push(...requestChangeLines(ctx, color));
  const moved = shownChangesLine(result.rows);
  if (moved) out.push(oneLine(moved));
  if (result.unchanged.length)
    out.push(`unchanged (${result.unchanged.length}): ${oneLine(sortMetrics(result.unchanged, stepLabelsOf(ctx.a)).join(', '))}`);
  return out.join('\n') + '\n';
}

export const tableReporter = defineReporter({
  name: 'table',
  description: 'Plain-text summary tables for the terminal (metric, median, spread, n; compare deltas)',
  fileExtension: 'txt',
  format: 'text',
  renderRun,
  renderCompare,
});
