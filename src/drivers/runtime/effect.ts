/**
 * The start of an action's effect read-back: observe DOM mutations and input events from just before
 * it, and (when asked) report its settle from the page as soon as it has settled.
 */
import type { helpersModule } from './helpers.js';
import type { rolesModule } from './roles.js';
import type { namesModule } from './names.js';
import type { elementReadModule } from './element-read.js';
import type { settleModule } from './settle.js';
import type { ActionRecord, State } from './types.js';

type Deps = ReturnType<typeof helpersModule> &
  ReturnType<typeof rolesModule> &
  ReturnType<typeof namesModule> &
  ReturnType<typeof elementReadModule> &
  ReturnType<typeof settleModule> & { state: State };

export function effectModule(dep: Deps) {
  const { countNow, endAction, frameElementOf, isEl, readChecked, readText, requestFrame, settleOf, state, winOf } = dep;

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

  return { beginAction };
}
