/**
 * The attribution stage of a comparison: where a regressed or undecided primary row's change is (functions, forced
 * layouts, long tasks, steps; perf/attribution.ts diffs them), and each run's median profile for a differential flame
 * graph. It explains; it never changes a verdict. Pure: run files and rows in, rows with attribution out.
 */
import type { CompareResult } from '../compare.js';
import { comparisonFlame, diffPlaces, diffSteps, rowAttribution } from '../attribution.js';
import type { AttributionLine, AttributionSide, ComparisonFlame } from '../attribution.js';
import { isTimingMetric, resolveMetric } from '../metrics.js';
import type { RunFile } from '../run-file.js';
import { counted, measuredRepeats } from './samples.js';

/** The attribution records of a run's measured attribution repeats, or why it has none. */
export function attributionSide(run: RunFile, which: 'baseline' | 'candidate'): AttributionSide {
  const measured = measuredRepeats(counted(run));
  const profiled = measured.filter((r) => r.mode === 'attribution');
  const records = profiled.flatMap((r) => (r.report.attribution ? [{ repeat: r.index, attribution: r.report.attribution }] : []));
  if (records.length) return { records };
  const driver = run.env?.browser?.driver;
  if (driver !== undefined) return { records, missing: `no CPU profile: the ${driver} driver records none; step windows only` };
  return {
    records,
    missing:
      profiled.length === 0
        ? `no CPU profile in the ${which}: none of its attribution-mode repeats was measured; step windows only ` +
          '(perf run profiles every repeat without --timing, every other one with it)'
        : `no CPU profile in the ${which}: its attribution repeats hold no attribution record (an older perf, or the profile ` +
          'was not read); step windows only; run it again with this perf',
  };
}

/**
 * Each regressed or inconclusive primary row with its attribution (where the change is), the
 * flame stacks of the median attribution repeats, and the code places diffed (once, when a row
 * or `wantPlaces` needs them: the stored path's hold reads them too). Step lines per set of
 * repeats a row was judged on (timing-mode ones for ms when gated, else every measured one).
 */
export function attributeRows(
  a: RunFile,
  b: RunFile,
  rows: CompareResult['rows'],
  opts: { timingGated: boolean; level: number; wantPlaces: boolean },
): { rows: CompareResult['rows']; flame: ComparisonFlame; places: AttributionLine[] } {
  const { timingGated, level } = opts;
  const sides = { a: attributionSide(a, 'baseline'), b: attributionSide(b, 'candidate') };
  const flame = comparisonFlame(sides.a, sides.b);
  const wanted = rows.filter((r) => r.gated && (r.verdict === 'regressed' || r.verdict === 'inconclusive'));
  if (wanted.length === 0 && !opts.wantPlaces) return { rows, flame, places: [] };
  const places = diffPlaces(
    sides.a.records.map((r) => r.attribution),
    sides.b.records.map((r) => r.attribution),
    level,
  );
  const steps = new Map<boolean, AttributionLine[]>();
  const stepsFor = (timing: boolean): AttributionLine[] => {
    let got = steps.get(timing);
    if (!got) steps.set(timing, (got = diffSteps(stepSeries(a, timing), stepSeries(b, timing), level)));
    return got;
  };
  return {
    rows: rows.map((row) => {
      if (!wanted.includes(row)) return row;
      const timing = isTimingMetric(row.metric) && timingGated;
      return { ...row, attribution: rowAttribution(row, places, stepsFor(timing), sides) };
    }),
    flame,
    places,
  };
}

/** `steps.<label>.ms` per measured repeat, by label: of the timing-mode repeats only when `timingOnly`. */
export function stepSeries(run: RunFile, timingOnly: boolean): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const r of measuredRepeats(counted(run))) {
    if (timingOnly && r.mode !== 'timing') continue;
    for (const [name, v] of Object.entries(r.report.metrics)) {
      const label = resolveMetric(name)?.label;
      if (label === undefined || typeof v !== 'number' || !Number.isFinite(v)) continue;
      (out[label] ??= []).push(v);
    }
  }
  return out;
}
