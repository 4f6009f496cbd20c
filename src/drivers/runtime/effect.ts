/**
 * The effect read-back of an action: observe DOM mutations and input events from just before it, wait
 * for it to settle (a macrotask, then its frames), and read back text, checked state or selection.
 */
import type { helpersModule } from './helpers.js';
import type { rolesModule } from './roles.js';
import type { ActionRecord, State } from './types.js';
import type { RuntimeApi, RuntimeSettle } from './api.js';

type Deps = ReturnType<typeof helpersModule> & ReturnType<typeof rolesModule> & { state: State };

export function effectModule(dep: Deps) {
  const {
    NO_FRAME_MS,
    accName,
    byIdIn,
    connected,
    frameElementOf,
    frameRequests,
    inputType,
    isEl,
    macrotask,
    nextFrame,
    norm,
    roleOf,
    sleep,
    winOf,
    state,
  } = dep;
  // Installed with the runtime, so every frame the page asks for from now on is counted (none
  // without a window: the runtime also loads where there is no DOM).
  const pageFrames = typeof window === 'object' ? frameRequests() : null;
  const requestFrame = (cb: FrameRequestCallback): number => pageFrames!.raw(cb);

  function readChecked(el: Element): boolean | 'mixed' | null {
    if (el.localName === 'input' && (inputType(el) === 'checkbox' || inputType(el) === 'radio')) {
      const i = el as HTMLInputElement;
      return i.indeterminate ? 'mixed' : i.checked;
    }
    const a = el.getAttribute('aria-checked') ?? el.getAttribute('aria-pressed');
    if (a === 'true') return true;
    if (a === 'mixed') return 'mixed';
    if (a === 'false') return false;
    return null;
  }
  function readText(el: Element): string {
    if (el.localName === 'input' || el.localName === 'textarea') return (el as HTMLInputElement).value;
    if ((el as HTMLElement).isContentEditable) return (el as HTMLElement).innerText.replace(/\n$/, '');
    return norm(el.textContent);
  }
  function readSelected(el: Element): string[] {
    if (el.localName === 'select') return [...(el as HTMLSelectElement).selectedOptions].map((o) => norm(o.label || o.textContent));
    const role = roleOf(el);
    if (role === 'option') return el.getAttribute('aria-selected') === 'true' ? [accName(el, role)] : [];
    if (role === 'combobox') {
      if (el.localName === 'input') return [(el as HTMLInputElement).value];
      const lb = listboxOf(el);
      const sel = lb ? readSelected(lb) : [];
      return sel.length ? sel : [norm(el.textContent)];
    }
    const opts = [...el.querySelectorAll('[role=option]')].filter(
      (o) => o.getAttribute('aria-selected') === 'true' || o.getAttribute('aria-checked') === 'true',
    );
    return opts.map((o) => accName(o, 'option'));
  }
  function listboxOf(el: Element): Element | null {
    for (const attr of ['aria-controls', 'aria-owns']) {
      const id = el.getAttribute(attr);
      if (id) {
        const lb = byIdIn(el, id.split(/\s+/)[0]!);
        if (lb) return lb.getAttribute('role') === 'listbox' ? lb : (lb.querySelector('[role=listbox]') ?? lb);
      }
    }
    const inner = el.querySelector('[role=listbox]');
    if (inner) return inner;
    return null;
  }

  /** The events that end a user's input (the last one an action dispatches). */
  const TERMINAL_EVENTS = [
    'mouseup',
    'click',
    'contextmenu',
    'keyup',
    'input',
    'change',
    'wheel',
    'scroll',
    'drop',
    'dragend',
    'focusin',
    'focusout',
  ];
  function beginAction(ref: string, el: Element, read: string, report?: string): void {
    endAction();
    state.settled = null;
    let markInput = (): void => undefined;
    const inputSeen = new Promise<void>((r) => (markInput = r));
    const rec: ActionRecord = {
      ref,
      el,
      observers: [],
      count: 0,
      lastMutationAt: 0,
      frame: null,
      unlisten: [],
      inputSeen,
      markInput,
      read,
    };
    const onMut = (records: MutationRecord[]): void => {
      rec.count += records.length;
      rec.lastMutationAt = performance.now();
    };
    // The frame that renders the action is requested from the task of its last input event (a
    // capture listener runs in the same task as the page's handlers). Requesting it earlier would
    // spend an idle page's immediate frame before the input arrives, and push the input's own
    // rendering to the next vsync.
    const onInput = (e: Event): void => {
      // A click ends with mouseup (click follows in the same task): the settle may go on from there.
      if (e.type === 'mouseup') rec.markInput();
      rec.frame = new Promise((resolveFrame) => requestFrame(() => resolveFrame({ at: performance.now(), count: countNow(rec) })));
    };
    const wins = new Set<Window>([window, winOf(el)]);
    for (const w of wins) {
      for (const type of TERMINAL_EVENTS) {
        w.addEventListener(type, onInput, { capture: true, passive: true });
        rec.unlisten.push(() => w.removeEventListener(type, onInput, { capture: true }));
      }
    }
    const roots = new Set<Node>([document]);
    for (let n: Node | null = el; n;) {
      const root = n.getRootNode();
      roots.add(root);
      n =
        root.nodeType === 11
          ? (root as ShadowRoot).host
          : root.nodeType === 9 && root !== document
            ? frameElementOf(root as Document)
            : null;
    }
    for (const r of roots) {
      const mo = new MutationObserver(onMut);
      mo.observe(r, { subtree: true, childList: true, attributes: true, characterData: true });
      rec.observers.push(mo);
    }
    if (read === 'text') rec.textBefore = readText(el);
    if (read === 'checked') rec.checkedBefore = readChecked(el);
    state.action = rec;
    if (report) {
      rec.report = report;
      armReport(rec, report);
    }
  }
  /**
   * Send the settle to `url` from the page as soon as the input has settled. Over WebDriver on
   * WebKit a command sent after a click that changed the DOM starts only once the page has rendered
   * the change (15-60 ms on the demo list); the report leaves ahead of that rendering, and the settle
   * command's own answer stays the fallback. Not tried under a `<meta>` CSP; a CSP header that
   * refuses it stops reports from that document, and the violation event is kept from the page.
   */
  function armReport(rec: ActionRecord, url: string): void {
    // An element in a frame: its clicks and navigations are not this window's to watch.
    if (winOf(rec.el) !== window || state.reportsRefused || document.querySelector('meta[http-equiv="Content-Security-Policy" i]')) return;
    guardReports(url);
    // A link or a form leaving the document: its settle describes the old one, and the command
    // (which fails as the document goes) tells the step. WebKit starts such a navigation after a
    // policy check, later than the settle: the click on a link and the submission are seen here,
    // and count unless a handler cancels them.
    const exits: Event[] = [];
    const onExit = (e: Event): void => {
      if (e.type === 'submit' || e.composedPath().some(leavingLink)) exits.push(e);
    };
    const onLeave = (): void => {
      rec.leaving = true;
    };
    const listeners: [string, (e: Event) => void][] = [
      ['click', onExit],
      ['submit', onExit],
      ['beforeunload', onLeave],
    ];
    for (const [type, fn] of listeners) {
      window.addEventListener(type, fn, { capture: true });
      rec.unlisten.push(() => window.removeEventListener(type, fn, { capture: true }));
    }
    void rec.inputSeen.then(() => {
      if (state.action !== rec) return;
      settleOf(rec).then(
        (v) => {
          if (rec.leaving || exits.some((e) => !e.defaultPrevented)) return;
          try {
            // A beacon: fire and forget, and not one of the requests apps wrap (fetch, XHR) to log. A
            // string goes as text/plain, a CORS-safelisted type: sent without a preflight, and the
            // listener answers no CORS header (a Blob of application/json would need one).
            navigator.sendBeacon(url, JSON.stringify(v));
          } catch {
            // Refused outright: the settle command answers instead.
          }
        },
        () => undefined,
      );
    });
  }
  /** A link that loads another document in this window when followed. */
  function leavingLink(n: EventTarget): boolean {
    if (!isEl(n) || (n.localName !== 'a' && n.localName !== 'area') || !n.hasAttribute('href') || n.hasAttribute('download')) return false;
    const a = n as HTMLAnchorElement;
    if (a.target && a.target !== '_self') return false;
    if (a.protocol === 'javascript:') return false;
    // Only the fragment differs: a jump within this document.
    const here = location.href.split('#')[0];
    return !(a.href.split('#')[0] === here && a.href.includes('#'));
  }
  function guardReports(url: string): void {
    if (state.reportGuard) return;
    state.reportGuard = true;
    const origin = url.slice(0, url.indexOf('/', 'http://'.length));
    window.addEventListener(
      'securitypolicyviolation',
      (e) => {
        if (!e.blockedURI.startsWith(origin)) return;
        state.reportsRefused = true;
        e.stopImmediatePropagation();
      },
      { capture: true },
    );
  }
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

  return { beginAction, readChecked, listboxOf, readText, endAction, settle };
}
