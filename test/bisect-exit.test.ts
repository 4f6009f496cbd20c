/**
 * `perf run --against … --bisect-exit` under a real `git bisect run`, in a throwaway git repository of a
 * small page: the commit that made the script 200 KB larger is named, a commit whose page cannot be
 * judged skips (125) and bad input stops the bisect (128). The gate is pinned to the load's counts
 * (requests, transfer bytes), which do not depend on the host, so the verdicts are not timings.
 *
 * The runs wait mostly on page loads (little CPU), so the skip case runs beside the bisect, in a worktree of
 * its own: neither measures a time, and neither touches the other's working tree.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { childOutput, gitRepo, perfCli, ROOT } from './helpers.js';

const PERF = join(ROOT, 'bin/perf');
// loadQuietMs 300: the gate reads counts only, and the page's last request ends before its load event; the default
// second of quiet would be most of each repeat's time.
const SCENARIO =
  'name: page\napp: { serve: ./app, path: /index.html }\nmeasure: load\nloadQuietMs: 300\n' +
  'gate: { metrics: [load.requests, load.transferBytes] }\nsteps:\n  - expect: { target: { role: heading, name: Ready }, visible: true }\n';

/** One commit's page: the script's padding in KB, and whether the heading says Ready. */
function page(p: { paddingKb: number; ready: boolean }): Record<string, string> {
  return {
    'app/app.js': `window.pad = "${'x'.repeat(p.paddingKb * 1024)}";\n`,
    'app/index.html':
      `<!doctype html><html><head><meta charset="utf-8"><title>p</title><link rel="icon" href="data:,">` +
      `<script src="app.js"></script></head><body><h1>${p.ready ? 'Ready' : 'Broken'}</h1></body></html>`,
  };
}

/** `git ARGS` in `cwd` without blocking the event loop (the skip case runs meanwhile), killed after `timeoutMs`. */
async function gitAsync(cwd: string, args: string[], timeoutMs: number): Promise<{ code: number | null; out: string }> {
  const r = await childOutput('git', args, { cwd, timeoutMs, what: `git ${args.slice(0, 2).join(' ')}` });
  return { code: r.code, out: r.stdout + r.stderr };
}

test('git bisect run with perf run --against --bisect-exit names the commit that grew the bundle', { timeout: 600_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rehearse-bisect-'));
  try {
    const repo = gitRepo(join(dir, 'repo'), { 'page.yaml': SCENARIO });
    const good = repo.commit('first', page({ paddingKb: 1, ready: true }));
    repo.commit('second', page({ paddingKb: 1, ready: true }));
    const culprit = repo.commit('third: a larger bundle', page({ paddingKb: 201, ready: true }));
    repo.commit('fourth', page({ paddingKb: 201, ready: true }));
    const bad = repo.commit('fifth', page({ paddingKb: 201, ready: true }));
    // The baseline arm: the good commit, checked out beside the repository (the bisect moves the working tree).
    repo.git('worktree', 'add', '-q', join(dir, 'good'), good);
    // A commit whose page cannot be judged (its expect step fails in every repeat), on a branch in its own worktree.
    const brokenDir = join(dir, 'broken');
    repo.git('worktree', 'add', '-q', '-b', 'broken', brokenDir, bad);
    for (const [path, content] of Object.entries(page({ paddingKb: 1, ready: false }))) writeFileSync(join(brokenDir, path), content);
    repo.git('-C', brokenDir, 'commit', '-q', '-a', '-m', 'sixth: broken page');

    const judge = ['run', 'page.yaml', '--against', join(dir, 'good', 'page.yaml'), '--fixed', '--repeat', '5', '--warmup', '0'];
    repo.git('bisect', 'start', bad, good);
    const bisectRun = gitAsync(
      repo.dir,
      ['bisect', 'run', process.execPath, PERF, ...judge, '--out', join(dir, 'out'), '--quiet', '--bisect-exit'],
      540_000,
    );
    // Skipped, not called bad.
    const skip = await perfCli(brokenDir, [...judge, '--out', join(dir, 'out2'), '--quiet', '--bisect-exit'], 300_000);
    assert.equal(skip.code, 125, skip.stderr);

    const r = await bisectRun;
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, new RegExp(`${culprit} is the first bad commit`), r.out);
    repo.git('bisect', 'reset');

    // Bad input would fail the same way at every commit: it stops the bisect (128), and still says what was wrong.
    const abort = await perfCli(repo.dir, [...judge, '--repeat', 'x', '--bisect-exit'], 60_000);
    assert.equal(abort.code, 128, abort.stderr);
    assert.match(abort.stderr, /--repeat/);
    // Without --against the flag means nothing: refused.
    const alone = await perfCli(repo.dir, ['run', 'page.yaml', '--bisect-exit'], 60_000);
    assert.equal(alone.code, 128, alone.stderr);
    assert.match(alone.stderr, /--bisect-exit applies to a compare/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
