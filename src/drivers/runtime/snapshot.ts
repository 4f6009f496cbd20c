/**
 * The snapshot: the page as an indented accessibility tree with refs, states and values, summarised
 * offscreen runs, filters (within, depth, grep, interactiveOnly), a diff to the last one, and a byte bound.
 */
import type { helpersModule } from './helpers.js';
import type { rolesModule } from './roles.js';
import type { visibilityModule } from './visibility.js';
import type { refsModule } from './refs.js';
import type { targetsModule } from './targets.js';
import type { effectModule } from './effect.js';
import type { actionabilityModule } from './actionability.js';
import type { State } from './types.js';
import type { Rect, RuntimeApi, RuntimeSnapshot } from './api.js';

type Deps = ReturnType<typeof helpersModule> &
  ReturnType<typeof rolesModule> &
  ReturnType<typeof visibilityModule> &
  ReturnType<typeof refsModule> &
  ReturnType<typeof targetsModule> &
  ReturnType<typeof effectModule> &
  ReturnType<typeof actionabilityModule> & { state: State };

export function snapshotModule(dep: Deps) {
  const {
    CONTEXT,
    INTERACTIVE,
    NAME_FROM_CONTENT,
    SKIP_TAGS,
    TEXT,
    TYPEABLE,
    accName,
    collectRoots,
    containsComposed,
    controlValue,
    cut,
    deepActive,
    frameOffset,
    hitTarget,
    intersect,
    isDisabled,
    isEl,
    isFocusable,
    isGeneric,
    norm,
    readChecked,
    refFor,
    rendered,
    resolveRef,
    roleOf,
    route,
    sameOriginDoc,
    styleOf,
    viewportRect,
    visibleRect,
    state,
  } = dep;

  interface SNode {
    role: string;
    name: string;
    el: Element | null;
    ref?: string;
    states: string;
    value?: string;
    typeable?: boolean;
    text?: string;
    inline?: string;
    children: SNode[];
    interactive: boolean;
    context: boolean;
    offscreen: boolean;
    summary?: number;
    count: number;
  }
  interface WalkCtx {
    clip: Rect;
    offset: { x: number; y: number };
    summarize: boolean;
    active: Element | null;
    labelTexts: Set<Element>;
    occlusionBudget: number;
    nodes: number;
    /** Text here inherits visibility:hidden from the element being walked. */
    textHidden: boolean;
    /** An ancestor was already marked [offscreen]; its content is not marked again. */
    inOffscreen: boolean;
    markEveryOffscreen: boolean;
  }
  // A container with more children than this is checked for long runs of offscreen rows.
  const LONG_LIST = 40;
  // Hit tests for [occluded] cost one elementFromPoint each; a page rarely shows more controls.
  const OCCLUSION_CHECKS = 300;
  // Per line: a name or value past this is cut with "…" (the full text is in the page for grep).
  const NAME_MAX_CHARS = 120;
  // Inline text of a node (a paragraph, a row) past this is cut: enough to recognise it.
  const TEXT_MAX_CHARS = 300;
  // Room kept under maxBytes for the truncation line.
  const FOOTER_BYTES = 160;
  // Runs of at least this many offscreen rows are summarised in one line.
  const SUMMARY_MIN_RUN = 8;

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

  function walkChildren(parent: Element | ShadowRoot | Document, out: SNode[], w: WalkCtx): void {
    let kids: Node[];
    if (isEl(parent) && parent.localName === 'slot') {
      const assigned = (parent as HTMLSlotElement).assignedNodes({ flatten: true });
      kids = assigned.length ? assigned : [...parent.childNodes];
    } else if (isEl(parent) && parent.shadowRoot) {
      kids = [...parent.shadowRoot.childNodes];
    } else {
      kids = [...parent.childNodes];
    }
    const elementKids = w.summarize ? kids.filter(isEl) : [];
    if (elementKids.length > LONG_LIST) {
      summarizeRuns(kids, out, w);
      return;
    }
    for (const k of kids) visit(k, out, w);
  }

  function summarizeRuns(kids: Node[], out: SNode[], w: WalkCtx): void {
    let run: Element[] = [];
    const flush = (): void => {
      if (run.length >= SUMMARY_MIN_RUN) {
        const roles = new Set(run.map(roleOf));
        const role = roles.size === 1 ? [...roles][0]! : 'item';
        const first = firstText(run[0]!);
        const last = firstText(run[run.length - 1]!);
        out.push({
          role: 'summary',
          name: '',
          el: null,
          states: '',
          text: `… ${run.length} more ${isGeneric(role) ? 'item' : role}${run.length === 1 ? '' : 's'} offscreen${first ? ` (${JSON.stringify(cut(first, 40))} … ${JSON.stringify(cut(last, 40))})` : ''}; scroll or grep to see them`,
          children: [],
          interactive: false,
          context: false,
          offscreen: true,
          summary: run.length,
          count: run.length,
        });
        w.nodes += run.length;
      } else for (const e of run) visit(e, out, w);
      run = [];
    };
    for (const k of kids) {
      if (!isEl(k)) {
        if (k.nodeType === TEXT && norm((k as Text).data)) {
          flush();
          visit(k, out, w);
        }
        continue;
      }
      const r = k.getBoundingClientRect();
      if (r.width === 0 && r.height === 0 && !rendered(k, false)) continue;
      const tr = { x: r.left + w.offset.x, y: r.top + w.offset.y, width: r.width, height: r.height };
      const off = !intersect(tr, w.clip) && !(w.active && containsComposed(k, w.active));
      if (off) run.push(k);
      else {
        flush();
        visit(k, out, w);
      }
    }
    flush();
  }
  function firstText(el: Element): string {
    const walker = el.ownerDocument.createTreeWalker(el, 4);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const p = n.parentElement;
      if (p && (p.closest('[aria-hidden=true]') || SKIP_TAGS.has(p.localName))) continue;
      const t = norm((n as Text).data);
      if (t) return t;
    }
    return '';
  }

  function visit(node: Node, out: SNode[], w: WalkCtx): void {
    if (node.nodeType === TEXT) {
      const t = (node as Text).data;
      if (t.trim() && !w.textHidden) out.push(textNode(t));
      return;
    }
    if (!isEl(node)) return;
    const el = node;
    if (SKIP_TAGS.has(el.localName)) return;
    if (el.getAttribute('aria-hidden') === 'true' || el.hasAttribute('inert')) return;
    if (w.labelTexts.has(el)) return;
    const vis = rendered(el, true);
    if (!vis) {
      // visibility:hidden hides the element but a child may opt back in; display:none hides all.
      if (rendered(el, false)) {
        const th = w.textHidden;
        w.textHidden = true;
        walkChildren(el, out, w);
        w.textHidden = th;
      }
      return;
    }
    const savedTextHidden = w.textHidden;
    w.textHidden = false;
    try {
      visitVisible(el, out, w);
    } finally {
      w.textHidden = savedTextHidden;
    }
  }

  function visitVisible(el: Element, out: SNode[], w: WalkCtx): void {
    const role = roleOf(el);
    if (role === 'none' && !el.shadowRoot && el.localName !== 'slot') {
      walkChildren(el, out, w);
      return;
    }
    // Scroll containers and frames narrow what counts as on screen for their content.
    const saved = { clip: w.clip, offset: w.offset, inOffscreen: w.inOffscreen };
    const isFrame = el.localName === 'iframe' || el.localName === 'frame';
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
    if (isGeneric(role) && !scrolls) {
      walkChildren(el, out, w);
      w.clip = saved.clip;
      return;
    }
    w.nodes++;
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
    if (isFrame) {
      const doc = sameOriginDoc(el);
      if (doc && doc.body) {
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
        const labels = w.labelTexts;
        collectLabelTexts(doc, labels);
        walkChildren(doc.body, n.children, w);
      }
    } else if (el.localName === 'select') {
      for (const o of (el as HTMLSelectElement).options) {
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
        n.children.push(on);
      }
    } else if (el.localName !== 'input' && el.localName !== 'textarea') {
      walkChildren(el, n.children, w);
    }
    w.clip = saved.clip;
    w.offset = saved.offset;
    w.inOffscreen = saved.inOffscreen;
    out.push(n);
  }

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

  /** Merge adjacent text, drop text that only repeats a name, inline a lone text child. */
  function compact(nodes: SNode[]): SNode[] {
    const out: SNode[] = [];
    for (const n of nodes) {
      if (n.role === 'text') {
        const prevNode = out[out.length - 1];
        if (prevNode && prevNode.role === 'text') {
          prevNode.text = prevNode.text + ' ' + n.text;
          prevNode.count++;
          continue;
        }
        out.push({ ...n });
        continue;
      }
      n.children = compact(n.children);
      out.push(n);
    }
    for (const n of out) {
      if (n.role === 'text') n.text = norm(n.text);
      else if (n.role !== 'summary') {
        const kids = n.children;
        const allText = kids.length > 0 && kids.every((k) => k.role === 'text');
        if (allText) {
          const t = norm(kids.map((k) => norm(k.text)).join(' '));
          if (NAME_FROM_CONTENT.has(n.role) || t === n.name || (n.name && n.name.includes(t))) n.children = [];
          else if (!n.name || kids.length === 1) {
            n.inline = t;
            n.children = [];
          }
        }
        n.count = 1 + n.children.reduce((s, k) => s + k.count, 0);
      }
    }
    return out.filter((n) => n.role !== 'text' || n.text);
  }

  function lineOf(n: SNode): string {
    if (n.role === 'text') return `- text: ${cut(n.text ?? '', TEXT_MAX_CHARS)}`;
    if (n.role === 'summary') return `- ${n.text}`;
    let s = '- ' + n.role;
    if (n.name) s += ' ' + JSON.stringify(cut(n.name, NAME_MAX_CHARS));
    s += n.states;
    if (n.ref) s += ` [ref=${n.ref}]`;
    if (n.typeable) s += ' typeable: true';
    if (n.value) s += ' value: ' + JSON.stringify(cut(n.value, NAME_MAX_CHARS));
    if (n.inline) s += ': ' + cut(n.inline, TEXT_MAX_CHARS);
    else if (n.children.length) s += ':';
    return s;
  }

  // Roles whose element takes typing anyway: `typeable` is news only on other roles.
  const TYPEABLE_ROLES = new Set(['textbox', 'searchbox', 'spinbutton', 'combobox']);
  /**
   * interactiveOnly's line: the ref first, then role, name, states and value, unquoted. It lists
   * what can be acted on, for an agent that pays per byte: offscreen is left out (every action
   * scrolls its target into view) and so is a collapsed state (the name says what it opens);
   * a plain snap shows both.
   */
  function compactLineOf(n: SNode): string {
    let s = n.ref ? `${n.ref} ${n.role}` : n.role;
    if (n.name) s += ' ' + cut(n.name, NAME_MAX_CHARS);
    s += n.states.replace(/ \[(offscreen|expanded=false)\]/g, '');
    if (n.typeable && !TYPEABLE_ROLES.has(n.role)) s += ' [typeable]';
    if (n.value) s += ' = ' + cut(n.value, NAME_MAX_CHARS);
    return s;
  }

  interface Line {
    depth: number;
    text: string;
    weight: number;
  }
  function flatten(nodes: SNode[], depth: number, out: Line[], maxDepth: number, line: (n: SNode) => string): void {
    for (const n of nodes) {
      if (depth > maxDepth) continue;
      let text = line(n);
      if (depth === maxDepth && n.children.length) text = text.replace(/:$/, '') + ` (+${n.count - 1} below)`;
      out.push({ depth, text, weight: n.summary ?? 1 });
      if (depth < maxDepth) flatten(n.children, depth + 1, out, maxDepth, line);
    }
  }

  function filterTree(nodes: SNode[], keep: (n: SNode) => boolean, keepAncestor: (n: SNode) => boolean): SNode[] {
    const out: SNode[] = [];
    for (const n of nodes) {
      const kids = filterTree(n.children, keep, keepAncestor);
      if (keep(n)) out.push({ ...n, children: kids, inline: n.inline, count: 1 + kids.reduce((s, k) => s + k.count, 0) });
      else if (kids.length && keepAncestor(n))
        out.push({ ...n, children: kids, inline: undefined, count: 1 + kids.reduce((s, k) => s + k.count, 0) });
      else out.push(...kids);
    }
    return out;
  }

  const utf8 = (s: string): number => {
    let n = s.length;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c > 0x7f) n += c > 0x7ff ? (c >= 0xd800 && c <= 0xdbff ? 1 : 2) : 1;
    }
    return n;
  };

  function diffLines(a: string[], b: string[]): { out: string[]; added: number; removed: number } {
    let start = 0;
    while (start < a.length && start < b.length && a[start] === b[start]) start++;
    let endA = a.length;
    let endB = b.length;
    while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
      endA--;
      endB--;
    }
    const ma = a.slice(start, endA);
    const mb = b.slice(start, endB);
    const ops: [string, string][] = [];
    // LCS on the changed middle; past ~4M cells it would cost more than it tells, so list it whole.
    if (ma.length * mb.length <= 4_000_000 && ma.length && mb.length) {
      const n = ma.length;
      const m = mb.length;
      const dp = new Uint32Array((n + 1) * (m + 1));
      for (let i = n - 1; i >= 0; i--)
        for (let j = m - 1; j >= 0; j--)
          dp[i * (m + 1) + j] =
            ma[i] === mb[j] ? dp[(i + 1) * (m + 1) + j + 1]! + 1 : Math.max(dp[(i + 1) * (m + 1) + j]!, dp[i * (m + 1) + j + 1]!);
      let i = 0;
      let j = 0;
      while (i < n && j < m) {
        if (ma[i] === mb[j]) {
          ops.push([' ', ma[i]!]);
          i++;
          j++;
        } else if (dp[(i + 1) * (m + 1) + j]! >= dp[i * (m + 1) + j + 1]!) ops.push(['-', ma[i++]!]);
        else ops.push(['+', mb[j++]!]);
      }
      while (i < n) ops.push(['-', ma[i++]!]);
      while (j < m) ops.push(['+', mb[j++]!]);
    } else {
      for (const l of ma) ops.push(['-', l]);
      for (const l of mb) ops.push(['+', l]);
    }
    const out: string[] = [];
    let added = 0;
    let removed = 0;
    let inHunk = false;
    // Context for a hunk: the nearest enclosing (less indented) line of the new snapshot.
    let bIndex = start;
    for (const [op, line] of ops) {
      if (op === ' ') {
        inHunk = false;
        bIndex++;
        continue;
      }
      if (!inHunk) {
        const indent = line.length - line.trimStart().length;
        let parent = '';
        for (let k = bIndex - 1; k >= 0; k--) {
          const l = b[k]!;
          if (l.length - l.trimStart().length < indent) {
            parent = l.trim();
            break;
          }
        }
        out.push(`@@ ${parent ? `in ${cut(parent.replace(/^- /, '').replace(/:$/, ''), 100)}` : 'top level'}`);
        inHunk = true;
      }
      out.push(op + line);
      if (op === '+') {
        added++;
        bIndex++;
      } else removed++;
    }
    return { out, added, removed };
  }

  function snapshot(opts: {
    depth?: number;
    within?: string;
    interactiveOnly?: boolean;
    grep?: string;
    diff?: boolean;
    maxBytes: number;
  }): ReturnType<RuntimeApi['snapshot']> {
    const active = deepActive();
    const labelTexts = new Set<Element>();
    collectLabelTexts(document, labelTexts);
    for (const r of collectRoots(document)) if (r.nodeType === 11) collectLabelTexts(r as ShadowRoot, labelTexts);
    let grepRe: RegExp | null = null;
    let grepLiteral = false;
    if (opts.grep !== undefined && opts.grep !== '') {
      try {
        grepRe = new RegExp(opts.grep, 'i');
      } catch {
        grepRe = new RegExp(opts.grep.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i');
        grepLiteral = true;
      }
    }
    const filtered = !!(opts.within || opts.interactiveOnly || grepRe || opts.depth !== undefined);
    const w: WalkCtx = {
      clip: viewportRect(),
      offset: { x: 0, y: 0 },
      summarize: !grepRe,
      active,
      labelTexts,
      occlusionBudget: OCCLUSION_CHECKS,
      nodes: 0,
      textHidden: false,
      inOffscreen: false,
      markEveryOffscreen: !!(opts.interactiveOnly || grepRe),
    };
    let roots: SNode[] = [];
    if (opts.within) {
      const r = resolveRef(opts.within, undefined);
      if (r.status !== 'ok') return { status: 'error', resolve: r };
      const el = state.lastResolved!;
      const vr = visibleRect(el);
      if (el.ownerDocument !== document) w.offset = frameOffset(el.ownerDocument);
      if (vr) w.clip = vr;
      const holder: SNode[] = [];
      visit(el, holder, w);
      roots = holder;
    } else if (document.body) {
      walkChildren(document.body, roots, w);
    }
    roots = compact(roots);
    if (opts.interactiveOnly)
      roots = filterTree(
        roots,
        (n) => !!n.ref && n.interactive,
        (n) => n.context || n.role === 'dialog' || n.role === 'alertdialog' || n.role === 'iframe',
      );
    if (grepRe) {
      const re = grepRe;
      roots = filterTree(
        roots,
        (n) => re.test(n.name) || re.test(n.value ?? '') || re.test(n.text ?? '') || re.test(n.inline ?? ''),
        () => true,
      );
    }
    const lines: Line[] = [];
    flatten(roots, 0, lines, opts.depth ?? Infinity, opts.interactiveOnly ? compactLineOf : lineOf);
    // interactiveOnly nests by one space a level: its lines carry no list markers to align.
    const indent = opts.interactiveOnly ? ' ' : '  ';
    const texts = lines.map((l) => indent.repeat(l.depth) + l.text);
    if (texts.length === 0 && (grepRe || opts.interactiveOnly)) {
      texts.push(
        grepRe
          ? `(nothing matches grep ${JSON.stringify(opts.grep)}${grepLiteral ? ', taken literally: it is not a valid regex' : ''})`
          : '(no interactive elements)',
      );
    }
    const refs: Record<string, [string, string]> = {};
    collectRefs(roots, refs);
    let body = texts;
    let diff: RuntimeSnapshot['diff'];
    if (!filtered) {
      if (opts.diff) {
        if (state.lastLines) {
          const d = diffLines(state.lastLines, texts);
          body = d.out;
          body.push(`(${d.added + d.removed} of ${texts.length} lines changed)`);
          diff = { added: d.added, removed: d.removed, total: texts.length, baseline: false };
        } else {
          diff = { added: texts.length, removed: 0, total: texts.length, baseline: true };
          body = ['(no earlier snapshot of this page: showing it whole; the next diff compares against it)', ...texts];
        }
      }
      state.lastLines = texts;
    } else if (opts.diff) {
      return {
        status: 'error',
        resolve: { status: 'invalid', detail: 'diff compares whole snapshots: drop within/depth/grep/interactiveOnly' },
      };
    }
    // Bound the output: keep whole lines up to maxBytes, then say what was left out and how to narrow.
    let bytes = 0;
    let shown = 0;
    const kept: string[] = [];
    for (const t of body) {
      const b = utf8(t) + 1;
      if (bytes + b > opts.maxBytes - FOOTER_BYTES) break;
      kept.push(t);
      bytes += b;
      shown++;
    }
    const truncated = shown < body.length;
    if (truncated) {
      const rest = body.length - shown;
      // Lines of a plain snapshot map 1:1 to `lines` (a baseline diff has one header line first);
      // a summary line stands for many nodes.
      let restNodes = rest;
      if (!diff || diff.baseline) {
        restNodes = 0;
        for (let i = Math.max(0, shown - (diff ? 1 : 0)); i < lines.length; i++) restNodes += lines[i]!.weight;
      }
      const footer = `… truncated: ${rest} more line${rest === 1 ? '' : 's'} (${restNodes} node${restNodes === 1 ? '' : 's'}) not shown; narrow with within/depth/grep/interactiveOnly`;
      kept.push(footer);
    }
    const text = kept.join('\n');
    return {
      status: 'ok',
      text,
      lines: body.length,
      shownLines: shown,
      nodes: w.nodes,
      bytes: utf8(text),
      truncated,
      grepLiteral,
      ...(diff ? { diff } : {}),
      refs,
      docId: state.docId,
      route: route(),
      url: location.href,
      title: document.title,
    };
  }
  function collectRefs(nodes: SNode[], into: Record<string, [string, string]>): void {
    for (const n of nodes) {
      if (n.ref) into[n.ref] = [n.role, n.name];
      collectRefs(n.children, into);
    }
  }

  return { valueOf, snapshot };
}
