/**
 * Scrolling for the steps: the element a scroll moves, a point where a wheel reaches it, waiting for
 * a smooth scroll to end, and scrolling a ref into view.
 */
import type { helpersModule } from './helpers.js';
import type { rolesModule } from './roles.js';
import type { namesModule } from './names.js';
import type { visibilityModule } from './visibility.js';
import type { refsModule } from './refs.js';
import type { elementReadModule } from './element-read.js';
import type { elementStateModule } from './element-state.js';
import type { operationsModule } from './operations.js';
import type { State } from './types.js';
import type { Rect, RuntimeApi, ScrollInfo } from './api.js';

type Deps = ReturnType<typeof helpersModule> &
  ReturnType<typeof rolesModule> &
  ReturnType<typeof namesModule> &
  ReturnType<typeof visibilityModule> &
  ReturnType<typeof refsModule> &
  ReturnType<typeof elementReadModule> &
  ReturnType<typeof elementStateModule> &
  ReturnType<typeof operationsModule> & { state: State };

export function scrollModule(dep: Deps) {
  const {
    accName,
    collectRoots,
    composedParent,
    cut,
    deepHit,
    describe,
    frameOffset,
    inView,
    isEl,
    isGeneric,
    isVisible,
    nextFrame,
    refFor,
    roleOf,
    sleep,
    state,
    styleOf,
    topRect,
    visibleRect,
    winOf,
    withEl,
  } = dep;

  function isScrollable(el: Element, axis: 'x' | 'y' | 'any'): boolean {
    const de = el.ownerDocument.scrollingElement;
    if (el === de) {
      return (axis !== 'x' && de.scrollHeight > de.clientHeight + 1) || (axis !== 'y' && de.scrollWidth > de.clientWidth + 1);
    }
    const cs = styleOf(el);
    const oy = cs.overflowY === 'auto' || cs.overflowY === 'scroll' || cs.overflowY === 'overlay';
    const ox = cs.overflowX === 'auto' || cs.overflowX === 'scroll' || cs.overflowX === 'overlay';
    const y = oy && el.scrollHeight > el.clientHeight + 1;
    const x = ox && el.scrollWidth > el.clientWidth + 1;
    return axis === 'y' ? y : axis === 'x' ? x : x || y;
  }
  function scrollInfoOf(el: Element): { status: 'ok' } & ScrollInfo {
    const doc = el.ownerDocument;
    const isDoc = el === doc.scrollingElement;
    const role = roleOf(el);
    const name = accName(el, role);
    const ref = refFor(el, role, name);
    let area: Rect;
    if (isDoc) {
      const o = doc === document ? { x: 0, y: 0 } : frameOffset(doc);
      area = { x: o.x, y: o.y, width: el.clientWidth, height: el.clientHeight };
    } else area = visibleRect(el) ?? topRect(el);
    const point = wheelPoint(el, area);
    return {
      status: 'ok',
      ref,
      describe: isDoc ? 'the document' : `${isGeneric(role) ? describe(el) : `${role}${name ? ` "${cut(name, 60)}"` : ''}`} [ref=${ref}]`,
      isDocument: isDoc,
      x: el.scrollLeft,
      y: el.scrollTop,
      maxX: Math.max(0, el.scrollWidth - el.clientWidth),
      maxY: Math.max(0, el.scrollHeight - el.clientHeight),
      clientWidth: el.clientWidth,
      clientHeight: el.clientHeight,
      point,
    };
  }
  /** Nearest element that scrolls on a wheel at this hit (the scrolling element for the document). */
  function scrollerOf(hit: Element | null): Element | null {
    for (let n: Node | null = hit; n; n = composedParent(n)) {
      if (isEl(n) && (n === n.ownerDocument.scrollingElement ? isScrollable(n, 'any') : isScrollable(n, 'any'))) return n;
    }
    return null;
  }
  /** A point in `area` where a wheel reaches `el` rather than a nested scroller: centre first, then a grid. */
  function wheelPoint(el: Element, area: Rect): { x: number; y: number } {
    const centre = { x: area.x + area.width / 2, y: area.y + area.height / 2 };
    const fr = [0.5, 0.15, 0.85, 0.3, 0.7];
    for (const fy of fr) {
      for (const fx of fr) {
        const p = { x: area.x + area.width * fx, y: area.y + area.height * fy };
        const hit = deepHit(document, p.x, p.y);
        const sc = scrollerOf(hit);
        if (sc === el || (sc === null && el === document.scrollingElement)) return p;
      }
    }
    return centre;
  }
  /** The element to scroll: the ref itself or its nearest scrollable ancestor; else the first scrollable element; else the document. */
  function scrollContainer(ref: string | null, axis: 'x' | 'y'): ReturnType<RuntimeApi['scrollContainer']> {
    if (ref) {
      return withEl(ref, (el) => {
        for (let n: Node | null = el; n; n = composedParent(n)) {
          if (isEl(n) && isScrollable(n, axis)) return scrollInfoOf(n);
        }
        return scrollInfoOf(document.scrollingElement ?? document.documentElement);
      });
    }
    for (const root of collectRoots(document)) {
      const all = root.querySelectorAll('*');
      for (let i = 0; i < all.length; i++) {
        const e = all[i]!;
        if (e === e.ownerDocument.scrollingElement || e === e.ownerDocument.body) continue;
        if (isScrollable(e, axis) && isVisible(e)) return scrollInfoOf(e);
      }
    }
    return scrollInfoOf(document.scrollingElement ?? document.documentElement);
  }
  /** Wait until the offset reaches (x, y) or stops moving for two frames, bounded. */
  async function awaitScroll(ref: string, x: number, y: number, timeoutMs: number): ReturnType<RuntimeApi['awaitScroll']> {
    const el = state.refs.get(ref)?.weak.deref();
    if (!el) return { status: 'stale', detail: `ref=${ref} left the DOM` };
    const deadline = Date.now() + timeoutMs;
    let last = `${el.scrollLeft},${el.scrollTop}`;
    let still = 0;
    while (Date.now() < deadline) {
      if (Math.abs(el.scrollLeft - x) < 1 && Math.abs(el.scrollTop - y) < 1) break;
      const framed = await nextFrame(100, winOf(el));
      if (!framed) await sleep(16);
      const now = `${el.scrollLeft},${el.scrollTop}`;
      still = now === last ? still + 1 : 0;
      last = now;
      // Smooth scrolling moves every frame; three still frames mean it is over.
      if (still >= 3) break;
    }
    return { status: 'ok', x: el.scrollLeft, y: el.scrollTop };
  }
  function scrollByFallback(ref: string, x: number, y: number): ReturnType<RuntimeApi['scrollByFallback']> {
    return withEl(ref, (el) => {
      el.scrollTo({ left: x, top: y, behavior: 'instant' as ScrollBehavior });
      return { status: 'ok', x: el.scrollLeft, y: el.scrollTop };
    });
  }
  function scrollIntoViewRef(ref: string): ReturnType<RuntimeApi['scrollIntoView']> {
    return withEl(ref, (el) => {
      let container: Element = document.scrollingElement ?? document.documentElement;
      for (let n = composedParent(el); n; n = composedParent(n)) {
        if (isEl(n) && isScrollable(n, 'any')) {
          container = n;
          break;
        }
      }
      const before = { x: container.scrollLeft, y: container.scrollTop };
      const was = inView(el);
      if (!was) (el as HTMLElement).scrollIntoView({ block: 'center', inline: 'nearest', behavior: 'instant' as ScrollBehavior });
      const info = scrollInfoOf(container);
      return {
        status: 'ok',
        before,
        after: { x: container.scrollLeft, y: container.scrollTop },
        inView: inView(el),
        wasInView: was,
        container: info.describe,
      };
    });
  }

  return { awaitScroll, scrollByFallback, scrollContainer, scrollIntoViewRef };
}
