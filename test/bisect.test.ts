/**
 * `perf bisect GOOD BAD SCENARIO` end to end on a throwaway git repository of a small page, through the
 * real CLI and Chromium: the endpoints are compared first, a commit whose --build fails is skipped and
 * said so, the commit that grew the bundle is named with its figures, the user's working tree, index
 * and HEAD are untouched, no worktree is left behind, a re-run reuses every comparison from the cache,
 * and a range without the regression is "not reproduced". The gate follows a count (load.transferBytes),
 * so the verdicts do not depend on the host's speed.
 *
 * Each bisect waits mostly on page loads (a comparison is a dozen repeats of a fixed-length load, little CPU),
 * so the three end-to-end cases run concurrently, each in its own repository: they judge counts, not times.
 */
import { describe, it, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { followingLine, renderBisectMarkdown, renderBisectText } from '../src/cli/bisect.js';
import { bisectBrief } from '../src/mcp/bisect-tool.js';
import { endpointThresholds, midpoint, midpointTiming, sideThresholds, type BisectResult } from '../src/runner/bisect.js';
import { repeatSchedule, repeatSlots } from '../src/runner/records.js';
import { gitRepo, perfCli, ROOT, type GitRepo } from './helpers.js';

// loadQuietMs 300: the gate reads counts only, and the page's last request ends before its load event; the default
// second of quiet would be most of each repeat's time.
const SCENARIO =
  'name: page\napp: { serve: ./app, path: /index.html }\nmeasure: load\nloadQuietMs: 300\n' +
  'gate: { metrics: [load.requests, load.transferBytes] }\nsteps:\n  - expect: { target: { role: heading, name: Ready }, visible: true }\n';
const PAGE =
  '<!doctype html><html><head><meta charset="utf-8"><title>p</title><link rel="icon" href="data:,">' +
  '<script src="app.js"></script></head><body><h1>Ready</h1></body></html>';
const BUILD = ['--build', 'cp src.js app/app.js'];
const REPEATS = ['--repeat', '4', '--max-repeat', '8'];
// A bisect is a handful of comparisons of a dozen page loads each; 8 minutes covers three at once on a loaded host.
const PERF_TIMEOUT_MS = 480_000;

/** The script's source (built into app/app.js by the --build command) with this much padding, or none (the build fails). */
const source = (paddingKb: number | null): Record<string, string | null> => ({
  'src.js': paddingKb === null ? null : `window.pad = "${'x'.repeat(paddingKb * 1024)}";\n`,
});

/** A repository of the page whose script is built by BUILD, in a fresh temporary folder. */
function pageRepo(prefix: string): { dir: string; repo: GitRepo } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const repo = gitRepo(join(dir, 'repo'), { 'page.yaml': SCENARIO, 'app/index.html': PAGE, '.gitignore': 'app/app.js\nbuild/\n' });
  return { dir, repo };
}

const perf = (repo: GitRepo, args: string[]): ReturnType<typeof perfCli> => perfCli(repo.dir, args, PERF_TIMEOUT_MS);

