/**
 * The actionability checks an action waits for (visible, stable, enabled, editable, receives events)
 * before the driver dispatches its input at the point they return.
 */
import type { helpersModule } from './helpers.js';
import type { rolesModule } from './roles.js';
import type { visibilityModule } from './visibility.js';
import type { effectModule } from './effect.js';
import type { elementStateModule } from './element-state.js';
import type { RefEntry, State } from './types.js';
import type { GateCheck, Rect, RuntimeApi, RuntimeGate } from './api.js';

type Deps = ReturnType<typeof helpersModule> &
  ReturnType<typeof rolesModule> &
  ReturnType<typeof visibilityModule> &
  ReturnType<typeof effectModule> &
  ReturnType<typeof elementStateModule> & { state: State };

export function actionabilityModule(dep: Deps) {
  const {
    NO_FRAME_MS,
    POLL_MS,
    actionPoint,
    animating,
    beginAction,
    boxKey,
    connected,
    describe,
    dialogOf,
    hitTarget,
    inView,
    invisibleReason,
    isDisabled,
    isTextEditable,
    isVisible,
    nextFrame,
    sleep,
    state,
    topRect,
    winOf,
  } = dep;

  interface GateOpts {
    editable?: boolean;
    checkEnabled?: boolean;
    checkStable?: boolean;
    checkReceivesEvents?: boolean;
    timeoutMs: number;
    begin?: string;
    report?: string;
  }
  type Gate = RuntimeGate;

  async function gate(ref: string, opts: GateOpts): ReturnType<RuntimeApi['gate']> {
    const deadline = Date.now() + opts.timeoutMs;
    let noFrames = false;
    let scrolled = false;
    let last: Gate | null = null;
    for (let attempt = 0; ; attempt++) {
      const entry = state.refs.get(ref);
      const el = entry?.weak.deref();
      if (!entry || !el || !connected(el)) return { status: 'stale', detail: `ref=${ref} left the DOM before the action` };
      const r = await checkOnce(el, entry, opts);
      if (r.noFrames) noFrames = true;
      if (r.scrolled) scrolled = true;
      if (r.status === 'ok') {
        if (opts.begin) beginAction(ref, el, opts.begin, opts.report);
        return { status: 'ok', x: r.x, y: r.y, noFrames, scrolled };
      }
      last = { status: 'failed', check: r.check, detail: r.detail, noFrames };
      if (Date.now() >= deadline) return last;
      // Wait for the page to change: a frame when it produces them, else a short sleep.
      if (noFrames) await sleep(Math.min(POLL_MS, Math.max(1, deadline - Date.now())));
      else await nextFrame(Math.min(100, Math.max(1, deadline - Date.now())), winOf(el));
    }
  }

  type Check =
    | { status: 'ok'; x: number; y: number; noFrames: boolean; scrolled: boolean }
    | { status: 'failed'; check: GateCheck; detail: string; noFrames: boolean; scrolled: boolean };
  async function checkOnce(el: Element, entry: RefEntry, opts: GateOpts): Promise<Check> {
    let noFrames = false;
    let scrolled = false;
    const fail = (check: GateCheck, detail: string): Check => ({ status: 'failed', check, detail, noFrames, scrolled });
    if (!isVisible(el)) return fail('visible', invisibleReason(el));
    if (!inView(el)) {
      (el as HTMLElement).scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' as ScrollBehavior });
      scrolled = true;
    }
    if (opts.checkStable !== false) {
      // Two frames' boxes are compared when something can move the element: a running CSS / Web
      // animation on it or an ancestor, a scroll we just did, or a box that changed since it was
      // resolved. A still element needs no frame wait (the live-centre hit test still guards it).
      const anim = animating(el);
      // Its frames would show a still box until it starts: not stable yet, the action retries.
      if (anim === 'pending') return fail('stable', 'element has an animation that has not started yet: it is about to move');
      // Under a running animation compare exact boxes: near an eased turning point the element
      // moves less than the quarter pixel boxKey keeps, and would pass as still.
      const keyOf = anim ? (r: Rect): string => `${r.x},${r.y},${r.width},${r.height}` : boxKey;
      const before = keyOf(topRect(el));
      const moved = entry.box !== undefined && entry.box !== before;
      if (scrolled || moved || anim) {
        const framed = await nextFrame(NO_FRAME_MS, winOf(el));
        if (!framed) {
          noFrames = true;
          // Without a second frame there is nothing to compare: a running animation is not stable.
          if (anim) return fail('stable', 'element is animating and no animation frame came to compare its position');
        }
        const after = keyOf(topRect(el));
        if (after !== before) {
          entry.box = after;
          return fail('stable', `element is moving: its box changed from (${before}) to (${after}) between two animation frames`);
        }
        // Under an animation, one more frame: at an alternating animation's turning point two
        // consecutive frames can give the same box, three cannot.
        if (anim && framed && (await nextFrame(NO_FRAME_MS, winOf(el)))) {
          const third = keyOf(topRect(el));
          if (third !== after) {
            entry.box = third;
            return fail('stable', `element is moving: its box changed from (${after}) to (${third}) between two animation frames`);
          }
        }
      }
      entry.box = before;
    }
    const dis = opts.checkEnabled === false ? null : isDisabled(el);
    if (dis) return fail('enabled', dis);
    if (opts.editable) {
      const why = isTextEditable(el);
      if (why) return fail('editable', why);
    }
    const p = actionPoint(el);
    if (opts.checkReceivesEvents !== false) {
      const h = hitTarget(el, p.x, p.y);
      if (!h.ok) {
        const owner = h.hit ? dialogOf(h.hit) : null;
        const who = `${describe(h.hit)}${owner && owner !== h.hit ? ` (in ${describe(owner)})` : ''}`;
        return fail('receives events', `${who} would receive the click at (${Math.round(p.x)}, ${Math.round(p.y)}) instead`);
      }
    }
    return { status: 'ok', x: p.x, y: p.y, noFrames, scrolled };
  }

  return { gate };
}
