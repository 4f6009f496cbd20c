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
import type { RestartMode } from '../src/drivers/define.js';
import { TRACE_CATEGORIES } from '../src/drivers/cdp/trace.js';
import { median, playwrightLaunchOptions, printTable, type Row } from './common.js';

const REPEATS = Number(process.argv[2] ?? 10);
const scenarioFile = fileURLToPath(new URL('../../scenarios/list-scroll.yaml', import.meta.url));
const out = mkdtempSync(join(tmpdir(), 'rehearse-bench-run-'));

const dialogFile = fileURLToPath(new URL('../../scenarios/dialog.yaml', import.meta.url));

type Costs = { overhead: number[]; wall: number[] };

/** Where a deciding repeat's overhead goes, ms per repeat, from the run file's `phasesMs`. */
type Phases = Record<'open' | 'setup' | 'host' | 'begin' | 'afterWindow', number[]>;
const newPhases = (): Phases => ({ open: [], setup: [], host: [], begin: [], afterWindow: [] });

/**
 * The overhead of each repeat by phase: restart and navigation (`open`), setup and the settle, the host calibration,
 * perf_begin, and everything after the window closed (the probe flush's frames, the trace read, counters, the record).
 * The window (`durationMs`) is the steps plus the frame wait that shows their result, so it is taken out of the tail.
 */
function phasesOf(repeats: readonly { wallMs: number; phasesMs?: Partial<Record<string, number>>; durationMs: number }[]): Phases {
  const out = newPhases();
  for (const r of repeats) {
    const p = r.phasesMs ?? {};
    const open = (p.restart ?? 0) + (p.open ?? 0);
    const [setup, host, begin] = [p.setup ?? 0, p.host ?? 0, p.begin ?? 0];
    out.open.push(open);
    out.setup.push(setup);
    out.host.push(host);
    out.begin.push(begin);
    out.afterWindow.push(r.wallMs - r.durationMs - open - setup - host - begin);
  }
  return out;
}

/**
 * Our repeats. `timing`: the schedule that decides by default where arms interleave (T,A,T: timing repeats with a
 * profiled one after every other); `overhead`/`wall` are then the timing repeats' and `perDeciding` spreads the
 * profiled repeats' overhead over the timing ones (what the schedule costs per deciding repeat).
 */
async function ours(
  mode: RestartMode,
  which: 'list' | 'dialog' = 'list',
  timing = false,
): Promise<Costs & { perDeciding: number[]; phases: Phases }> {
  const sc = which === 'list' ? loadScenario(scenarioFile, { variant: 'desktop' }) : loadScenario(dialogFile);
  const { run } = await runScenario(sc, { label: `bench-${mode}`, outDir: out, repeat: REPEATS, warmup: 1, restart: mode, timing });
  const measured = run.repeats.filter((r) => r.status === 'measured' && !r.warmup);
  const overheadOf = (r: (typeof measured)[number]): number =>
    r.wallMs - (r.status === 'measured' ? (r.report.metrics.durationMs ?? 0) : 0);
  const deciding = timing ? measured.filter((r) => r.mode === 'timing') : measured;
  const profiledShare = timing ? measured.filter((r) => r.mode !== 'timing').reduce((s, r) => s + overheadOf(r), 0) / deciding.length : 0;
  return {
    overhead: deciding.map(overheadOf),
    wall: deciding.map((r) => r.wallMs),
    perDeciding: deciding.map((r) => overheadOf(r) + profiledShare),
    phases: phasesOf(deciding.map((r) => ({ ...r, durationMs: r.status === 'measured' ? (r.report.metrics.durationMs ?? 0) : 0 }))),
  };
}

type PwPage = Awaited<ReturnType<Awaited<ReturnType<PwBrowser['newContext']>>['newPage']>>;

/**
 * What a Playwright user adds to measure the window as we do, at its leanest: a CDP session, the
 * same trace categories and Performance counters around the steps, the trace read back and parsed.
 * Returns `stop`, to call when the steps are done.
 */
async function pwMeasure(page: PwPage): Promise<() => Promise<void>> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  await Promise.all([
    cdp.send('Tracing.start', {
      transferMode: 'ReturnAsStream',
      streamFormat: 'json',
      traceConfig: { recordMode: 'recordUntilFull', includedCategories: [...TRACE_CATEGORIES] },
    }),
    cdp.send('Performance.getMetrics'),
  ]);
  return async () => {
    const complete = new Promise<string>((resolve) => cdp.once('Tracing.tracingComplete', (e) => resolve(e.stream!)));
    await Promise.all([cdp.send('Performance.getMetrics'), cdp.send('Tracing.end')]);
    const handle = await complete;
    let text = '';
    for (;;) {
      const chunk = await cdp.send('IO.read', { handle, size: 1 << 20 });
      text += chunk.data;
      if (chunk.eof) break;
    }
    await cdp.send('IO.close', { handle });
    const events = (JSON.parse(text) as { traceEvents: { name: string }[] }).traceEvents;
    if (!events.some((e) => e.name === 'BeginFrame' || e.name === 'DrawFrame' || e.name === 'PipelineReporter'))
      throw new Error('Playwright arm: the trace holds no frames');
    await cdp.detach();
  };
}