describe('perf bisect end to end', { concurrency: true }, () => {
  it('perf bisect names the commit that grew the bundle, skips one that does not build, and caches', { timeout: 900_000 }, async () => {
    const { dir, repo } = pageRepo('rehearse-perf-bisect-');
    try {
      // The fewest commits that make the search meet the broken one first (skipped), then find the culprit:
      // GOOD, c1, c2 (broken), c3, c4 (culprit), BAD: the search tests c2, c3 and c4.
      const good = repo.commit('c0 good', source(1));
      repo.commit('c1', source(1));
      const broken = repo.commit('c2 no source: the build fails', source(null));
      repo.commit('c3 source back', source(1));
      const culprit = repo.commit('c4 a larger bundle', source(201));
      const bad = repo.commit('c5', source(201));
      // The user's own state, which the bisect must not touch: an uncommitted edit and a staged file.
      writeFileSync(join(repo.dir, 'page.yaml'), SCENARIO + '# my edit\n');
      writeFileSync(join(repo.dir, 'staged.txt'), 'staged');
      repo.git('add', 'staged.txt');
      const status = repo.git('status', '--porcelain');

      const args = ['bisect', good, bad, 'page.yaml', ...BUILD, ...REPEATS, '--json'];
      const r = await perf(repo, args);
      assert.equal(r.code, 0, r.stderr);
      const j = JSON.parse(r.stdout) as {
        outcome: string;
        metric: string;
        followed: { metric: string; why: string }[];
        culprit: { commit: string; subject: string; delta: { deltaPct: number; judgement: string } };
        tested: { commit: string; verdict: string; comparisons: { why?: string; cached: boolean }[] }[];
      };
      assert.equal(j.outcome, 'found', r.stderr);
      assert.equal(j.culprit.commit, culprit);
      assert.equal(j.culprit.subject, 'c4 a larger bundle');
      assert.equal(j.metric, 'load.transferBytes');
      // Of the two gated counts only the bytes moved: the search follows that one, and says why.
      assert.deepEqual(
        j.followed.map((f) => f.metric),
        ['load.transferBytes'],
      );
      assert.match(j.followed[0]!.why, /^a primary of the gate, regressed past warn from GOOD to BAD/);
      assert.ok(j.culprit.delta.deltaPct > 100, `the bundle grew 200 KB: ${j.culprit.delta.deltaPct}%`);
      const skipped = j.tested.find((t) => t.commit === broken);
      assert.equal(skipped?.verdict, 'skipped', JSON.stringify(j.tested));
      assert.match(skipped!.comparisons[0]!.why ?? '', /--build failed at/);

      // Untouched: HEAD, the index and the working tree; no worktree left.
      assert.equal(repo.git('rev-parse', 'HEAD'), bad);
      assert.equal(repo.git('status', '--porcelain'), status);
      assert.equal(readFileSync(join(repo.dir, 'page.yaml'), 'utf8'), SCENARIO + '# my edit\n');
      assert.equal(repo.git('worktree', 'list').split('\n').length, 1);

      // A re-run answers from the cache, every comparison of it.
      const again = await perf(repo, args);
      assert.equal(again.code, 0, again.stderr);
      const j2 = JSON.parse(again.stdout) as typeof j;
      assert.equal(j2.culprit.commit, culprit);
      assert.ok(
        j2.tested.every((t) => t.comparisons.every((c) => c.cached)),
        'all cached',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it(
    'perf bisect on a range without the regression: not reproduced, exit 0, a progress line per comparison',
    { timeout: 600_000 },
    async () => {
      const { dir, repo } = pageRepo('rehearse-perf-bisect-none-');
      try {
        const good = repo.commit('c0 good', source(1));
        repo.commit('c1', source(1));
        const bad = repo.commit('c2', source(1));
        // With a history store: the comparison is kept there too.
        const history = ['--history', join(dir, 'history.sqlite')];
        const none = await perf(repo, ['bisect', good, bad, 'page.yaml', ...BUILD, ...REPEATS, ...history, '--out', join(dir, 'one')]);
        assert.equal(none.code, 0, none.stderr);
        assert.match(none.stdout, /^not reproduced: BAD is not worse than GOOD/m);
        assert.match(
          none.stderr,
          /bisect: \[1\] \w+ → \w+ …\n(bisect: building \w+\n)*bisect: \[1\] same: load\.\w+ [+-]\d/,
          'a progress line per comparison',
        );
        // Another output folder (no cache file there), the same history: the endpoints come from the store, not measured.
        const shared = await perf(repo, ['bisect', good, bad, 'page.yaml', ...BUILD, ...REPEATS, ...history, '--out', join(dir, 'two')]);
        assert.equal(shared.code, 0, shared.stderr);
        assert.match(shared.stderr, /bisect: \[1\] same: load\.\w+ [^\n]*, cached/, shared.stderr);
        assert.doesNotMatch(shared.stderr, /building/, 'nothing checked out or built for a comparison the store had');

        // Bad input: exit 2 naming what was wrong.
        const wrong = await perf(repo, ['bisect', bad, good, 'page.yaml']);
        assert.equal(wrong.code, 2, wrong.stderr);
        assert.match(wrong.stderr, /is not an ancestor of BAD/);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it(
    'MCP perf_bisect: not reproduced after the endpoints alone, with a progress notification per comparison',
    { timeout: 600_000 },
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'rehearse-mcp-bisect-'));
      try {
        const repo = gitRepo(join(dir, 'repo'), { 'page.yaml': SCENARIO, 'app/index.html': PAGE, 'app/app.js': 'window.pad = 1;\n' });
        const good = repo.commit('first', source(1));
        repo.commit('second', source(1));
        const bad = repo.commit('third', source(1));
        const transport = new StdioClientTransport({
          command: process.execPath,
          args: [join(ROOT, 'bin/perf'), 'mcp', '--caps', 'core,history'],
          cwd: repo.dir,
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
            { onprogress: (p) => progress.push(p), timeout: PERF_TIMEOUT_MS, resetTimeoutOnProgress: true },
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
});

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
    followed: [{ metric: 'load.lcpMs', deltaPct: 1.5, ci: null, why: 'x'.repeat(500) }],
    culprit: { ...tested[999]!, delta: comparison },
    tested,
    durationMs: 1000,
  };
  const brief = bisectBrief(r);
  assert.ok(Buffer.byteLength(JSON.stringify(brief)) <= 6 * 1024 - 100);
  assert.deepEqual(
    (brief.followed as { metric: string }[]).map((f) => f.metric),
    ['load.lcpMs'],
    'what it followed stays in the reply',
  );
  assert.match(String(brief.omitted), /^\d+ earlier tested commit/);
  const kept = brief.tested as { commit: string }[];
  assert.equal(kept.at(-1)!.commit, tested[999]!.commit.slice(0, 10), 'the newest tested commit stays');
});

test('the answer says what the search followed and why, and how several are combined', () => {
  const c = { baseline: 'a'.repeat(40), candidate: 'b'.repeat(40), judgement: 'worse' as const, repeats: 22, cached: false };
  const delta = { ...c, metric: 'counters.threadCpuMs', deltaPct: 12.3, ci: { lowPct: 5.8, highPct: 16.3, level: 0.9 } };
  const followed = [
    { metric: 'counters.threadCpuMs', deltaPct: 12.3, ci: delta.ci, why: 'a primary of the gate, regressed past warn from GOOD to BAD' },
    { metric: 'longFrames.blockingMs', deltaPct: 40, ci: null, why: 'set aside as noisy' },
  ];
  const culprit = { commit: 'c'.repeat(40), subject: 'c11: scroll tracker', authorDate: '2026-12-06T00:00:00Z' };
  const r: BisectResult = { outcome: 'found', metric: delta.metric, followed, culprit: { ...culprit, delta }, tested: [], durationMs: 1 };
  const text = renderBisectText(r);
  assert.match(
    text,
    new RegExp(
      String.raw`^following counters\.threadCpuMs \+12\.3% \[5\.8, 16\.3\] \(a primary of the gate, [^)]*\); ` +
        String.raw`longFrames\.blockingMs \+40\.0% \(set aside as noisy\): ` +
        'a commit is bad when any of them is like BAD, good when all are like GOOD$',
      'm',
    ),
    text,
  );
  assert.equal(followingLine([followed[0]!])?.includes('a commit is bad when any'), false, 'one metric: no rule to state');
  assert.equal(followingLine([]), undefined);
  assert.match(renderBisectMarkdown(r), /^Following counters\.threadCpuMs/m);
});

test('midpoints are judged at half the step, whatever its size; without a step, as the scenario says', () => {
  const t = { warnPct: 10, errorPct: 25, metrics: { 'load.requests': { errorPct: 5 } } };
  assert.deepEqual(sideThresholds(t, 'counters.threadCpuMs', 120).metrics['counters.threadCpuMs'], { warnPct: 60, errorPct: 60 });
  // A CPU step of 10.9%: its midpoints are held at 5.5%, not at the scenario's warn 10% / error 25%, under which a commit
  // carrying the whole step read "unchanged" whenever its estimate fell below 10%.
  assert.deepEqual(sideThresholds(t, 'counters.threadCpuMs', 10.9).metrics['counters.threadCpuMs'], { warnPct: 5.5, errorPct: 5.5 });
  assert.equal(sideThresholds(t, 'counters.threadCpuMs', undefined), t);
  assert.equal(sideThresholds(t, 'counters.threadCpuMs', 0), t);
  assert.equal(sideThresholds(t, 'counters.threadCpuMs', 0.04), t, 'a step that rounds to no boundary');
  // A metric's own thresholds are replaced; the others keep theirs.
  const perMetric = sideThresholds(t, 'load.requests', 12);
  assert.deepEqual(perMetric.metrics, { 'load.requests': { warnPct: 6, errorPct: 6 } });
  assert.equal(perMetric.errorPct, 25);
});

test('the endpoints are judged at the warn threshold, as error too, for every metric; a metric given only error keeps it', () => {
  const t = {
    warnPct: 10,
    errorPct: 25,
    metrics: { 'load.requests': { errorPct: 5 }, 'counters.layouts': { warnPct: 3 }, x: { errorPct: 40 } },
  };
  assert.deepEqual(endpointThresholds(t), {
    warnPct: 10,
    errorPct: 10,
    metrics: {
      'load.requests': { warnPct: 5, errorPct: 5 },
      'counters.layouts': { warnPct: 3, errorPct: 3 },
      x: { warnPct: 10, errorPct: 10 },
    },
  });
});

test('a midpoint on a ms metric with timing repeats measures timing repeats alone; endpoints and counts keep the evidence', () => {
  const on = { timing: true };
  // A scenario that says `timing: false`; one that says nothing runs timing repeats in an interleaved compare.
  const off = { timing: false, timingSet: true };
  assert.deepEqual(midpointTiming(true, ['counters.threadCpuMs'], on, on), { timing: 'only' });
  assert.deepEqual(midpointTiming(true, ['counters.threadCpuMs', 'longFrames.blockingMs'], on, on), { timing: 'only' });
  // The endpoints' comparison keeps its attribution repeats: the answer's "what grew" comes from it.
  assert.deepEqual(midpointTiming(false, ['counters.threadCpuMs'], on, on), {});
  // A count is read from every repeat, and some counts only from the profiled ones: one among the followed keeps them.
  assert.deepEqual(midpointTiming(true, ['load.transferBytes'], on, on), {});
  assert.deepEqual(midpointTiming(true, ['counters.threadCpuMs', 'counters.layouts'], on, on), {});
  assert.deepEqual(midpointTiming(true, ['counters.threadCpuMs'], on, off), {});
  assert.deepEqual(midpointTiming(true, null, on, on), {});
  assert.deepEqual(midpointTiming(true, [], on, on), {});
  assert.deepEqual(midpointTiming(true, ['counters.threadCpuMs'], { timing: false }, { timing: false }), { timing: 'only' });
  assert.deepEqual(repeatSchedule(4, 'only'), ['timing', 'timing', 'timing', 'timing']);
  assert.deepEqual(repeatSchedule(4, true), ['timing', 'attribution', 'timing', 'timing', 'attribution', 'timing']);
  assert.deepEqual(repeatSlots(4, 6, 'only'), ['timing', 'timing']);
  assert.deepEqual(repeatSchedule(2, false), ['attribution', 'attribution']);
});

test(
  'the search tests the commits git bisect would, in the same state, ties and a skipped commit included',
  { timeout: 60_000 },
  async () => {
    // Fresh repositories have fresh hashes, and git breaks ties between equally good midpoints by hash once a commit
    // was skipped: four repositories meet both orders of the ties (c11 or c12, then c9 or c10) with good odds.
    for (let n = 0; n < 4; n++) {
      const dir = mkdtempSync(join(tmpdir(), 'rehearse-midpoint-'));
      try {
        const repo = gitRepo(dir);
        const all = Array.from({ length: 16 }, (_, i) => ({ commit: repo.commit(`c${i}`, { f: `${i} ${n} ${Math.random()}` }) }));
        const at = (sha: string): number => all.findIndex((c) => c.commit === sha);
        repo.git('bisect', 'start', all[15]!.commit, all[0]!.commit);
        // A build broken at c7 (skipped) and the regression from c11, as bench/bisect.ts has them.
        let [lo, hi] = [0, 15];
        const skipped = new Set<number>();
        for (let step = 0; step < 8; step++) {
          const ours = await midpoint(dir, all, lo, hi, skipped);
          if (ours === undefined) break;
          assert.equal(ours, at(repo.git('rev-parse', 'HEAD')), `step ${step}: git bisect checked out another commit than ours`);
          const verdict = ours === 7 ? 'skip' : ours >= 11 ? 'bad' : 'good';
          repo.git('bisect', verdict);
          if (verdict === 'skip') skipped.add(ours);
          else if (verdict === 'bad') hi = ours;
          else lo = ours;
        }
        assert.equal(hi, 11);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  },
);
