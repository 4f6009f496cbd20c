/** The summary of a run file's repeats: what `perf run` writes and what the history store rebuilds a stored run with. */
import { summarize } from './stats.js';
import { isTimingMetric } from './metrics.js';
import type { RepeatRecord } from './run-file.js';

/** Summary over measured, non-warmup repeats. With timing repeats present, ms metrics come from them only. */
export function summarizeRepeats(repeats: RepeatRecord[]): { metrics: Record<string, ReturnType<typeof summarize>>; timingOnly: boolean } {
  const measured = repeats.filter((r): r is Extract<RepeatRecord, { status: 'measured' }> => r.status === 'measured' && !r.warmup);
  const timingOnly = measured.some((r) => r.mode === 'timing') && measured.some((r) => r.mode === 'attribution');
  const values = new Map<string, number[]>();
  for (const r of measured) {
    for (const [k, v] of Object.entries(r.report.metrics)) {
      if (!Number.isFinite(v)) continue;
      if (timingOnly && r.mode !== 'timing' && isTimingMetric(k)) continue;
      let arr = values.get(k);
      if (!arr) values.set(k, (arr = []));
      arr.push(v);
    }
  }
  const metrics: Record<string, ReturnType<typeof summarize>> = {};
  for (const k of [...values.keys()].sort()) metrics[k] = summarize(values.get(k)!);
  return { metrics, timingOnly };
}
