/**
 * What a perf session costs the thing it measures: wall time of the same interaction with no session,
 * in timing mode and in attribution mode, interleaved round by round in one run (so machine load
 * drifts hit all three alike). Target: timing mode adds <= 5%.
 *
 *   npx tsc -p tsconfig.json && node dist/bench/perf-overhead.js [rounds]
 *
 * Interactions: a `scroll` step of 3000 px on list.html (compositor scroll, little script), and a
 * wheel scroll of list.html?jank=1 (main-thread heavy: where the sampling profiler costs most).
 * perf_begin / perf_end themselves are outside the timed window (they run before and after it); their
 * own cost is printed separately.
 *
 * Mode `timing-net` is timing mode as a run and the MCP server do it: the page's network watched over CDP (the
 * in-page fetch/XHR counter stands down). Plain `timing` counts requests in the page instead. The fetch interaction
 * (30 requests) is where the two differ.
 */
import { SessionHost } from '../src/engine/host.js';
import { runStep } from '../src/engine/run-step.js';
import { BrowserSession } from '../src/drivers/cdp/session.js';
import { serveStatic } from '../src/session/static-server.js';
import { median, p25p75, sleep } from './common.js';

type Mode = 'none' | 'timing' | 'timing-net' | 'attribution';
const MODES: readonly Mode[] = ['none', 'timing', 'timing-net', 'attribution'];
// 30 requests: a page that loads its data in pieces; enough that a per-request cost shows above the noise.
const FETCHES = 30;
// 15 rounds: medians of 15 interleaved samples are stable to a few % on a loaded 2-core machine.
const ROUNDS = Number(process.argv[2] ?? 15);
// Wheel ticks of the janky scroll: ~10 janky frames, a short flick (each round costs ~1 s per mode).
const JANK_TICKS = 10;

interface Interaction {
  name: string;
  query: string;
  run(host: SessionHost, session: BrowserSession): Promise<void>;
}

const INTERACTIONS: Interaction[] = [
  {
    name: 'scroll step 3000 px, list.html',
    query: '',
    async run(host) {
      const r = await runStep(host, 'scroll', { target: { role: 'list' }, dy: 3000 });
      if (r.status !== 'ok') throw new Error(`scroll failed: ${JSON.stringify(r.error)}`);
    },
  },
  {
    name: `wheel x${JANK_TICKS}, list.html?jank=1`,
    query: '?jank=1',
    async run(_host, session) {
      const page = session.page;
      for (let i = 0; i < JANK_TICKS; i++) {
        await page.send('Input.dispatchMouseEvent', { type: 'mouseWheel', x: 400, y: 500, deltaX: 0, deltaY: 100 });
        // Wait for the page to take the wheel (a round trip through its main thread), as a user would see it.
        await page.evaluate('new Promise((r) => requestAnimationFrame(() => r(0)))');
      }
    },
  },
  {
    name: `fetch x${FETCHES}, list.html`,
    query: '',
    async run(_host, session) {
      // A new query string per request and round: no cache answers it.
      const urls = `Array.from({ length: ${FETCHES} }, (_, i) => 'list.js?' + i + '-' + Math.random())`;
      await session.page.evaluate(`Promise.all(${urls}.map((u) => fetch(u).then((r) => r.text()))).then(() => 0)`);
    },
  },
];

async function main(): Promise<void> {
  const [session, demo] = await Promise.all([
    BrowserSession.open({}),
    serveStatic({ root: new URL('../../scenarios/app', import.meta.url).pathname }),
  ]);
  try {
    for (const it of INTERACTIONS) {
      const empty = (): Record<Mode, number[]> => ({ none: [], timing: [], 'timing-net': [], attribution: [] });
      const [wall, beginMs, endMs] = [empty(), empty(), empty()];
      for (let round = 0; round < ROUNDS; round++) {
        // Rotate the order so no mode always runs first (warm caches) or last.
        const order = MODES.map((_, i) => MODES[(i + round) % MODES.length]!);
        for (const mode of order) {
          await session.restart('context');
          await session.page.navigate(`${demo.url}/list.html${it.query}`);
          const host = new SessionHost(session, demo.url, undefined, { watchNetwork: mode === 'timing-net' });
          // The harness's page scripts go in on first use: do it now, outside every timed window.
          await host.page();
          await session.page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
          await sleep(100);
          if (mode !== 'none') {
            const b = await runStep(host, 'perf_begin', { mode: mode === 'timing-net' ? 'timing' : mode });
            if (b.status !== 'ok') throw new Error(`perf_begin failed: ${JSON.stringify(b.error)}`);
            beginMs[mode].push(b.durationMs);
          }
          const t0 = performance.now();
          await it.run(host, session);
          wall[mode].push(performance.now() - t0);
          if (mode !== 'none') {
            const e = await runStep(host, 'perf_end', {});
            if (e.status !== 'ok') throw new Error(`perf_end failed: ${JSON.stringify(e.error)}`);
            endMs[mode].push(e.durationMs);
          }
        }
      }
      const base = median(wall.none);
      console.log(`\n${it.name} (${ROUNDS} interleaved rounds, wall ms of the interaction)`);
      // The minimum is the least disturbed sample: on a shared machine it shows the cost better than a
      // median that the neighbours' load moves by tens of %.
      const baseMin = Math.min(...wall.none);
      console.log(
        `${'mode'.padEnd(12)} ${'median'.padStart(8)} ${'p25-p75'.padStart(13)} ${'ratio'.padStart(7)} ${'min'.padStart(8)} ${'ratio'.padStart(7)}   perf_begin / perf_end median ms`,
      );
      for (const mode of MODES) {
        const [a, b] = p25p75(wall[mode]);
        const ratio = median(wall[mode]) / base;
        const lo = Math.min(...wall[mode]);
        const target = mode.startsWith('timing') ? (ratio <= 1.05 ? '  (target <= 1.05: met)' : '  (target <= 1.05: NOT met)') : '';
        const setup = mode === 'none' ? '' : `${median(beginMs[mode]).toFixed(0)} / ${median(endMs[mode]).toFixed(0)}`;
        console.log(
          `${mode.padEnd(12)} ${median(wall[mode]).toFixed(1).padStart(8)} ${`${a.toFixed(0)}-${b.toFixed(0)}`.padStart(13)} ${ratio.toFixed(3).padStart(7)} ${lo.toFixed(1).padStart(8)} ${(lo / baseMin).toFixed(3).padStart(7)}   ${setup}${target}`,
        );
      }
    }
  } finally {
    await session.close();
    await demo.close();
  }
}

await main();
