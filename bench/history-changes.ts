/**
 * `perf history changes` against the targets (issue 31):
 *   synthetic [N]  N runs (default 10,000) built from a recorded run file (50 metrics × 3 repeats each) into a
 *                  SQLite history, load.lcpMs stepping ±20% every 1,000 runs; prints the time of `changes` for one
 *                  metric in process (store read + change points) and through the CLI (with Node's start-up).
 *   real           30 real `perf run --history` of scenarios/list-scroll.yaml (desktop, 3 repeats) at 30 commits
 *                  of a temp git repo, the last 15 with the demo's jank switch; prints what `changes` names.
 * Run: npm run bench:history-changes [-- synthetic 1000 | real]
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openHistory } from '../src/history/open.js';
import { loadTrends } from '../src/history/trends.js';
import { readRunFile } from '../src/perf/compare-runs.js';
import { mulberry32 as rng } from '../src/perf/prng.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PERF = join(ROOT, 'bin/perf');
const work = mkdtempSync(join(tmpdir(), 'rehearse-bench-history-changes-'));
const [mode = 'synthetic', size] = process.argv.slice(2);

async function synthetic(n: number): Promise<void> {
  const template = readRunFile(join(ROOT, 'test/fixtures/runs/load-list-run.json'));
  const file = join(work, 'h.sqlite');
  const store = await openHistory(file);
  const rand = rng(31);
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const run = structuredClone(template);
    run.startedAt = new Date(Date.parse('2020-01-01T00:00:00Z') + i * 600_000).toISOString();
    const level = 1000 * (Math.floor(i / 1000) % 2 ? 1.2 : 1) * (1 + 0.03 * (rand() - 0.5));
    for (const r of run.repeats)
      if (r.status === 'measured' && r.report?.metrics) r.report.metrics['load.lcpMs'] = level * (1 + 0.02 * (rand() - 0.5));
    const git = {
      commit: i.toString(16).padStart(40, '0'),
      branch: 'main',
      mergeBase: null,
      subject: `commit ${i}`,
      authorDate: run.startedAt,
    };
    await store.recordRun({ run, git, project: 'bench' });
  }
  const recordMs = performance.now() - t0;
  const t1 = performance.now();
  const [trend] = await loadTrends(store, { scenario: 'load-list', metric: 'load.lcpMs' });
  const inProcessMs = performance.now() - t1;
  await store.close();
  const t2 = performance.now();
  const cli = spawnSync(
    process.execPath,
    [PERF, 'history', 'changes', 'load-list', '--metric', 'load.lcpMs', '--json', '--history', file],
    {
      encoding: 'utf8',
      timeout: 120_000,
    },
  );
  const cliMs = performance.now() - t2;
  const changes = (JSON.parse(cli.stdout) as { changes: unknown[] }).changes.length;
  console.log(
    `${n} runs recorded in ${(recordMs / 1000).toFixed(1)} s (${(recordMs / n).toFixed(1)} ms/run), ${statSync(file).size} bytes`,
  );
  console.log(
    `changes for one metric: in process ${inProcessMs.toFixed(0)} ms (${trend!.points.length} points, ${trend!.changes.length} changes)`,
  );
  console.log(
    `perf history changes CLI: ${cliMs.toFixed(0)} ms wall with Node start-up, exit ${cli.status}, ${changes} changes (expected ${Math.ceil(n / 1000) - 1})`,
  );
}

function real(): void {
  const env = { ...process.env, GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b' };
  const git = (...args: string[]): string => execFileSync('git', args, { cwd: work, encoding: 'utf8', timeout: 10_000, env }).trim();
  git('init', '-q', '-b', 'main');
  const commits: string[] = [];
  for (let i = 1; i <= 30; i++) {
    writeFileSync(join(work, 'change.txt'), String(i));
    git('add', 'change.txt');
    git('commit', '-q', '-m', `change ${i}`);
    commits.push(git('rev-parse', 'HEAD'));
    const jank = i > 15 ? ['--var', 'jank=1'] : [];
    const args = ['run', join(ROOT, 'scenarios/list-scroll.yaml'), '--variant', 'desktop', '--repeat', '3', '--warmup', '1', '--quiet'];
    const r = spawnSync(process.execPath, [PERF, ...args, ...jank, '--out', `out${i}`, '--history', 'h.sqlite'], {
      cwd: work,
      timeout: 300_000,
    });
    console.log(`run ${i}${jank.length ? ' (jank)' : ''}: exit ${r.status}`);
  }
  const out = spawnSync(process.execPath, [PERF, 'history', 'changes', '--json', '--history', 'h.sqlite'], {
    cwd: work,
    encoding: 'utf8',
    timeout: 120_000,
  });
  const changes = (JSON.parse(out.stdout) as { changes: { metric: string; commit: string; relativeChange: number }[] }).changes;
  for (const c of changes) {
    const at = commits.indexOf(c.commit) + 1;
    console.log(`${c.metric}: run ${at} (${c.commit.slice(0, 10)}) ${(100 * c.relativeChange).toFixed(1)}%`);
  }
  const named = new Set(changes.map((c) => commits.indexOf(c.commit) + 1));
  console.log(`change points name runs ${[...named].join(', ') || 'none'} (target: 16 and only it)`);
}

try {
  if (mode === 'real') real();
  else await synthetic(Number(size ?? 10_000));
} finally {
  rmSync(work, { recursive: true, force: true });
}
