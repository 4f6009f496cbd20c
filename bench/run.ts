/**
 * Harness overhead per repeat (repeat wall time minus the measured window) for each restart mode on
 * the list-scroll example, side by side with a Playwright script doing the same steps with a new
 * context per repeat. Blocks run A B B A (ours, Playwright, Playwright, ours) so drift on this
 * shared machine hits both alike. Run: npm run bench:run [-- REPEATS]
 */
import { chromium, type Browser as PwBrowser } from 'playwright-core';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadScenario } from '../src/scenario/load.js';
import { runScenario } from '../src/runner/run.js';
import { serveStatic } from '../src/session/static-server.js';
import type { RestartMode } from '../src/session/browser-session.js';
import { median, playwrightLaunchOptions, printTable, type Row } from './common.js';

const REPEATS = Number(process.argv[2] ?? 10);
const scenarioFile = fileURLToPath(new URL('../../scenarios/list-scroll.yaml', import.meta.url));
const out = mkdtempSync(join(tmpdir(), 'rehearse-bench-run-'));

async function ours(mode: RestartMode): Promise<{ overhead: number[]; wall: number[] }> {
  const sc = loadScenario(scenarioFile, { variant: 'desktop' });
  const { run } = await runScenario(sc, { label: `bench-${mode}`, outDir: out, repeat: REPEATS, warmup: 1, restart: mode });
  const measured = run.repeats.filter((r) => r.status === 'measured' && !r.warmup);
  return {
    overhead: measured.map((r) => r.wallMs - (r.status === 'measured' ? (r.report.metrics.durationMs ?? 0) : 0)),
    wall: measured.map((r) => r.wallMs),
  };
}

/** The same repeat in Playwright: new context + page, viewport, open, wait for the list, scroll down and up. */
async function playwright(browser: PwBrowser, url: string): Promise<{ overhead: number[]; wall: number[] }> {
  const overhead: number[] = [];
  const wall: number[] = [];
  let ctx: Awaited<ReturnType<PwBrowser['newContext']>> | undefined;
  for (let i = 0; i < REPEATS + 1; i++) {
    const t0 = performance.now();
    await ctx?.close();
    ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await ctx.newPage();
    await page.goto(url);
    await page.getByText('2000 items').waitFor();
    const list = page.getByRole('list', { name: 'Items' });
    const box = (await list.boundingBox())!;
    const t1 = performance.now();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.wheel(0, 3000);
    await page.waitForFunction(() => (document.querySelector('[role=list]') as HTMLElement).scrollTop > 0);
    await page.mouse.wheel(0, -3000);
    await page.waitForFunction(() => (document.querySelector('[role=list]') as HTMLElement).scrollTop === 0);
    const t2 = performance.now();
    if (i === 0) continue; // warmup, as ours
    wall.push(t2 - t0);
    overhead.push(t2 - t0 - (t2 - t1));
  }
  await ctx?.close();
  return { overhead, wall };
}

async function main(): Promise<void> {
  const app = await serveStatic({ root: fileURLToPath(new URL('../../scenarios/app', import.meta.url)) });
  const pw = await chromium.launch(playwrightLaunchOptions());
  const url = `${app.url}/list.html?jank=0`;
  const acc = { context: { overhead: [] as number[], wall: [] as number[] }, pw: { overhead: [] as number[], wall: [] as number[] } };
  const add = (into: { overhead: number[]; wall: number[] }, r: { overhead: number[]; wall: number[] }): void => {
    into.overhead.push(...r.overhead);
    into.wall.push(...r.wall);
  };
  add(acc.context, await ours('context'));
  add(acc.pw, await playwright(pw, url));
  add(acc.pw, await playwright(pw, url));
  add(acc.context, await ours('context'));
  const reload = await ours('reload');
  const browserMode = await ours('browser');
  await pw.close();
  await app.close();
  rmSync(out, { recursive: true, force: true });

  const rows: Row[] = [
    { what: 'overhead per repeat, context mode', ours: acc.context.overhead, peer: acc.pw.overhead, peerName: 'Playwright (new context per repeat)', target: 0.6 },
    { what: 'overhead per repeat, reload mode', ours: reload.overhead, peer: acc.pw.overhead, peerName: 'Playwright' },
    { what: 'overhead per repeat, browser mode', ours: browserMode.overhead, peer: acc.pw.overhead, peerName: 'Playwright' },
    { what: 'whole repeat wall time, context mode', ours: acc.context.wall, peer: acc.pw.wall, peerName: 'Playwright' },
  ];
  printTable(`perf run harness overhead (repeat wall time minus measured window), list-scroll desktop, ${REPEATS} repeats per block`, rows);
  console.log(`\ncontext-mode overhead ratio: ${(median(acc.context.overhead) / median(acc.pw.overhead)).toFixed(2)}x Playwright (target <= 0.6x)`);
  console.log('note: our overhead includes restart, emulation read-back, navigation, setup, and perf_begin/perf_end (tracing start/stop and the report); Playwright measures nothing.');
}

void main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
