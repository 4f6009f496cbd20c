/**
 * Visibility (in the accessibility tree, rendered) and geometry: boxes in top-viewport CSS px across
 * same-origin frames, the part not clipped away, and the hit test that says who would receive a click.
 */
import type { helpersModule } from './helpers.js';
import type { rolesModule } from './roles.js';
import type { namesModule } from './names.js';
import type { Rect } from './api.js';

type Deps = ReturnType<typeof helpersModule> & ReturnType<typeof rolesModule> & ReturnType<typeof namesModule>;

export function visibilityModule(dep: Deps) {
  const { accName, composedParent, containsComposed, cut, frameElementOf, isEl, isGeneric, roleOf, sameOriginDoc, styleOf } = dep;

  /** In the accessibility tree and rendered: not display:none, not visibility:hidden, not aria-hidden. */
  function a11yVisible(el: Element): boolean {
    for (let n: Node | null = el; n; n = composedParent(n)) {
      if (isEl(n) && (n.getAttribute('aria-hidden') === 'true' || n.hasAttribute('inert'))) return false;
    }
    return rendered(el, true);
  }
  function rendered(el: Element, visibilityProperty: boolean): boolean {
    if (el.localName === 'option' || el.localName === 'optgroup') {
      const sel = el.closest('select,datalist');
      if (sel) return sel.localName === 'select' ? rendered(sel, visibilityProperty) : false;
    }
    if (el.checkVisibility({ visibilityProperty })) return true;
    const cs = styleOf(el);
    if (cs.display === 'contents') {
      for (let p = composedParent(el); p; p = composedParent(p)) {
        if (isEl(p)) return rendered(p, visibilityProperty) && (!visibilityProperty || cs.visibility === 'visible');
      }
      return true;
    }
    return false;
  }

  // ── geometry ──
  function frameOffset(doc: Document): { x: number; y: number } {
    let x = 0;
    let y = 0;
    for (let d: Document = doc; d !== document;) {
      const fe = frameElementOf(d);
      if (!fe) break;
      const r = fe.getBoundingClientRect();
      const cs = styleOf(fe);
      x += r.left + fe.clientLeft + parseFloat(cs.paddingLeft);
      y += r.top + fe.clientTop + parseFloat(cs.paddingTop);
      d = fe.ownerDocument;
    }
    return { x, y };
  }
  function topRect(el: Element): Rect {
    const r = el.getBoundingClientRect();
    const o = el.ownerDocument === document ? { x: 0, y: 0 } : frameOffset(el.ownerDocument);
    return { x: r.left + o.x, y: r.top + o.y, width: r.width, height: r.height };
  }
  function viewportRect(): Rect {
    const de = document.documentElement;
    return { x: 0, y: 0, width: de.clientWidth || innerWidth, height: de.clientHeight || innerHeight };
  }
  function intersect(a: Rect, b: Rect): Rect | null {
    const x = Math.max(a.x, b.x);
    const y = Math.max(a.y, b.y);
    const r = Math.min(a.x + a.width, b.x + b.width);
    const bt = Math.min(a.y + a.height, b.y + b.height);
    return r > x && bt > y ? { x, y, width: r - x, height: bt - y } : null;
  }
  /** The part of `el` not clipped by the viewport or scroll containers (top-viewport px), or null. */
  function visibleRect(el: Element): Rect | null {
    let r: Rect | null = topRect(el);
    if (r.width === 0 || r.height === 0) return null;
    for (let p = composedParent(el); p && r; p = composedParent(p)) {
      if (!isEl(p) || p === document.documentElement || p === document.body) continue;
      if (p.localName === 'iframe' || p.localName === 'frame') {
        r = intersect(r, topRect(p));
        continue;
      }
      if (p.scrollHeight > p.clientHeight + 1 || p.scrollWidth > p.clientWidth + 1) {
        const ov = styleOf(p);
        if (ov.overflowX !== 'visible' || ov.overflowY !== 'visible') {
          const pr = topRect(p);
          r = intersect(r, { x: pr.x + p.clientLeft, y: pr.y + p.clientTop, width: p.clientWidth, height: p.clientHeight });
        }
      }
    }
    return r ? intersect(r, viewportRect()) : null;
  }
  const boxKey = (r: Rect): string =>
    `${Math.round(r.x * 4) / 4},${Math.round(r.y * 4) / 4},${Math.round(r.width * 4) / 4},${Math.round(r.height * 4) / 4}`;
  const round = (r: Rect): Rect => ({
    x: Math.round(r.x * 10) / 10,
    y: Math.round(r.y * 10) / 10,
    width: Math.round(r.width * 10) / 10,
    height: Math.round(r.height * 10) / 10,
  });

  /** Deep hit test through open shadow roots; stays within one document. */
  function deepHit(doc: Document, x: number, y: number): Element | null {
    let hit = doc.elementFromPoint(x, y);
    while (hit && hit.shadowRoot) {
      const inner = hit.shadowRoot.elementFromPoint(x, y);
      if (!inner || inner === hit) break;
      hit = inner;
    }
    return hit;
  }
  /** The element that receives a pointer event at top-viewport (x, y), descending into frames towards `el`. */
  function hitTarget(el: Element, x: number, y: number): { ok: boolean; hit: Element | null } {
    const chain: Element[] = [];
    for (let d: Document = el.ownerDocument; d !== document;) {
      const fe = frameElementOf(d);
      if (!fe) break;
      chain.unshift(fe);
      d = fe.ownerDocument;
    }
    let doc: Document = document;
    let lx = x;
    let ly = y;
    for (const fe of chain) {
      const hit = deepHit(doc, lx, ly);
      if (hit !== fe) return { ok: false, hit };
      const o = frameOffset(sameOriginDoc(fe)!);
      const po = doc === document ? { x: 0, y: 0 } : frameOffset(doc);
      lx -= o.x - po.x;
      ly -= o.y - po.y;
      doc = sameOriginDoc(fe)!;
    }
    const hit = deepHit(doc, lx, ly);
    if (hit && containsComposed(el, hit)) return { ok: true, hit };
    const labels = (el as HTMLInputElement).labels;
    if (hit && labels) for (const l of labels) if (containsComposed(l, hit)) return { ok: true, hit };
    return { ok: false, hit };
  }

  function describe(el: Element | null): string {
    if (!el) return 'nothing';
    const role = roleOf(el);
    const name = isGeneric(role) ? '' : accName(el, role);
    if (!isGeneric(role) && name) return `${role} "${cut(name, 60)}"`;
    let s = el.localName;
    if (el.id) s += '#' + el.id;
    const cls = typeof el.className === 'string' ? el.className.trim().split(/\s+/).filter(Boolean).slice(0, 2) : [];
    if (cls.length) s += '.' + cls.join('.');
    return isGeneric(role) ? s : `${role} ${s}`;
  }

  return { a11yVisible, boxKey, topRect, describe, hitTarget, rendered, visibleRect, frameOffset, intersect, viewportRect, round, deepHit };
}
