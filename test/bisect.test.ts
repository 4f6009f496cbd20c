/**
 * `perf bisect GOOD BAD SCENARIO` end to end on a throwaway git repository of a small page, through the
 * real CLI and Chromium: the endpoints are compared first, a commit whose --build fails is skipped and
 * said so, the commit that grew the bundle is named with its figures, the user's working tree, index
 * and HEAD are untouched, no worktree is left behind, a re-run reuses every comparison from the cache,
 * and a range without the regression is "not reproduced". The gate follows a count (load.transferBytes),
 * so the verdicts do not depend on the host's speed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { bisectBrief } from '../src/mcp/bisect-tool.js';
import type { BisectResult } from '../src/runner/bisect.js';
import { ROOT } from './helpers.js';

const SCENARIO =
  'name: page\napp: { serve: ./app, path: /index.html }\nmeasure: load\n' +
  'gate: { metrics: [load.requests, load.transferBytes] }\nsteps:\n  - expect: { target: { role: heading, name: Ready }, visible: true }\n';
const PAGE =
  '<!doctype html><html><head><meta charset="utf-8"><title>p</title><link rel="icon" href="data:,">' +
  '<script src="app.js"></script></head><body><h1>Ready</h1></body></html>';

function git(cwd: string, ...args: string[]): string {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, `git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

/** A commit: the script's source (built into app/app.js by the --build command), or none (the build fails). */
function commit(repo: string, message: string, paddingKb: number | null): string {
  if (paddingKb === null) rmSync(join(repo, 'src.js'), { force: true });
  else writeFileSync(join(repo, 'src.js'), `window.pad = "${'x'.repeat(paddingKb * 1024)}";\n`);
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '--allow-empty', '-m', message);
  return git(repo, 'rev-parse', 'HEAD');
}

