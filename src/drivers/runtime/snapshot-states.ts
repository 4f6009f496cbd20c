/**
 * What a snapshot line says of an element: its states and value, and which texts are already a control's name.
 */
import type { helpersModule } from './helpers.js';
import type { rolesModule } from './roles.js';
import type { namesModule } from './names.js';
import type { visibilityModule } from './visibility.js';
import type { refsModule } from './refs.js';
import type { elementReadModule } from './element-read.js';
import type { elementStateModule } from './element-state.js';
import type { SNode, WalkCtx } from './types.js';
import type { Rect } from './api.js';

type Deps = ReturnType<typeof helpersModule> &
  ReturnType<typeof rolesModule> &
  ReturnType<typeof namesModule> &
  ReturnType<typeof visibilityModule> &
  ReturnType<typeof refsModule> &
  ReturnType<typeof elementReadModule> &
  ReturnType<typeof elementStateModule>;

export function snapshotStatesModule(dep: Deps) {
  const { INTERACTIVE, controlValue, hitTarget, intersect, isDisabled, isGeneric, norm, readChecked, rendered, roleOf } = dep;

  function statesOf(
    el: Element,
    role: string,
    n: SNode,
    markOffscreen: boolean,
    offscreen: boolean,
    tr: Rect,
    clip: Rect,
    w: WalkCtx,
  ): string {
    let s = '';
    if (role === 'heading') {
      const lvl = el.getAttribute('aria-level') ?? /^h([1-6])$/.exec(el.localName)?.[1] ?? '';
      if (lvl) s += ` [level=${lvl}]`;
    }
    const checked =
      role === 'checkbox' || role === 'radio' || role === 'switch' || role === 'menuitemcheckbox' || role === 'menuitemradio'
        ? readChecked(el)
        : null;
    if (checked === true) s += ' [checked]';
    else if (checked === 'mixed') s += ' [checked=mixed]';
    const pressed = el.getAttribute('aria-pressed');
    if (pressed === 'true') s += ' [pressed]';
    else if (pressed === 'mixed') s += ' [pressed=mixed]';
    if (role === 'option' || role === 'tab' || role === 'row' || role === 'gridcell' || role === 'treeitem') {
      if (el.getAttribute('aria-selected') === 'true' || (el.localName === 'option' && (el as HTMLOptionElement).selected))
        s += ' [selected]';
    }
    const exp =
      el.getAttribute('aria-expanded') ??
      (el.localName === 'summary' && el.parentElement?.localName === 'details'
        ? String((el.parentElement as HTMLDetailsElement).open)
        : null);
    if (exp === 'true') s += ' [expanded]';
    else if (exp === 'false') s += ' [expanded=false]';
    if ((n.interactive || INTERACTIVE.has(role)) && isDisabled(el)) s += ' [disabled]';
    if (el.hasAttribute('required') || el.getAttribute('aria-required') === 'true') s += ' [required]';
    if (w.active === el) s += ' [focused]';
    if (markOffscreen) s += ' [offscreen]';
    else if (!offscreen && n.interactive && w.occlusionBudget > 0 && tr.width > 0 && tr.height > 0) {
      w.occlusionBudget--;
      const vr = intersect(tr, clip);
      if (vr) {
        const h = hitTarget(el, vr.x + vr.width / 2, vr.y + vr.height / 2);
        if (!h.ok) s += ' [occluded]';
      }
    }
    return s;
  }
  function valueOf(el: Element, role: string): string | undefined {
    if (role === 'textbox' || role === 'searchbox' || role === 'spinbutton' || (role === 'combobox' && el.localName === 'input')) {
      if (el.localName === 'input' || el.localName === 'textarea') return controlValue(el);
      if ((el as HTMLElement).isContentEditable) return norm((el as HTMLElement).innerText);
      return el.getAttribute('aria-valuetext') ?? el.getAttribute('aria-valuenow') ?? undefined;
    }
    if (role === 'combobox') return el.localName === 'select' ? controlValue(el) : (el.getAttribute('aria-valuetext') ?? undefined);
    if (role === 'slider' || role === 'progressbar' || role === 'meter' || role === 'scrollbar') {
      return (
        el.getAttribute('aria-valuetext') ??
        el.getAttribute('aria-valuenow') ??
        ((el as HTMLInputElement).value !== undefined ? String((el as HTMLInputElement).value) : undefined)
      );
    }
    return undefined;
  }
  /** Generic elements whose whole text is the name of a control (labels, aria-labelledby targets): printed once, as the name. */
  function collectLabelTexts(doc: Document | ShadowRoot, into: Set<Element>): void {
    doc.querySelectorAll('label[for], label').forEach((l) => {
      const c = (l as HTMLLabelElement).control;
      if (c && !l.contains(c) && roleOf(l) === 'generic' && rendered(c, true)) into.add(l);
    });
    doc.querySelectorAll('[aria-labelledby]').forEach((e) => {
      for (const id of (e.getAttribute('aria-labelledby') ?? '').split(/\s+/)) {
        const t = id ? ((doc as Partial<Pick<Document, 'getElementById'>>).getElementById?.(id) ?? null) : null;
        if (t && t !== e && !t.contains(e) && isGeneric(roleOf(t))) into.add(t);
      }
    });
    doc.querySelectorAll('fieldset > legend').forEach((l) => into.add(l));
  }

  return { statesOf, valueOf, collectLabelTexts };
}
