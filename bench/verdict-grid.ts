/**
 * bench:verdict on the demo's data grid (scenarios/grid-scroll.yaml), issue 27 item 4 and its targets.
 *
 * `gridTimeToVerdict`: repeats per arm and seconds to a verdict for an A/A and an A/B with the +15 % CPU
 * switch (`cpu=15`), for three designs run round by round in rotating order (machine drift hits all alike):
 * our sequential default (againstToDecision), fixed-10 (`fixed: true, repeat: 10`) and tachometer's
 * auto-sample rule (tachometer-rule.ts) applied on counters.threadCpuMs of an interleaved run grown by batches.
 *
 * `gridTargets`: issue 27's targets measured on the grid page, each printed with its figure.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadScenario, type Scenario } from '../src/scenario/load.js';
import { againstToDecision } from '../src/runner/sequential.js';
import { runAgainst } from '../src/runner/against.js';
import type { RunFile } from '../src/perf/run-file.js';
import { median, p25p75 } from './common.js';
import { difference, outcomeOf, parseConditions, verdictOf, type Difference } from './tachometer-rule.js';
import { TACHOMETER_BATCH, TACHOMETER_TIMEOUT_MS } from './tachometer-rule.js';

export const GRID = fileURLToPath(new URL('../../scenarios/grid-scroll.yaml', import.meta.url));
// The benchmark's "+15 % CPU change" (issue 27 item 4); grid.js sizes the cpu switch to add this % of threadCpuMs.
export const CPU_CHANGE_PCT = 15;
// The metric the tachometer rule watches: the CPU metric the +15 % change is sized on, one number per repeat.
export const RULE_METRIC = 'counters.threadCpuMs';

/** How big each design runs; `--quick` shrinks every size for a smoke run of the code paths. */
export interface Sizes {
  /** fixed-N: repeats per arm of the fixed design. */
  fixedRepeat: number;
  /** Our sequential design's maxRepeat (undefined: the scenario's default). */
  maxRepeat?: number;
  /** tachometer's minimum sample size per arm before auto-sampling. */
  tachMin: number;
  tachBatch: number;
  tachTimeoutMs: number;
  /** tachometer auto-sample conditions, e.g. ["10%"]. */
  tachConditions: string[];
}

export const FULL_SIZES: Sizes = {
  // The fixed design a careful user runs without sequential sampling (issue 10's bench).
  fixedRepeat: 10,
  // tachometer's default minimum is 50 samples, sized for millisecond micro-benchmarks; at seconds per page load
  // it alone would outlast the 3-minute timeout, so the rule starts where fixed-10 does.
  tachMin: 10,
  tachBatch: TACHOMETER_BATCH,
  tachTimeoutMs: TACHOMETER_TIMEOUT_MS,
  // tachometer's default condition, 0 %, never resolves on an A/A (its README), so it would time the timeout;
  // ±10 % asks what our gate asks (the scenario's warn threshold).
  tachConditions: ['10%'],
};

// Smoke sizes: every code path once, in minutes on a shared machine; the figures mean nothing.
export const QUICK_SIZES: Sizes = {
  fixedRepeat: 3,
  maxRepeat: 5,
  tachMin: 3,
  tachBatch: 2,
  tachTimeoutMs: 20_000,
  tachConditions: ['10%'],
};

export type Design = 'ours' | 'fixed' | 'tachometer';
const DESIGNS: readonly Design[] = ['ours', 'fixed', 'tachometer'];

export interface Outcome {
  ms: number;
  verdict: string;
  /** Measured repeats per arm (timing and attribution), candidate arm. */
  repeats: number;
  /** One line on what decided. */
  note: string;
}

type Vars = Record<string, string>;

export function gridScenarios(candidateVars: Vars, baseVars: Vars = {}): { base: Scenario; cand: Scenario } {
  return { base: loadScenario(GRID, { vars: baseVars }), cand: loadScenario(GRID, { vars: candidateVars }) };
}

