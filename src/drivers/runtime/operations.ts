/**
 * Element operations the steps use around their input: focus and blur, select a field's content,
 * fire change, native and ARIA selects, check state, and scrolling.
 */
import type { helpersModule } from './helpers.js';
import type { rolesModule } from './roles.js';
import type { visibilityModule } from './visibility.js';
import type { refsModule } from './refs.js';
import type { effectModule } from './effect.js';
import type { actionabilityModule } from './actionability.js';
import type { State } from './types.js';
import type { Rect, RuntimeApi, ScrollInfo } from './api.js';

type Deps = ReturnType<typeof helpersModule> &
  ReturnType<typeof rolesModule> &
  ReturnType<typeof visibilityModule> &
  ReturnType<typeof refsModule> &
  ReturnType<typeof effectModule> &
  ReturnType<typeof actionabilityModule> & { state: State };

export function operationsModule(dep: Deps) {
  const {
    a11yVisible,
    accName,
    collectRoots,
    composedParent,
    connected,
    containsComposed,
    cut,
    deepActive,
    deepHit,
    describe,
    describeRef,
    frameOffset,
    inView,
    isEl,
    isGeneric,
    isVisible,
    listboxOf,
    nextFrame,
    norm,
    readChecked,
    readText,
    refFor,
    roleOf,
    sleep,
    styleOf,
    topRect,
    visibleRect,
    winOf,
    state,
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

  return {
    box,
    ariaOptions,
    awaitScroll,
    blurEl,
    checkState,
    commitChange,
    elementOf,
    focusEl,
    scrollByFallback,
    scrollContainer,
    scrollIntoViewRef,
    selectContent,
    selectNative,
    withEl,
  };
}
