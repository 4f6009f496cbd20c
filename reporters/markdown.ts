/**
 * GitHub-flavoured Markdown for PR comments and the Actions job summary ($GITHUB_STEP_SUMMARY).
 *
 * The compare rendering is written for a reviewer skimming a PR: the verdict first, then only the rows
 * that changed (worst first) with delta, CI and severity, and everything unchanged folded into one
 * collapsed line. It stays about a dozen lines however many metrics were compared.
 */
import { appendFileSync } from 'node:fs';
import { PerfError } from '../src/errors.js';
import type { CompareRow } from '../src/perf/compare.js';
import { failedBudgets, type BudgetResult, type RunFile } from '../src/perf/run-file.js';
import { defineReporter } from './define.js';
import type { CompareContext, CompareReport } from './define.js';
import {
  estimatedCandidate,
  attributionTexts,
  insightChangeTexts,
  budgetValue,
  changedRows,
  ciLevelLabel,
  compareCounts,
  compareNotes,
  shownChangesLine,
  compareTitle,
  countedRepeats,
  failureWhere,
  formatBytes,
  formatCi,
  formatDelta,
  formatNumber,
  formatRange,
  formatValue,
  largestRequests,
  requestChanges,
  requestDeltaText,
  lcpElementText,
  loadFacts,
  medianLoad,
  oneLine,
  shortUrl,
  rowStatus,
  runFacts,
  runTitle,
  sortMetrics,
  stepLabelsOf,
} from './format.js';

// ─── escaping ───────────────────────────────────────────────────────────────────────────────────────

/**
 * Plain text from the page or the user (error messages, labels) as literal Markdown: every character
 * that could start emphasis, a link, HTML or a table cell is backslash-escaped (CommonMark allows that
 * for any ASCII punctuation), so `<div>` in an error shows as text instead of vanishing.
 */
export function mdText(s: string): string {
  return oneLine(s).replace(/[\\`*_[\]<>|~&#!]/g, '\\$&');
}

/**
 * An inline code span holding `s` verbatim: the fence is one backtick longer than the longest run
 * inside. In a table cell `|` must still be escaped, even inside code (GFM splits cells first).
 */
export function mdCode(s: string, inTable = false): string {
  const text = oneLine(s);
  const longestRun = Math.max(0, ...(text.match(/`+/g) ?? []).map((r) => r.length));
  const fence = '`'.repeat(longestRun + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  const body = inTable ? text.replace(/\|/g, '\\|') : text;
  return `${fence}${pad}${body}${pad}${fence}`;
}

function tableRow(cells: string[]): string {
  return `| ${cells.join(' | ')} |`;
}

// ─── run ────────────────────────────────────────────────────────────────────────────────────────────

/** ❌ when the run fails the exit-code rule (budget failed, or nothing measured), ⚠️ when partial. */
function runIcon(run: RunFile): string {
  if (failedBudgets(run).length || run.summary.measured === 0) return '❌';
  if (run.summary.failed || run.summary.refused || run.interrupted) return '⚠️';
  return '✅';
}

/** The budgets' verdict and one bullet each, failed first (perf run: one run's; perf gate: every run's, each named). */
export function budgetMarkdown(budgets: readonly { budget: BudgetResult; run?: string }[]): string[] {
  if (!budgets.length) return [];
  const failed = budgets.filter((b) => !b.budget.pass);
  const head = failed.length ? `${failed.length} of ${budgets.length} failed` : `all ${budgets.length} passed`;
  const sorted = [...failed, ...budgets.filter((b) => b.budget.pass)];
  return [
    '',
    `**Budgets**: ${head}`,
    '',
    ...sorted.map(
      ({ budget: b, run }) =>
        `- ${b.pass ? '✅ pass' : '❌ **FAIL**'} ${run !== undefined ? `${mdCode(run)} ` : ''}${mdCode(b.expr)}: ${budgetValue(b)}`,
    ),
  ];
}

