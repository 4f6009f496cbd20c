/**
 * What a run's first screen holds (issue 58): the metrics that decide a compare, and the findings of the
 * repeat the insights are of (its insights, then its top functions by self time). The text reporters lead
 * with these; the whole metric table stays behind `--all`, in the run file and in the HTML report.
 */
import { MIN_PAINTED_FOR_PER_FRAME, PER_FRAME_SUFFIX, resolveMetric } from '../src/perf/metrics.js';
import type { RunFile } from '../src/perf/run-file.js';
import { primaryMetricsOf } from '../src/perf/trends.js';
import { oneLine } from '../src/printable.js';
import type { MeasuredRepeat } from './format.js';

/** Lines of findings on the first screen: the worst insights, then the heaviest functions, three in all. */
export const FINDINGS_SHOWN = 3;

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The registry's primary family (or the scenario's `gate.metrics`) in the form a compare of this run judges:
 * per frame where the run painted enough frames for a ratio (perf/compare/primaries.ts familyForms), in reading order.
 * A compare's noise rule may still set one aside or promote another; its notes say so.
 */
export function decidingMetrics(run: RunFile): string[] {
  const held = Object.keys(run.summary.metrics);
  const painted = run.summary.metrics['frames.painted']?.median ?? 0;
  const perFrameOk = painted >= MIN_PAINTED_FOR_PER_FRAME;
  const out: string[] = [];
  for (const name of primaryMetricsOf(held, run.gate?.metrics)) {
    const r = resolveMetric(name);
    const judged = r && !r.perFrame && r.def.perFrame && perFrameOk ? name + PER_FRAME_SUFFIX : name;
    const form = judged in run.summary.metrics ? judged : name;
    if (!out.includes(form)) out.push(form);
  }
  return out;
}

/**
 * The median measured repeat by window duration, as the runner chose its saved median trace (runner/run.ts
 * keepTraces), and the slowest one: the repeats the reports draw.
 */
export function medianAndSlowest(run: RunFile): { median?: MeasuredRepeat; slowest?: MeasuredRepeat } {
  const measured = run.repeats.filter((r): r is MeasuredRepeat => r.status === 'measured' && !r.warmup);
  if (!measured.length) return {};
  const sorted = [...measured].sort((a, b) => (a.report.metrics.durationMs ?? 0) - (b.report.metrics.durationMs ?? 0));
  const byIndex = (i: number | undefined): MeasuredRepeat | undefined =>
    i === undefined ? undefined : measured.find((r) => r.index === i);
  return {
    median: byIndex(run.traces?.median?.repeat) ?? sorted[Math.floor((sorted.length - 1) / 2)],
    slowest: byIndex(run.traces?.slowest?.repeat) ?? sorted[sorted.length - 1],
  };
}

/** The repeat the insights are of (the median attribution repeat: the one whose profile names functions). */
export function findingsRepeat(run: RunFile): MeasuredRepeat | undefined {
  const from = run.insightsFrom;
  return run.repeats.find((r): r is MeasuredRepeat => r.status === 'measured' && r.index === from?.repeat) ?? medianAndSlowest(run).median;
}

export interface TopFunction {
  name: unknown;
  url: unknown;
  selfMs: unknown;
  share: unknown;
}

/** That repeat's functions by self time, as its report kept them ([] for a repeat without a profile). */
export function topFunctions(r: MeasuredRepeat | undefined): TopFunction[] {
  const blocks = r && isRecord(r.report.summary) && Array.isArray(r.report.summary.blocksBySelf) ? r.report.summary.blocksBySelf : [];
  return blocks.filter(isRecord).map((b) => ({ name: b.name, url: b.url, selfMs: b.selfMs, share: b.share }));
}

const text = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '?');

/** "insight warn: Long frames while scrolling (long-frames)"; "function burnCpu /jank.js:43  96.2 ms self (71%)". */
export function findingLines(run: RunFile, max = FINDINGS_SHOWN): string[] {
  const insights = run.insights
    .filter(isRecord)
    .map((i) => `insight ${text(i.severity ?? 'info')}: ${text(i.title)} (${text(i.id)})`)
    .slice(0, max);
  const functions = topFunctions(findingsRepeat(run))
    .slice(0, max - insights.length)
    .map((f) => {
      const ms = typeof f.selfMs === 'number' ? `${f.selfMs.toFixed(1)} ms self` : 'self time unknown';
      const share = typeof f.share === 'number' ? ` (${Math.round(f.share * 100)}% of script)` : '';
      // A VM bucket ("(garbage collector)") is its own location: named once.
      const where = f.url === f.name ? '' : ` ${text(f.url)}`;
      return `function ${text(f.name)}${where}  ${ms}${share}`;
    });
  return [...insights, ...functions].map((l) => oneLine(l));
}

/** The heading of the findings: which repeat they are of, and how it was measured. */
export function findingsHeading(run: RunFile): string {
  const from = run.insightsFrom;
  const r = findingsRepeat(run);
  if (!r) return 'Findings: no measured repeat.';
  const of = from ? `the median of ${from.of} ${from.mode} repeat${from.of === 1 ? '' : 's'}` : 'the median repeat';
  return `Findings (repeat ${r.index}, ${of}):`;
}
