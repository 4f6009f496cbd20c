/**
 * The actionability checks an action waits for (visible, stable, enabled, editable, receives events)
 * before the driver dispatches its input at the point they return.
 */
import type { helpersModule } from './helpers.js';
import type { rolesModule } from './roles.js';
import type { visibilityModule } from './visibility.js';
import type { effectModule } from './effect.js';
import type { RefEntry, State } from './types.js';
import type { GateCheck, Rect, RuntimeApi, RuntimeGate } from './api.js';

type Deps = ReturnType<typeof helpersModule> &
  ReturnType<typeof rolesModule> &
  ReturnType<typeof visibilityModule> &
  ReturnType<typeof effectModule> & { state: State };

export function actionabilityModule(dep: Deps) {
  const {
    NO_FRAME_MS,
    POLL_MS,
    TEXT_INPUT_TYPES,
    beginAction,
    boxKey,
    composedParent,
    connected,
    containsComposed,
    describe,
    frameElementOf,
    hitTarget,
    inputType,
    isEl,
    nextFrame,
    rendered,
    roleOf,
    sleep,
    styleOf,
    topRect,
    visibleRect,
    winOf,
    state,
  } = dep;

  function animating(el: Element): boolean {
    for (let d: Document | null = el.ownerDocument; d;) {
      const doc = d as Partial<Pick<Document, 'getAnimations'>>;
      const anims = doc.getAnimations ? doc.getAnimations() : [];
      for (const a of anims) {
        if (a.playState !== 'running') continue;
        const t = a.effect && (a.effect as KeyframeEffect).target;
        if (t && isEl(t) && containsComposed(t, el)) return true;
        if (t && isEl(t) && d !== el.ownerDocument) return true;
      }
      if (d === document) break;
      const fe = frameElementOf(d);
      d = fe ? fe.ownerDocument : null;
    }
    return false;
  }
  function isDisabled(el: Element): string | null {
    try {
      if (el.matches(':disabled')) return 'element is disabled';
    } catch {
      /* not a form control */
    }
    for (let n: Node | null = el; n; n = composedParent(n)) {
      if (isEl(n) && n.getAttribute('aria-disabled') === 'true')
        return n === el ? 'element has aria-disabled="true"' : `ancestor ${describe(n)} has aria-disabled="true"`;
    }
    return null;
  }
  function isTextEditable(el: Element): string | null {
    const tag = el.localName;
    if (tag === 'textarea' || (tag === 'input' && TEXT_INPUT_TYPES.has(inputType(el)))) {
      if ((el as HTMLInputElement).readOnly) return 'element is read-only';
      return null;
    }
    if ((el as HTMLElement).isContentEditable) return null;
    const role = roleOf(el);
    return `element is a ${role === 'generic' ? el.localName : role}, not a text field`;
  }
  function invisibleReason(el: Element): string {
    if (!connected(el)) return 'element is not attached to the page';
    const cs = styleOf(el);
    if (!rendered(el, false))
      return cs.display === 'none' ? 'element is display:none' : 'element (or an ancestor) is not rendered (display:none)';
    if (cs.visibility !== 'visible') return `element has visibility:${cs.visibility}`;
    const r = el.getBoundingClientRect();
    return `element has an empty box (${Math.round(r.width)}×${Math.round(r.height)})`;
  }
  function isVisible(el: Element): boolean {
    if (!rendered(el, true)) return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  }
  function inView(el: Element): boolean {
    const r = topRect(el);
    const vr = visibleRect(el);
    return !!vr && vr.width >= Math.min(r.width, 1) && Math.abs(vr.width * vr.height - r.width * r.height) < 1;
  }
  function actionPoint(el: Element): { x: number; y: number } {
    const vr = visibleRect(el) ?? topRect(el);
    return { x: vr.x + vr.width / 2, y: vr.y + vr.height / 2 };
  }

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
        return fail(
          'receives events',
          `${describe(h.hit)}${owner && owner !== h.hit ? ` (in ${describe(owner)})` : ''} would receive the click at (${Math.round(p.x)}, ${Math.round(p.y)}) instead`,
        );
      }
    }
    return { status: 'ok', x: p.x, y: p.y, noFrames, scrolled };
  }
  function dialogOf(el: Element): Element | null {
    for (let n: Node | null = el; n; n = composedParent(n)) {
      if (isEl(n)) {
        const r = roleOf(n);
        if (r === 'dialog' || r === 'alertdialog') return n;
      }
    }
    // A backdrop usually wraps (or precedes) the dialog it belongs to.
    const inner = el.querySelector('[role=dialog],[role=alertdialog],dialog[open]');
    return inner;
  }

  return { isDisabled, isVisible, inView, invisibleReason, gate };
}
