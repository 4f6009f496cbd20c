/**
 * `perf bisect GOOD BAD scenario.yaml` at its defaults names the commit that added a CPU-only regression (issue 56 item
 * 6): a 16-commit history of a third-party app, the Tabulator grid of bench/verdict-pages laid out by bench/verdict-apps.ts
 * with its scenario as the bench has it (no gate metrics, no thresholds, no flags), whose commit 11 makes the grid's
 * scroll tracker spend 8 ms of main-thread work per scroll event. Nothing but time moves: the layouts, style recalcs,
 * DOM and heap stay the same, so the search must follow the gate's timing primaries that regressed. Before, it followed
 * the primary that "regressed most" (a heap size one byte off) and said "not reproduced" after the endpoints.
 *
 * The verdicts depend on measured time, and one bisect takes 6 to 10 minutes on 2 cores: `npm run bench:bisect-scroll`,
 * not the test suite (which holds bisect's logic in test/bisect*.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { layOutVerdictApps } from './verdict-apps.js';
import { gitRepo, perfCli } from '../test/helpers.js';

// 16 commits: GOOD (0), 14 between, BAD (15), as the target has it.
const COMMITS = 16;
// Past the middle, so the search goes right, then left (bench/bisect.ts places its culprit there too).
const CULPRIT = 11;
// The grid's scroll tracker reads its work per event from ?slow=N (0 in the scenario); the culprit adds 8 ms to it.
const SLOW_READ = "var slow = Number(new URLSearchParams(location.search).get('slow') || 0);";
const SLOWED = "var slow = Number(new URLSearchParams(location.search).get('slow') || 0) + 8; // row statistics on scroll";
// A bisect is ~5 comparisons of up to 20 repeats per arm of a few seconds each: 401 s at a load average of 12 on 2 cores,
// and past 600 s at 13–15 (the endpoints and two midpoints at their 20 repeats, on the right path): room for a loaded host.
const BISECT_TIMEOUT_MS = 900_000;

test(
  'perf bisect at its defaults names the commit that added an 8 ms scroll handler to a Tabulator grid (a CPU-only regression)',
  { timeout: BISECT_TIMEOUT_MS + 60_000 },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rehearse-bisect-scroll-'));
    try {
      const apps = layOutVerdictApps(join(dir, 'repo'));
      const repo = gitRepo(apps.dir, { '.gitignore': 'build/\n' });
      const grid = readFileSync(join(apps.dir, 'app/grid.js'), 'utf8');
      assert.ok(grid.includes(SLOW_READ), 'grid.js reads its scroll work from ?slow=N');
      const commits: string[] = [];
      for (let i = 0; i < COMMITS; i++) {
        // The others change what does not run: a changelog line each.
        const changes = Array.from({ length: i + 1 }, (_, k) => `- change ${k}`).join('\n') + '\n';
        const files: Record<string, string> = { 'CHANGES.md': changes };
        if (i === CULPRIT) files['app/grid.js'] = grid.replace(SLOW_READ, SLOWED);
        commits.push(repo.commit(i === CULPRIT ? `c${i}: row statistics on every scroll` : `c${i}: changelog`, files));
      }
      const r = await perfCli(repo.dir, ['bisect', commits[0]!, commits.at(-1)!, 'tabulator-scroll.yaml', '--json'], BISECT_TIMEOUT_MS);
      assert.equal(r.code, 0, r.stderr);
      const j = JSON.parse(r.stdout) as {
        outcome: string;
        metric: string;
        followed: { metric: string; why: string }[];
        culprit?: { commit: string; delta: { judgement: string } };
        tested: { commit: string; verdict: string; comparisons: { metric: string | null; deltaPct: number | null; why?: string }[] }[];
      };
      // On a failure, the path and each comparison's figures: what the endpoints read, where the search went.
      const shown = (c: { metric: string | null; deltaPct: number | null; why?: string }): string =>
        `${c.metric} ${c.deltaPct} ${c.why ?? ''}`;
      const path = j.tested.map((t) => `c${commits.indexOf(t.commit)} ${t.verdict}: ${t.comparisons.map(shown).join('; ')}`).join('\n');
      assert.equal(j.outcome, 'found', path);
      assert.equal(j.culprit!.commit, commits[CULPRIT], `named c${commits.indexOf(j.culprit!.commit)}: ${path}`);
      // What it followed: the gate's primaries that regressed, each with why; the one the culprit was judged on among them.
      assert.ok(j.followed.length >= 1, JSON.stringify(j.followed));
      for (const f of j.followed) assert.match(f.why, /^a primary of the gate, /);
      assert.ok(
        j.followed.some((f) => f.metric === j.metric),
        `${j.metric} among ${j.followed.map((f) => f.metric).join(', ')}`,
      );
      // What moved is time: a time is followed (not only a count or the heap, as the search once did).
      assert.ok(
        j.followed.some((f) => /Ms($|\.)/.test(f.metric)),
        j.followed.map((f) => f.metric).join(', '),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
