/** Measured steps: each step's wall time as `steps.<label>.ms` (a label used twice sums), and the step list. */
import * as M from '../metrics.js';
import { round } from '../profile.js';
import { defineSource } from './source.js';

export interface StepRow {
  label: string;
  step: string;
  ms: number;
  status: string;
}

export const stepsSource = defineSource<StepRow[]>({
  name: 'steps',
  emits: [M.stepMs],
  cover: () => ({}),
  measure({ spans }) {
    const sums = new Map<string, number>();
    const rows: StepRow[] = [];
    for (const s of spans) {
      // A mark is a marker, not work: it shows in summary.marks.
      if (s.step === 'mark') continue;
      const name = M.stepMetricName(s.label);
      // A label used twice (a repeated step) sums: the metric is the time spent in that step.
      sums.set(name, round((sums.get(name) ?? 0) + s.durationMs));
      rows.push({ label: s.label, step: s.step, ms: round(s.durationMs), status: s.status });
    }
    return { emits: [...sums].map(([name, value]) => ({ def: M.stepMs, name, value })), findings: rows };
  },
});
