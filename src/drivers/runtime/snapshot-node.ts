/**
 * The snapshot's nodes: one for an element (name, ref, states, value), a text run, a native option, and
 * how a scroll container or a frame narrows what counts as on screen.
 */
import type { helpersModule } from './helpers.js';
import type { rolesModule } from './roles.js';
import type { namesModule } from './names.js';
import type { visibilityModule } from './visibility.js';
import type { refsModule } from './refs.js';
import type { elementReadModule } from './element-read.js';
import type { elementStateModule } from './element-state.js';
import type { snapshotStatesModule } from './snapshot-states.js';
import type { SNode, WalkCtx } from './types.js';
import type { Rect } from './api.js';

type Deps = ReturnType<typeof helpersModule> &
  ReturnType<typeof rolesModule> &
  ReturnType<typeof namesModule> &
  ReturnType<typeof visibilityModule> &
  ReturnType<typeof refsModule> &
  ReturnType<typeof elementReadModule> &
  ReturnType<typeof elementStateModule> &
  ReturnType<typeof snapshotStatesModule>;

export function snapshotNodeModule(dep: Deps) {
  const { CONTEXT, INTERACTIVE, TYPEABLE, accName, intersect, isDisabled, isFocusable, norm, refFor, statesOf, styleOf, valueOf } = dep;

  function textNode(t: string): SNode {
    return {
      role: 'text',
      name: '',
      el: null,
      states: '',
      text: t,
      children: [],
      interactive: false,
      context: false,
      offscreen: false,
      count: 1,
    };
  }

  /** Narrow the clip to a scroll container's client box; whether it scrolls (it then gets a ref). */
  function clipToScroller(el: Element, w: WalkCtx): boolean {
    let scrolls = false;
    if (el.scrollHeight > el.clientHeight + 1 || el.scrollWidth > el.clientWidth + 1) {
      const cs = styleOf(el);
      if (
        (cs.overflowY !== 'visible' || cs.overflowX !== 'visible') &&
        el !== el.ownerDocument.documentElement &&
        el !== el.ownerDocument.body
      ) {
        const r = el.getBoundingClientRect();
        w.clip = intersect(w.clip, {
          x: r.left + w.offset.x + el.clientLeft,
          y: r.top + w.offset.y + el.clientTop,
          width: el.clientWidth,
          height: el.clientHeight,
        }) ?? { x: -1e6, y: -1e6, width: 0, height: 0 };
        const canScroll = (v: string): boolean => v === 'auto' || v === 'scroll' || v === 'overlay';
        scrolls =
          el.clientWidth > 0 &&
          el.clientHeight > 0 &&
          ((canScroll(cs.overflowY) && el.scrollHeight > el.clientHeight + 1) ||
            (canScroll(cs.overflowX) && el.scrollWidth > el.clientWidth + 1));
      }
    }
    return scrolls;
  }
  type Saved = { clip: Rect; offset: { x: number; y: number }; inOffscreen: boolean };
  /** The element's own node: name, ref, states, value (the walk adds its children). */
  function nodeOf(el: Element, role: string, scrolls: boolean, isFrame: boolean, saved: Saved, w: WalkCtx): SNode {
    const name = accName(el, role);
    const r = el.getBoundingClientRect();
    const tr = { x: r.left + saved.offset.x, y: r.top + saved.offset.y, width: r.width, height: r.height };
    const offscreen = r.width > 0 && r.height > 0 && !intersect(tr, saved.clip);
    const scrollable = scrolls;
    const interactive = INTERACTIVE.has(role) && !(role === 'option' && el.localName === 'option');
    const context = CONTEXT.has(role);
    // A button or link with an empty box and nothing inside to click (an icon shown on hover) cannot
    // be acted on: listed without a ref, like a plain node.
    const unclickable = (role === 'button' || role === 'link') && (r.width === 0 || r.height === 0) && !el.firstElementChild;
    const n: SNode = {
      role,
      name,
      el,
      states: '',
      children: [],
      interactive: !unclickable && (interactive || (isFocusable(el) && role !== 'dialog')),
      context,
      offscreen,
      count: 1,
    };
    if (n.interactive || (isFocusable(el) && !unclickable) || scrollable || isFrame || (context && name)) n.ref = refFor(el, role, name);
    n.states =
      statesOf(el, role, n, offscreen && (w.markEveryOffscreen || !w.inOffscreen), offscreen, tr, saved.clip, w) +
      (scrollable ? ' [scrollable]' : '');
    if (offscreen) w.inOffscreen = true;
    if (TYPEABLE.has(role) || (role === 'combobox' && el.localName === 'input'))
      n.typeable = !(el as HTMLInputElement).readOnly && !isDisabled(el);
    const v = valueOf(el, role);
    if (v !== undefined) n.value = v;
    return n;
  }
  /** Content of a same-origin frame: offset by the frame's position, clipped to its box. */
  function enterFrame(el: Element, saved: Saved, w: WalkCtx): void {
    const fr = el.getBoundingClientRect();
    const cs = styleOf(el);
    w.offset = {
      x: saved.offset.x + fr.left + el.clientLeft + parseFloat(cs.paddingLeft),
      y: saved.offset.y + fr.top + el.clientTop + parseFloat(cs.paddingTop),
    };
    w.clip = intersect(saved.clip, { x: w.offset.x, y: w.offset.y, width: el.clientWidth, height: el.clientHeight }) ?? {
      x: -1e6,
      y: -1e6,
      width: 0,
      height: 0,
    };
  }
  function pushOptions(el: HTMLSelectElement, into: SNode[]): void {
    for (const o of el.options) {
      const on: SNode = {
        role: 'option',
        name: norm(o.label || o.textContent),
        el: o,
        states: o.selected ? ' [selected]' : '',
        children: [],
        interactive: false,
        context: false,
        offscreen: false,
        count: 1,
      };
      if (o.disabled) on.states += ' [disabled]';
      into.push(on);
    }
  }

  return { textNode, clipToScroller, nodeOf, enterFrame, pushOptions };
}
