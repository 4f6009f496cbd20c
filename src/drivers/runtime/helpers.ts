/**
 * The page runtime's small helpers: text normalising, composed-tree walking across shadow roots
 * and same-origin frames, the focused element, and the waits (sleep, next frame, one macrotask).
 */

export function helpersModule() {
  // Zero-width spaces and joiners are line-break hints (Swagger UI puts them in paths), not text.
  const norm = (s: string | null | undefined): string =>
    (s ?? '')
      .replace(/[\u200B-\u200D\u2060\uFEFF]/g, '')
      .replace(/\s+/g, ' ')
      .trim();
  const cut = (s: string, n: number): string => (s.length > n ? s.slice(0, n - 1) + '…' : s);
  const ELEMENT = 1;
  const TEXT = 3;
  const isEl = (n: unknown): n is Element => !!n && (n as Node).nodeType === ELEMENT;
  const route = (): string => {
    const h = location.hash;
    return location.pathname + location.search + (h.startsWith('#/') || h.startsWith('#!') ? h : '');
  };
  const winOf = (el: Element): Window => (el.ownerDocument.defaultView ?? window) as Window;
  const styleOf = (el: Element): CSSStyleDeclaration => winOf(el).getComputedStyle(el);
  const connected = (el: Element): boolean =>
    el.isConnected && !!el.ownerDocument.defaultView && (el.ownerDocument === document || frameElementOf(el.ownerDocument) !== null);
  function frameElementOf(doc: Document): Element | null {
    try {
      const fe = doc.defaultView?.frameElement ?? null;
      return fe && fe.isConnected ? fe : null;
    } catch {
      return null;
    }
  }
  /** Parent across shadow roots (host) and same-origin frames (the iframe element). */
  function composedParent(n: Node): Node | null {
    const p = n.parentNode;
    if (!p) return null;
    if (p.nodeType === 11 && (p as ShadowRoot).host) return (p as ShadowRoot).host;
    if (p.nodeType === 9) return p === document ? null : frameElementOf(p as Document);
    return p;
  }
  function containsComposed(ancestor: Node, node: Node | null): boolean {
    for (let n: Node | null = node; n;) {
      if (n === ancestor) return true;
      const p: Node | null = n.parentNode;
      n = p && p.nodeType === 11 ? (p as ShadowRoot).host : p;
    }
    return false;
  }
  function deepActive(): Element | null {
    let a: Element | null = document.activeElement;
    for (;;) {
      if (!a) return null;
      if (a.shadowRoot?.activeElement) a = a.shadowRoot.activeElement;
      else if ((a.localName === 'iframe' || a.localName === 'frame') && sameOriginDoc(a)?.activeElement)
        a = sameOriginDoc(a)!.activeElement;
      else return a;
    }
  }
  function sameOriginDoc(frame: Element): Document | null {
    try {
      const d = (frame as HTMLIFrameElement).contentDocument;
      return d && d.documentElement ? d : null;
    } catch {
      return null;
    }
  }

  /**
   * The page's own animation-frame requests, counted: requestAnimationFrame is wrapped once per
   * window (under a global symbol, so a newer runtime and the perf probe share it) to keep the ids
   * the page asked for and has not yet had called back or cancelled. The runtime asks through
   * `raw`, uncounted. A settle whose input already changed the DOM, on a page with no frame
   * callback pending, has nothing a frame would run: it reads back without waiting for one.
   */
  interface FrameRequests {
    raw: (cb: FrameRequestCallback) => number;
    pending: Set<number>;
  }
  function frameRequests(win: Window = window): FrameRequests {
    const KEY = Symbol.for('rehearse.raf');
    const had = Reflect.get(win, KEY) as FrameRequests | undefined;
    if (had) return had;
    const raw = win.requestAnimationFrame.bind(win);
    const rawCancel = win.cancelAnimationFrame.bind(win);
    const pending = new Set<number>();
    const watch: FrameRequests = { raw, pending };
    win.requestAnimationFrame = (cb: FrameRequestCallback): number => {
      // Not a function: the browser's own TypeError, from the real method.
      if (typeof cb !== 'function') return raw(cb);
      const id = raw((t) => {
        pending.delete(id);
        cb(t);
      });
      pending.add(id);
      return id;
    };
    win.cancelAnimationFrame = (id: number): void => {
      pending.delete(id);
      rawCancel(id);
    };
    Object.defineProperty(win, KEY, { value: watch });
    return watch;
  }

  const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
  /** Next animation frame, or null after `ms` when the page produces no frames (hidden/background). */
  function nextFrame(ms: number, win: Window = window): Promise<boolean> {
    return new Promise((resolveFrame) => {
      let done = false;
      const timer = setTimeout(() => {
        if (!done) {
          done = true;
          resolveFrame(false);
        }
      }, ms);
      frameRequests(win).raw(() => {
        if (!done) {
          done = true;
          clearTimeout(timer);
          resolveFrame(true);
        }
      });
    });
  }
  /**
   * One macrotask: lets microtasks and already-queued tasks (framework schedulers) run. Whichever
   * task source comes first: a MessageChannel message runs at once in Chromium, where a zero
   * timeout may wait its 1 ms clamp; in WebKit a message takes 13-50 ms (ports are routed through
   * another process) while a zero timeout runs within 1-3 ms, ahead of the rendering.
   */
  function macrotask(): Promise<void> {
    return new Promise((r) => {
      const ch = new MessageChannel();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const done = (): void => {
        clearTimeout(timer);
        ch.port1.onmessage = null;
        ch.port1.close();
        r();
      };
      ch.port1.onmessage = done;
      ch.port2.postMessage(0);
      timer = setTimeout(done, 0);
    });
  }

  // How often in-page waits re-check: about two frames, cheap enough to be invisible in a profile.
  const POLL_MS = 30;
  // A page that produces no frame within this is hidden or backgrounded (a frame is ~16 ms).
  const NO_FRAME_MS = 100;

  return {
    TEXT,
    isEl,
    norm,
    composedParent,
    containsComposed,
    frameElementOf,
    sameOriginDoc,
    styleOf,
    route,
    POLL_MS,
    connected,
    sleep,
    NO_FRAME_MS,
    macrotask,
    nextFrame,
    frameRequests,
    winOf,
    cut,
    deepActive,
  };
}