/**
 * The same repeat in Playwright: new context + page (with `fresh`, a whole new browser first, as
 * our browser restart does), viewport, open, wait for the list, scroll down and up.
 */
async function playwright(
  browser: PwBrowser,
  url: string,
  measure = false,
  fresh = false,
): Promise<{ overhead: number[]; wall: number[] }> {
  const overhead: number[] = [];
  const wall: number[] = [];
  let ctx: Awaited<ReturnType<PwBrowser['newContext']>> | undefined;
  let own: PwBrowser | undefined;
  for (let i = 0; i < REPEATS + 1; i++) {
    const t0 = performance.now();
    await ctx?.close();
    if (fresh) {
      await own?.close();
      own = await chromium.launch(playwrightLaunchOptions());
    }
    ctx = await (own ?? browser).newContext({ viewport: { width: 1440, height: 900 } });
    const page = await ctx.newPage();
    await page.goto(url);
    await page.getByText('2000 items').waitFor();
    const list = page.getByRole('list', { name: 'Items' });
    const box = (await list.boundingBox())!;
    const stop = measure ? await pwMeasure(page) : undefined;
    const t1 = performance.now();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.wheel(0, 3000);
    await page.waitForFunction(() => (document.querySelector('[role=list]') as HTMLElement).scrollTop > 0);
    await page.mouse.wheel(0, -3000);
    await page.waitForFunction(() => (document.querySelector('[role=list]') as HTMLElement).scrollTop === 0);
    const t2 = performance.now();
    await stop?.();
    if (i === 0) continue; // warmup, as ours
    const t3 = performance.now();
    wall.push(t3 - t0);
    overhead.push(t3 - t0 - (t2 - t1));
  }
  await ctx?.close();
  await own?.close();
  return { overhead, wall };
}

