/**
 * The action layer side by side with Playwright, in one run, on the demo list page (2,000 rows):
 * median tap with the full actionability gate vs locator.click() on the same element, and snap
 * time and bytes vs locator('body').ariaSnapshot(). Rounds are interleaved so drift on this shared
 * machine hits both alike. Run: npm run build && node dist/bench/actions.js [ROUNDS]
 */
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { SessionHost } from '../src/engine/host.js';
import { runStep } from '../src/engine/run-step.js';
import { BrowserSession } from '../src/drivers/cdp/session.js';
import { gateElement, resolveTarget, settleAction } from '../src/page/index.js';
import { serveStatic } from '../src/session/static-server.js';
import { median, playwrightLaunchOptions, printTable, type Row, okData, timed } from './common.js';

const ROUNDS = Number(process.argv[2] ?? 30);
// A few untimed rounds first: JIT, the runtime install and Playwright's injected script.
const WARMUP_ROUNDS = 3;

async function main(): Promise<void> {
  const app = await serveStatic({ root: fileURLToPath(new URL('../../scenarios/app', import.meta.url)) });
  const url = `${app.url}/list.html`;
  const pwOpts = playwrightLaunchOptions();
  const session = await BrowserSession.open({ executablePath: pwOpts.executablePath });
  const pw = await chromium.launch(pwOpts);
  try {
    await session.page.navigate(url);
    const host = new SessionHost(session, app.url);
    const page = await (await pw.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    await page.goto(url);
    await runStep(host, 'resize_viewport', { width: 1280, height: 800 });

    const addRef = /button "Add item" \[ref=(e\d+)\]/.exec(String(okData(await runStep(host, 'snap', {})).snapshot))![1]!;
    const oursRole = { target: { role: 'button', name: 'Add item' } };
    const pwRole = page.getByRole('button', { name: 'Add item' });
    const pwCss = page.locator('#add-item');

    const r = {
      tapRole: [] as number[],
      pwRole: [] as number[],
      tapRef: [] as number[],
      pwCss: [] as number[],
      snap: [] as number[],
      pwSnap: [] as number[],
      snapInteractive: [] as number[],
    };
    let oursBytes = 0;
    let oursInteractiveBytes = 0;
    let pwBytes = 0;
    for (let i = 0; i < WARMUP_ROUNDS + ROUNDS; i++) {
      const keep = i >= WARMUP_ROUNDS;
      const tRole = await timed(async () => okData(await runStep(host, 'tap', oursRole)));
      const tPwRole = await timed(() => pwRole.click());
      const tRef = await timed(async () => okData(await runStep(host, 'tap', { ref: addRef })));
      const tPwCss = await timed(() => pwCss.click());
      let snapText = '';
      const tSnap = await timed(async () => (snapText = String(okData(await runStep(host, 'snap', {})).snapshot)));
      let aria = '';
      const tPwSnap = await timed(async () => (aria = await page.locator('body').ariaSnapshot()));
      let interactive = '';
      const tInteractive = await timed(
        async () => (interactive = String(okData(await runStep(host, 'snap', { interactiveOnly: true })).snapshot)),
      );
      if (!keep) continue;
      r.tapRole.push(tRole);
      r.pwRole.push(tPwRole);
      r.tapRef.push(tRef);
      r.pwCss.push(tPwCss);
      r.snap.push(tSnap);
      r.pwSnap.push(tPwSnap);
      r.snapInteractive.push(tInteractive);
      oursBytes = Buffer.byteLength(snapText);
      oursInteractiveBytes = Buffer.byteLength(interactive);
      pwBytes = Buffer.byteLength(aria);
    }
    const counts = [
      await session.page.evaluate<string>('document.getElementById("count").textContent'),
      await page.locator('#count').textContent(),
    ];
    if (counts[0] !== counts[1]) throw new Error(`the two pages diverged: ${counts.join(' vs ')}`);

    const rows: Row[] = [
      { what: 'tap role+name (full gate) vs getByRole().click()', ours: r.tapRole, peer: r.pwRole, peerName: 'Playwright', target: 0.5 },
      { what: 'tap ref (full gate) vs locator(css).click()', ours: r.tapRef, peer: r.pwCss, peerName: 'Playwright', target: 0.5 },
      { what: 'snap (default) vs ariaSnapshot()', ours: r.snap, peer: r.pwSnap, peerName: 'Playwright', target: 0.5 },
      { what: 'snap interactiveOnly vs ariaSnapshot()', ours: r.snapInteractive, peer: r.pwSnap, peerName: 'Playwright' },
    ];
    printTable(`actions on ${url} (${counts[0]} at the end)`, rows);
    const ratio = (a: number, b: number): string => (a / b).toFixed(3);
    console.log('\nsnapshot bytes (last round)');
    console.log(
      `${'snap (default)'.padEnd(28)} ${String(oursBytes).padStart(8)}  vs ariaSnapshot ${pwBytes}  ratio ${ratio(oursBytes, pwBytes)}  target <= 1.0x ${oursBytes <= pwBytes ? 'met' : 'NOT met'}`,
    );
    console.log(
      `${'snap interactiveOnly'.padEnd(28)} ${String(oursInteractiveBytes).padStart(8)}  vs ariaSnapshot ${pwBytes}  ratio ${ratio(oursInteractiveBytes, pwBytes)}  target <= 0.25x ${oursInteractiveBytes <= pwBytes * 0.25 ? 'met' : 'NOT met'}`,
    );
    console.log(
      `\nmedians: tap ${median(r.tapRole).toFixed(1)} ms vs ${median(r.pwRole).toFixed(1)} ms; snap ${median(r.snap).toFixed(1)} ms vs ${median(r.pwSnap).toFixed(1)} ms`,
    );

    // Where a tap by ref spends its time: each phase of the action pipeline run on its own, in the
    // order runAction runs them (there the settle starts at the press, overlapping the rest of the
    // dispatch), against a raw CDP click (press + release, acknowledged) as the floor.
    const phases = {
      resolve: [] as number[],
      gate: [] as number[],
      pressed: [] as number[],
      done: [] as number[],
      settle: [] as number[],
      rawClick: [] as number[],
    };
    for (let i = 0; i < WARMUP_ROUNDS + ROUNDS; i++) {
      const driver = await host.page();
      const ctx = { page: driver, host, timeoutMs: 5000, deadline: Date.now() + 5000 };
      const t0 = performance.now();
      const { r: el } = await resolveTarget(ctx, { ref: addRef });
      const t1 = performance.now();
      const g = await gateElement(ctx, el, {}, 'none');
      const t2 = performance.now();
      const click = driver.input.clickOverlapped(g.x, g.y);
      await click.pressed;
      const t3 = performance.now();
      await click.done;
      const t4 = performance.now();
      await settleAction(ctx);
      const t5 = performance.now();
      const tRaw = await timed(() =>
        Promise.all([
          session.page.send('Input.dispatchMouseEvent', {
            type: 'mousePressed',
            x: g.x,
            y: g.y,
            button: 'left',
            buttons: 1,
            clickCount: 1,
          }),
          session.page.send('Input.dispatchMouseEvent', {
            type: 'mouseReleased',
            x: g.x,
            y: g.y,
            button: 'left',
            buttons: 0,
            clickCount: 1,
          }),
        ]),
      );
      if (i < WARMUP_ROUNDS) continue;
      phases.resolve.push(t1 - t0);
      phases.gate.push(t2 - t1);
      phases.pressed.push(t3 - t2);
      phases.done.push(t4 - t3);
      phases.settle.push(t5 - t4);
      phases.rawClick.push(tRaw);
    }
    console.log('\ntap by ref, phase by phase (medians in ms)');
    for (const [k, v] of Object.entries(phases)) console.log(`  ${k.padEnd(10)} ${median(v).toFixed(1).padStart(6)}`);
    console.log(
      "  (resolve: find the ref's element; gate: scrolled into view, visible, stable over two frames, enabled, hit test, and the effect observation started; pressed: move + press acknowledged; done: release acknowledged (Chromium acks it after the frame that renders it); settle: a frame, two if the DOM changed, and the read-back; rawClick: press + release over CDP, no checks)",
    );
  } finally {
    await pw.close();
    await session.close();
    await app.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
