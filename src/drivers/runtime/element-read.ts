/**
 * Reading an element back after an action: its text or value, its checked state, what it has selected.
 */
import type { helpersModule } from './helpers.js';
import type { rolesModule } from './roles.js';
import type { namesModule } from './names.js';

type Deps = ReturnType<typeof helpersModule> & ReturnType<typeof rolesModule> & ReturnType<typeof namesModule>;

export function elementReadModule(dep: Deps) {
  const { accName, byIdIn, inputType, norm, roleOf } = dep;

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

  return { readChecked, readText, readSelected, listboxOf };
}
