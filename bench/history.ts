/**
 * The history store at scale (issue 31 targets): N runs × 50 metrics × 10 repeats of one scenario recorded into
 * SQLite (and PostgreSQL with --pg, on a private server from test/pg-server.ts). Prints bytes per stored sample
 * (target ≤ 200 on SQLite), the time of one `series()` of one metric over every run (target ≤ 1 s), and what
 * recording one more run adds to the end of `perf run` — open the store, record, close (target ≤ 50 ms).
 *
 *   npm run bench:history [-- --runs 10000] [--pg] [--keep DIR]
 *
 * Development: --runs 1000 (a tenth); the full size writes 5,000,000 samples (a few minutes on 2 cores).
 */
import { mkdtempSync, rmSync, statSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { openHistory } from '../src/history/open.js';
import { gitInfo, projectName } from '../src/history/git.js';
import type { SqlHistoryStore } from '../src/history/store.js';
import { readRunFile } from '../src/perf/compare-runs.js';
import type { RunFile } from '../src/perf/run-file.js';
import { median } from '../src/perf/stats.js';
import { startPostgres } from '../test/pg-server.js';
import { mulberry32 as rng } from '../src/perf/prng.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const METRICS = 50;
const REPEATS = 10;
// 20 timed recordings: enough for a stable median of a few-ms operation without growing the store noticeably.
const TIMED = 20;

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** The routes baseline reshaped to 50 metrics × 10 measured repeats with noisy values at its own medians and precision. */
function runFactory(): (i: number) => RunFile {
  const base = readRunFile(join(ROOT, 'baselines/routes.json'));
  const names = Object.keys(base.summary.metrics).slice(0, METRICS);
  const centre = names.map((n) => base.summary.metrics[n]!.median);
  const template = base.repeats.find((r) => r.status === 'measured')!;
  const rand = rng(31);
  return (i) => {
    const startedAt = new Date(Date.parse('2025-01-01T00:00:00Z') + i * 60_000).toISOString();
    const repeats = Array.from({ length: REPEATS }, (_, index) => ({
      ...template,
      index,
      warmup: false,
      report: {
        metrics: Object.fromEntries(
          names.map((n, k) => {
            const v = centre[k]! * (0.8 + 0.4 * rand());
            // Counts stay whole numbers (as perf writes them), times keep two decimals.
            return [n, Number.isInteger(centre[k]) ? Math.round(v) : Math.round(v * 100) / 100];
          }),
        ),
      },
    }));
    return { ...base, startedAt, finishedAt: startedAt, repeats, summary: { ...base.summary, repeats: REPEATS, measured: REPEATS } };
  };
}

async function timeMs<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t0 = performance.now();
  const out = await fn();
  return [performance.now() - t0, out];
}

async function fill(store: SqlHistoryStore, runs: number, make: (i: number) => RunFile): Promise<number> {
  const git = { commit: 'c', branch: 'main', mergeBase: 'c', subject: 's', authorDate: '2025-01-01T00:00:00Z' };
  const t0 = performance.now();
  for (let i = 0; i < runs; i++) {
    await store.recordRun({ run: make(i), git: { ...git, commit: `c${i}` }, project: 'bench' });
    if (i % 1000 === 999) process.stderr.write(`  ${i + 1} runs recorded (${((performance.now() - t0) / 1000).toFixed(0)} s)\n`);
  }
  return performance.now() - t0;
}

/** One `series()` of one metric over every run, cold and warm (median of 5), and with limit 200. */
async function seriesTimes(
  store: SqlHistoryStore,
  metric: string,
): Promise<{ first: number; warm: number; limited: number; points: number }> {
  const q = { scenario: 'routes', metric };
  const [first, pts] = await timeMs(() => store.series(q));
  const warm: number[] = [];
  for (let i = 0; i < 5; i++) warm.push((await timeMs(() => store.series(q)))[0]);
  const [limited] = await timeMs(() => store.series({ ...q, limit: 200 }));
  return { first, warm: median(warm), limited, points: pts.length };
}

/**
 * What `perf run --history` adds at the end of a run: open the store (and check its schema), record, close. The git
 * facts are read while the browser starts (cli/history.ts gitFor), so they are timed apart.
 */
async function recordOnce(url: string, make: (i: number) => RunFile, from: number): Promise<{ recordMs: number; gitMs: number }> {
  const times: number[] = [];
  const gitTimes: number[] = [];
  for (let i = 0; i < TIMED; i++) {
    const [gitMs, git] = await timeMs(() => gitInfo(ROOT));
    gitTimes.push(gitMs);
    const [ms] = await timeMs(async () => {
      const store = await openHistory(url);
      await store.recordRun({ run: make(from + i), git, project: projectName(ROOT) });
      await store.close();
    });
    times.push(ms);
  }
  return { recordMs: median(times), gitMs: median(gitTimes) };
}

async function bench(kind: string, url: string, runs: number, make: (i: number) => RunFile, size: () => number | null): Promise<void> {
  const store = await openHistory(url);
  const fillMs = await fill(store, runs, make);
  const series = await seriesTimes(store, 'durationMs');
  await store.close();
  const { recordMs, gitMs } = await recordOnce(url, make, runs);
  const samples = (runs + TIMED) * METRICS * REPEATS;
  const bytes = size();
  console.log(
    [
      `${kind}: ${runs} runs × ${METRICS} metrics × ${REPEATS} repeats recorded in ${(fillMs / 1000).toFixed(1)} s`,
      bytes !== null ? `  size: ${(bytes / 2 ** 20).toFixed(1)} MiB, ${(bytes / samples).toFixed(1)} bytes per sample (target ≤ 200)` : '',
      `  series(durationMs) over ${series.points} runs: ${series.first.toFixed(0)} ms first, ${series.warm.toFixed(0)} ms warm, ` +
        `limit 200: ${series.limited.toFixed(0)} ms (target ≤ 1000)`,
      `  one more run recorded as perf run does at its end (open, record, close): ${recordMs.toFixed(1)} ms median of ${TIMED} ` +
        `(target ≤ 50); git facts (read during the browser's start): ${gitMs.toFixed(1)} ms`,
    ]
      .filter(Boolean)
      .join('\n'),
  );
}

async function main(): Promise<void> {
  const runs = Number(arg('runs') ?? 10_000);
  const keep = arg('keep');
  const dir = keep ?? mkdtempSync(join(tmpdir(), 'rehearse-history-bench-'));
  const make = runFactory();
  try {
    const file = join(dir, 'history.sqlite');
    await bench('sqlite', file, runs, make, () => {
      const db = new Database(file);
      db.pragma('wal_checkpoint(TRUNCATE)');
      db.close();
      return statSync(file).size + (existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0);
    });
    if (process.argv.includes('--pg')) {
      const server = await startPostgres();
      try {
        await bench('postgres', server.url, runs, make, () => null);
      } finally {
        await server.stop();
      }
    }
  } finally {
    if (!keep) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
