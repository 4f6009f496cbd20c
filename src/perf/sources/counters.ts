/**
 * Performance counters (CDP's Performance.getMetrics, read at each checkpoint): layouts, style recalcs,
 * script/layout/style/task time, thread and process CPU, heap and DOM node deltas.
 */
import type { Checkpoint } from '../../drivers/measure.js';
import * as M from '../metrics.js';
import { round } from '../profile.js';
import { defineSource, type Emit } from './source.js';

// Cumulative Performance.getMetrics counters (summed across documents) and gauges (last minus first).
const COUNTER_METRICS = [
  'LayoutCount',
  'RecalcStyleCount',
  'LayoutDuration',
  'RecalcStyleDuration',
  'ScriptDuration',
  'TaskDuration',
  'ThreadTime',
  'ProcessTime',
] as const;
const GAUGE_METRICS = ['JSHeapUsedSize', 'Nodes'] as const;
type CounterName = (typeof COUNTER_METRICS)[number] | (typeof GAUGE_METRICS)[number];

// Durations come in seconds; the metrics are in ms.
const S_TO_MS = 1000;

/** Each metric, the report's `counters` key, the Performance.getMetrics name and its scale to the metric's unit. */
const ROWS: readonly [M.MetricDefinition, string, CounterName, number][] = [
  [M.layouts, 'layouts', 'LayoutCount', 1],
  [M.styleRecalcs, 'styleRecalcs', 'RecalcStyleCount', 1],
  [M.scriptMs, 'scriptMs', 'ScriptDuration', S_TO_MS],
  [M.layoutMs, 'layoutMs', 'LayoutDuration', S_TO_MS],
  [M.styleMs, 'styleMs', 'RecalcStyleDuration', S_TO_MS],
  [M.taskMs, 'taskMs', 'TaskDuration', S_TO_MS],
  [M.threadCpuMs, 'threadCpuMs', 'ThreadTime', S_TO_MS],
  [M.processCpuMs, 'processCpuMs', 'ProcessTime', S_TO_MS],
  [M.heapDeltaBytes, 'heapDeltaBytes', 'JSHeapUsedSize', 1],
  [M.domNodesDelta, 'domNodesDelta', 'Nodes', 1],
];

/** Counter deltas over the checkpoints: a value that went down restarted with a new document. */
export function counterDeltas(checkpoints: readonly Checkpoint[]): Record<string, number> | undefined {
  const first = checkpoints[0];
  const last = checkpoints[checkpoints.length - 1];
  if (!first || !last || checkpoints.length < 2) return undefined;
  const out: Record<string, number> = {};
  for (const name of COUNTER_METRICS) {
    let sum = 0;
    for (let i = 1; i < checkpoints.length; i++) {
      const a = checkpoints[i - 1]!.values[name] ?? 0;
      const b = checkpoints[i]!.values[name] ?? 0;
      sum += b >= a ? b - a : b;
    }
    out[name] = sum;
  }
  for (const name of GAUGE_METRICS) out[name] = (last.values[name] ?? 0) - (first.values[name] ?? 0);
  return out;
}

/** The report's `counters` record (rounded deltas by short name); empty when the counters were not read at both ends. */
export const countersSource = defineSource<Record<string, number>>({
  name: 'counters',
  emits: ROWS.map(([def]) => def),
  cover: ({ raw }) => ({
    counters: raw.missing.counters ?? (counterDeltas(raw.checkpoints) ? null : 'Performance.getMetrics was not read at both ends'),
  }),
  measure({ raw }) {
    const deltas = counterDeltas(raw.checkpoints);
    const counters: Record<string, number> = {};
    const emits: Emit[] = [];
    if (deltas) {
      for (const [def, key, name, scale] of ROWS) {
        const value = (deltas[name] ?? 0) * scale;
        counters[key] = round(value);
        emits.push({ def, value });
      }
    }
    return { emits, findings: counters };
  },
});