function renderRun(run: RunFile): string {
  const out: string[] = [`### ${runIcon(run)} rehearse: ${mdText(runTitle(run))}`, '', mdText(runFacts(run).join(' · ')), ''];

  const names = sortMetrics(Object.keys(run.summary.metrics), stepLabelsOf(run));
  if (names.length) {
    out.push(tableRow(['metric', 'median', 'p25–p75', 'min–max', 'n']), '|:--|--:|--:|--:|--:|');
    for (const metric of names) {
      const s = run.summary.metrics[metric];
      if (!s) continue;
      out.push(
        tableRow([
          mdCode(metric, true),
          formatValue(metric, s.median),
          formatRange(metric, s.p25, s.p75),
          formatRange(metric, s.min, s.max),
          formatNumber(s.n),
        ]),
      );
    }
  } else {
    out.push('_No metrics: no repeat was measured._');
  }
  out.push(...loadLines(run));

  out.push(...budgetMarkdown(run.budgets.map((budget) => ({ budget }))));

  const repeats = countedRepeats(run);
  const failed = repeats.flatMap((r) => (r.status === 'failed' ? [r] : []));
  if (failed.length) {
    out.push('', '**Failed repeats**', '');
    for (const r of failed) {
      out.push(
        `- repeat ${formatNumber(r.index)} (${mdText(r.mode)}) at ${mdText(failureWhere(r))}` +
          `: ${mdCode(r.failure.error.code)} ${mdText(r.failure.error.message)}`,
      );
    }
  }
  const refused = repeats.flatMap((r) => (r.status === 'refused' ? [r] : []));
  if (refused.length) {
    out.push('', '**Refused repeats**', '');
    for (const r of refused) out.push(`- repeat ${formatNumber(r.index)} (${mdText(r.mode)}): ${mdText(r.reason)}`);
  }
  return out.join('\n') + '\n';
}

/** The median load's largest requests and its LCP element, after the metrics; nothing for a run without a load. */
function loadLines(run: RunFile): string[] {
  const m = medianLoad(run);
  if (!m) return [];
  const out = ['', `**Largest requests** (${mdText(loadFacts(m))})`, ''];
  const top = largestRequests(m.load);
  if (top.length) out.push(tableRow(['request', 'type', 'size', 'render-blocking']), '|:--|:--|--:|:-:|');
  for (const r of top) {
    const cells = [mdCode(shortUrl(r.url, m.load.url), true), mdText(r.type), formatBytes(r.transferBytes), r.renderBlocking ? 'yes' : ''];
    out.push(tableRow(cells));
  }
  if (!top.length) out.push('_none recorded_');
  out.push('', `LCP element: ${mdText(lcpElementText(m.load))}`);
  return out;
}

// ─── compare ────────────────────────────────────────────────────────────────────────────────────────

const VERDICT_HEAD = { pass: '✅ PASS', warn: '⚠️ WARN', fail: '❌ FAIL', inconclusive: '❔ INCONCLUSIVE' } as const;
const STATUS_CELL = {
  missing: '🔴 missing (not measured)',
  error: '🔴 error',
  warn: '🟡 warn',
  inconclusive: '❔ inconclusive',
  info: '⚪ info (secondary)',
  improved: '🟢 improved',
  changed: 'changed (not judged)',
  unchanged: 'unchanged',
} as const;

function unchangedLine(names: readonly string[], rows: readonly CompareRow[], stepLabels: readonly string[]): string {
  const byMetric = new Map(rows.map((r) => [r.metric, r]));
  return sortMetrics(names, stepLabels)
    .map((m) => {
      const r = byMetric.get(m);
      return r ? `${mdCode(m)} ${formatValue(m, r.a.median)} → ${formatValue(m, r.b.median)}` : mdCode(m);
    })
    .join(' · ');
}

/** Between two runs that measured a load: the requests whose size changed between their median loads. */
function requestChangeLines(ctx: CompareContext): string[] {
  const a = medianLoad(ctx.a);
  const b = medianLoad(ctx.b);
  if (!a || !b) return [];
  const changes = requestChanges(a.load, b.load);
  if (!changes.length) return ['', 'No request changed in size between the median loads.'];
  const size = (v: number | null): string => (v === null ? '' : formatBytes(v));
  return [
    '',
    '**Requests that changed most** (median loads)',
    '',
    tableRow(['request', 'type', mdText(ctx.a.label), mdText(ctx.b.label), 'change']),
    '|:--|:--|--:|--:|--:|',
    ...changes.map((c) =>
      tableRow([mdCode(shortUrl(c.url, c.pageUrl)), mdText(c.type), size(c.aBytes), size(c.bBytes), requestDeltaText(c)]),
    ),
  ];
}

