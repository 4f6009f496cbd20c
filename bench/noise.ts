/**
 * Repeat-to-repeat noise of the candidate gate metrics on this machine, to choose the primary family
 * from measurement (src/perf/metrics.ts): CPU time (counters.threadCpuMs, counters.processCpuMs)
 * against script and task time and wall time, raw and per painted frame, plus the counts the gate
 * judges. Each scenario runs with timing-mode repeats (the ones ms metrics are read from), once on a
 * quiet machine and once beside one busy process (a second core's worth of competing CPU, as on a
 * shared CI runner). Prints the coefficient of variation (σ/mean) and its robust form
 * (1.4826·MAD/median) side by side.
 * Run: npm run bench:noise [-- REPEATS]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadScenario } from '../src/scenario/load.js';
import { runScenario } from '../src/runner/run.js';
import { mad, MAD_NORMAL_CONSISTENCY, mean, median, stddev } from '../src/perf/stats.js';

const REPEATS = Number(process.argv[2] ?? 16);
const out = mkdtempSync(join(tmpdir(), 'rehearse-bench-noise-'));
const file = (name: string): string => fileURLToPath(new URL(`../../scenarios/${name}.yaml`, import.meta.url));

const SCENARIOS: { label: string; file: string; variant?: string }[] = [
  { label: 'list-scroll desktop', file: file('list-scroll'), variant: 'desktop' },
  { label: 'dialog', file: file('dialog') },
  { label: 'form-submit', file: file('form-submit') },
];

const METRICS = [
  'counters.threadCpuMs',
  'counters.threadCpuMs.perFrame',
  'counters.processCpuMs',
  'counters.scriptMs',
  'counters.scriptMs.perFrame',
  'counters.taskMs',
  'counters.taskMs.perFrame',
  'durationMs',
  'frames.painted',
  'counters.layouts',
  'counters.styleRecalcs',
  'frames.overBudget',
  'frames.dropped',
  'longFrames.blockingMs',
  'interactions.latencyMs.p90',
];

type Noise = { cv: number; robust: number; median: number; n: number };

function noise(xs: number[]): Noise | undefined {
  if (xs.length < 3) return undefined;
  const m = mean(xs);
  const med = median(xs);
  return {
    cv: m === 0 ? 0 : stddev(xs) / Math.abs(m),
    robust: med === 0 ? 0 : (mad(xs) * MAD_NORMAL_CONSISTENCY) / Math.abs(med),
    median: med,
    n: xs.length,
  };
}

async function measure(sc: { file: string; variant?: string }, tag: string): Promise<Map<string, Noise | undefined>> {
  const scenario = loadScenario(sc.file, sc.variant ? { variant: sc.variant } : {});
  const { run } = await runScenario(scenario, { label: `noise-${tag}`, outDir: out, repeat: REPEATS, warmup: 1, timing: true });
  const timing = run.repeats.filter((r) => r.status === 'measured' && !r.warmup && r.mode === 'timing');
  const result = new Map<string, Noise | undefined>();
  for (const m of METRICS) {
    const xs = timing.flatMap((r) => (r.status === 'measured' && typeof r.report.metrics[m] === 'number' ? [r.report.metrics[m]!] : []));
    result.set(m, noise(xs));
  }
  return result;
}

function busy(): ChildProcess {
  // One core's worth of competing CPU on a 2-core machine: what a shared CI runner does to us.
  return spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' });
}

const pct = (v: number | undefined): string => (v === undefined ? '-' : `${(v * 100).toFixed(1)}%`);

async function main(): Promise<void> {
  try {
    for (const sc of SCENARIOS) {
      const quiet = await measure(sc, 'quiet');
      const hog = busy();
      let loaded: Map<string, Noise | undefined>;
      try {
        loaded = await measure(sc, 'busy');
      } finally {
        hog.kill('SIGKILL');
      }
      console.log(`\n${sc.label}: ${REPEATS} timing repeats per condition; CV = σ/mean, robust = 1.4826·MAD/median`);
      console.log(
        `${'metric'.padEnd(32)} ${'median'.padStart(9)} ${'CV quiet'.padStart(9)} ${'robust'.padStart(8)}   ${'median'.padStart(9)} ${'CV busy'.padStart(9)} ${'robust'.padStart(8)}`,
      );
      for (const m of METRICS) {
        const q = quiet.get(m);
        const b = loaded.get(m);
        console.log(
          `${m.padEnd(32)} ${(q ? q.median.toFixed(2) : '-').padStart(9)} ${pct(q?.cv).padStart(9)} ${pct(q?.robust).padStart(8)}   ${(b ? b.median.toFixed(2) : '-').padStart(9)} ${pct(b?.cv).padStart(9)} ${pct(b?.robust).padStart(8)}`,
        );
      }
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

await main();
