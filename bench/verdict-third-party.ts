/**
 * The gate at its defaults on third-party apps (issue 56 item 8 and its targets): Swagger UI with a +60 ms click
 * handler and a Tabulator grid with an 8 ms scroll handler, and each unchanged (A/A), through the two paths a user
 * takes — `perf run --against` (interleaved) and `perf gate --update` then `perf gate` (a stored baseline) — with a
 * second job spinning a core beside the run (during both arms, or during the candidate only). Runs the built CLI
 * exactly as a user would, no flag beyond the case's vars; prints one line per try (verdict, deciding repeats per arm,
 * seconds, what decided) and a summary per case.
 *
 * Run: npm run bench:verdict -- --third-party [--tries N] [--cases swagger,tabulator,swagger-aa,tabulator-aa]
 *                                            [--paths against,stored] [--hog both|candidate|none]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './common.js';
import { layOutVerdictApps } from './verdict-apps.js';

const PERF = fileURLToPath(new URL('../../bin/perf', import.meta.url));

interface Case {
  name: string;
  app: 'swagger' | 'tabulator';
  slow: number;
}

const CASES: Case[] = [
  { name: 'swagger', app: 'swagger', slow: 60 },
  { name: 'tabulator', app: 'tabulator', slow: 8 },
  { name: 'swagger-aa', app: 'swagger', slow: 0 },
  { name: 'tabulator-aa', app: 'tabulator', slow: 0 },
];

type Path = 'against' | 'stored';
type Hog = 'both' | 'candidate' | 'none';

interface Try {
  verdict: string;
  exit: number;
  repeats: number;
  seconds: number;
  decided: string;
}

/** A busy core beside the run: a second job on the CI runner. */
function startHog(): ChildProcess {
  return spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' });
}

function perf(args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(PERF, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('close', (code) => resolve({ code: code ?? 4, out }));
  });
}

/** The deciding (timing, measured, not warmup) repeats of the candidate run file in `dir`. */
function candidateRepeats(dir: string): number {
  const files = readdirSync(dir).filter((f) => f.endsWith('.json') && !f.includes('baseline') && !f.startsWith('gate'));
  let most = 0;
  for (const f of files) {
    try {
      const run = JSON.parse(readFileSync(join(dir, f), 'utf8')) as { repeats?: { mode: string; status: string; warmup: boolean }[] };
      const n = (run.repeats ?? []).filter((r) => !r.warmup && r.status === 'measured' && r.mode === 'timing').length;
      most = Math.max(most, n);
    } catch {
      // not a run file
    }
  }
  return most;
}

// The gate's own line first (a passing stored gate prints no compare table), else the compare's first word.
const verdictOf = (out: string): string =>
  /^perf gate: (PASS|WARN|FAIL|INCONCLUSIVE)\b/m.exec(out)?.[1] ?? /^(PASS|WARN|FAIL|INCONCLUSIVE)\b/m.exec(out)?.[1] ?? 'ERROR';
const decidedOf = (out: string): string => /^gate: (.*)$/m.exec(out)?.[1]?.slice(0, 140) ?? '';

async function once(c: Case, path: Path, hog: Hog, scenario: string): Promise<Try> {
  const out = mkdtempSync(join(tmpdir(), 'rehearse-bench-3p-'));
  let hogProc: ChildProcess | undefined = hog === 'both' ? startHog() : undefined;
  const t0 = performance.now();
  try {
    if (path === 'against') {
      if (hog === 'candidate') hogProc = startHog();
      const r = await perf(['run', scenario, '--against', scenario, '--baseline-var', 'slow=0', '--var', `slow=${c.slow}`, '--out', out]);
      return {
        verdict: verdictOf(r.out),
        exit: r.code,
        repeats: candidateRepeats(out),
        seconds: (performance.now() - t0) / 1000,
        decided: decidedOf(r.out),
      };
    }
    const baselines = join(out, 'baselines');
    const up = await perf(['gate', scenario, '--update', '--baselines', baselines, '--var', 'slow=0', '--out', join(out, 'update')]);
    if (up.code !== 0)
      return { verdict: 'ERROR', exit: up.code, repeats: 0, seconds: (performance.now() - t0) / 1000, decided: up.out.slice(-200) };
    if (hog === 'candidate') hogProc = startHog();
    const r = await perf(['gate', scenario, '--baselines', baselines, '--var', `slow=${c.slow}`, '--out', join(out, 'gate')]);
    return {
      verdict: verdictOf(r.out),
      exit: r.code,
      repeats: candidateRepeats(join(out, 'gate')),
      seconds: (performance.now() - t0) / 1000,
      decided: decidedOf(r.out),
    };
  } finally {
    hogProc?.kill('SIGKILL');
  }
}

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}

export async function thirdPartyVerdicts(): Promise<void> {
  const tries = Number(flag('tries', '5'));
  const wanted = flag('cases', CASES.map((c) => c.name).join(',')).split(',');
  const paths = flag('paths', 'against,stored').split(',') as Path[];
  const hog = flag('hog', 'both') as Hog;
  const apps = layOutVerdictApps();
  const summary: string[] = [];
  for (const c of CASES.filter((x) => wanted.includes(x.name))) {
    for (const path of paths) {
      const got: Try[] = [];
      for (let k = 0; k < tries; k++) {
        const t = await once(c, path, hog, c.app === 'swagger' ? apps.swagger : apps.tabulator);
        got.push(t);
        console.log(
          `${c.name.padEnd(13)} ${path.padEnd(8)} hog ${hog.padEnd(9)} try ${k + 1}: ${t.verdict.padEnd(12)} exit ${t.exit}` +
            `  ${String(t.repeats).padStart(2)} repeats/arm  ${t.seconds.toFixed(0).padStart(4)} s  ${t.decided}`,
        );
      }
      const count = (v: string): number => got.filter((t) => t.verdict === v).length;
      summary.push(
        `${c.name.padEnd(13)} ${path.padEnd(8)} hog ${hog.padEnd(9)} FAIL ${count('FAIL')}  WARN ${count('WARN')}  ` +
          `INCONCLUSIVE ${count('INCONCLUSIVE')}  PASS ${count('PASS')}  ERROR ${count('ERROR')} of ${tries}; ` +
          `repeats/arm median ${median(got.map((t) => t.repeats))} (max ${Math.max(...got.map((t) => t.repeats))}); ` +
          `median ${median(got.map((t) => t.seconds)).toFixed(0)} s`,
      );
    }
  }
  console.log(`\nthird-party verdicts at the defaults (slowed: swagger +60 ms per click, tabulator +8 ms per scroll event)`);
  for (const line of summary) console.log(line);
}
