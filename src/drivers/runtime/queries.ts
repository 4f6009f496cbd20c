/**
 * find and observe: list the elements a target matches, or the interactive elements on screen, each
 * with a q handle that re-resolves its locator on every use.
 */
import type { helpersModule } from './helpers.js';
import type { rolesModule } from './roles.js';
import type { namesModule } from './names.js';
import type { visibilityModule } from './visibility.js';
import type { refsModule } from './refs.js';
import type { matchModule } from './match.js';
import type { targetsModule } from './targets.js';
import type { elementReadModule } from './element-read.js';
import type { elementStateModule } from './element-state.js';
import type { snapshotStatesModule } from './snapshot-states.js';
import type { snapshotModule } from './snapshot.js';
import type { State, Target } from './types.js';
import type { Rect, RuntimeApi } from './api.js';

type Deps = ReturnType<typeof helpersModule> &
  ReturnType<typeof rolesModule> &
  ReturnType<typeof namesModule> &
  ReturnType<typeof visibilityModule> &
  ReturnType<typeof refsModule> &
  ReturnType<typeof matchModule> &
  ReturnType<typeof targetsModule> &
  ReturnType<typeof elementReadModule> &
  ReturnType<typeof elementStateModule> &
  ReturnType<typeof snapshotStatesModule> &
  ReturnType<typeof snapshotModule> & { state: State };

export function queriesModule(dep: Deps) {
  const {
    INTERACTIVE,
    Invalid,
    a11yVisible,
    accName,
    collectRoots,
    cut,
    deepActive,
    hitTarget,
    isDisabled,
    isFocusable,
    isVisible,
    matchTarget,
    nearNames,
    norm,
    queryAll,
    readChecked,
    resolveRef,
    roleOf,
    round,
    subtreeText,
    topRect,
    valueOf,
    visibleRect,
    state,
  } = dep;

  function mintQuery(locator: Target, qBase: number): string {
    const key = JSON.stringify(locator);
    const existing = state.queryKeys.get(key);
    if (existing && state.queries.has(existing)) return existing;
    state.nextQ = Math.max(state.nextQ, qBase);
    const q = 'q' + state.nextQ++;
    state.queries.set(q, { locator });
    state.queryKeys.set(key, q);
    return q;
  }
  function find(spec: Target & { limit: number; qBase: number }): ReturnType<RuntimeApi['find']> {
    const { limit, qBase, ...target } = spec;
    let m: Element[];
    try {
      m = matchTarget(target);
      if (target.nth !== undefined) m = m[target.nth] ? [m[target.nth]!] : [];
    } catch (e) {
      if (e instanceof Invalid) return { status: 'invalid', detail: e.message };
      throw e;
    }
    const items = m.slice(0, limit).map((el, i) => {
      const role = roleOf(el);
      const name = accName(el, role);
      const locator = m.length === 1 || target.nth !== undefined ? target : { ...target, nth: i };
      const r = topRect(el);
      const v = valueOf(el, role);
      return {
        ref: mintQuery(locator, qBase),
        locator,
        role,
        name,
        text: cut(norm(subtreeText(el.shadowRoot ?? el, null)), 120),
        ...(v !== undefined ? { value: v } : {}),
        bounds: round(r),
        visible: isVisible(el),
        inViewport: !!visibleRect(el),
      };
    });
    return { status: 'ok', count: m.length, items, near: m.length ? [] : nearNames(target) };
  }

  function observe(spec: { within?: string; role?: string; limit: number; qBase: number }): ReturnType<RuntimeApi['observe']> {
    let scope: Element | Document = document;
    if (spec.within) {
      const r = resolveRef(spec.within, undefined);
      if (r.status !== 'ok') return { status: 'error', resolve: r };
      scope = state.lastResolved!;
    }
    const roots = collectRoots(scope);
    const sel = 'a[href],area[href],button,input,select,textarea,summary,[contenteditable],[tabindex],[role]';
    const all = queryAll(roots, sel);
    const seenKey = new Map<string, number>();
    const items: ObservedItemIn[] = [];
    let total = 0;
    const active = deepActive();
    for (const el of all) {
      const role = roleOf(el);
      if (!(INTERACTIVE.has(role) || isFocusable(el)) || (role === 'option' && el.localName === 'option')) continue;
      if (spec.role && role !== spec.role.toLowerCase()) continue;
      if (!a11yVisible(el)) continue;
      const name = accName(el, role);
      const key = role + '\u0000' + name.toLowerCase();
      const nth = seenKey.get(key) ?? 0;
      seenKey.set(key, nth + 1);
      total++;
      if (items.length >= spec.limit) continue;
      const r = topRect(el);
      const vr = visibleRect(el);
      let occluded = false;
      if (vr) occluded = !hitTarget(el, vr.x + vr.width / 2, vr.y + vr.height / 2).ok;
      const v = valueOf(el, role);
      const checked = role === 'checkbox' || role === 'radio' || role === 'switch' ? readChecked(el) : undefined;
      items.push({
        el,
        nth,
        key,
        role,
        label: name,
        ...(v !== undefined ? { value: v } : {}),
        ...(checked !== undefined ? { checked } : {}),
        bounds: round(r),
        isEnabled: !isDisabled(el),
        inViewport: !!vr,
        occluded,
        focused: el === active,
      });
    }
    // A role+name that several elements share needs nth to stay unique when it re-resolves.
    const out = items.map(({ el: _el, nth, key, ...rest }) => {
      const dup = (seenKey.get(key) ?? 1) > 1;
      const locator: Target = {
        role: rest.role,
        ...(rest.label ? { name: rest.label } : {}),
        ...(spec.within ? { within: spec.within } : {}),
        ...(dup ? { nth } : {}),
      };
      return { ref: mintQuery(locator, spec.qBase), locator, ...rest };
    });
    return { status: 'ok', total, items: out };
  }
  interface ObservedItemIn {
    el: Element;
    nth: number;
    key: string;
    role: string;
    label: string;
    value?: string;
    checked?: boolean | 'mixed' | null;
    bounds: Rect;
    isEnabled: boolean;
    inViewport: boolean;
    occluded: boolean;
    focused: boolean;
  }

  return { find, observe };
}