export function countedRepeats(run: RunFile): number {
  return run.repeats.filter((r) => !r.warmup && r.status === 'measured').length;
}

/** The rule metric per repeat: from timing repeats when the run has them (as compare reads ms), else every measured one. */
export function ruleSamples(run: RunFile, metric = RULE_METRIC): number[] {
  const measured = run.repeats.filter((r) => !r.warmup && r.status === 'measured');
  const timing = measured.filter((r) => r.mode === 'timing');
  return (timing.length ? timing : measured).flatMap((r) => {
    const v = r.status === 'measured' ? r.report.metrics[metric] : undefined;
    return typeof v === 'number' && Number.isFinite(v) ? [v] : [];
  });
}

let serial = 0;

async function oursOrFixed(design: 'ours' | 'fixed', ab: boolean, sizes: Sizes, outDir: string): Promise<Outcome> {
  const { base, cand } = gridScenarios({ cpu: ab ? String(CPU_CHANGE_PCT) : '0' });
  const label = `g${serial++}`;
  const t0 = performance.now();
  const { res, comparison } = await againstToDecision(base, cand, {
    outDir,
    labels: { baseline: `${label}-a`, candidate: `${label}-b` },
    timing: true,
    ...(design === 'fixed' ? { fixed: true, repeat: sizes.fixedRepeat } : {}),
    ...(design === 'ours' && sizes.maxRepeat !== undefined ? { maxRepeat: sizes.maxRepeat } : {}),
  });
  const ms = performance.now() - t0;
  const cpu = comparison?.rows.find((r) => r.metric.startsWith(RULE_METRIC));
  const note = cpu ? `${cpu.metric} ${cpu.deltaPct === null ? 'n/a' : `${cpu.deltaPct.toFixed(1)}%`} ${cpu.verdict}` : 'no CPU row';
  return { ms, verdict: comparison?.verdict ?? 'none', repeats: countedRepeats(res.candidate.run), note };
}

/** tachometer's rule over an interleaved run: minimum units, then batches while a horizon is inside the interval. */
async function tachometer(ab: boolean, sizes: Sizes, outDir: string): Promise<Outcome> {
  const { base, cand } = gridScenarios({ cpu: ab ? String(CPU_CHANGE_PCT) : '0' });
  const horizons = parseConditions(sizes.tachConditions);
  const label = `t${serial++}`;
  let autoStart: number | undefined;
  let last: Difference | undefined;
  const t0 = performance.now();
  const res = await runAgainst(base, cand, {
    outDir,
    labels: { baseline: `${label}-a`, candidate: `${label}-b` },
    timing: true,
    repeat: sizes.tachMin,
    extend: (a, b) => {
      const [xa, xb] = [ruleSamples(a), ruleSamples(b)];
      if (xa.length < 2 || xb.length < 2) return 0;
      last = difference(xa, xb);
      if (outcomeOf(last, horizons).kind !== 'unsure') return 0;
      autoStart ??= Date.now();
      return Date.now() - autoStart >= sizes.tachTimeoutMs ? 0 : sizes.tachBatch;
    },
  });
  const ms = performance.now() - t0;
  const final = difference(ruleSamples(res.baseline.run), ruleSamples(res.candidate.run));
  const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
  const note = `${RULE_METRIC} CI ${pct(final.relative.low)}…${pct(final.relative.high)} (n=${ruleSamples(res.candidate.run).length})`;
  return { ms, verdict: verdictOf(outcomeOf(final, horizons)), repeats: countedRepeats(res.candidate.run), note };
}

function runDesign(design: Design, ab: boolean, sizes: Sizes, outDir: string): Promise<Outcome> {
  switch (design) {
    case 'ours':
    case 'fixed':
      return oursOrFixed(design, ab, sizes, outDir);
    case 'tachometer':
      return tachometer(ab, sizes, outDir);
  }
}

