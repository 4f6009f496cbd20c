/**
 * Time to a verdict: the sequential gate (the default: `repeat` 5, A B B A rounds added while a primary
 * metric is undecided, up to maxRepeat 20) against a fixed compare of 10 repeats per arm (`--fixed
 * --repeat 10`, what a careful user ran before), on the demo app's list-scroll (desktop), for an A/A
 * (the same build twice) and for the jank A/B (`jank=1` on the candidate). The two designs alternate
 * round by round so machine drift hits both alike. Prints wall time to the verdict (median, p25–p75),
 * the ratio sequential / fixed, and for each run the verdict and the repeats per arm it took.
 *
 * Targets (issue 10): A/A decided in ≤ 0.6× the fixed time; the A/B caught in ≤ 1.0×.
 *
 * `--aa N` instead runs N sequential A/As alone (the end-to-end check: no `fail`, no `improved` row)
 * and prints each one's verdict, rows and repeats.
 *
 * Issue 27 (item 4 and its targets), on the demo's data grid (scenarios/grid-scroll.yaml, verdict-grid.ts and
 * verdict-targets.ts):
 * `--grid` reports side by side, for an A/A and an A/B with a +15 % CPU change, the repeats per arm and seconds
 * to the verdict of our sequential default, fixed-10 and tachometer's auto-sample rule (tachometer-rule.ts),
 * the designs rotating round by round; medians (p25–p75), verdicts, ratios ours/fixed and ours/tachometer.
 * `--targets` measures the issue's targets on the grid page and prints each with its figure.
 *
 * Run: npm run bench:verdict [-- ROUNDS]                 list-scroll: sequential vs fixed-10 (issue 10)
 *      npm run bench:verdict -- --aa 10                  10 sequential A/As on list-scroll
 *      npm run bench:verdict -- --grid [--rounds 5]      grid-scroll: ours vs fixed-10 vs tachometer rule
 *      npm run bench:verdict -- --targets                issue 27's targets on grid-scroll
 *      npm run bench:verdict -- --third-party [--tries N] [--cases …] [--paths against,stored] [--hog both|candidate|none]
 *                                                        issue 56's targets on Swagger UI and a Tabulator grid (verdict-third-party.ts)
 * Options of --grid / --targets:
 *      --quick                 smallest sizes (1 round, few repeats): a smoke run of the code paths, figures meaningless
 *      --conditions 10%[,0%]   tachometer auto-sample conditions (default 10%, the scenario's warn threshold)
 *      --tries N               A/A tries of --targets (default 10)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadScenario } from '../src/scenario/load.js';
import { againstToDecision } from '../src/runner/sequential.js';
import type { RunsComparison } from '../src/perf/compare-runs.js';
import { printTable, type Row } from './common.js';
import { FULL_SIZES, gridTimeToVerdict, QUICK_SIZES } from './verdict-grid.js';
import { FULL_TARGETS, gridTargets, QUICK_TARGETS } from './verdict-targets.js';
import { thirdPartyVerdicts } from './verdict-third-party.js';

const LIST = fileURLToPath(new URL('../../scenarios/list-scroll.yaml', import.meta.url));
// The fixed design a user needs for a trustworthy answer without sequential sampling ("with 10 repeats it is caught").
const FIXED_REPEAT = 10;
const out = mkdtempSync(join(tmpdir(), 'rehearse-bench-verdict-'));

interface Outcome {
  ms: number;
  verdict: string;
  repeats: number;
  rows: string;
}

let serial = 0;

async function once(jank: boolean, fixed: boolean): Promise<Outcome> {
  const base = loadScenario(LIST, { variant: 'desktop', vars: { jank: '0' } });
  const cand = loadScenario(LIST, { variant: 'desktop', vars: { jank: jank ? '1' : '0' } });
  const label = `v${serial++}`;
  const t0 = performance.now();
  const { res, comparison } = await againstToDecision(base, cand, {
    outDir: out,
    labels: { baseline: `${label}-a`, candidate: `${label}-b` },
    ...(fixed ? { fixed: true, repeat: FIXED_REPEAT } : {}),
  });
  const ms = performance.now() - t0;
  return {
    ms,
    verdict: comparison?.verdict ?? 'none',
    repeats: res.candidate.run.repeats.filter((r) => !r.warmup).length,
    rows: notable(comparison),
  };
}

/** The rows a reader would notice: anything not unchanged among primary and secondary metrics. */
function notable(c: RunsComparison | undefined): string {
  if (!c) return 'no comparison';
  const rows = c.rows.filter((r) => r.role !== 'shown' && r.verdict !== 'unchanged');
  return rows.length ? rows.map((r) => `${r.metric} ${r.verdict}${r.gated ? ` (${r.severity})` : ''}`).join(', ') : 'all unchanged';
}

