/**
 * The rows stage of a comparison: the thresholds and sequential state compareMetrics (compare.ts) judges the samples
 * with, and the bound on what it may be asked to judge. Pure: samples and settings in, rows out.
 */
import { PerfError } from '../../errors.js';
import { DEFAULT_SPENDING, type CompareOptions, type MetricSamples, type Thresholds } from '../compare.js';
import { PER_FRAME_SUFFIX, resolveMetric } from '../metrics.js';
import type { SequentialRecord } from '../run-file.js';
import type { CompareRunsOptions, ThresholdsUsed } from './types.js';

/**
 * Per-metric overrides as compareMetrics takes them. A threshold on a count covers its per-frame form
 * too. An override that sets only one level keeps the pair ordered: `frames.overBudget: { error: 5% }`
 * under the default warn 10 % means "error from +5 %", so warn becomes 5 % as well rather than the
 * scenario being rejected for warn > error.
 */
export function perMetricThresholds(
  metrics: ThresholdsUsed['metrics'],
  defaults: Thresholds = { warnPct: 10, errorPct: 25 },
): Record<string, Partial<Thresholds>> {
  const out: Record<string, Partial<Thresholds>> = {};
  for (const [k, v] of Object.entries(metrics)) {
    const t: Partial<Thresholds> = { ...v };
    if (t.errorPct !== undefined && t.warnPct === undefined && t.errorPct < defaults.warnPct) t.warnPct = t.errorPct;
    if (t.warnPct !== undefined && t.errorPct === undefined && t.warnPct > defaults.errorPct) t.errorPct = t.warnPct;
    out[k] = t;
  }
  for (const [k, v] of Object.entries({ ...out })) {
    const r = resolveMetric(k);
    if (r && !r.perFrame && r.def.perFrame && !(k + PER_FRAME_SUFFIX in out)) out[k + PER_FRAME_SUFFIX] = { ...v };
  }
  return out;
}

// 2,000 repeats per arm: the gate samples at most 200. Hodges–Lehmann sorts every pair of repeats
// (4 million differences, 32 MB, at 2,000 × 2,000), so memory and time grow as the product.
export const MAX_COMPARED_REPEATS = 2000;
// 10^8 pairs over all metrics: about 10 s of sorting here; 50 metrics of 1,000 repeats per arm are 5·10^7.
const MAX_COMPARED_PAIRS = 1e8;

/** Runs too large to judge in bounded time and memory are a usage error, before any pair is formed. */
export function checkCompareSize(samples: readonly MetricSamples[], fileA: string, fileB: string): void {
  let pairs = 0;
  for (const s of samples) {
    const most = Math.max(s.a.length, s.b.length);
    if (most > MAX_COMPARED_REPEATS) {
      throw new PerfError({
        kind: 'usage',
        code: 'runs_too_large',
        message:
          `compare: ${s.a.length > s.b.length ? fileA : fileB} has ${most} measured repeats of ${s.metric}; ` +
          `compare judges at most ${MAX_COMPARED_REPEATS} per run`,
        suggestion: 'compare runs of fewer repeats (perf gate samples at most 200)',
      });
    }
    pairs += s.a.length * s.b.length;
  }
  if (pairs > MAX_COMPARED_PAIRS) {
    throw new PerfError({
      kind: 'usage',
      code: 'runs_too_large',
      message:
        `compare: ${fileA} and ${fileB} hold ${samples.length} metrics over so many repeats that judging them would take ` +
        `minutes (${pairs.toExponential(1)} pairs of repeats; at most ${MAX_COMPARED_PAIRS.toExponential(0)})`,
      suggestion: 'compare runs of fewer repeats or fewer metrics',
    });
  }
}

/**
 * What compareMetrics judges the samples with: the thresholds in use, α, the sequential design's spending and
 * whether its baseline is stored, the rejections of earlier looks, and whether a set-aside metric holds past error.
 */
export function rowOptions(
  thresholds: ThresholdsUsed,
  alpha: number,
  sequential: SequentialRecord | undefined,
  opts: Pick<CompareRunsOptions, 'rejected' | 'holdSetAside'>,
): CompareOptions {
  const rejected = opts.rejected ?? sequential?.rejected;
  return {
    thresholds: { warnPct: thresholds.warnPct, errorPct: thresholds.errorPct },
    perMetric: perMetricThresholds(thresholds.metrics, thresholds),
    alpha,
    spending: sequential?.spending ?? DEFAULT_SPENDING,
    fixedBaseline: sequential?.storedBaseline ?? false,
    ...(rejected ? { rejected } : {}),
    ...(opts.holdSetAside ? { holdSetAside: true } : {}),
  };
}
