/**
 * Scaling out, measured on a real Selenium Grid 4 on 127.0.0.1 (hub + two nodes, one Chromium slot
 * each; the jar from npm, Java 17, Debian's chromedriver):
 *
 * 1. Wall time of `perf gate` over the example scenarios, serial vs `--parallel 2`, both through the
 *    Grid (the same per-run overhead), interleaved over ROUNDS so drift hits both alike.
 * 2. The overhead of a Grid session vs a local launch, per browser: session create + CDP connect +
 *    first page, and close/DELETE, against launchChrome + connect + first page, and close.
 *
 * On this 2-core box both nodes share the same two cores, so --parallel 2 mostly measures how much
 * of a gate is waiting (app start, session set-up, I/O) rather than CPU: on a real multi-machine Grid
 * each node has its own cores and the ratio approaches 1/N for N nodes, less the session overhead.
 * (That is also why perf refuses --parallel without a Grid: timings from runs sharing a CPU are noise.)
 *
 * Usage: npm run bench:scale [ROUNDS] [SESSIONS]   (defaults 2 and 10; ROUNDS 0 times the sessions only)
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BrowserSession } from '../src/drivers/cdp/session.js';
import { gridConnector } from '../src/session/grid.js';
import { startHubAndNodes } from '../test/grid-server.js';
import { median, p25p75, timed } from './common.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PERF = join(ROOT, 'bin/perf');
const ROUNDS = Number(process.argv[2] ?? 2);
const SESSIONS = Number(process.argv[3] ?? 10);
// Small, fixed runs: the bench times the gate's orchestration across nodes, not sampling to a decision.
const GATE_ARGS = ['--repeat', '3', '--warmup', '0', '--fixed', '--quiet', '--json'];

function gateOnce(grid: string, parallel: number, out: string): number {
  const scenarios = readdirSync(join(ROOT, 'scenarios'))
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => join(ROOT, 'scenarios', f));
  const t0 = performance.now();
  const r = spawnSync(
    process.execPath,
    [
      PERF,
      'gate',
      ...scenarios,
      '--baselines',
      join(ROOT, 'baselines'),
      '--grid',
      grid,
      '--parallel',
      String(parallel),
      '--out',
      out,
      ...GATE_ARGS,
    ],
    { timeout: 600_000, encoding: 'utf8', env: { ...process.env, GITHUB_STEP_SUMMARY: '' } },
  );
  const ms = performance.now() - t0;
  if (r.status !== 0 && r.status !== 1) throw new Error(`perf gate --parallel ${parallel} exited ${r.status}: ${r.stderr.slice(-1000)}`);
  return ms;
}

const fmt = (xs: number[]): string => {
  const [a, b] = p25p75(xs);
  return `${median(xs).toFixed(0).padStart(7)} ms (p25–p75 ${a.toFixed(0)}–${b.toFixed(0)})`;
};

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'rehearse-bench-scale-'));
  const grid = await startHubAndNodes(2);
  try {
    // 1. Gate wall time, serial vs parallel, interleaved.
    const serial: number[] = [];
    const parallel: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const order = i % 2 ? [2, 1] : [1, 2];
      for (const p of order) (p === 1 ? serial : parallel).push(gateOnce(grid.url, p, join(work, `g${i}-${p}`)));
    }

    // 2. Per-browser overhead: a Grid session vs a local launch, interleaved.
    const open = { grid: [] as number[], local: [] as number[] };
    const close = { grid: [] as number[], local: [] as number[] };
    for (let i = 0; i < SESSIONS; i++) {
      for (const kind of i % 2 ? (['local', 'grid'] as const) : (['grid', 'local'] as const)) {
        let s: BrowserSession | undefined;
        open[kind].push(
          await timed(
            async () =>
              (s = await BrowserSession.open({ prewarm: 'none', ...(kind === 'grid' ? { remote: gridConnector(grid.url) } : {}) })),
          ),
        );
        close[kind].push(await timed(() => s!.close()));
      }
    }

    if (ROUNDS > 0) {
      console.log(`\nperf gate over the example scenarios (every variant, 3 fixed repeats each) on a hub + 2 nodes, ${ROUNDS} round(s)`);
      console.log(`  serial        ${fmt(serial)}`);
      console.log(`  --parallel 2  ${fmt(parallel)}`);
      console.log(
        `  ratio parallel/serial: ${(median(parallel) / median(serial)).toFixed(2)} (ideal on 2 machines: 0.50; here both nodes share 2 cores)`,
      );
    }
    console.log(`\nper browser, ${SESSIONS} each (open = start + CDP connect + first page; close = end it)`);
    console.log(`  Grid session open   ${fmt(open.grid)}    close (DELETE) ${fmt(close.grid)}`);
    console.log(`  local launch open   ${fmt(open.local)}    close          ${fmt(close.local)}`);
    console.log(
      `  ratio Grid/local: open ${(median(open.grid) / median(open.local)).toFixed(2)}, close ${(median(close.grid) / median(close.local)).toFixed(2)}; extra per browser: ${(median(open.grid) + median(close.grid) - median(open.local) - median(close.local)).toFixed(0)} ms`,
    );
    console.log('  (a browser restart pays it per repeat; context restarts pay it once per run)');
  } finally {
    await grid.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
