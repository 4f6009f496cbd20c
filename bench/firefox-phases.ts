/**
 * Where a `tap {ref, snapshot: diff}` in Firefox spends its time, in this process on the bidi driver's page driver
 * (no MCP, no session daemon): each phase of runAction in its order, the reply's snapshot, the whole step through
 * runStep, the BiDi commands one step sends, and a bare BiDi click (performActions + one script read) as the floor.
 */
import { startFirefoxSession, openFirefoxTab } from '../src/drivers/bidi/browser.js';
import { webdriverPageSource } from '../src/drivers/webdriver/tabs.js';
import { SessionHost } from '../src/engine/host.js';
import { runStep } from '../src/engine/run-step.js';
import { gateElement, resolveTarget, settleAction, snapshotAfter, watchNavigation } from '../src/page/index.js';
import { firefoxPageDriver } from '../src/session/firefox-page.js';
import { median, okData, timed } from './common.js';

// Untimed rounds first: JIT and the runtime's first calls.
const WARMUP = 5;
// A step's own budget, as MCP gives a tap by default.
const STEP_MS = 5000;

export async function tapPhases(url: string, rounds: number): Promise<void> {
  const session = await startFirefoxSession({ headless: true });
  try {
    const tab = await openFirefoxTab(session, { newUserContext: false });
    const driver = await firefoxPageDriver(tab.client, { preload: true, firefoxPid: session.firefox.pid });
    await driver.navigation.navigate(url, 30_000);
    const host = new SessionHost(webdriverPageSource(driver), url);
    const ref = /button "Count" \[ref=([a-z0-9]+)\]/.exec(String(okData(await runStep(host, 'snap', {})).snapshot))?.[1];
    if (!ref) throw new Error('no ref for the button');
    // Every BiDi command the page driver sends, by method, while `sent` is being filled.
    const socket = session.socket;
    const send = socket.send.bind(socket);
    let sent: string[] | undefined;
    socket.send = <T>(method: string, params: Record<string, unknown>, timeoutMs?: number): Promise<T> => {
      sent?.push(method === 'script.callFunction' ? `script.callFunction(${runtimeMethod(params)})` : method);
      return send<T>(method, params, timeoutMs);
    };
    const phases = { resolve: [], gate: [], navWatch: [], pressed: [], done: [], settle: [], snapshotDiff: [] } as Record<string, number[]>;
    const whole: number[] = [];
    const floor: number[] = [];
    let commands: string[] = [];
    for (let i = 0; i < WARMUP + rounds; i++) {
      const keep = i >= WARMUP;
      const page = await host.page();
      const ctx = { page, host, timeoutMs: STEP_MS, deadline: Date.now() + STEP_MS };
      const t = [performance.now()];
      const { r: el } = await resolveTarget(ctx, { ref });
      t.push(performance.now());
      const g = await gateElement(ctx, el, { settleOnInput: true }, 'none');
      t.push(performance.now());
      const nav = watchNavigation(ctx);
      t.push(performance.now());
      const click = page.input.clickOverlapped(g.x, g.y);
      await click.pressed;
      t.push(performance.now());
      const settling = settleAction(ctx, { inputInFlight: true, pendingOk: true });
      await click.done;
      t.push(performance.now());
      await settling;
      await nav.finish();
      t.push(performance.now());
      await snapshotAfter(ctx, 'diff');
      t.push(performance.now());
      sent = [];
      const w = await timed(async () => okData(await runStep(host, 'tap', { ref, snapshot: 'diff' })));
      commands = sent;
      sent = undefined;
      const f = await timed(async () => {
        await driver.input.click(g.x, g.y);
        await driver.evaluate<string>('document.getElementById("out").textContent');
      });
      if (!keep) continue;
      Object.values(phases).forEach((xs, k) => xs.push(t[k + 1]! - t[k]!));
      whole.push(w);
      floor.push(f);
    }
    console.log(`\ntap {ref, snapshot: diff} in this process (bidi driver, no MCP), phase by phase (medians in ms over ${rounds})`);
    for (const [k, v] of Object.entries(phases)) console.log(`  ${k.padEnd(13)} ${median(v).toFixed(1).padStart(6)}`);
    console.log(`  ${'whole step'.padEnd(13)} ${median(whole).toFixed(1).padStart(6)}   (runStep tap, as MCP runs it)`);
    console.log(`  ${'bare click'.padEnd(13)} ${median(floor).toFixed(1).padStart(6)}   (performActions + one script read, no checks)`);
    console.log(`  BiDi commands one tap step sends (${commands.length}): ${commands.join(', ')}`);
  } finally {
    await session.close();
  }
}

/** The runtime method a script.callFunction of the page driver calls ("resolve", "gate", …), or "script". */
function runtimeMethod(params: Record<string, unknown>): string {
  const args = params.arguments as { type: string; value?: unknown }[] | undefined;
  const m = args?.[1];
  return m && m.type === 'string' && typeof m.value === 'string' ? m.value : 'script';
}
