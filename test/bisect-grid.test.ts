/**
 * `perf bisect --grid URL --parallel N` (issue 32 item 3) on the repo's test Grid and a throwaway git
 * repository of a small page: every comparison is a Grid session, the next levels of midpoints are compared
 * while the current one is measured (more than one comparison in flight, counted from the progress events,
 * never from time), the culprit is still named, and no Grid session is left. Without a Grid, --parallel is
 * bad input (exit 2). The gate follows a count (load.transferBytes), so the verdicts do not depend on the host.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bisect, type BisectEvent } from '../src/runner/bisect.js';
import { gridSessions, javaAvailable, startStandalone, type GridProcess } from './grid-server.js';
import { ROOT } from './helpers.js';
import { replyOf, stdioServer } from './mcp-client.js';

const missingGrid = javaAvailable() ? false : 'needs java and /usr/bin/chromedriver (.ci/run installs them)';

// loadQuietMs 300: the gate reads counts only, and the page's last request ends before its load event; the default
// second of quiet would be most of each repeat's time.
const SCENARIO =
  'name: page\napp: { serve: ./app, path: /index.html }\nmeasure: load\nloadQuietMs: 300\n' +
  'gate: { metrics: [load.transferBytes] }\nsteps:\n  - expect: { target: { role: heading, name: Ready }, visible: true }\n';
const PAGE =
  '<!doctype html><html><head><meta charset="utf-8"><title>p</title><link rel="icon" href="data:,">' +
  '<script src="app.js"></script></head><body><h1>Ready</h1></body></html>';
// Two comparisons at once: the Grid has a slot for each (one Chromium per comparison on this 2-core machine).
const PARALLEL = 2;

function git(cwd: string, ...args: string[]): string {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, `git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

/** A repository of 9 commits (GOOD, 7 between, BAD); the 6th (index 5) makes the script 200 KB larger. */
function makeRepo(dir: string): { repo: string; commits: string[] } {
  const repo = join(dir, 'repo');
  mkdirSync(join(repo, 'app'), { recursive: true });
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'config', 'user.email', 'perf@example.com');
  git(repo, 'config', 'user.name', 'perf');
  writeFileSync(join(repo, 'page.yaml'), SCENARIO);
  writeFileSync(join(repo, 'app', 'index.html'), PAGE);
  writeFileSync(join(repo, '.gitignore'), 'app/app.js\nbuild/\n');
  const commits: string[] = [];
  for (let i = 0; i < 9; i++) {
    writeFileSync(join(repo, 'src.js'), `window.pad = "${'x'.repeat((i >= 5 ? 201 : 1) * 1024)}"; // c${i}\n`);
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', i === 5 ? 'c5 a larger bundle' : `c${i}`);
    commits.push(git(repo, 'rev-parse', 'HEAD'));
  }
  return { repo, commits };
}