function perf(cwd: string, args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(ROOT, 'bin/perf'), ...args], { cwd, encoding: 'utf8', timeout: 480_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('perf bisect names the commit that grew the bundle, skips one that does not build, and caches', { timeout: 900_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'rehearse-perf-bisect-'));
  try {
    const repo = join(dir, 'repo');
    mkdirSync(join(repo, 'app'), { recursive: true });
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'config', 'user.email', 'perf@example.com');
    git(repo, 'config', 'user.name', 'perf');
    writeFileSync(join(repo, 'page.yaml'), SCENARIO);
    writeFileSync(join(repo, 'app', 'index.html'), PAGE);
    writeFileSync(join(repo, '.gitignore'), 'app/app.js\nbuild/\n');
    const good = commit(repo, 'c0 good', 1);
    commit(repo, 'c1', 1);
    commit(repo, 'c2', 1);
    const broken = commit(repo, 'c3 no source: the build fails', null);
    commit(repo, 'c4 source back', 1);
    const culprit = commit(repo, 'c5 a larger bundle', 201);
    const bad = commit(repo, 'c6', 201);
    // The user's own state, which the bisect must not touch: an uncommitted edit and a staged file.
    writeFileSync(join(repo, 'page.yaml'), SCENARIO + '# my edit\n');
    writeFileSync(join(repo, 'staged.txt'), 'staged');
    git(repo, 'add', 'staged.txt');
    const status = git(repo, 'status', '--porcelain');

    const args = ['bisect', good, bad, 'page.yaml', '--build', 'cp src.js app/app.js', '--repeat', '4', '--max-repeat', '8', '--json'];
    const r = perf(repo, args);
    assert.equal(r.code, 0, r.stderr);
    const j = JSON.parse(r.stdout) as {
      outcome: string;
      metric: string;
      culprit: { commit: string; subject: string; delta: { deltaPct: number; judgement: string } };
      tested: { commit: string; verdict: string; comparisons: { why?: string; cached: boolean }[] }[];
    };
    assert.equal(j.outcome, 'found', r.stderr);
    assert.equal(j.culprit.commit, culprit);
    assert.equal(j.culprit.subject, 'c5 a larger bundle');
    assert.equal(j.metric, 'load.transferBytes');
    assert.ok(j.culprit.delta.deltaPct > 100, `the bundle grew 200 KB: ${j.culprit.delta.deltaPct}%`);
    const skipped = j.tested.find((t) => t.commit === broken);
    assert.equal(skipped?.verdict, 'skipped', JSON.stringify(j.tested));
    assert.match(skipped!.comparisons[0]!.why ?? '', /--build failed at/);

    // Untouched: HEAD, the index and the working tree; no worktree left.
    assert.equal(git(repo, 'rev-parse', 'HEAD'), bad);
    assert.equal(git(repo, 'status', '--porcelain'), status);
    assert.equal(readFileSync(join(repo, 'page.yaml'), 'utf8'), SCENARIO + '# my edit\n');
    assert.equal(git(repo, 'worktree', 'list').split('\n').length, 1);

    // A re-run answers from the cache, every comparison of it.
    const again = perf(repo, args);
    assert.equal(again.code, 0, again.stderr);
    const j2 = JSON.parse(again.stdout) as typeof j;
    assert.equal(j2.culprit.commit, culprit);
    assert.ok(
      j2.tested.every((t) => t.comparisons.every((c) => c.cached)),
      'all cached',
    );

    // No regression between GOOD and c4: not reproduced, exit 0, with the figures.
    const none = perf(repo, [
      'bisect',
      good,
      'HEAD~2',
      'page.yaml',
      '--build',
      'cp src.js app/app.js',
      '--repeat',
      '4',
      '--max-repeat',
      '8',
    ]);
    assert.equal(none.code, 0, none.stderr);
    assert.match(none.stdout, /^not reproduced: BAD is not worse than GOOD/m);
    assert.match(
      none.stderr,
      /bisect: \[1\] \w+ → \w+ …\n(bisect: building \w+\n)*bisect: \[1\] same: load\.\w+ [+-]\d/,
      'a progress line per comparison',
    );

    // Bad input: exit 2 naming what was wrong.
    const wrong = perf(repo, ['bisect', bad, good, 'page.yaml']);
    assert.equal(wrong.code, 2, wrong.stderr);
    assert.match(wrong.stderr, /is not an ancestor of BAD/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test(
  'MCP perf_bisect: not reproduced after the endpoints alone, with a progress notification per comparison',
  { timeout: 600_000 },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rehearse-mcp-bisect-'));
    try {
      const repo = join(dir, 'repo');
      mkdirSync(join(repo, 'app'), { recursive: true });
      git(repo, 'init', '-q', '-b', 'main');
      git(repo, 'config', 'user.email', 'perf@example.com');
      git(repo, 'config', 'user.name', 'perf');
      writeFileSync(join(repo, 'page.yaml'), SCENARIO);
      writeFileSync(join(repo, 'app', 'index.html'), PAGE);
      writeFileSync(join(repo, 'app', 'app.js'), 'window.pad = 1;\n');
      const good = commit(repo, 'first', 1);
      commit(repo, 'second', 1);
      const bad = commit(repo, 'third', 1);
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [join(ROOT, 'bin/perf'), 'mcp', '--caps', 'core,history'],
        cwd: repo,
        env: { ...(process.env as Record<string, string>) },
        stderr: 'pipe',
      });
      const client = new Client({ name: 'rehearse-bisect-test', version: '0.0.0' });
      await client.connect(transport);
      try {
        const progress: { progress: number; message?: string }[] = [];
        const res = (await client.callTool(
          { name: 'perf_bisect', arguments: { good, bad, scenario: 'page.yaml', maxRepeat: 8 } },
          undefined,
          { onprogress: (p) => progress.push(p), timeout: 480_000, resetTimeoutOnProgress: true },
        )) as { isError?: boolean; content: { type: string; text: string }[] };
        assert.notEqual(res.isError, true, res.content[0]?.text);
        const j = JSON.parse(res.content[0]!.text) as {
          tool: string;
          outcome: string;
          tested: unknown[];
          endpoints: { judgement: string };
        };
        assert.equal(j.tool, 'perf_bisect');
        assert.equal(j.outcome, 'not_reproduced');
        assert.equal(j.endpoints.judgement, 'same');
        assert.equal(j.tested.length, 1, 'the endpoints alone');
        assert.ok(
          progress.some((p) => /→ .*: same/.test(p.message ?? '')),
          JSON.stringify(progress),
        );
      } finally {
        await client.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

test('perf_bisect reply: a thousand tested commits stay under 6 KB, the oldest dropped and counted', () => {
  const c = { baseline: 'a'.repeat(40), candidate: 'b'.repeat(40), judgement: 'same' as const, repeats: 10, metric: 'load.lcpMs' };
  const comparison = { ...c, deltaPct: 1.5, ci: { lowPct: -2, highPct: 4, level: 0.95 }, cached: false };
  const tested = Array.from({ length: 1000 }, (_, i) => ({
    commit: i.toString(16).padStart(40, '0'),
    subject: 'x'.repeat(500),
    authorDate: '2026-12-03T00:00:00Z',
    verdict: 'good' as const,
    repeats: 10,
    comparisons: [comparison],
  }));
  const r: BisectResult = {
    outcome: 'found',
    metric: 'load.lcpMs',
    culprit: { ...tested[999]!, delta: comparison },
    tested,
    durationMs: 1000,
  };
  const brief = bisectBrief(r);
  assert.ok(Buffer.byteLength(JSON.stringify(brief)) <= 6 * 1024 - 100);
  assert.match(String(brief.omitted), /^\d+ earlier tested commit/);
  const kept = brief.tested as { commit: string }[];
  assert.equal(kept.at(-1)!.commit, tested[999]!.commit.slice(0, 10), 'the newest tested commit stays');
});
