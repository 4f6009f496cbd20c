/**
 * `perf gate --baseline history` end to end (issue 31): in a git repository, a run recorded on main with
 * --history is the baseline of a branch's gate (the merge-base); unchanged code passes, the demo app's jank
 * switch fails naming the baseline commit; a branch with no recorded run is the gate's "missing baseline"
 * (exit 1). Small runs (3 repeats, no warmup), as gate.test.ts.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openHistory } from '../src/history/open.js';
import { perfCli, ROOT } from './helpers.js';

const work = mkdtempSync(join(tmpdir(), 'rehearse-history-gate-'));
after(() => rmSync(work, { recursive: true, force: true }));
const LIST = join(ROOT, 'scenarios/list-scroll.yaml');
// Profiled repeats only (--no-timing): what is under test is where the baseline comes from (the history's merge-base
// run) and that the app's own work gates from it; milliseconds of a baseline recorded a minute earlier on a shared
// machine follow its load, which bench:verdict --third-party measures instead.
const SMALL = ['--variant', 'desktop', '--repeat', '3', '--warmup', '0', '--no-timing', '--quiet'];
const HISTORY = ['--history', 'h.sqlite'];

function git(...args: string[]): string {
  return execFileSync('git', args, {
    cwd: work,
    encoding: 'utf8',
    timeout: 10_000,
    env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' },
  }).trim();
}

function commit(message: string): string {
  writeFileSync(join(work, 'change.txt'), message);
  git('add', 'change.txt');
  git('commit', '-q', '-m', message);
  return git('rev-parse', 'HEAD');
}

test(
  'gate --baseline history: the merge-base run passes unchanged code and fails jank naming its commit',
  { timeout: 600_000 },
  async () => {
    delete process.env.PERF_HISTORY;
    git('init', '-q', '-b', 'main');
    const base = commit('on main');
    const rec = await perfCli(work, ['run', LIST, ...SMALL, '--out', 'main', ...HISTORY], 200_000);
    assert.equal(rec.code, 0, rec.stderr);
    const store = await openHistory(join(work, 'h.sqlite'));
    assert.deepEqual(
      (await store.runs({})).map((r) => [r.git.commit, r.git.branch]),
      [[base, 'main']],
    );
    await store.close();

    git('checkout', '-q', '-b', 'feature');
    commit('on the branch');
    const same = await perfCli(work, ['gate', LIST, ...SMALL, '--out', 'same', '--baseline', 'history', ...HISTORY], 200_000);
    assert.equal(same.code, 0, same.stdout + same.stderr);
    // Unchanged code never fails (on a loaded machine the milliseconds that followed the host are inconclusive, naming it).
    assert.match(
      same.stdout,
      new RegExp(`(PASS|INCONCLUSIVE) .*baseline commit ${base.slice(0, 12)} on main \\(the merge-base\\), 3 repeats`),
    );
    if (!/^perf gate: PASS /.test(same.stdout)) assert.match(same.stdout, /\n {2}INCONCLUSIVE .*(?:host|machine) /);

    const jank = await perfCli(
      work,
      ['gate', LIST, ...SMALL, '--var', 'jank=1', '--out', 'jank', '--baseline', 'history:main', ...HISTORY, '--json'],
      200_000,
    );
    assert.equal(jank.code, 1, jank.stderr);
    const j = JSON.parse(jank.stdout);
    assert.equal(j.verdict, 'fail');
    assert.equal(j.runs[0].baselineFile, `history:main@${base.slice(0, 12)}`);
    assert.match(j.runs[0].detail, new RegExp(`counters\\.layouts .*baseline commit ${base.slice(0, 12)}`));

    // Both gates recorded their runs and verdicts with --history; the branch's runs are not main's baseline.
    const after2 = await openHistory(join(work, 'h.sqlite'));
    assert.equal((await after2.runs({})).length, 3);
    await after2.close();

    git('checkout', '-q', '--orphan', 'elsewhere');
    commit('unrelated history');
    const none = await perfCli(work, ['gate', LIST, ...SMALL, '--out', 'none', '--baseline', 'history:elsewhere', ...HISTORY], 200_000);
    assert.equal(none.code, 1, none.stderr);
    assert.match(none.stdout, /MISSING .*missing baseline in the history: no run of this scenario recorded .* at the merge-base/);
  },
);
