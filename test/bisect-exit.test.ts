/**
 * `perf run --against … --bisect-exit` under a real `git bisect run`, in a throwaway git repository of a
 * small page: the commit that made the script 200 KB larger is named, a commit whose page cannot be
 * judged skips (125) and bad input stops the bisect (128). The gate is pinned to the load's counts
 * (requests, transfer bytes), which do not depend on the host, so the verdicts are not timings.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './helpers.js';

const PERF = join(ROOT, 'bin/perf');
const SCENARIO =
  'name: page\napp: { serve: ./app, path: /index.html }\nmeasure: load\n' +
  'gate: { metrics: [load.requests, load.transferBytes] }\nsteps:\n  - expect: { target: { role: heading, name: Ready }, visible: true }\n';

function git(cwd: string, ...args: string[]): string {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, `git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

/** One commit of the page: the script's padding in KB, and whether the heading says Ready. */
function commit(repo: string, message: string, page: { paddingKb: number; ready: boolean }): string {
  writeFileSync(join(repo, 'app', 'app.js'), `window.pad = "${'x'.repeat(page.paddingKb * 1024)}";\n`);
  writeFileSync(
    join(repo, 'app', 'index.html'),
    `<!doctype html><html><head><meta charset="utf-8"><title>p</title><link rel="icon" href="data:,">` +
      `<script src="app.js"></script></head><body><h1>${page.ready ? 'Ready' : 'Broken'}</h1></body></html>`,
  );
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '--allow-empty', '-m', message);
  return git(repo, 'rev-parse', 'HEAD');
}

test('git bisect run with perf run --against --bisect-exit names the commit that grew the bundle', { timeout: 600_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'rehearse-bisect-'));
  try {
    const repo = join(dir, 'repo');
    mkdirSync(join(repo, 'app'), { recursive: true });
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'config', 'user.email', 'perf@example.com');
    git(repo, 'config', 'user.name', 'perf');
    writeFileSync(join(repo, 'page.yaml'), SCENARIO);
    const good = commit(repo, 'first', { paddingKb: 1, ready: true });
    commit(repo, 'second', { paddingKb: 1, ready: true });
    const culprit = commit(repo, 'third: a larger bundle', { paddingKb: 201, ready: true });
    commit(repo, 'fourth', { paddingKb: 201, ready: true });
    const bad = commit(repo, 'fifth', { paddingKb: 201, ready: true });
    // The baseline arm: the good commit, checked out beside the repository (the bisect moves the working tree).
    git(repo, 'worktree', 'add', '-q', join(dir, 'good'), good);

    const judge = ['run', 'page.yaml', '--against', join(dir, 'good', 'page.yaml'), '--fixed', '--repeat', '5', '--warmup', '0'];
    git(repo, 'bisect', 'start', bad, good);
    const r = spawnSync('git', ['bisect', 'run', process.execPath, PERF, ...judge, '--out', join(dir, 'out'), '--quiet', '--bisect-exit'], {
      cwd: repo,
      encoding: 'utf8',
      timeout: 540_000,
    });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, new RegExp(`${culprit} is the first bad commit`), r.stdout);
    git(repo, 'bisect', 'reset');

    // A commit whose page cannot be judged (its expect step fails in every repeat): skipped, not called bad.
    commit(repo, 'sixth: broken page', { paddingKb: 1, ready: false });
    const skip = spawnSync(process.execPath, [PERF, ...judge, '--out', join(dir, 'out2'), '--quiet', '--bisect-exit'], {
      cwd: repo,
      encoding: 'utf8',
      timeout: 300_000,
    });
    assert.equal(skip.status, 125, skip.stderr);
    // Bad input would fail the same way at every commit: it stops the bisect (128), and still says what was wrong.
    const abort = spawnSync(process.execPath, [PERF, ...judge, '--repeat', 'x', '--bisect-exit'], {
      cwd: repo,
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(abort.status, 128, abort.stderr);
    assert.match(abort.stderr, /--repeat/);
    // Without --against the flag means nothing: refused.
    const alone = spawnSync(process.execPath, [PERF, 'run', 'page.yaml', '--bisect-exit'], {
      cwd: repo,
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(alone.status, 128, alone.stderr);
    assert.match(alone.stderr, /--bisect-exit applies to a compare/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
