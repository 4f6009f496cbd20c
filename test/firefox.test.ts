/**
 * Firefox over WebDriver BiDi (the bidi driver), against the real firefox-esr: the project's own scenario
 * files with only `browser: { engine: firefox }` added, a measured load, and a `perf start` session driven
 * over MCP. Firefox's profile goes under a TMPDIR of the test's own, so "nothing left behind" is checked for
 * this test's Firefox alone (other jobs on the machine may run theirs).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { describe, test } from 'node:test';
import { firefoxBinary } from '../src/drivers/bidi/firefox.js';
import { sleep } from '../src/processes.js';
import { stdioServer } from './mcp-client.js';
import { firefoxProjects, type Project } from './firefox-projects.js';
import { DEMO_DIR, FIXTURES_DIR, perfCli, refOf, ROOT } from './helpers.js';

const NO_FIREFOX = firefoxBinary() ? false : 'Firefox not installed (apt-get install firefox-esr)';
// Two repeats of a short flow plus Firefox's start, on a loaded 2-core machine.
const RUN_TIMEOUT_MS = 150_000;

const projects = firefoxProjects('rehearse-firefox-test-', RUN_TIMEOUT_MS);
const perf = projects.perf;
/** A project holding the demo app and copies of scenario files, each with only the engine key added; its own TMPDIR. */
function project(scenarios: string[]): Project {
  const p = projects.create();
  fs.cpSync(DEMO_DIR, path.join(p.dir, 'app'), { recursive: true });
  for (const name of scenarios) {
    const text = fs.readFileSync(path.join(ROOT, 'scenarios', name), 'utf8');
    fs.writeFileSync(path.join(p.dir, name), `${text.trimEnd()}\nbrowser: { engine: firefox }\n`);
  }
  return p;
}

/** perf ARGS without blocking this process: a server of the test's own answers while it runs. */
function cli(p: Project, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return perfCli(p.dir, args, RUN_TIMEOUT_MS, { TMPDIR: p.tmp });
}

/** Processes whose command line names `tmp` (this test's Firefox profiles live there), once they had 5 s to exit. */
async function leftIn(tmp: string): Promise<string[]> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const r = spawnSync('pgrep', ['-af', tmp], { encoding: 'utf8' });
    const found = r.stdout.split('\n').filter((l) => l.trim() && !l.includes('pgrep'));
    if (found.length === 0 || Date.now() > deadline) return found;
    await sleep(200);
  }
}

interface Stat {
  median: number;
  n: number;
}
function runFile(dir: string, name: string): { env: any; summary: { metrics: Record<string, Stat> }; repeats: any[] } {
  return JSON.parse(fs.readFileSync(path.join(dir, 'build', 'perf', `${name}-run.json`), 'utf8'));
}