const spread = (xs: number[], digits: number): string => {
  const [lo, hi] = p25p75(xs);
  return `${median(xs).toFixed(digits)} (${lo.toFixed(digits)}–${hi.toFixed(digits)})`;
};

function tally(verdicts: string[]): string {
  const counts = new Map<string, number>();
  for (const v of verdicts) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts].map(([v, n]) => `${v} ×${n}`).join(', ');
}

function printGridTable(results: Record<string, Record<Design, Outcome[]>>, rounds: number, sizes: Sizes): void {
  const names: Record<Design, string> = {
    ours: 'ours (sequential default)',
    fixed: `fixed-${sizes.fixedRepeat}`,
    tachometer: `tachometer rule (${sizes.tachConditions.join(',')})`,
  };
  const over = `${rounds} round${rounds === 1 ? '' : 's'}`;
  console.log(`\ngrid-scroll (--timing): repeats per arm and seconds to a verdict, medians (p25–p75) over ${over}`);
  console.log(`${'case'.padEnd(26)} ${'design'.padEnd(30)} ${'repeats/arm'.padStart(16)} ${'seconds'.padStart(22)}  verdicts`);
  for (const [what, by] of Object.entries(results)) {
    for (const d of DESIGNS) {
      const os = by[d];
      const reps = spread(
        os.map((o) => o.repeats),
        0,
      ).padStart(16);
      const secs = spread(
        os.map((o) => o.ms / 1000),
        1,
      ).padStart(22);
      console.log(`${what.padEnd(26)} ${names[d].padEnd(30)} ${reps} ${secs}  ${tally(os.map((o) => o.verdict))}`);
    }
    const ratio = (d: Design, f: (o: Outcome) => number): string => (median(by.ours.map(f)) / median(by[d].map(f))).toFixed(2);
    const reps = (o: Outcome): number => o.repeats;
    const secs = (o: Outcome): number => o.ms;
    const vs = (d: Design): string => `ours/${d === 'fixed' ? 'fixed' : 'tachometer'} repeats ${ratio(d, reps)} seconds ${ratio(d, secs)}`;
    console.log(`${what.padEnd(26)} ratios: ${vs('fixed')}; ${vs('tachometer')}`);
  }
  const cond = sizes.tachConditions.join(',');
  const tach =
    `tachometer = its auto-sample rule on ${RULE_METRIC}: min ${sizes.tachMin}/arm, +${sizes.tachBatch}/arm ` +
    `until the 95% CI clears ${cond}, timeout ${sizes.tachTimeoutMs / 1000} s`;
  console.log(`(${tach}; repeats/arm = measured timing + attribution repeats of the candidate arm)`);
}

export async function gridTimeToVerdict(rounds: number, sizes: Sizes): Promise<void> {
  const out = mkdtempSync(join(tmpdir(), 'rehearse-bench-grid-'));
  try {
    const results: Record<string, Record<Design, Outcome[]>> = {};
    for (const [what, ab] of [
      ['A/A (same page twice)', false],
      [`A/B (+${CPU_CHANGE_PCT}% CPU, cpu=${CPU_CHANGE_PCT})`, true],
    ] as const) {
      const by: Record<Design, Outcome[]> = { ours: [], fixed: [], tachometer: [] };
      for (let i = 0; i < rounds; i++) {
        // Rotate which design goes first each round: a slow spell of the machine is shared by all three.
        const order = DESIGNS.map((_, k) => DESIGNS[(k + i) % DESIGNS.length]!);
        for (const d of order) {
          const o = await runDesign(d, ab, sizes, out);
          by[d].push(o);
          const took = `${o.repeats} repeats/arm in ${(o.ms / 1000).toFixed(1)} s`;
          console.log(`${what} round ${i + 1} ${d}: ${o.verdict} after ${took} [${o.note}]`);
        }
      }
      results[what] = by;
    }
    printGridTable(results, rounds, sizes);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
