/**
 * Selenium Grid end to end, against a real Grid 4 on 127.0.0.1 (npm's selenium-server jar, Java 17,
 * Debian's chromedriver): `perf run --grid` and `perf gate --grid` on a standalone server, a scenario
 * naming the Grid in `browser.endpoint` with browser restarts (a new session per repeat), no session
 * left on the Grid afterwards (also after Ctrl-C), and MCP `app_start {grid}` driving a Grid session
 * that `app_stop` deletes; a Grid that is not there is exit 3 naming it; `--parallel` without a Grid is
 * refused. The hub with two nodes and the Grid with credentials are in grid-hub.test.ts (one file per
 * few minutes of work: a test file has the suite's deadline too). Every Java process tree is killed at
 * the end of its test.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { RunFile } from '../src/perf/run-file.js';
import { ROOT } from './helpers.js';
import { freePort, gridLog, gridSessions, sessionsAfterDelete, startStandalone, type GridProcess } from './grid-server.js';
import { copyBaselinesFromAnotherCpu, DIALOG, LIST, PERF, perf, perfAsync, skip, SMALL, until, work } from './grid-cli.js';

after(() => rmSync(work, { recursive: true, force: true }));
before(copyBaselinesFromAnotherCpu);

test(
  'standalone Grid: perf run and perf gate through --grid; browser.endpoint selenium+URL with a session per browser restart; no session left, also after Ctrl-C',
  { skip, timeout: 600_000 },
  async () => {
    let grid: GridProcess | undefined;
    try {
      grid = await startStandalone();
      const run = perf(['run', DIALOG, '--grid', grid.url, '--repeat', '2', '--warmup', '0', '--out', 'run', '--json']);
      assert.equal(run.code, 0, run.stderr);
      const j = JSON.parse(run.stdout) as RunFile;
      assert.equal(j.summary.measured, 2);
      assert.equal(j.env.browser.endpoint, `selenium+${grid.url}`);
      assert.match(j.env.browser.product, /Chrome\//);
      assert.equal(await sessionsAfterDelete(grid.url), 0, 'the session was deleted');

      const gate = perf(['gate', LIST, '--variant', 'desktop', '--baselines', 'baselines', '--grid', grid.url, ...SMALL, '--json']);
      assert.equal(gate.code, 0, gate.stdout + gate.stderr);
      const g = JSON.parse(gate.stdout) as { verdict: string; runs: { id: string; status: string }[] };
      assert.deepEqual(
        g.runs.map((r) => `${r.id}:${r.status}`),
        ['list-scroll-desktop:compared'],
      );
      assert.equal(g.verdict, 'pass');
      const jank = perf([
        'gate',
        LIST,
        '--variant',
        'desktop',
        '--baselines',
        'baselines',
        '--grid',
        grid.url,
        ...SMALL,
        '--var',
        'jank=1',
      ]);
      assert.equal(jank.code, 1, jank.stdout + jank.stderr);
      assert.match(jank.stdout, /FAIL {4}list-scroll-desktop .*counters\.layouts/);
      assert.equal(await sessionsAfterDelete(grid.url), 0);

      // The Grid named in the scenario; restart: browser makes every repeat a session of its own.
      const created = (): number => (gridLog(grid!).match(/Session created by the Node/g) ?? []).length;
      const before = created();
      const yaml = join(work, 'on-grid.yaml');
      writeFileSync(
        yaml,
        [
          `name: on-grid`,
          `app: { serve: ${join(ROOT, 'scenarios/app')}, path: /dialog.html }`,
          `browser: { endpoint: "selenium+${grid.url}", restart: browser }`,
          `steps:`,
          `  - tap: "Open dialog"`,
          '',
        ].join('\n'),
      );
      const own = perf(['run', yaml, '--allow-outside', '--repeat', '3', '--warmup', '0', '--out', 'own', '--json']);
      assert.equal(own.code, 0, own.stderr);
      const ownRun = JSON.parse(readFileSync(join(work, 'own/on-grid-run.json'), 'utf8')) as RunFile;
      assert.equal(ownRun.summary.repeats, 3);
      // A repeat may fail on a loaded machine (the tap's wait), or be refused when its one-tap window
      // painted a single frame; the sessions are what is under test here.
      assert.ok(
        ownRun.summary.measured + ownRun.summary.refused >= 2,
        JSON.stringify(ownRun.repeats.map((r) => (r.status === 'failed' ? r.failure.error.message : r.status))),
      );
      assert.equal(created() - before, 3, 'one session per repeat');
      assert.equal(await sessionsAfterDelete(grid.url), 0);

      // perf run --against --grid: both arms in one Grid session (one node), deleted at the end.
      const sessionsBefore = created();
      const ab = perf(['run', DIALOG, '--against', DIALOG, '--grid', grid.url, '--label', 'ab', ...SMALL, '--out', 'ab', '--json']);
      assert.ok(ab.code === 0 || ab.code === 1, ab.stderr);
      const abj = JSON.parse(ab.stdout) as { baseline: RunFile; candidate: RunFile };
      for (const role of ['baseline', 'candidate'] as const) {
        const arm = abj[role];
        assert.equal(arm.env.browser.endpoint, `selenium+${grid.url}`, role);
        assert.deepEqual([arm.against?.role, arm.against?.order], [role, 'ABBA']);
        assert.ok(arm.summary.measured >= 1, `${role}: ${JSON.stringify(arm.summary)}`);
      }
      assert.equal(created() - sessionsBefore, 1, 'one session for both arms');
      assert.equal(await sessionsAfterDelete(grid.url), 0);

      // perf start --grid: a session that outlives the command, driven by step verbs, deleted on stop.
      const started = perf([
        'start',
        '--serve',
        join(ROOT, 'scenarios/app'),
        '--allow-outside',
        '--path',
        '/dialog.html',
        '--grid',
        grid.url,
        '--json',
      ]);
      assert.equal(started.code, 0, started.stderr);
      assert.equal((JSON.parse(started.stdout) as { grid?: { url: string } }).grid?.url, grid.url);
      assert.equal(await gridSessions(grid.url), 1);
      const snap = perf(['snap']);
      assert.equal(snap.code, 0, snap.stderr);
      assert.match(snap.stdout, /Open dialog/);
      const tapped = perf(['tap', 'Open dialog']);
      assert.equal(tapped.code, 0, tapped.stderr);
      const status = JSON.parse(perf(['status', '--json']).stdout) as { running: boolean; alive: { chrome: boolean } };
      assert.deepEqual([status.running, status.alive.chrome], [true, true]);
      assert.equal(perf(['stop']).code, 0);
      assert.equal(await sessionsAfterDelete(grid.url), 0, 'perf stop deleted the session');

      // MCP app_start {grid}: the agent's session is a Grid session too, deleted by app_stop.
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [PERF, 'mcp', '--allow-outside'],
        cwd: work,
        env: { ...(process.env as Record<string, string>), GITHUB_STEP_SUMMARY: '' },
        stderr: 'pipe',
      });
      const client = new Client({ name: 'rehearse-grid-test', version: '0.0.0' });
      await client.connect(transport);
      try {
        const call = async (
          name: string,
          args: Record<string, unknown> = {},
        ): Promise<{ isError: boolean; json: { data?: Record<string, unknown>; code?: string } }> => {
          const res = (await client.callTool({ name, arguments: args })) as {
            isError?: boolean;
            content: { type: string; text?: string }[];
          };
          return {
            isError: res.isError === true,
            json: JSON.parse(res.content.find((c) => c.type === 'text')?.text ?? '{}') as { data?: Record<string, unknown>; code?: string },
          };
        };
        const mcpStart = await call('app_start', { serve: join(ROOT, 'scenarios/app'), path: '/dialog.html', grid: grid.url });
        assert.equal(mcpStart.isError, false, JSON.stringify(mcpStart.json));
        assert.equal((mcpStart.json.data?.grid as { url?: string } | undefined)?.url, grid.url);
        assert.equal(await gridSessions(grid.url), 1);
        const mcpTap = await call('tap', { target: { role: 'button', name: 'Open dialog' } });
        assert.equal(mcpTap.isError, false, JSON.stringify(mcpTap.json));
        const dialog = await call('snap', { grep: 'Confirm' });
        assert.match(String(dialog.json.data?.snapshot), /dialog "Confirm"/);
        assert.equal((await call('app_stop')).isError, false);
        assert.equal(await sessionsAfterDelete(grid.url), 0, 'app_stop deleted the session');
      } finally {
        await client.close();
      }

      // Ctrl-C mid-run: the run file is written (interrupted) and the session deleted.
      const p = perfAsync(['run', DIALOG, '--grid', grid.url, '--repeat', '30', '--warmup', '0', '--out', 'int']);
      await until('a Grid session', async () => (await gridSessions(grid!.url)) === 1);
      await new Promise((r) => setTimeout(r, 3000));
      p.kill('SIGINT');
      const r = await p.done;
      assert.equal(r.code, 130, r.stderr);
      // Deleted by the Ctrl-C cleanup, or (when the Grid takes longer than its 5 s) by the watchdog just after.
      assert.equal(await sessionsAfterDelete(grid.url, { timeoutMs: 40_000 }), 0, 'the session deleted after Ctrl-C');
    } finally {
      await grid?.stop();
    }
  },
);

test(
  'a Grid that is not there → exit 3 naming it, never a pass; --parallel without a Grid → exit 2 with the reason',
  { skip, timeout: 300_000 },
  async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const run = perf(['run', DIALOG, '--grid', url, '--repeat', '1', '--warmup', '0', '--out', 'none']);
    assert.equal(run.code, 3, run.stderr);
    assert.match(run.stderr, new RegExp(`perf: Selenium Grid at ${url}: could not create a Chromium session: .*unreachable`));
    const gate = perf(['gate', DIALOG, '--baselines', 'baselines', '--grid', url, '--repeat', '1', '--warmup', '0']);
    assert.equal(gate.code, 3, gate.stdout + gate.stderr);
    assert.match(gate.stdout, /ERROR {3}dialog +Selenium Grid at/);

    const par = perf(['gate', DIALOG, '--baselines', 'baselines', '--parallel', '2']);
    assert.equal(par.code, 2);
    assert.match(par.stderr, /--parallel 2 needs a Selenium Grid \(--grid URL\): runs in parallel on this one machine would share its CPU/);
    const bad = perf(['gate', DIALOG, '--grid', 'localhost:4444']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--grid must be a Selenium Grid URL/);
  },
);
