/**
 * Element operations the steps use around their input: focus and blur, select a field's content,
 * fire change, native and ARIA selects, check state.
 */
import type { helpersModule } from './helpers.js';
import type { rolesModule } from './roles.js';
import type { namesModule } from './names.js';
import type { visibilityModule } from './visibility.js';
import type { refsModule } from './refs.js';
import type { elementReadModule } from './element-read.js';
import type { elementStateModule } from './element-state.js';
import type { State } from './types.js';
import type { RuntimeApi } from './api.js';

type Deps = ReturnType<typeof helpersModule> &
  ReturnType<typeof rolesModule> &
  ReturnType<typeof namesModule> &
  ReturnType<typeof visibilityModule> &
  ReturnType<typeof refsModule> &
  ReturnType<typeof elementReadModule> &
  ReturnType<typeof elementStateModule> & { state: State };

export function operationsModule(dep: Deps) {
  const {
    a11yVisible,
    accName,
    connected,
    containsComposed,
    deepActive,
    describe,
    describeRef,
    inView,
    isVisible,
    listboxOf,
    norm,
    readChecked,
    readText,
    refFor,
    roleOf,
    state,
    topRect,
    winOf,
  } = dep;

  function withEl<T>(ref: string, fn: (el: Element) => T): T | { status: 'stale'; detail: string } {
    const el = state.refs.get(ref)?.weak.deref();
    if (!el || !connected(el)) return { status: 'stale', detail: `ref=${ref} left the DOM` };
    return fn(el);
  }
  function elementOf(ref: string): Element | null {
    const el = state.refs.get(ref)?.weak.deref();
    return el && connected(el) ? el : null;
  }

  function box(ref: string, scroll: boolean): ReturnType<RuntimeApi['box']> {
    return withEl(ref, (el) => {
      if (scroll && !inView(el) && isVisible(el))
        (el as HTMLElement).scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' as ScrollBehavior });
      return { status: 'ok', rect: topRect(el), visible: isVisible(el) };
    });
  }

  function focusEl(ref: string): ReturnType<RuntimeApi['focus']> {
    return withEl(ref, (el) => {
      const was = deepActive() === el;
      if (!was) (el as HTMLElement).focus({ preventScroll: true });
      return { status: 'ok', focused: deepActive() === el, was };
    });
  }
  function blurEl(ref: string | null): ReturnType<RuntimeApi['blur']> {
    const active = deepActive();
    if (ref === null) {
      if (!active || active === document.body) return { status: 'ok', hadFocus: false, blurred: null };
      const d = describeRef(active);
      (active as HTMLElement).blur();
      return { status: 'ok', hadFocus: true, blurred: d, focusedNow: describe(deepActive()) };
    }
    return withEl(ref, (el) => {
      const had = active === el || (!!active && containsComposed(el, active));
      if (had) (active as HTMLElement).blur();
      return { status: 'ok', hadFocus: had, blurred: had ? describeRef(el) : null, stillFocused: deepActive() === el };
    });
  }
  /** Select the field's whole content so the next keystroke replaces it. */
  function selectContent(ref: string): ReturnType<RuntimeApi['selectContent']> {
    return withEl(ref, (el) => {
      if (deepActive() !== el) (el as HTMLElement).focus({ preventScroll: true });
      // Some frameworks swap the field when it takes focus: the edit must go to the new one.
      if (!connected(el)) return { status: 'stale', detail: `ref=${ref} was replaced when it took focus` };
      if (el.localName === 'input' || el.localName === 'textarea') {
        try {
          (el as HTMLInputElement).select();
        } catch {
          /* types without selection: the select-all key command is the fallback */
        }
      } else if ((el as HTMLElement).isContentEditable) {
        const sel = winOf(el).getSelection();
        const range = el.ownerDocument.createRange();
        range.selectNodeContents(el);
        sel?.removeAllRanges();
        sel?.addRange(range);
      }
      return {
        status: 'ok',
        value: readText(el),
        focused: deepActive() === el,
        valueAtFocus: (el as Element & { __rehearseFocusValue?: string }).__rehearseFocusValue,
      };
    });
  }
  /** A user's edit ends with `change` (on commit); fire it when the value differs from before editing. */
  function commitChange(ref: string, before: string): ReturnType<RuntimeApi['commitChange']> {
    return withEl(ref, (el) => {
      const now = readText(el);
      const fired = (el.localName === 'input' || el.localName === 'textarea') && now !== before;
      if (fired) el.dispatchEvent(new Event('change', { bubbles: true }));
      return { status: 'ok', fired, value: now };
    });
  }

  function checkState(ref: string): ReturnType<RuntimeApi['checkState']> {
    return withEl(ref, (el) => {
      const role = roleOf(el);
      const checkable =
        role === 'checkbox' ||
        role === 'radio' ||
        role === 'switch' ||
        role === 'menuitemcheckbox' ||
        role === 'menuitemradio' ||
        el.hasAttribute('aria-checked');
      return { status: 'ok', role, checkable, checked: readChecked(el) };
    });
  }

  function selectNative(ref: string, wanted: string[]): ReturnType<RuntimeApi['selectNative']> {
    return withEl(ref, (el) => {
      if (el.localName !== 'select') return { status: 'not_select', role: roleOf(el) };
      if (wanted.length === 0) return { status: 'is_select' };
      const s = el as HTMLSelectElement;
      const options = [...s.options];
      const picked: HTMLOptionElement[] = [];
      const missing: string[] = [];
      for (const w of wanted) {
        const wn = norm(w);
        const o =
          options.find((x) => norm(x.label || x.textContent) === wn) ??
          options.find((x) => x.value === w) ??
          options.find((x) => norm(x.label || x.textContent).toLowerCase() === wn.toLowerCase());
        if (o) picked.push(o);
        else missing.push(w);
      }
      const available = options.map(
        (o) => `${norm(o.label || o.textContent)}${o.value !== norm(o.label || o.textContent) ? ` (value "${o.value}")` : ''}`,
      );
      if (missing.length) return { status: 'missing', missing, available };
      if (!s.multiple && picked.length > 1) return { status: 'single', available };
      const dis = picked.find((o) => o.disabled);
      if (dis) return { status: 'disabled_option', option: norm(dis.label) };
      if (deepActive() !== el) s.focus({ preventScroll: true });
      const before = options.map((o) => o.selected).join();
      for (const o of options) o.selected = picked.includes(o);
      if (options.map((o) => o.selected).join() !== before) {
        // The events a user's pick fires, in order.
        s.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
        s.dispatchEvent(new Event('change', { bubbles: true }));
      }
      return { status: 'ok', labels: picked.map((o) => norm(o.label || o.textContent)), values: picked.map((o) => o.value) };
    });
  }
  /** Options of an ARIA listbox (or of the listbox a combobox controls), by accessible name. */
  function ariaOptions(ref: string): ReturnType<RuntimeApi['ariaOptions']> {
    return withEl(ref, (el) => {
      const role = roleOf(el);
      const lb = role === 'listbox' ? el : listboxOf(el);
      if (!lb) return { status: 'ok', role, listbox: null, options: [], expanded: el.getAttribute('aria-expanded') };
      const opts = [...lb.querySelectorAll('[role=option]')].filter((o) => a11yVisible(o));
      return {
        status: 'ok',
        role,
        listbox: refFor(lb, roleOf(lb), accName(lb, roleOf(lb))),
        multi: lb.getAttribute('aria-multiselectable') === 'true',
        options: opts.map((o) => {
          const name = accName(o, 'option');
          return { ref: refFor(o, 'option', name), name, selected: o.getAttribute('aria-selected') === 'true' };
        }),
        expanded: el.getAttribute('aria-expanded'),
      };
    });
  }

  return {
    box,
    ariaOptions,
    blurEl,
    checkState,
    commitChange,
    elementOf,
    focusEl,
    selectContent,
    selectNative,
    withEl,
  };
}