/** The dialog example in Playwright: open the modal, type a note, confirm, wait for the toast. */
async function playwrightDialog(browser: PwBrowser, url: string): Promise<{ overhead: number[]; wall: number[] }> {
  const overhead: number[] = [];
  const wall: number[] = [];
  let ctx: Awaited<ReturnType<PwBrowser['newContext']>> | undefined;
  for (let i = 0; i < REPEATS + 1; i++) {
    const t0 = performance.now();
    await ctx?.close();
    ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await ctx.newPage();
    await page.goto(url);
    const t1 = performance.now();
    await page.getByText('Open dialog', { exact: true }).click();
    await page.getByRole('dialog', { name: 'Confirm' }).waitFor();
    await page.getByLabel('Note').fill('ship it');
    await page.getByRole('button', { name: 'OK' }).click();
    await page.getByText('Saved').waitFor();
    await page.getByTestId('dialog-result').getByText('Dialog closed: ok').waitFor();
    const t2 = performance.now();
    if (i === 0) continue;
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
  type Timed = Costs & { perDeciding: number[]; phases: Phases };
  const timed = { list: { overhead: [] as number[], wall: [] as number[], perDeciding: [] as number[], phases: newPhases() } };
  const addTimed = (into: Timed, r: Timed): void => {
    add(into, r);
    into.perDeciding.push(...r.perDeciding);
    for (const k of Object.keys(into.phases) as (keyof Phases)[]) into.phases[k].push(...r.phases[k]);
  };
  add(acc.context, await ours('context'));
  addTimed(timed.list, await ours('context', 'list', true));
  const pwMeasuring = { overhead: [] as number[], wall: [] as number[] };
  add(acc.pw, await playwright(pw, url));
  add(pwMeasuring, await playwright(pw, url, true));
  add(pwMeasuring, await playwright(pw, url, true));
  add(acc.pw, await playwright(pw, url));
  addTimed(timed.list, await ours('context', 'list', true));
  add(acc.context, await ours('context'));
  const reload = await ours('reload');
  // A B B A against Playwright launching a new browser per repeat, the same isolation.
  const browserMode = { overhead: [] as number[], wall: [] as number[] };
  const pwFresh = { overhead: [] as number[], wall: [] as number[] };
  add(browserMode, await ours('browser'));
  add(pwFresh, await playwright(pw, url, false, true));
  add(pwFresh, await playwright(pw, url, false, true));
  add(browserMode, await ours('browser'));
  const dialog = { ours: { overhead: [] as number[], wall: [] as number[] }, pw: { overhead: [] as number[], wall: [] as number[] } };
  const dialogUrl = `${app.url}/dialog.html`;
  const dialogTimed: Timed = { overhead: [] as number[], wall: [] as number[], perDeciding: [] as number[], phases: newPhases() };
  add(dialog.ours, await ours('context', 'dialog'));
  addTimed(dialogTimed, await ours('context', 'dialog', true));
  add(dialog.pw, await playwrightDialog(pw, dialogUrl));
  add(dialog.pw, await playwrightDialog(pw, dialogUrl));
  addTimed(dialogTimed, await ours('context', 'dialog', true));
  add(dialog.ours, await ours('context', 'dialog'));
  await pw.close();
  await app.close();
  rmSync(out, { recursive: true, force: true });

  const rows: Row[] = [
    {
      what: 'deciding (timing) repeat, context mode',
      ours: timed.list.overhead,
      peer: acc.pw.overhead,
      peerName: 'Playwright (new context per repeat)',
      target: 0.7,
    },
    {
      what: 'T,A,T per deciding repeat (profiled share)',
      ours: timed.list.perDeciding,
      peer: acc.pw.overhead,
      peerName: 'Playwright (new context per repeat)',
    },
    {
      what: 'profiled repeat, context mode (timing: false)',
      ours: acc.context.overhead,
      peer: acc.pw.overhead,
      peerName: 'Playwright (new context per repeat)',
    },
    {
      what: 'same, Playwright measuring as we do',
      ours: acc.context.overhead,
      peer: pwMeasuring.overhead,
      peerName: 'Playwright + CDP trace and counters around the steps',
    },
    { what: 'overhead per repeat, reload mode', ours: reload.overhead, peer: acc.pw.overhead, peerName: 'Playwright' },
    {
      what: 'overhead per repeat, browser mode',
      ours: browserMode.overhead,
      peer: pwFresh.overhead,
      peerName: 'Playwright (new browser per repeat)',
      target: 1,
    },
    {
      what: 'browser mode vs Playwright new context',
      ours: browserMode.overhead,
      peer: acc.pw.overhead,
      peerName: 'Playwright (new context per repeat)',
    },
    { what: 'whole repeat wall time, context mode', ours: acc.context.wall, peer: acc.pw.wall, peerName: 'Playwright' },
    {
      what: 'dialog: deciding (timing) repeat',
      ours: dialogTimed.overhead,
      peer: dialog.pw.overhead,
      peerName: 'Playwright',
      target: 0.7,
    },
    { what: 'dialog: T,A,T per deciding repeat', ours: dialogTimed.perDeciding, peer: dialog.pw.overhead, peerName: 'Playwright' },
    { what: 'dialog: profiled repeat (timing: false)', ours: dialog.ours.overhead, peer: dialog.pw.overhead, peerName: 'Playwright' },
    { what: 'dialog example: whole repeat wall time', ours: dialog.ours.wall, peer: dialog.pw.wall, peerName: 'Playwright' },
  ];
  printTable(
    `perf run harness overhead (repeat wall time minus measured window), list-scroll desktop (a 2,000-row page whose own load is ~600 ms here) and dialog, ${REPEATS} repeats per block`,
    rows,
  );
  console.log(
    `\ndeciding-repeat overhead ratio: ${(median(timed.list.overhead) / median(acc.pw.overhead)).toFixed(2)}x Playwright on the list, ` +
      `${(median(dialogTimed.overhead) / median(dialog.pw.overhead)).toFixed(2)}x on the dialog (target <= 0.7x)`,
  );
  const phaseLine = (ph: Phases): string =>
    `restart+open ${median(ph.open).toFixed(0)}, setup ${median(ph.setup).toFixed(0)}, host calibration ${median(ph.host).toFixed(0)}, ` +
    `perf_begin ${median(ph.begin).toFixed(0)}, after the window ${median(ph.afterWindow).toFixed(0)}`;
  console.log(`deciding repeat's overhead by phase (medians, ms): list: ${phaseLine(timed.list.phases)}`);
  console.log(`  dialog: ${phaseLine(dialogTimed.phases)}`);
  console.log(
    `context-mode overhead ratio against Playwright measuring the same window (trace + counters): ${(median(acc.context.overhead) / median(pwMeasuring.overhead)).toFixed(2)}x`,
  );
  console.log(
    'note: our overhead includes restart, emulation read-back, navigation, setup, and perf_begin/perf_end (tracing start/stop and the report); plain Playwright measures nothing.',
  );
}

void main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
