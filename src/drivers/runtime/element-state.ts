/**
 * What an element is like for an action: visible, in view, enabled, editable, animating, in a dialog,
 * and the point an action aims at.
 */
import type { helpersModule } from './helpers.js';
import type { rolesModule } from './roles.js';
import type { visibilityModule } from './visibility.js';

type Deps = ReturnType<typeof helpersModule> & ReturnType<typeof rolesModule> & ReturnType<typeof visibilityModule>;

export function elementStateModule(dep: Deps) {
  const {
    TEXT_INPUT_TYPES,
    composedParent,
    connected,
    containsComposed,
    describe,
    frameElementOf,
    inputType,
    isEl,
    rendered,
    roleOf,
    styleOf,
    topRect,
    visibleRect,
  } = dep;

  /**
   * A running animation on the element, an ancestor or a frame holding it: 'pending' when one has not
   * started yet (its start time unresolved, its current time held at 0 while playState already says
   * running: in a busy renderer for several frames, the element still and about to move), else 'running'.
   */
  function animating(el: Element): 'pending' | 'running' | false {
    let found: 'running' | false = false;
    for (let d: Document | null = el.ownerDocument; d;) {
      const doc = d as Partial<Pick<Document, 'getAnimations'>>;
      const anims = doc.getAnimations ? doc.getAnimations() : [];
      for (const a of anims) {
        if (a.playState !== 'running') continue;
        const t = a.effect && (a.effect as KeyframeEffect).target;
        if (!t || !isEl(t) || (!containsComposed(t, el) && d === el.ownerDocument)) continue;
        if (a.pending) return 'pending';
        found = 'running';
      }
      if (d === document) break;
      const fe = frameElementOf(d);
      d = fe ? fe.ownerDocument : null;
    }
    return found;
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

  return { actionPoint, animating, dialogOf, isDisabled, isTextEditable, isVisible, inView, invisibleReason };
}