describe('Firefox over WebDriver BiDi', { skip: NO_FIREFOX, timeout: 600_000 }, () => {
  test(
    'scenarios/form-submit.yaml with engine firefox: 2 repeats in new user contexts, interactions measured',
    { timeout: RUN_TIMEOUT_MS },
    async () => {
      const p = project(['form-submit.yaml']);
      const r = perf(p, ['run', 'form-submit.yaml', '--repeat', '2', '--warmup', '0']);
      assert.equal(r.code, 0, r.stderr + r.stdout);
      const run = runFile(p.dir, 'form-submit');
      assert.equal(run.env.browser.driver, 'bidi');
      assert.equal(run.env.browser.engine, 'firefox');
      assert.match(run.env.browser.product, /^firefox\//);
      assert.equal(run.env.restartMode, 'context');
      const m = run.summary.metrics;
      assert.equal(m['durationMs']!.n, 2);
      // Two taps (a radio, Submit) and the checkbox/switch clicks: Event Timing sees each as an interaction.
      assert.ok(m['interactions.count']!.median >= 2, JSON.stringify(m['interactions.count']));
      assert.ok(m['interactions.latencyMs.worst']!.n === 2);
      assert.ok(m['frames.count']!.median > 0);
      assert.ok(m['steps.submit.ms']!.n === 2);
      // What Firefox cannot give is declared, with its reason, not measured as zero.
      const report = run.repeats.find((x) => x.report)!.report;
      assert.equal(report.coverage.longFrames, 'missing');
      assert.equal(report.coverage.trace, 'missing');
      assert.equal(m['longFrames.count'], undefined);
      assert.deepEqual(await leftIn(p.tmp), []);
    },
  );

  test(
    'scenarios/page-load.yaml with engine firefox (measure: load): FCP, LCP, bytes by type; browser restarts',
    { timeout: RUN_TIMEOUT_MS },
    async () => {
      const p = project(['page-load.yaml']);
      const r = perf(p, ['run', 'page-load.yaml', '--repeat', '2', '--warmup', '0', '--restart', 'browser']);
      assert.equal(r.code, 0, r.stderr + r.stdout);
      const run = runFile(p.dir, 'page-load');
      assert.equal(run.env.restartMode, 'browser');
      const m = run.summary.metrics;
      for (const k of ['load.fcpMs', 'load.lcpMs', 'load.ttfbMs', 'load.loadEventMs'])
        assert.ok(m[k] && m[k].n === 2 && m[k].median > 0, k);
      assert.equal(m['load.requests']!.median, 5);
      assert.ok(m['load.transferBytes.script']!.median > 0 && m['load.transferBytes.stylesheet']!.median > 0);
      // The scenario's steps ran after the load: the filter narrowed the list.
      assert.equal(m['steps.rows-narrowed.ms']!.n, 2);
      assert.deepEqual(await leftIn(p.tmp), []);
    },
  );

  test(
    'test/fixtures/load (measure: load): 5 requests, each type its body plus the real headers BiDi counted, equal across repeats',
    { timeout: RUN_TIMEOUT_MS },
    () => {
      const p = project([]);
      fs.cpSync(path.join(FIXTURES_DIR, 'load'), path.join(p.dir, 'load-app'), { recursive: true });
      const scenario = 'name: fixture-load\napp: { serve: ./load-app, path: /index.html }\nmeasure: load\nsteps: []\n';
      fs.writeFileSync(path.join(p.dir, 'fixture-load.yaml'), `${scenario}browser: { engine: firefox }\n`);
      const r = perf(p, ['run', 'fixture-load.yaml', '--repeat', '2', '--warmup', '0']);
      assert.equal(r.code, 0, r.stderr + r.stdout);
      const measured = runFile(p.dir, 'fixture-load').repeats.filter((x) => x.status === 'measured');
      // Two timing repeats, each in a user context of its own: Firefox records no CPU profile, so no attribution repeat.
      assert.deepEqual(
        measured.map((x) => x.mode),
        ['timing', 'timing'],
      );
      const body = (f: string): number => fs.statSync(path.join(FIXTURES_DIR, 'load', f)).size;
      const files = { document: 'index.html', stylesheet: 'app.css', script: 'app.js', image: 'hero.png', font: 'font.woff' };
      const byType = measured.map((rep) => {
        const m = rep.report.metrics as Record<string, number>;
        const ctx = JSON.stringify(rep.report.load.requests);
        assert.equal(m['load.requests'], 5, ctx);
        assert.equal(m['load.transferBytes.fetch'], 0, ctx);
        assert.equal(m['load.transferBytes.other'], 0, ctx);
        for (const [type, file] of Object.entries(files)) {
          // BiDi's bytesReceived: the body and this server's real headers (~170 B). Resource Timing's transferSize,
          // read before, was the body plus a fixed 300 for every response.
          const headers = m[`load.transferBytes.${type}`]! - body(file);
          assert.ok(headers >= 80 && headers < 300, `${type}: ${headers} B of headers; ${ctx}`);
        }
        // The request list (the waterfall the run file and perf_load show) carries the same bytes as the metrics.
        const list = rep.report.load.requests as { url: string; transferBytes: number }[];
        assert.deepEqual(list.map((x) => x.url.split('/').pop()).sort(), Object.values(files).sort());
        assert.equal(
          list.reduce((sum, x) => sum + x.transferBytes, 0),
          m['load.transferBytes'],
        );
        return Object.keys(files).map((t) => m[`load.transferBytes.${t}`]);
      });
      assert.deepEqual(byType[1], byType[0]);
    },
  );

  test(
    'perf state save and load in a Firefox session; a state whose origin no server answers is exit 3, not an internal error',
    { timeout: RUN_TIMEOUT_MS },
    async () => {
      const p = project([]);
      assert.equal(perf(p, ['start', '--serve', 'app', '--path', '/form.html', '--engine', 'firefox']).code, 0);
      const set = perf(p, ['evaluate', '--expression', 'document.cookie = "k=v1; path=/"; localStorage.setItem("a", "1"); 1']);
      assert.equal(set.code, 0, set.stderr);
      assert.equal(perf(p, ['state', 'save', 'st.json']).code, 0);
      const saved = JSON.parse(fs.readFileSync(path.join(p.dir, 'st.json'), 'utf8'));
      assert.deepEqual(
        saved.cookies.map((c: { name: string; value: string }) => `${c.name}=${c.value}`),
        ['k=v1'],
      );
      assert.deepEqual(saved.origins[0].localStorage, [{ name: 'a', value: '1' }]);
      // The same state on a port nothing listens on (a server opened and closed here).
      const closed = net.createServer();
      await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
      const port = (closed.address() as net.AddressInfo).port;
      await new Promise<void>((r) => closed.close(() => r()));
      saved.origins[0].origin = `http://127.0.0.1:${port}`;
      fs.writeFileSync(path.join(p.dir, 'gone.json'), JSON.stringify(saved), { mode: 0o600 });
      const load = perf(p, ['state', 'load', 'gone.json']);
      assert.equal(load.code, 3, load.stderr);
      assert.match(load.stderr, new RegExp(`could not open http://127\\.0\\.0\\.1:${port} to restore its saved cookies and storage`));
      assert.doesNotMatch(load.stderr, /internal error/);
      assert.equal(perf(p, ['stop']).code, 0);
      assert.deepEqual(await leftIn(p.tmp), []);
    },
  );

  test(
    'wait_for_network_idle in Firefox sees image requests over BiDi (no fetch counter sees them): in flight, then idle',
    { timeout: RUN_TIMEOUT_MS },
    async () => {
      // Every /hold request waits here until released: whether the step reports it in flight is no matter of timing.
      const held: http.ServerResponse[] = [];
      const server = http.createServer((_, res) => held.push(res));
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
      const port = (server.address() as net.AddressInfo).port;
      const p = project([]);
      try {
        assert.equal((await cli(p, ['start', '--serve', 'app', '--path', '/form.html', '--engine', 'firefox'])).code, 0);
        // Images, not fetch: the in-page counter of pending fetch/XHR never sees them, only the browser's network does.
        // A new one every 100 ms, so each verb's own BiDi subscription sees some start.
        const start = `window.holdTimer = setInterval(() => { new Image().src = "http://127.0.0.1:${port}/hold?" + Math.random(); }, 100); 1`;
        assert.equal((await cli(p, ['evaluate', '--expression', start])).code, 0);
        const busy = await cli(p, ['wait_for_network_idle', '--idle-ms', '300', '--timeout-ms', '2000', '--json']);
        assert.equal(busy.code, 0, busy.stderr);
        const b = JSON.parse(busy.stdout) as { data: { idle: boolean; inFlight?: string[] } };
        assert.equal(b.data.idle, false, busy.stdout);
        assert.ok(
          b.data.inFlight?.some((u) => u.includes(`:${port}/hold`)),
          busy.stdout,
        );
        assert.equal((await cli(p, ['evaluate', '--expression', 'clearInterval(window.holdTimer); 1'])).code, 0);
        for (const res of held.splice(0)) res.writeHead(404).end();
        const quiet = await cli(p, ['wait_for_network_idle', '--idle-ms', '300', '--timeout-ms', '10000', '--json']);
        assert.equal(quiet.code, 0, quiet.stderr);
        assert.equal((JSON.parse(quiet.stdout) as { data: { idle: boolean } }).data.idle, true, quiet.stdout);
        assert.equal((await cli(p, ['stop'])).code, 0);
      } finally {
        for (const res of held) res.destroy();
        server.close();
      }
      assert.deepEqual(await leftIn(p.tmp), []);
    },
  );

  test('restart reload keeps one tab and navigates it anew each repeat', { timeout: RUN_TIMEOUT_MS }, async () => {
    const p = project(['form-submit.yaml']);
    const r = perf(p, ['run', 'form-submit.yaml', '--repeat', '2', '--warmup', '0', '--restart', 'reload']);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    const run = runFile(p.dir, 'form-submit');
    assert.equal(run.env.restartMode, 'reload');
    // The form starts unfilled each time: the second repeat's flow passed too (the expect at its end).
    assert.equal(run.summary.metrics['steps.submit.ms']!.n, 2);
    assert.deepEqual(await leftIn(p.tmp), []);
  });

  test('a scenario refuses what Firefox over BiDi cannot do, at its line, before Firefox starts', { timeout: 30_000 }, () => {
    const p = project(['form-submit.yaml']);
    fs.appendFileSync(path.join(p.dir, 'form-submit.yaml'), 'cpuThrottle: 4\n');
    const r = perf(p, ['run', 'form-submit.yaml']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /cpuThrottle.*Firefox over BiDi cannot throttle the CPU/);
  });

  test('MCP app_start {engine: firefox}, snap, tap by ref, app_stop: nothing left', { timeout: RUN_TIMEOUT_MS }, async () => {
    const p = project([]);
    const mcp = await stdioServer(p.dir, { name: 'firefox-test', callTimeoutMs: 90_000, env: { TMPDIR: p.tmp } });
    try {
      const mixed = await mcp.call('app_start', { serve: 'app', engine: 'firefox', driver: 'cdp' });
      assert.equal(mixed.isError, true);
      assert.match(mixed.text, /--engine firefox is driven over BiDi, not --driver cdp/);
      const start = await mcp.call('app_start', { serve: 'app', path: '/form.html', engine: 'firefox' });
      assert.equal(start.isError, false, start.text);
      const data = (start.json as { data: { driver: string; engine: string } }).data;
      assert.deepEqual([data.driver, data.engine], ['bidi', 'firefox']);
      const snap = await mcp.call('snap', {});
      assert.equal(snap.isError, false, snap.text);
      const snapshot = String((snap.json as { data?: { snapshot?: string } } | undefined)?.data?.snapshot);
      const pro = refOf(snapshot, 'radio', 'Pro');
      const tap = await mcp.call('tap', { ref: pro });
      assert.equal(tap.isError, false, tap.text);
      const seen = await mcp.call('snap', { grep: 'Pro' });
      assert.match(String((seen.json as { data: { snapshot: string } }).data.snapshot), /radio "Pro" \[checked\]/);
      const status = await mcp.call('app_status', {});
      assert.equal((status.json as { data: { running: boolean } }).data.running, true, status.text);
      const stop = await mcp.call('app_stop', {});
      assert.equal(stop.isError, false, stop.text);
    } finally {
      await mcp.close();
    }
    assert.deepEqual(await leftIn(p.tmp), []);
  });
});