/** perf_bisect and perf_run over MCP on `perf mcp --grid URL`: every run file names the Grid, the culprit is found. */
async function mcpBisectOnGrid(repo: string, grid: GridProcess, commits: string[]): Promise<void> {
  const mcp = await stdioServer(repo, { name: 'rehearse-bisect-grid', args: ['--caps', 'core,perf,history', '--grid', grid.url] });
  try {
    const progress: string[] = [];
    const args = {
      good: commits[4],
      bad: commits[6],
      scenario: 'page.yaml',
      build: 'cp src.js app/app.js',
      repeat: 4,
      maxRepeat: 8,
      parallel: PARALLEL,
    };
    const res = await mcp.client.callTool({ name: 'perf_bisect', arguments: args }, undefined, {
      onprogress: (p) => progress.push(p.message ?? ''),
      timeout: 600_000,
      resetTimeoutOnProgress: true,
    });
    const { isError, text, json } = replyOf(res);
    assert.equal(isError, false, text);
    const j = json as { outcome: string; culprit?: { commit: string } };
    assert.equal(j.outcome, 'found', text);
    assert.equal(j.culprit?.commit, commits[5]);
    assert.ok(progress.length >= 2, JSON.stringify(progress));
    // perf_run on the same server measures on its Grid too.
    const run = await mcp.call('perf_run', { scenario: 'page.yaml', repeat: 2, warmup: 0, out: 'build/perf/mcp-run' });
    assert.equal(run.isError, false, run.text);
    const file = JSON.parse(readFileSync(run.json.run.path as string, 'utf8')) as { env: { browser: { endpoint?: string } } };
    assert.equal(file.env.browser.endpoint, `selenium+${grid.url}`);
  } finally {
    await mcp.close();
  }
  const dir = join(repo, 'build', 'perf', 'bisect');
  const runs = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter(
    (f) => f.endsWith('.json') && !f.endsWith('bisect-cache.json'),
  );
  const endpoints = runs.map(
    (f) => (JSON.parse(readFileSync(join(dir, f), 'utf8')) as { env?: { browser?: { endpoint?: string } } }).env?.browser?.endpoint,
  );
  assert.ok(endpoints.length >= 2, `run files: ${runs.join(', ')}`);
  assert.deepEqual(new Set(endpoints), new Set([`selenium+${grid.url}`]), 'every run was a Grid session');
  assert.equal(await gridSessions(grid.url), 0, 'every Grid session was deleted');
}

test(
  'perf bisect --grid --parallel 2: speculative midpoints in flight at once, the culprit named',
  { skip: missingGrid, timeout: 900_000 },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rehearse-bisect-grid-'));
    let grid: GridProcess | undefined;
    try {
      const { repo, commits } = makeRepo(dir);
      grid = await startStandalone({ maxSessions: PARALLEL });
      let inFlight = 0;
      let most = 0;
      const events: BisectEvent[] = [];
      const result = await bisect({
        cwd: repo,
        good: commits[0]!,
        bad: commits[8]!,
        scenario: 'page.yaml',
        build: 'cp src.js app/app.js',
        outDir: join(dir, 'out'),
        cacheFile: join(dir, 'out', 'bisect-cache.json'),
        repeat: 4,
        maxRepeat: 8,
        grid: grid.url,
        parallel: PARALLEL,
        onEvent: (e) => {
          events.push(e);
          if (e.kind === 'compare-start') most = Math.max(most, ++inFlight);
          if (e.kind === 'compare-end') inFlight--;
        },
      });
      assert.equal(result.outcome, 'found', JSON.stringify(result.tested));
      assert.equal(result.outcome === 'found' && result.culprit.commit, commits[5]);
      assert.equal(most, PARALLEL, `comparisons in flight at once: ${most}`);
      const speculative = events.filter((e) => e.kind === 'compare-start' && e.speculative).length;
      assert.ok(speculative >= 1, 'at least one midpoint compared speculatively');
      // Every comparison started also ended (the unneeded ones too, so they are cached).
      const ends = events.filter((e) => e.kind === 'compare-end').length;
      assert.equal(ends, events.filter((e) => e.kind === 'compare-start').length);
      assert.equal(await gridSessions(grid.url), 0, 'every Grid session was deleted');
      assert.equal(git(repo, 'worktree', 'list').split('\n').length, 1, 'no worktree left');

      // Without a Grid, comparisons at once would measure each other on this machine: bad input, exit 2.
      const r = spawnSync(process.execPath, [join(ROOT, 'bin/perf'), 'bisect', commits[0]!, commits[8]!, 'page.yaml', '--parallel', '2'], {
        cwd: repo,
        encoding: 'utf8',
        timeout: 60_000,
      });
      assert.equal(r.status, 2, r.stderr);
      assert.match(r.stderr, /--parallel 2 needs a Selenium Grid \(--grid URL\)/);

      // MCP: the Grid is the server's (perf mcp --grid), perf_bisect's parallel uses it. A shorter range (c4..c6) keeps it quick.
      await mcpBisectOnGrid(repo, grid, commits);
    } finally {
      await grid?.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