async function timeToVerdict(rounds: number): Promise<void> {
  const rows: Row[] = [];
  for (const [what, jank] of [
    ['A/A (same build twice)', false],
    ['A/B (jank switch on)', true],
  ] as const) {
    const seq: Outcome[] = [];
    const fix: Outcome[] = [];
    for (let i = 0; i < rounds; i++) {
      // Alternate which design goes first, so a slow spell of the machine is shared.
      const pair =
        i % 2 === 0 ? [await once(jank, false), await once(jank, true)] : [await once(jank, true), await once(jank, false)].reverse();
      seq.push(pair[0]!);
      fix.push(pair[1]!);
      console.log(
        `${what} round ${i + 1}: sequential ${(pair[0]!.ms / 1000).toFixed(1)} s ${pair[0]!.verdict} after ${pair[0]!.repeats} repeats/arm [${pair[0]!.rows}] | fixed-10 ${(pair[1]!.ms / 1000).toFixed(1)} s ${pair[1]!.verdict} [${pair[1]!.rows}]`,
      );
    }
    rows.push({
      what: `${what}: time to verdict`,
      ours: seq.map((o) => o.ms),
      peer: fix.map((o) => o.ms),
      peerName: `fixed ${FIXED_REPEAT} repeats per arm`,
      target: jank ? 1.0 : 0.6,
    });
  }
  printTable('time to a verdict, sequential (default) vs fixed 10 repeats, list-scroll desktop', rows);
}

async function aaOnly(n: number): Promise<void> {
  const counts = { fail: 0, improved: 0 };
  for (let i = 0; i < n; i++) {
    const o = await once(false, false);
    const improved = o.rows.includes(' improved');
    if (o.verdict === 'fail') counts.fail++;
    if (improved) counts.improved++;
    console.log(`A/A ${i + 1}/${n}: ${o.verdict} after ${o.repeats} repeats/arm in ${(o.ms / 1000).toFixed(1)} s [${o.rows}]`);
  }
  console.log(`\n${n} sequential A/As: ${counts.fail} fail, ${counts.improved} with an improved row`);
}

/** The value after `--flag`, or undefined. */
function flag(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function main(): Promise<void> {
  const quick = process.argv.includes('--quick');
  const conditions = flag('--conditions')?.split(',');
  try {
    const aa = process.argv.indexOf('--aa');
    if (process.argv.includes('--third-party')) {
      await thirdPartyVerdicts();
    } else if (process.argv.includes('--grid')) {
      const sizes = { ...(quick ? QUICK_SIZES : FULL_SIZES), ...(conditions ? { tachConditions: conditions } : {}) };
      await gridTimeToVerdict(Number(flag('--rounds') ?? (quick ? 1 : 5)), sizes);
    } else if (process.argv.includes('--targets')) {
      const tries = flag('--tries');
      await gridTargets({ ...(quick ? QUICK_TARGETS : FULL_TARGETS), ...(tries ? { aaTries: Number(tries) } : {}) });
    } else if (aa >= 0) await aaOnly(Number(process.argv[aa + 1] ?? 10));
    else await timeToVerdict(Number(process.argv[2] ?? 5));
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

await main();
