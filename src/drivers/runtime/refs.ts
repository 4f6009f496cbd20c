/**
 * Refs (e1, e2, …: elements the page keeps weakly, per document) and the roots searched for elements:
 * the document, open shadow roots and same-origin iframes.
 */
import type { helpersModule } from './helpers.js';
import type { rolesModule } from './roles.js';
import type { namesModule } from './names.js';
import type { State } from './types.js';

/** The shadow-root bookkeeping comes from the installer: it outlives a runtime upgrade, like the state. */
type Deps = ReturnType<typeof helpersModule> &
  ReturnType<typeof rolesModule> &
  ReturnType<typeof namesModule> & { state: State; shadowSeenDocs: WeakSet<Document>; scannedDocs: WeakSet<Document> };
type MarkedProto = Element & { [mark: symbol]: unknown };

export function refsModule(dep: Deps) {
  const { accName, cut, isEl, roleOf, route, sameOriginDoc, scannedDocs, shadowSeenDocs, state } = dep;

  function refFor(el: Element, role: string, name: string): string {
    let ref = state.byEl.get(el);
    const entry = ref ? state.refs.get(ref) : undefined;
    if (!ref || !entry || entry.weak.deref() !== el) {
      ref = 'e' + state.nextRef++;
      state.byEl.set(el, ref);
    }
    state.refs.set(ref, { weak: new WeakRef(el), role, name, route: route() });
    if (state.refs.size > REF_CAP) pruneRefs();
    return ref;
  }
  // Refs kept per document. Past this, the oldest refs whose element is gone are forgotten
  // (a long session re-rendering lists would otherwise grow the table without bound).
  const REF_CAP = 20_000;
  function pruneRefs(): void {
    for (const [ref, entry] of state.refs) {
      if (state.refs.size <= REF_CAP * 0.8) break;
      const el = entry.weak.deref();
      if (!el || !el.isConnected) state.refs.delete(ref);
    }
    for (const [q] of state.queries) {
      if (state.queries.size <= REF_CAP / 4) break;
      state.queries.delete(q);
    }
    for (const [key, q] of state.queryKeys) if (!state.queries.has(q)) state.queryKeys.delete(key);
  }
  function describeRef(el: Element): string {
    const role = roleOf(el);
    const name = accName(el, role);
    return `${role}${name ? ` "${cut(name, 60)}"` : ''} [ref=${refFor(el, role, name)}]`;
  }

  // ── roots: document, open shadow roots, same-origin iframes ──
  // Finding shadow roots means visiting every element (a few ms on a large page, on every
  // resolve). So each document's runtime watches attachShadow from document start and scans only
  // documents that have shown a shadow root; a document the runtime joined late is scanned once.
  const SHADOW_MARK = Symbol.for('rehearse.shadowWatch');
  function watchShadows(win: Window & typeof globalThis): void {
    const proto = win.Element.prototype as MarkedProto;
    if (proto[SHADOW_MARK]) return;
    const original = proto.attachShadow as (init: ShadowRootInit) => ShadowRoot;
    Object.defineProperty(proto, SHADOW_MARK, { value: true });
    Object.defineProperty(proto, 'attachShadow', {
      configurable: true,
      writable: true,
      value: function attachShadow(this: Element, init: ShadowRootInit): ShadowRoot {
        shadowSeenDocs.add(this.ownerDocument);
        return original.call(this, init);
      },
    });
  }
  /** Whether a document may hold shadow roots: seen attached, or found by its one full scan. */
  function mayHaveShadows(doc: Document): boolean {
    if (shadowSeenDocs.has(doc)) return true;
    const win = doc.defaultView as (Window & typeof globalThis) | null;
    if (!win) return false;
    const watched = !!(win.Element.prototype as MarkedProto)[SHADOW_MARK];
    if (watched && scannedDocs.has(doc)) return false;
    // First look at this document: scan it once, then rely on the watch.
    if (!watched) watchShadows(win);
    scannedDocs.add(doc);
    const all = doc.querySelectorAll('*');
    for (let i = 0; i < all.length; i++) {
      if (all[i]!.shadowRoot) {
        shadowSeenDocs.add(doc);
        return true;
      }
    }
    return false;
  }
  try {
    watchShadows(window as Window & typeof globalThis);
    // At document start nothing exists yet: the watch sees every shadow root from here on.
    if (document.readyState === 'loading' && !document.body) scannedDocs.add(document);
  } catch {
    /* a locked-down prototype: every resolve scans */
  }
  /**
   * forceFullScan is set while a last full scan runs (declarative shadow roots escape the
   * attachShadow watch). An object, not a variable: target matching sets it from its own module.
   */
  const scan = { forceFullScan: false };
  function collectRoots(
    start: Document | ShadowRoot | Element,
    out: (Document | ShadowRoot | Element)[] = [],
    full = scan.forceFullScan,
  ): (Document | ShadowRoot | Element)[] {
    out.push(start);
    const doc = start.nodeType === 9 ? (start as Document) : (start as Element | ShadowRoot).ownerDocument!;
    if (full || start.nodeType === 11 || mayHaveShadows(doc)) {
      const all = start.querySelectorAll('*');
      for (let i = 0; i < all.length; i++) {
        const e = all[i]!;
        if (e.shadowRoot) collectRoots(e.shadowRoot, out, full);
        if (e.localName === 'iframe' || e.localName === 'frame') {
          const d = sameOriginDoc(e);
          if (d) collectRoots(d, out, full);
        }
      }
      return out;
    }
    const frames =
      start.nodeType === 9 ? (start as Document).querySelectorAll('iframe,frame') : (start as Element).querySelectorAll('iframe,frame');
    for (let i = 0; i < frames.length; i++) {
      const d = sameOriginDoc(frames[i]!);
      if (d) collectRoots(d, out, full);
    }
    return out;
  }
  function queryAll(roots: (Document | ShadowRoot | Element)[], selector: string): Element[] {
    const out: Element[] = [];
    for (const r of roots) {
      if (isEl(r) && r.matches(selector)) out.push(r);
      r.querySelectorAll(selector).forEach((e) => out.push(e));
    }
    return out;
  }

  return { collectRoots, describeRef, queryAll, refFor, scan };
}
