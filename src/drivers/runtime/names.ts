/**
 * Accessible names (a pragmatic subset of accname 1.2), read from the DOM the way the snapshot, target
 * matching and the steps name elements, and the value a form control shows.
 */
import type { helpersModule } from './helpers.js';
import type { rolesModule } from './roles.js';

type Deps = ReturnType<typeof helpersModule> & ReturnType<typeof rolesModule>;

export function namesModule(dep: Deps) {
  const { NAME_FROM_CONTENT, SKIP_TAGS, TEXT, inputType, isEl, norm } = dep;

  function byIdIn(el: Element, id: string): Element | null {
    // A detached subtree's root is an element, which has no getElementById.
    const root = el.getRootNode() as Partial<Pick<Document, 'getElementById'>>;
    return root.getElementById ? root.getElementById(id) : el.ownerDocument.getElementById(id);
  }
  /** Text of a subtree for a name: skips aria-hidden and hidden parts, uses alt/aria-label of children. */
  function subtreeText(root: Node, skip: Element | null, depth = 0): string {
    let out = '';
    for (let c: Node | null = root.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === TEXT) out += (c as Text).data;
      else if (isEl(c)) {
        if (c === skip || SKIP_TAGS.has(c.localName)) continue;
        if (c.getAttribute('aria-hidden') === 'true' || c.hasAttribute('hidden')) continue;
        const lbl = c.getAttribute('aria-label');
        if (lbl && lbl.trim()) {
          out += ' ' + lbl + ' ';
          continue;
        }
        if (c.localName === 'img' || c.localName === 'area') {
          out += ' ' + (c.getAttribute('alt') ?? '') + ' ';
          continue;
        }
        if (c.localName === 'input' && ['button', 'submit', 'reset'].includes(inputType(c))) {
          out += ' ' + (c as HTMLInputElement).value + ' ';
          continue;
        }
        if (c.localName === 'select' || c.localName === 'textarea' || c.localName === 'input') {
          out += ' ' + controlValue(c) + ' ';
          continue;
        }
        // Thirty levels of nesting is deeper than any name worth reading; it bounds the recursion.
        const block = depth < 30 ? subtreeText(c.shadowRoot ?? c, skip, depth + 1) : '';
        out += isInlineTag(c.localName) ? block : ' ' + block + ' ';
      }
    }
    return out;
  }
  function isInlineTag(tag: string): boolean {
    return (
      tag === 'span' ||
      tag === 'b' ||
      tag === 'i' ||
      tag === 'em' ||
      tag === 'strong' ||
      tag === 'a' ||
      tag === 'code' ||
      tag === 'small' ||
      tag === 'mark' ||
      tag === 'u' ||
      tag === 'sub' ||
      tag === 'sup' ||
      tag === 'abbr' ||
      tag === 'label'
    );
  }
  function controlValue(el: Element): string {
    if (el.localName === 'select') {
      const s = el as HTMLSelectElement;
      return [...s.selectedOptions].map((o) => norm(o.label || o.textContent)).join(', ');
    }
    if (el.localName === 'input' || el.localName === 'textarea') {
      const i = el as HTMLInputElement;
      if (i.type === 'password') return i.value ? '•'.repeat(Math.min(i.value.length, 8)) : '';
      return i.value;
    }
    return '';
  }
  function accName(el: Element, role: string): string {
    const labelledby = el.getAttribute('aria-labelledby');
    if (labelledby) {
      const parts: string[] = [];
      for (const id of labelledby.split(/\s+/)) {
        const ref = id ? byIdIn(el, id) : null;
        if (!ref) continue;
        const lbl = ref.getAttribute('aria-label');
        parts.push(lbl && lbl.trim() ? lbl : ref === el ? '' : subtreeText(ref, null));
      }
      const n = norm(parts.join(' '));
      if (n) return n;
    }
    const aria = norm(el.getAttribute('aria-label'));
    if (aria) return aria;
    const tag = el.localName;
    if (tag === 'input' || tag === 'select' || tag === 'textarea' || tag === 'meter' || tag === 'progress' || tag === 'output') {
      const t = inputType(el);
      if (tag === 'input' && (t === 'button' || t === 'submit' || t === 'reset')) {
        const v = norm((el as HTMLInputElement).value);
        return v || (t === 'submit' ? 'Submit' : t === 'reset' ? 'Reset' : '');
      }
      if (tag === 'input' && t === 'image') return norm(el.getAttribute('alt')) || norm(el.getAttribute('title')) || 'Submit';
      const labels = (el as HTMLInputElement).labels;
      if (labels && labels.length) {
        const n = norm([...labels].map((l) => subtreeText(l, el)).join(' '));
        if (n) return n;
      }
      const title = norm(el.getAttribute('title'));
      if (title) return title;
      return norm(el.getAttribute('placeholder'));
    }
    if (tag === 'img' || tag === 'area') {
      const alt = norm(el.getAttribute('alt'));
      if (alt) return alt;
    }
    if (tag === 'fieldset') {
      const legend = el.querySelector(':scope > legend');
      if (legend) return norm(subtreeText(legend, null));
    }
    if (tag === 'table') {
      const cap = el.querySelector(':scope > caption');
      if (cap) return norm(subtreeText(cap, null));
    }
    if (tag === 'figure') {
      const cap = el.querySelector(':scope > figcaption');
      if (cap) return norm(subtreeText(cap, null));
    }
    if (tag === 'svg') {
      const t = el.querySelector(':scope > title');
      if (t) return norm(t.textContent);
    }
    if (NAME_FROM_CONTENT.has(role)) {
      const n = norm(subtreeText(el.shadowRoot ?? el, null));
      if (n) return n;
    }
    const title = norm(el.getAttribute('title'));
    if (title) return title;
    if ((tag === 'iframe' || tag === 'frame') && el.getAttribute('name')) return norm(el.getAttribute('name'));
    return '';
  }

  return { accName, subtreeText, byIdIn, controlValue };
}