function renderCompare(result: CompareReport, ctx: CompareContext): string {
  const out: string[] = [
    `### ${VERDICT_HEAD[result.verdict]} perf compare ${mdText(compareTitle(ctx.a, ctx.b))} — ${compareCounts(result.rows)}`,
    '',
  ];
  for (const note of compareNotes(result)) out.push(`- ${mdText(note)}`);
  if (result.frames)
    out.push(
      `- painted frames ${formatValue('frames.painted', result.frames.painted.a)}` +
        ` → ${formatValue('frames.painted', result.frames.painted.b)}`,
    );
  if (out.length > 2) out.push('');

  const changed = changedRows(result.rows);
  if (changed.length) {
    out.push(
      tableRow([
        'metric',
        mdText(ctx.a.label),
        `${mdText(ctx.b.label)} (= ${mdText(ctx.a.label)} + shift)`,
        'change',
        ciLevelLabel(changed),
        'severity',
      ]),
      '|:--|--:|--:|--:|--:|:--|',
    );
    for (const row of changed) {
      out.push(
        tableRow([
          mdCode(row.metric, true),
          formatValue(row.metric, row.a.median),
          formatValue(row.metric, estimatedCandidate(row)),
          formatDelta(row),
          formatCi(row),
          STATUS_CELL[rowStatus(row)] +
            (row.verdict === 'inconclusive' && row.needRepeats ? ` (≈${formatNumber(row.needRepeats)} repeats)` : ''),
        ]),
      );
    }
    const explained = changed.filter((r) => attributionTexts(r).length);
    if (explained.length) out.push('', '**Where the change is**', '');
    for (const row of explained) {
      out.push(`- ${mdCode(row.metric)}`, ...attributionTexts(row).map((l) => `  - ${mdText(l)}`));
    }
  } else {
    out.push("No metric changed beyond the runs' own noise.");
  }
  const insights = insightChangeTexts(result).lines;
  if (insights.length) out.push('', '**Insights that changed**', '', ...insights.map((l) => `- ${mdText(l)}`));
  out.push(...requestChangeLines(ctx));
  const moved = shownChangesLine(result.rows);
  if (moved) out.push('', mdText(moved));

  if (result.unchanged.length) {
    // A blank line after <summary> lets GitHub render the Markdown inside <details>.
    out.push(
      '',
      `<details><summary>${result.unchanged.length} unchanged metric${result.unchanged.length === 1 ? '' : 's'}</summary>`,
      '',
      unchangedLine(result.unchanged, result.rows, stepLabelsOf(ctx.a)),
      '',
      '</details>',
    );
  }
  return out.join('\n') + '\n';
}

// ─── $GITHUB_STEP_SUMMARY ───────────────────────────────────────────────────────────────────────────

/**
 * Append to the Actions job summary when $GITHUB_STEP_SUMMARY names a file; returns the path written,
 * undefined outside Actions. Appends (never overwrites): several runs and compares in one job each add
 * their section. A blank line keeps two appended tables from merging into one.
 */
export function appendToGithubStepSummary(markdown: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const path = env.GITHUB_STEP_SUMMARY;
  if (!path) return undefined;
  const text = `${markdown.replace(/\n*$/, '')}\n\n`;
  try {
    appendFileSync(path, text, 'utf8');
  } catch (e) {
    throw new PerfError({
      kind: 'environment',
      code: 'step_summary_unwritable',
      message: `cannot append to GITHUB_STEP_SUMMARY ${path}: ${(e as Error).message}`,
      suggestion: 'unset GITHUB_STEP_SUMMARY outside GitHub Actions, or point it at a writable file',
      cause: e,
    });
  }
  return path;
}

export const markdownReporter = defineReporter({
  name: 'markdown',
  description: 'GitHub-flavoured Markdown for PR comments; appended to $GITHUB_STEP_SUMMARY when set',
  fileExtension: 'md',
  format: 'text',
  renderRun,
  renderCompare,
});
