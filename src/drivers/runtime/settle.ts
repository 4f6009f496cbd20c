/**
 * Settling an action: wait for it to settle (a macrotask, then its frames), stop observing, and read
 * back text, checked state or selection.
 */
import type { helpersModule } from './helpers.js';
import type { rolesModule } from './roles.js';
import type { namesModule } from './names.js';
import type { elementReadModule } from './element-read.js';
import type { ActionRecord, State } from './types.js';
import type { RuntimeApi, RuntimeSettle } from './api.js';

type Deps = ReturnType<typeof helpersModule> &
  ReturnType<typeof rolesModule> &
  ReturnType<typeof namesModule> &
  ReturnType<typeof elementReadModule> & { state: State };

export function settleModule(dep: Deps) {
  const { NO_FRAME_MS, connected, frameRequests, macrotask, nextFrame, readChecked, readSelected, readText, sleep, state, winOf } = dep;

  // Installed with the runtime, so every frame the page asks for from now on is counted (none
  // without a window: the runtime also loads where there is no DOM).
  const pageFrames = typeof window === 'object' ? frameRequests() : null;
  const requestFrame = (cb: FrameRequestCallback): number => pageFrames!.raw(cb);

  function countNow(rec: ActionRecord): number {
    let n = 0;
    for (const mo of rec.observers) n += mo.takeRecords().length;
    if (n) {
      rec.count += n;
      rec.lastMutationAt = performance.now();
    }
    return rec.count;
  }
  function endAction(): ActionRecord | null {
    const rec = state.action;
    if (!rec) return null;
    for (const off of rec.unlisten) off();
    for (const mo of rec.observers) {
      rec.count += mo.takeRecords().length;
      mo.disconnect();
    }
    state.action = null;
    return rec;
  }

  // The longest a settle waits for frames: above this the page is busy and we report what we see.
  const SETTLE_FRAMES_MAX = 2;
  /**
   * Wait for the action to settle: one macrotask (microtasks, framework schedulers), then the first
   * animation frame that follows the action's DOM changes; a further frame only when that frame
   * itself changed the DOM or asked for the next one (rAF-driven rendering), at most
   * SETTLE_FRAMES_MAX. Then read back. No frame is waited for when the input already changed the
   * DOM and the page asked for none.
   */
  async function settle(waitInputMs = 0, report?: string, pendingOk = false): ReturnType<RuntimeApi['settle']> {
    const rec = state.action;
    // `report`: the action this settle is for. A settle command whose action already reported
    // (answered, so still running when the next action began) must leave that next one alone.
    // null: no report named (an argument skipped over JSON arrives as null).
    if (!rec || (report != null && rec.report !== report)) {
      // The action's report went first and its settle has ended it: the same result, once.
      const done = state.settled;
      state.settled = null;
      return done ?? { mutations: 0, noFrames: false, framesWaited: 0, detached: false };
    }
    // Sent before the dispatch was acknowledged: first wait for the input to arrive. On a loaded
    // machine it may take longer than that: settling then would read the page as it was before the
    // input, so the caller is told to ask again once the dispatch is acknowledged.
    if (waitInputMs > 0) {
      const seen = await Promise.race([rec.inputSeen.then(() => true), sleep(waitInputMs).then(() => false)]);
      if (!seen && pendingOk && !rec.settling && state.action === rec)
        return { mutations: 0, noFrames: false, framesWaited: 0, detached: false, pending: true };
    }
    const p = settleOf(rec);
    state.settled = null;
    return p;
  }
  /** The action's one settle: whichever asks first (the settle call, the report) starts it. */
  function settleOf(rec: ActionRecord): Promise<RuntimeSettle> {
    if (!rec.settling) {
      rec.settling = settleBody(rec);
      state.settled = rec.settling;
    }
    return rec.settling;
  }
  async function settleBody(rec: ActionRecord): Promise<RuntimeSettle> {
    await macrotask();
    let framesWaited = 0;
    let noFrames = false;
    // The input changed the DOM and the page asked for no frame: a frame would run none of its code
    // (in this window), so the effect is all there. This skips a frame wait that on WebKit over
    // WebDriver costs the page's whole rendering of the change (25-100 ms on the demo list).
    const skipFrame = countNow(rec) > 0 && pageFrames !== null && pageFrames.pending.size === 0 && winOf(rec.el) === window;
    if (skipFrame) return readBack(rec, noFrames, framesWaited);
    const timeout = (): Promise<null> => new Promise((r) => setTimeout(() => r(null), NO_FRAME_MS));
    // No input event reached the page (a change made through the runtime): the next frame.
    const first =
      rec.frame ??
      new Promise<{ at: number; count: number }>((resolveFrame) =>
        requestFrame(() => resolveFrame({ at: performance.now(), count: countNow(rec) })),
      );
    let frame = await Promise.race([first, timeout()]);
    if (!frame) noFrames = true;
    else {
      framesWaited = 1;
      await macrotask();
      // Changes made after that frame began (the action's own, or the frame's rAF callbacks) are
      // rendered by a later one; so is what a callback that asked for the next frame will do.
      const more = (at: number): boolean => (countNow(rec) > 0 && rec.lastMutationAt > at) || (pageFrames?.pending.size ?? 0) > 0;
      for (let i = 1; i < SETTLE_FRAMES_MAX && more(frame.at); i++) {
        const at = performance.now();
        const framed = await nextFrame(NO_FRAME_MS);
        if (!framed) {
          noFrames = true;
          break;
        }
        framesWaited++;
        frame = { at, count: countNow(rec) };
        await macrotask();
      }
    }
    return readBack(rec, noFrames, framesWaited);
  }
  /** Stop observing and read back what the action's kind asks for. */
  function readBack(rec: ActionRecord, noFrames: boolean, framesWaited: number): RuntimeSettle {
    endAction();
    const el = rec.el;
    const out: RuntimeSettle = { mutations: rec.count, noFrames, framesWaited, detached: !connected(el) };
    if (rec.read === 'text') {
      out.text = readText(el);
      out.textBefore = rec.textBefore;
    }
    if (rec.read === 'checked') {
      out.checked = readChecked(el);
      out.checkedBefore = rec.checkedBefore;
    }
    if (rec.read === 'selected') out.selected = readSelected(el);
    return out;
  }

  return { requestFrame, countNow, endAction, settle, settleOf };
}
