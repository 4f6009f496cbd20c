/**
 * Cost of each clean-restart mode and of a cold launch, side by side with Playwright's
 * browser.newContext()+newPage() and chromium.launch(), in one run, interleaved round by round so
 * drift on this shared machine hits both alike. Run: npm run bench:restart [-- ROUNDS]
 *
 * Every round also opens the demo list page and waits a little, as a repeat would: that gap is
 * where rehearse prepares the next clean context (see BrowserSession.prepareSpare).
 */
import { chromium } from 'playwright-core';
import { BrowserSession } from '../src/drivers/cdp/session.js';
import { serveStatic } from '../src/session/static-server.js';
import { median, playwrightLaunchOptions, printTable, sleep, type Row } from './common.js';
import { fileURLToPath } from 'node:url';

const ROUNDS = Number(process.argv[2] ?? 15);
// 300 ms stands in for a repeat's own work (setup, steps); real repeats take longer.
const REPEAT_WORK_MS = 300;

async function time(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

async function main(): Promise<void> {
  const app = await serveStatic({ root: fileURLToPath(new URL('../../scenarios/app', import.meta.url)) });
  const url = `${app.url}/list.html`;
  const pwOpts = playwrightLaunchOptions();

  const ours = await BrowserSession.open({ executablePath: pwOpts.executablePath });
  const oursNoSpare = await BrowserSession.open({ executablePath: pwOpts.executablePath, prewarm: 'none' });
  const pw = await chromium.launch(pwOpts);
  let pwCtx = await pw.newContext();
  await (await pwCtx.newPage()).goto(url);
  await ours.page.navigate(url);
  await oursNoSpare.page.navigate(url);

  const r = {
    ctx: [] as number[],
    ctxNoSpare: [] as number[],
    ctxNav: [] as number[],
    reload: [] as number[],
    browser: [] as number[],
    pwCtx: [] as number[],
    pwCtxNav: [] as number[],
    pwReload: [] as number[],
  };
  for (let i = 0; i < ROUNDS; i++) {
    // rehearse, context mode (with the spare page prepared during the previous round's work)
    let t0 = performance.now();
    await ours.restart('context');
    r.ctx.push(performance.now() - t0);
    await ours.page.navigate(url);
    r.ctxNav.push(performance.now() - t0);
    await ours.settle();
    await sleep(REPEAT_WORK_MS);

    r.ctxNoSpare.push(await time(() => oursNoSpare.restart('context')));
    await oursNoSpare.page.navigate(url);
    await sleep(REPEAT_WORK_MS);

    // Playwright: what a test runner does per test for isolation
    t0 = performance.now();
    await pwCtx.close();
    pwCtx = await pw.newContext();
    const page = await pwCtx.newPage();
    r.pwCtx.push(performance.now() - t0);
    await page.goto(url);
    r.pwCtxNav.push(performance.now() - t0);
    await sleep(REPEAT_WORK_MS);

    r.reload.push(await time(() => ours.restart('reload', url)));
    r.pwReload.push(await time(() => page.goto(url)));
    await sleep(REPEAT_WORK_MS);
  }
  await pw.close();
  await oursNoSpare.close();

  // Cold starts are noisier than restarts (a few hundred ms of process start on a shared machine):
  // as many rounds, interleaved, so the medians settle.
  const coldRounds = ROUNDS;
  const cold = { ours: [] as number[], pw: [] as number[], oursPage: [] as number[] };
  for (let i = 0; i < coldRounds; i++) {
    r.browser.push(await time(() => ours.restart('browser')));
    await ours.page.navigate(url);
    // Let that page finish rendering its 2,000 rows before the next launch is timed.
    await sleep(REPEAT_WORK_MS);
    const coldOurs = async (): Promise<void> => {
      let s: BrowserSession | undefined;
      cold.oursPage.push(
        await time(async () => (s = await BrowserSession.open({ executablePath: pwOpts.executablePath, prewarm: 'none' }))),
      );
      await s!.close();
    };
    const coldPw = async (): Promise<void> => {
      let b: Awaited<ReturnType<typeof chromium.launch>> | undefined;
      cold.pw.push(
        await time(async () => {
          b = await chromium.launch(pwOpts);
          await b.newContext().then((c) => c.newPage());
        }),
      );
      await b!.close();
    };
    // Alternate who goes first: whatever the first launch leaves behind (a profile being removed, a
    // process being reaped) lands on each side equally often.
    for (const run of i % 2 ? [coldPw, coldOurs] : [coldOurs, coldPw]) {
      await run();
      await sleep(REPEAT_WORK_MS);
    }
  }
  await ours.close();
  await app.close();

  const rows: Row[] = [
    { what: 'context restart (clean page ready)', ours: r.ctx, peer: r.pwCtx, peerName: 'Playwright', target: 0.6 },
    { what: 'context restart, no spare page', ours: r.ctxNoSpare, peer: r.pwCtx, peerName: 'Playwright' },
    { what: 'context restart + open list.html (2,000 rows)', ours: r.ctxNav, peer: r.pwCtxNav, peerName: 'Playwright' },
    { what: 'reload restart (fresh navigation, no cache)', ours: r.reload, peer: r.pwReload, peerName: 'Playwright' },
  ];
  printTable('Clean restart per repeat — rehearse vs Playwright (newContext()+newPage(), page.goto)', rows);
  printTable('Cold start — rehearse vs Playwright', [
    {
      what: 'cold launch to a clean page',
      ours: cold.oursPage,
      peer: cold.pw,
      peerName: 'Playwright chromium.launch()+newContext()+newPage()',
    },
    {
      what: 'browser restart (kill, relaunch, new profile)',
      ours: r.browser,
      peer: cold.pw,
      peerName: 'Playwright chromium.launch()+newContext()+newPage()',
    },
  ]);
  console.log(`\ncontext restart ratio: ${(median(r.ctx) / median(r.pwCtx)).toFixed(2)}x Playwright (target <= 0.6x)`);
}

void main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
