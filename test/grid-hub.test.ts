/**
 * Selenium Grid end to end, part two: a hub with two nodes (`perf gate --parallel 2` gives the serial
 * gate's verdicts; a node frozen mid-gate gives exit 3 for its run and no orphaned session), and a Grid
 * that asks for credentials (Basic auth, never shown). Every Java process tree is killed at the end of
 * its test.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { RunFile } from '../src/perf/run-file.js';
import { gridSessions, sessionsAfterDelete, startHubAndNodes, startStandalone } from './grid-server.js';
import { copyBaselinesFromAnotherCpu, DIALOG, LIST, perf, perfAsync, skip, SMALL, until, work } from './grid-cli.js';

after(() => rmSync(work, { recursive: true, force: true }));
before(copyBaselinesFromAnotherCpu);

/** How many runs under `out` have checkpointed their first repeat's trace (.<run>-traces/repeat0.json). */
function firstRepeats(out: string): number {
  if (!existsSync(out)) return 0;
  return readdirSync(out).filter((d) => /^\..+-traces$/.test(d) && existsSync(join(out, d, 'repeat0.json'))).length;
}

test(
  'hub + two nodes: perf gate --parallel 2 gives the verdicts of a serial gate; a node that hangs mid-gate (frozen: no connection closes) → exit 3 for its run, no session left',
  { skip, timeout: 600_000 },
  async (t) => {
    const grid = await startHubAndNodes(2);
    try {
      const args = [
        'gate',
        LIST,
        '--variant',
        'desktop',
        DIALOG,
        '--baselines',
        'baselines',
        '--grid',
        grid.url,
        ...SMALL,
        '--var',
        'jank=1',
        '--json',
      ];
      // What a serial gate says of these two (grid.test runs it on a Grid: jank fails the list on its layout count,
      // the dialog has no jank switch and passes), in the gate's order (arguments, then variants), whichever
      // finished first. Not run serially again here: it would only repeat grid.test's browser work.
      const parallel = perf([...args, '--out', 'parallel', '--parallel', '2']);
      assert.equal(parallel.code, 1, parallel.stderr);
      const v = (out: string): string[] =>
        (JSON.parse(out) as { runs: { id: string; status: string; verdict: string }[] }).runs.map(
          (r) => `${r.id}:${r.status}:${r.verdict}`,
        );
      assert.deepEqual(v(parallel.stdout), ['list-scroll-desktop:compared:fail', 'dialog:compared:pass']);
      assert.equal(await sessionsAfterDelete(grid.url), 0);

      // Freeze one node while both run (a hung node or a dropped network: its connections stay open and
      // silent, the case a crash does not show): the run on it ends with exit 3 (environment), not a pass,
      // found by the session watch rather than by each command's own 30 s deadline.
      const p = perfAsync([
        'gate',
        LIST,
        '--variant',
        'desktop',
        DIALOG,
        '--baselines',
        'baselines',
        '--grid',
        grid.url,
        // Enough repeats that both runs are still going after each has measured one, when one node is frozen.
        '--repeat',
        '10',
        '--warmup',
        '0',
        '--fixed',
        '--parallel',
        '2',
        '--out',
        'killed',
        '--json',
      ]);
      // Frozen mid-run: once each run has measured a repeat (its checkpointed trace). Two sessions listed by the hub is
      // not enough: a node frozen before its new-session reply is relayed leaves that run waiting on the new-session
      // deadline (120 s, as long as a busy Grid may queue), not on the watch this test is about.
      await until('two Grid sessions', async () => (await gridSessions(grid.url)) === 2, 120_000);
      await until('a measured repeat in each run', async () => firstRepeats(join(work, 'killed')) === 2, 120_000);
      grid.nodes[0]!.freeze();
      const frozenAt = Date.now();
      const r = await p.done;
      const reported = p.stderrAt(/Selenium Grid/);
      t.diagnostic(
        `frozen node reported after ${reported ? ((reported - frozenAt) / 1000).toFixed(1) : '?'} s; gate exited after ${((Date.now() - frozenAt) / 1000).toFixed(1)} s`,
      );
      assert.equal(r.code, 3, r.stdout + r.stderr);
      const runs = (JSON.parse(r.stdout) as { runs: { id: string; status: string; error?: { code: string; kind: string } }[] }).runs;
      const lost = runs.filter((x) => x.status === 'error');
      assert.equal(lost.length, 1, r.stdout);
      assert.equal(lost[0]!.error!.kind, 'environment');
      assert.match(lost[0]!.error!.code, /^grid_/);
      // The killed node's slot may be listed (even as UP) until the hub's health check finds it gone;
      // the node left running holds nothing.
      assert.equal(await sessionsAfterDelete(grid.url, { node: grid.nodes[1]!.url }), 0, 'no session on the live node');
    } finally {
      await grid.stop();
    }
  },
);

test(
  'a Grid that asks for credentials (user:key@ in the URL, as cloud Grids do): sent as Basic auth, shown as user:***@ everywhere',
  { skip, timeout: 300_000 },
  async () => {
    const KEY = 'k3y-9f2c41';
    const grid = await startStandalone({ auth: { user: 'ada', password: KEY } });
    try {
      const shown = grid.url.replace(`ada:${KEY}@`, 'ada:***@');
      const run = perf(['run', DIALOG, '--grid', grid.url, '--repeat', '1', '--warmup', '0', '--out', 'auth', '--json']);
      assert.equal(run.code, 0, run.stderr.replaceAll(KEY, '<key>'));
      const j = JSON.parse(run.stdout) as RunFile;
      assert.equal(j.summary.measured + j.summary.refused, 1);
      assert.equal(j.env.browser.endpoint, `selenium+${shown}`);
      const file = readFileSync(join(work, 'auth/dialog-run.json'), 'utf8');
      for (const text of [run.stdout, run.stderr, file]) assert.ok(!text.includes(KEY), 'the key is never shown');
      // 30 s at most (sessionsAfterDelete), a tenth of the Grid's 300 s idle-session timeout: a session perf never
      // deleted still fails this.
      assert.equal(await sessionsAfterDelete(grid.url), 0, 'the session deleted (with the credentials)');

      // A wrong key: the Grid refuses, exit 3, and the message shows neither key.
      const wrong = perf([
        'run',
        DIALOG,
        '--grid',
        grid.url.replace(KEY, 'wrong-key-77'),
        '--repeat',
        '1',
        '--warmup',
        '0',
        '--out',
        'auth-wrong',
      ]);
      assert.equal(wrong.code, 3, wrong.stderr);
      assert.match(wrong.stderr, /Selenium Grid at http:\/\/ada:\*\*\*@127\.0\.0\.1:\d+/);
      assert.ok(!wrong.stderr.includes('wrong-key-77') && !wrong.stderr.includes(KEY), wrong.stderr);
    } finally {
      await grid.stop();
    }
  },
);
