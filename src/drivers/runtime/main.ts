/**
 * The in-page runtime: accessible roles and names, the snapshot, target resolution, refs, the
 * actionability checks and the effect read-back. It lives IN THE PAGE under
 * Symbol.for('rehearse.runtime') (non-enumerable), so refs minted through one connection keep
 * working from a later connection or CLI invocation on the same document.
 *
 * `runtimeMain` is serialised with Function.prototype.toString and evaluated in the page: it must not
 * reference anything outside its own body (no imports, no module constants). It uses no
 * protocol-specific binding, so any driver that can evaluate a script can install it.
 */
import type { Rect, RuntimeApi } from './api.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
function runtimeMain(version: string): void {
  const KEY = Symbol.for('rehearse.runtime');
  const G = globalThis as any;
  const prev = G[KEY];
  if (prev && prev.version === version) return;

  interface RefEntry {
    weak: WeakRef<Element>;
    role: string;
    name: string;
    route: string;
    box?: string;
  }
  interface QueryEntry {
    locator: any;
  }
  interface ActionRecord {
    ref: string;
    el: Element;
    observers: MutationObserver[];
    count: number;
    /** performance.now() of the last DOM mutation seen. */
    lastMutationAt: number;
    /** The frame after the action's last input event: when it ran and the mutation count then. */
    frame: Promise<{ at: number; count: number }> | null;
    unlisten: (() => void)[];
    /** Resolves when the action's input reached the page (its first terminal event). */
    inputSeen: Promise<void>;
    markInput: () => void;
    read: string;
    textBefore?: string;
    checkedBefore?: boolean | 'mixed' | null;
  }
  interface State {
    docId: string;
    nextRef: number;
    refs: Map<string, RefEntry>;
    byEl: WeakMap<Element, string>;
    nextQ: number;
    queries: Map<string, QueryEntry>;
    queryKeys: Map<string, string>;
    lastLines: string[] | null;
    action: ActionRecord | null;
    lastResolved: Element | null;
  }
  const state: State =
    prev && prev.stateVersion === 1
      ? prev.state
      : {
          docId: Math.random().toString(36).slice(2, 10),
          nextRef: 1,
          refs: new Map(),
          byEl: new WeakMap(),
          nextQ: 1,
          queries: new Map(),
          queryKeys: new Map(),
          lastLines: null,
          action: null,
          lastResolved: null,
        };

  // ── small helpers ──
  const norm = (s: string | null | undefined): string => (s ?? '').replace(/\s+/g, ' ').trim();
  const cut = (s: string, n: number): string => (s.length > n ? s.slice(0, n - 1) + '…' : s);
  const ELEMENT = 1;
  const TEXT = 3;
  const isEl = (n: any): n is Element => !!n && n.nodeType === ELEMENT;
  const route = (): string => {
    const h = location.hash;
    return location.pathname + location.search + (h.startsWith('#/') || h.startsWith('#!') ? h : '');
  };
  const winOf = (el: Element): Window => (el.ownerDocument.defaultView ?? window) as Window;
  const styleOf = (el: Element): CSSStyleDeclaration => winOf(el).getComputedStyle(el);
  const connected = (el: Element): boolean => el.isConnected && !!el.ownerDocument.defaultView && (el.ownerDocument === document || frameElementOf(el.ownerDocument) !== null);
  function frameElementOf(doc: Document): Element | null {
    try {
      const fe = doc.defaultView?.frameElement ?? null;
      return fe && fe.isConnected ? fe : null;
    } catch {
      return null;
    }
  }
  /** Parent across shadow roots (host) and same-origin frames (the iframe element). */
  function composedParent(n: Node): Node | null {
    const p = n.parentNode;
    if (!p) return null;
    if (p.nodeType === 11 && (p as ShadowRoot).host) return (p as ShadowRoot).host;
    if (p.nodeType === 9) return p === document ? null : frameElementOf(p as Document);
    return p;
  }
  function containsComposed(ancestor: Node, node: Node | null): boolean {
    for (let n: Node | null = node; n; ) {
      if (n === ancestor) return true;
      const p: Node | null = n.parentNode;
      n = p && p.nodeType === 11 ? (p as ShadowRoot).host : p;
    }
    return false;
  }
  function deepActive(): Element | null {
    let a: Element | null = document.activeElement;
    for (;;) {
      if (!a) return null;
      if (a.shadowRoot?.activeElement) a = a.shadowRoot.activeElement;
      else if ((a.localName === 'iframe' || a.localName === 'frame') && sameOriginDoc(a)?.activeElement) a = sameOriginDoc(a)!.activeElement;
      else return a;
    }
  }
  function sameOriginDoc(frame: Element): Document | null {
    try {
      const d = (frame as HTMLIFrameElement).contentDocument;
      return d && d.documentElement ? d : null;
    } catch {
      return null;
    }
  }

  // ── roles ──
  const KNOWN_ROLES = new Set(
    ('alert alertdialog application article banner blockquote button caption cell checkbox code columnheader combobox complementary contentinfo definition deletion dialog directory document emphasis feed figure form generic grid gridcell group heading img insertion link list listbox listitem log main mark marquee math menu menubar menuitem menuitemcheckbox menuitemradio meter navigation none note option paragraph presentation progressbar radio radiogroup region row rowgroup rowheader scrollbar search searchbox separator slider spinbutton status strong subscript superscript switch tab table tablist tabpanel term textbox time timer toolbar tooltip tree treegrid treeitem iframe').split(' '),
  );
  const INTERACTIVE = new Set('button link textbox searchbox spinbutton combobox listbox option checkbox radio switch slider tab menuitem menuitemcheckbox menuitemradio treeitem'.split(' '));
  const CONTEXT = new Set('dialog alertdialog form navigation search region main list listbox menu menubar tablist radiogroup grid table tree treegrid group toolbar'.split(' '));
  const NAME_FROM_CONTENT = new Set('button link checkbox radio switch option heading tab menuitem menuitemcheckbox menuitemradio treeitem cell gridcell columnheader rowheader tooltip'.split(' '));
  const TYPEABLE = new Set(['textbox', 'searchbox', 'spinbutton']);
  const SKIP_TAGS = new Set(['script', 'style', 'noscript', 'template', 'head', 'meta', 'link', 'title', 'slot-fallback']);
  const TEXT_INPUT_TYPES = new Set(['', 'text', 'email', 'tel', 'url', 'password', 'search', 'number', 'date', 'datetime-local', 'month', 'time', 'week']);
  const ROLE_TAGS: Record<string, string> = {
    button: 'button,input,summary',
    link: 'a[href],area[href]',
    textbox: 'input,textarea,[contenteditable]',
    searchbox: 'input',
    spinbutton: 'input',
    combobox: 'select,input',
    listbox: 'select',
    option: 'option',
    checkbox: 'input',
    radio: 'input',
    slider: 'input',
    heading: 'h1,h2,h3,h4,h5,h6',
    list: 'ul,ol,menu',
    listitem: 'li',
    navigation: 'nav',
    main: 'main',
    banner: 'header',
    contentinfo: 'footer',
    complementary: 'aside',
    form: 'form',
    region: 'section',
    search: 'search',
    dialog: 'dialog',
    table: 'table',
    row: 'tr',
    cell: 'td',
    columnheader: 'th',
    rowheader: 'th',
    rowgroup: 'thead,tbody,tfoot',
    img: 'img,svg',
    group: 'fieldset,details,optgroup',
    progressbar: 'progress',
    meter: 'meter',
    status: 'output',
    separator: 'hr',
    paragraph: 'p',
    article: 'article',
    figure: 'figure',
    iframe: 'iframe',
  };

  function inputType(el: Element): string {
    return (el.getAttribute('type') ?? '').toLowerCase();
  }
  function isFocusable(el: Element): boolean {
    const t = el.getAttribute('tabindex');
    return t !== null && Number(t) >= 0;
  }
  function implicitRole(el: Element): string {
    switch (el.localName) {
      case 'a':
      case 'area':
        return el.hasAttribute('href') ? 'link' : 'generic';
      case 'button':
        return 'button';
      case 'input': {
        const t = inputType(el);
        switch (t) {
          case 'button':
          case 'submit':
          case 'reset':
          case 'image':
          case 'file':
          case 'color':
            return 'button';
          case 'checkbox':
            return 'checkbox';
          case 'radio':
            return 'radio';
          case 'range':
            return 'slider';
          case 'number':
            return 'spinbutton';
          case 'hidden':
            return 'none';
          case 'search':
            return el.hasAttribute('list') ? 'combobox' : 'searchbox';
          default:
            return el.hasAttribute('list') ? 'combobox' : 'textbox';
        }
      }
      case 'textarea':
        return 'textbox';
      case 'select':
        return (el as HTMLSelectElement).multiple || (el as HTMLSelectElement).size > 1 ? 'listbox' : 'combobox';
      case 'option':
        return 'option';
      case 'optgroup':
      case 'fieldset':
      case 'details':
        return 'group';
      case 'img':
        return el.getAttribute('alt') === '' ? 'none' : 'img';
      case 'svg':
        return el.getAttribute('aria-label') || el.querySelector(':scope > title') ? 'img' : 'none';
      case 'h1':
      case 'h2':
      case 'h3':
      case 'h4':
      case 'h5':
      case 'h6':
        return 'heading';
      case 'ul':
      case 'ol':
      case 'menu':
        return 'list';
      case 'li':
        return 'listitem';
      case 'nav':
        return 'navigation';
      case 'main':
        return 'main';
      case 'header':
        return el.closest('article,aside,main,nav,section') ? 'generic' : 'banner';
      case 'footer':
        return el.closest('article,aside,main,nav,section') ? 'generic' : 'contentinfo';
      case 'aside':
        return 'complementary';
      case 'form':
        return 'form';
      case 'section':
        return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') || el.hasAttribute('title') ? 'region' : 'generic';
      case 'search':
        return 'search';
      case 'article':
        return 'article';
      case 'dialog':
        return 'dialog';
      case 'table':
        return 'table';
      case 'caption':
        return 'caption';
      case 'thead':
      case 'tbody':
      case 'tfoot':
        return 'rowgroup';
      case 'tr':
        return 'row';
      case 'td':
        return el.closest('[role=grid],[role=treegrid]') ? 'gridcell' : 'cell';
      case 'th':
        return el.getAttribute('scope') === 'row' ? 'rowheader' : 'columnheader';
      case 'summary':
        return 'button';
      case 'progress':
        return 'progressbar';
      case 'meter':
        return 'meter';
      case 'output':
        return 'status';
      case 'hr':
        return 'separator';
      case 'p':
        return 'paragraph';
      case 'blockquote':
        return 'blockquote';
      case 'figure':
        return 'figure';
      case 'code':
        return 'code';
      case 'iframe':
      case 'frame':
        return 'iframe';
      case 'dt':
        return 'term';
      case 'dd':
        return 'definition';
      case 'math':
        return 'math';
      default:
        if ((el as HTMLElement).isContentEditable && (el.parentElement === null || !(el.parentElement as HTMLElement).isContentEditable)) return 'textbox';
        return 'generic';
    }
  }
  function roleOf(el: Element): string {
    const explicit = el.getAttribute('role');
    if (explicit) {
      for (const token of explicit.trim().toLowerCase().split(/\s+/)) {
        if (!KNOWN_ROLES.has(token)) continue;
        if (token === 'none' || token === 'presentation') return isFocusable(el) ? implicitRole(el) : 'none';
        return token;
      }
    }
    return implicitRole(el);
  }
  const isGeneric = (role: string): boolean => role === 'generic' || role === 'none';

  // ── accessible name (a pragmatic subset of accname 1.2) ──
  function byIdIn(el: Element, id: string): Element | null {
    const root = el.getRootNode() as Document | ShadowRoot;
    return (root as any).getElementById ? (root as any).getElementById(id) : el.ownerDocument.getElementById(id);
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
    return tag === 'span' || tag === 'b' || tag === 'i' || tag === 'em' || tag === 'strong' || tag === 'a' || tag === 'code' || tag === 'small' || tag === 'mark' || tag === 'u' || tag === 'sub' || tag === 'sup' || tag === 'abbr' || tag === 'label';
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

  // ── visibility ──
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
    if ((el as any).checkVisibility({ visibilityProperty })) return true;
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
    for (let d: Document = doc; d !== document; ) {
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
  const boxKey = (r: Rect): string => `${Math.round(r.x * 4) / 4},${Math.round(r.y * 4) / 4},${Math.round(r.width * 4) / 4},${Math.round(r.height * 4) / 4}`;
  const round = (r: Rect): Rect => ({ x: Math.round(r.x * 10) / 10, y: Math.round(r.y * 10) / 10, width: Math.round(r.width * 10) / 10, height: Math.round(r.height * 10) / 10 });

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
    for (let d: Document = el.ownerDocument; d !== document; ) {
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

  // ── refs ──
  function refFor(el: Element, role: string, name: string): string {
    let ref = state.byEl.get(el);
    const entry = ref ? state.refs.get(ref) : undefined;
    if (!ref || !entry || entry.weak.deref() !== el) {
      ref = 'e' + state.nextRef++;
      state.byEl.set(el, ref);
    }
    state.refs.set(ref, { weak: new WeakRef(el), role, name, route: route() });
    if (state.refs.size > REF_CAP) pruneRefs();
    return ref;
  }
  // Refs kept per document. Past this, the oldest refs whose element is gone are forgotten
  // (a long session re-rendering lists would otherwise grow the table without bound).
  const REF_CAP = 20_000;
  function pruneRefs(): void {
    for (const [ref, entry] of state.refs) {
      if (state.refs.size <= REF_CAP * 0.8) break;
      const el = entry.weak.deref();
      if (!el || !el.isConnected) state.refs.delete(ref);
    }
    for (const [q] of state.queries) {
      if (state.queries.size <= REF_CAP / 4) break;
      state.queries.delete(q);
    }
    for (const [key, q] of state.queryKeys) if (!state.queries.has(q)) state.queryKeys.delete(key);
  }
  function describeRef(el: Element): string {
    const role = roleOf(el);
    const name = accName(el, role);
    return `${role}${name ? ` "${cut(name, 60)}"` : ''} [ref=${refFor(el, role, name)}]`;
  }

  // ── roots: document, open shadow roots, same-origin iframes ──
  // Finding shadow roots means visiting every element (a few ms on a large page, on every
  // resolve). So each document's runtime watches attachShadow from document start and scans only
  // documents that have shown a shadow root; a document the runtime joined late is scanned once.
  const SHADOW_MARK = Symbol.for('rehearse.shadowWatch');
  function watchShadows(win: Window & typeof globalThis): void {
    const proto = win.Element.prototype as any;
    if (proto[SHADOW_MARK]) return;
    const original = proto.attachShadow as (init: ShadowRootInit) => ShadowRoot;
    Object.defineProperty(proto, SHADOW_MARK, { value: true });
    Object.defineProperty(proto, 'attachShadow', {
      configurable: true,
      writable: true,
      value: function attachShadow(this: Element, init: ShadowRootInit): ShadowRoot {
        shadowSeenDocs.add(this.ownerDocument);
        return original.call(this, init);
      },
    });
  }
  const shadowSeenDocs: WeakSet<Document> = prev?.shadowSeenDocs ?? new WeakSet();
  const scannedDocs: WeakSet<Document> = prev?.scannedDocs ?? new WeakSet();
  /** Whether a document may hold shadow roots: seen attached, or found by its one full scan. */
  function mayHaveShadows(doc: Document): boolean {
    if (shadowSeenDocs.has(doc)) return true;
    const win = doc.defaultView as (Window & typeof globalThis) | null;
    if (!win) return false;
    const watched = !!(win.Element.prototype as any)[SHADOW_MARK];
    if (watched && scannedDocs.has(doc)) return false;
    // First look at this document: scan it once, then rely on the watch.
    if (!watched) watchShadows(win);
    scannedDocs.add(doc);
    const all = doc.querySelectorAll('*');
    for (let i = 0; i < all.length; i++) {
      if (all[i]!.shadowRoot) {
        shadowSeenDocs.add(doc);
        return true;
      }
    }
    return false;
  }
  try {
    watchShadows(window as Window & typeof globalThis);
    // At document start nothing exists yet: the watch sees every shadow root from here on.
    if (document.readyState === 'loading' && !document.body) scannedDocs.add(document);
  } catch {
    /* a locked-down prototype: every resolve scans */
  }
  /** Set while a last full scan runs (declarative shadow roots escape the attachShadow watch). */
  let forceFullScan = false;
  function collectRoots(start: Document | ShadowRoot | Element, out: (Document | ShadowRoot | Element)[] = [], full = forceFullScan): (Document | ShadowRoot | Element)[] {
    out.push(start);
    const doc = start.nodeType === 9 ? (start as Document) : (start as Element | ShadowRoot).ownerDocument!;
    if (full || start.nodeType === 11 || mayHaveShadows(doc)) {
      const all = start.querySelectorAll('*');
      for (let i = 0; i < all.length; i++) {
        const e = all[i]!;
        if (e.shadowRoot) collectRoots(e.shadowRoot, out, full);
        if (e.localName === 'iframe' || e.localName === 'frame') {
          const d = sameOriginDoc(e);
          if (d) collectRoots(d, out, full);
        }
      }
      return out;
    }
    const frames = start.nodeType === 9 ? (start as Document).querySelectorAll('iframe,frame') : (start as Element).querySelectorAll('iframe,frame');
    for (let i = 0; i < frames.length; i++) {
      const d = sameOriginDoc(frames[i]!);
      if (d) collectRoots(d, out, full);
    }
    return out;
  }
  function queryAll(roots: (Document | ShadowRoot | Element)[], selector: string): Element[] {
    const out: Element[] = [];
    for (const r of roots) {
      if (isEl(r) && r.matches(selector)) out.push(r);
      r.querySelectorAll(selector).forEach((e) => out.push(e));
    }
    return out;
  }

  // ── target matching ──
  interface Target {
    text?: string;
    contains?: string;
    label?: string;
    role?: string;
    name?: string;
    testId?: string;
    css?: string;
    within?: string | Target;
    nth?: number;
  }
  class Invalid extends Error {}
  // An ambiguity lists this many candidates (with refs), then counts the rest.
  const MAX_CANDIDATES = 10;

  function scopeRoots(within: string | Target | undefined): (Document | ShadowRoot | Element)[] {
    if (within === undefined) return collectRoots(document);
    const r = typeof within === 'string' ? resolveRef(within, undefined) : resolveTarget(within);
    if (r.status !== 'ok') throw new Invalid(`within: ${r.status === 'ambiguous' ? `the container matches ${r.count} elements` : r.detail}`);
    const el = state.lastResolved!;
    return collectRoots(el.shadowRoot ?? el).concat(el.shadowRoot ? [el] : []);
  }

  function nameMatches(el: Element, want: string, exact: boolean, caseFold: boolean): boolean {
    const role = roleOf(el);
    const n = accName(el, role);
    if (!n) return false;
    if (exact) return caseFold ? n.toLowerCase() === want.toLowerCase() : n === want;
    return n.toLowerCase().includes(want.toLowerCase());
  }
  const NAMED_SELECTOR = '[aria-label],[aria-labelledby],img[alt],input,select,textarea,[title]';
  const INTERACTIVE_ANCESTOR = 'button,a[href],summary,[role=button],[role=link],[role=option],[role=menuitem],[role=menuitemcheckbox],[role=menuitemradio],[role=tab],[role=checkbox],[role=radio],[role=switch],[role=treeitem]';

  /** Elements whose visible text (or accessible name) matches; innermost, promoted to an interactive ancestor. */
  function byText(roots: (Document | ShadowRoot | Element)[], want: string, exact: boolean, caseFold: boolean): Element[] {
    const wantN = norm(want);
    const wantL = wantN.toLowerCase();
    if (!wantN) return [];
    const seen = new Set<Element>();
    const found: Element[] = [];
    const add = (e: Element): void => {
      if (!seen.has(e)) {
        seen.add(e);
        found.push(e);
      }
    };
    const memo = new Map<Element, string>();
    const textOf = (e: Element): string => {
      let t = memo.get(e);
      if (t === undefined) memo.set(e, (t = norm(subtreeText(e.shadowRoot ?? e, null))));
      return t;
    };
    const fold = caseFold || !exact;
    const matchesText = (t: string): boolean => (exact ? (caseFold ? t.toLowerCase() === wantL : t === wantN) : t.toLowerCase().includes(wantL));
    // Cheap prefilter: a text node that is part of a match holds its longest word (or, for
    // contains, the whole wanted text when the match lies in one node).
    const words = (fold ? wantL : wantN).split(' ');
    const token = exact ? words.reduce((a, b) => (b.length > a.length ? b : a), '') : fold ? wantL : wantN;
    const scan = (tok: string): void => {
      for (const root of roots) {
        const doc = (root.nodeType === 9 ? root : root.ownerDocument) as Document;
        const walker = doc.createTreeWalker(root, 4 /* SHOW_TEXT */);
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
          const raw = (n as Text).data;
          if (!(fold ? raw.toLowerCase() : raw).includes(tok)) continue;
          const data = norm(raw);
          const dl = fold ? data.toLowerCase() : data;
          if (exact && !(fold ? wantL : wantN).includes(dl)) continue;
          let e: Element | null = n.parentElement;
          if (!e && n.parentNode && n.parentNode.nodeType === 11) e = (n.parentNode as ShadowRoot).host;
          // Climb while an ancestor's text could still match (exact: not longer than wanted).
          // Twelve ancestors up from a text node reach any control that wraps it.
          for (let depth = 0; e && depth < 12; depth++) {
            if (SKIP_TAGS.has(e.localName)) break;
            const t = textOf(e);
            const m = matchesText(t);
            if (m) add(e);
            if (exact ? t.length > wantN.length : m) break;
            const p = composedParent(e);
            e = isEl(p) ? p : null;
          }
        }
      }
    };
    scan(token);
    if (!exact && found.length === 0 && words.length > 1) scan(words.reduce((a, b) => (b.length > a.length ? b : a), ''));
    for (const e of queryAll(roots, NAMED_SELECTOR)) if (nameMatches(e, wantN, exact, caseFold)) add(e);
    let visible = found.filter((e) => a11yVisible(e));
    // Labels of a matched control are the same target, seen twice.
    visible = visible.filter((e) => !(e.localName === 'label' && (e as HTMLLabelElement).control && seen.has((e as HTMLLabelElement).control!)));
    // Innermost: drop an element when one of its descendants also matched.
    const set = new Set(visible);
    const hasMatchBelow = new Set<Element>();
    for (const e of visible) {
      for (let p = composedParent(e); p; p = composedParent(p)) {
        if (!isEl(p)) continue;
        if (hasMatchBelow.has(p)) break;
        if (set.has(p)) hasMatchBelow.add(p);
      }
    }
    const inner = visible.filter((e) => !hasMatchBelow.has(e));
    // …then promote to the interactive element it sits in, if that one matches too.
    const out: Element[] = [];
    const outSet = new Set<Element>();
    for (const e of inner) {
      let pick = e;
      const ia = e.closest(INTERACTIVE_ANCESTOR);
      if (ia && ia !== e && (seen.has(ia) || matchesText(textOf(ia)) || nameMatches(ia, wantN, exact, caseFold))) pick = ia;
      if (!outSet.has(pick)) {
        outSet.add(pick);
        out.push(pick);
      }
    }
    return out;
  }

  function byLabel(roots: (Document | ShadowRoot | Element)[], want: string): Element[] {
    const w = norm(want).toLowerCase();
    const controls = queryAll(roots, 'input,select,textarea,[contenteditable],[role=textbox],[role=searchbox],[role=combobox],[role=spinbutton],[role=checkbox],[role=radio],[role=switch],[role=slider],[role=listbox],[aria-label],[aria-labelledby]');
    const exact = controls.filter((e) => {
      const role = roleOf(e);
      if (role === 'none') return false;
      return accName(e, role).toLowerCase() === w || norm(e.getAttribute('placeholder')).toLowerCase() === w;
    });
    return exact.filter((e) => a11yVisible(e));
  }

  function byRole(roots: (Document | ShadowRoot | Element)[], role: string): Element[] {
    // Explicit roles by token; none/presentation on a focusable element falls back to the tag's role.
    const sel = (ROLE_TAGS[role] ? ROLE_TAGS[role] + ',' : '') + `[role~=${JSON.stringify(role)} i]` + (role === 'textbox' ? ',[contenteditable]' : '');
    return queryAll(roots, sel).filter((e) => roleOf(e) === role && a11yVisible(e));
  }

  function matchTarget(t: Target): Element[] {
    const roots = scopeRoots(t.within);
    let cands: Element[] | null = null;
    const narrow = (next: Element[]): void => {
      if (cands === null) cands = next;
      else {
        const s = new Set(next);
        cands = cands.filter((e) => s.has(e));
      }
    };
    if (t.css !== undefined) {
      try {
        narrow(queryAll(roots, t.css));
      } catch (e) {
        throw new Invalid(`css selector ${JSON.stringify(t.css)} is not valid: ${(e as Error).message.split('\n')[0]}`);
      }
    }
    if (t.testId !== undefined) narrow(queryAll(roots, `[data-testid=${JSON.stringify(t.testId)}]`));
    if (t.role !== undefined) {
      const role = t.role.toLowerCase();
      const pool: Element[] = cands ?? byRole(roots, role);
      cands = (pool as Element[]).filter((e) => roleOf(e) === role);
      if (t.name !== undefined) {
        const w = norm(t.name).toLowerCase();
        cands = cands.filter((e) => accName(e, role).toLowerCase() === w);
      }
    } else if (t.name !== undefined) {
      const w = norm(t.name).toLowerCase();
      const pool: Element[] = cands ?? queryAll(roots, '*').filter((e) => !isGeneric(roleOf(e)) && a11yVisible(e));
      cands = pool.filter((e) => accName(e, roleOf(e)).toLowerCase() === w);
    }
    if (t.label !== undefined) narrow(byLabel(roots, t.label));
    if (t.text !== undefined) {
      let m = byText(roots, t.text, true, false);
      if (m.length === 0) m = byText(roots, t.text, true, true);
      narrow(m);
    }
    if (t.contains !== undefined) narrow(byText(roots, t.contains, false, true));
    const list: Element[] = cands ?? [];
    // Document order across roots is the order they were collected in; keep it stable.
    return list;
  }

  function describeTarget(t: Target): string {
    const parts: string[] = [];
    for (const k of ['role', 'name', 'text', 'contains', 'label', 'testId', 'css'] as const) if (t[k] !== undefined) parts.push(`${k} ${JSON.stringify(t[k])}`);
    if (t.within !== undefined) parts.push(`within ${typeof t.within === 'string' ? t.within : describeTarget(t.within)}`);
    return parts.join(', ') || 'an empty target';
  }

  function nearNames(t: Target): string[] {
    const want = norm(t.text ?? t.contains ?? t.name ?? t.label ?? '').toLowerCase();
    if (!want) return [];
    const scored: [number, string][] = [];
    const els = queryAll(collectRoots(document), 'button,a[href],input,select,textarea,[role],summary,label,h1,h2,h3');
    // Suggestions are a courtesy: past 3,000 candidates they would cost more than they help.
    for (const e of els.slice(0, 3000)) {
      const role = roleOf(e);
      if (isGeneric(role)) continue;
      const n = accName(e, role);
      // Long names are content, not labels someone would type as a target.
      if (!n || n.length > 80) continue;
      const d = editDistance(want, n.toLowerCase());
      if (d <= Math.max(2, Math.floor(want.length / 3)) || n.toLowerCase().includes(want)) scored.push([d, `${role} "${n}"`]);
    }
    scored.sort((a, b) => a[0] - b[0]);
    return [...new Set(scored.map((s) => s[1]))].slice(0, 3);
  }
  function editDistance(a: string, b: string): number {
    if (Math.abs(a.length - b.length) > 10) return 99;
    const prevRow = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      let diag = prevRow[0]!;
      prevRow[0] = i;
      for (let j = 1; j <= b.length; j++) {
        const up = prevRow[j]!;
        prevRow[j] = Math.min(up + 1, prevRow[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
        diag = up;
      }
    }
    return prevRow[b.length]!;
  }

  type Resolve =
    | { status: 'ok'; ref: string; role: string; name: string; reresolved: boolean; hidden: boolean; docId: string; route: string }
    | { status: 'not_found'; detail: string; near: string[] }
    | { status: 'ambiguous'; count: number; candidates: string[] }
    | { status: 'stale'; detail: string }
    | { status: 'unknown_ref'; detail: string }
    | { status: 'invalid'; detail: string };

  function ok(el: Element, reresolved: boolean): Resolve {
    const role = roleOf(el);
    const name = accName(el, role);
    const ref = refFor(el, role, name);
    const entry = state.refs.get(ref)!;
    entry.box = boxKey(topRect(el));
    state.lastResolved = el;
    return { status: 'ok', ref, role, name, reresolved, hidden: document.visibilityState === 'hidden', docId: state.docId, route: route() };
  }

  function resolveTarget(t: Target): Resolve {
    let m: Element[];
    try {
      m = matchTarget(t);
    } catch (e) {
      if (e instanceof Invalid) return { status: 'invalid', detail: e.message };
      throw e;
    }
    if (t.nth !== undefined) {
      const el = m[t.nth];
      if (!el) return { status: 'not_found', detail: `${describeTarget(t)} matches ${m.length} element${m.length === 1 ? '' : 's'}, so nth ${t.nth} does not exist`, near: [] };
      return ok(el, false);
    }
    if (m.length === 1) return ok(m[0]!, false);
    if (m.length === 0) return { status: 'not_found', detail: `no element matches ${describeTarget(t)}`, near: [] };
    return { status: 'ambiguous', count: m.length, candidates: m.slice(0, MAX_CANDIDATES).map(describeRef) };
  }

  interface Expect {
    role: string;
    name: string;
    route: string;
    docId: string;
  }

  function relocate(ref: string, role: string, name: string, where: string): Resolve {
    const roots = collectRoots(document);
    const m = byRole(roots, role).filter((e) => accName(e, role) === name);
    if (m.length === 1) {
      const el = m[0]!;
      state.byEl.set(el, ref);
      state.refs.set(ref, { weak: new WeakRef(el), role, name, route: route() });
      state.lastResolved = el;
      const entry = state.refs.get(ref)!;
      entry.box = boxKey(topRect(el));
      return { status: 'ok', ref, role, name, reresolved: true, hidden: document.visibilityState === 'hidden', docId: state.docId, route: route() };
    }
    return {
      status: 'stale',
      detail: `ref=${ref} (${role}${name ? ` "${cut(name, 60)}"` : ''}) ${where}, and ${m.length === 0 ? 'no element' : `${m.length} elements`} now match${m.length === 1 ? 'es' : ''} that role and name`,
    };
  }

  function resolveRef(ref: string, expect: Expect | undefined): Resolve {
    if (ref.startsWith('q')) {
      const q = state.queries.get(ref);
      if (!q) return { status: 'unknown_ref', detail: `ref=${ref} is not known on this page (find/observe handles live in the page and were lost when it navigated or reloaded)` };
      return resolveTarget(q.locator);
    }
    let entry = state.refs.get(ref);
    if (expect && expect.docId !== state.docId) entry = undefined;
    if (!entry) {
      if (!expect) return { status: 'unknown_ref', detail: `ref=${ref} is not known on this page (refs belong to the document they were minted in; it navigated or reloaded since)` };
      if (expect.route !== route()) return { status: 'stale', detail: `ref=${ref} (${expect.role} "${cut(expect.name, 60)}") was minted on ${expect.route}; the page is now on ${route()}` };
      return relocate(ref, expect.role, expect.name, 'belongs to an earlier document (the page reloaded)');
    }
    const el = entry.weak.deref();
    if (el && connected(el)) {
      state.lastResolved = el;
      const role = roleOf(el);
      const name = accName(el, role);
      entry.role = role;
      entry.name = name;
      entry.box = boxKey(topRect(el));
      return { status: 'ok', ref, role, name, reresolved: false, hidden: document.visibilityState === 'hidden', docId: state.docId, route: route() };
    }
    if (entry.route !== route()) return { status: 'stale', detail: `ref=${ref} (${entry.role} "${cut(entry.name, 60)}") left the page; it was on ${entry.route} and the page is now on ${route()}` };
    return relocate(ref, entry.role, entry.name, 'left the DOM');
  }

  function resolveOnce(loc: { ref?: string; target?: Target }, expect?: Expect): Resolve {
    state.lastResolved = null;
    try {
      if (loc.ref !== undefined) return resolveRef(loc.ref, expect);
      if (loc.target !== undefined) return resolveTarget(loc.target);
      return { status: 'invalid', detail: 'give a ref or a target' };
    } catch (e) {
      if (e instanceof Invalid) return { status: 'invalid', detail: e.message };
      throw e;
    }
  }
  /** Before giving up: one full scan of every shadow root, then names close to the target. */
  function withNear(r: Resolve, loc: { ref?: string; target?: Target }): Resolve {
    if (r.status !== 'not_found' || !loc.target) return r;
    forceFullScan = true;
    try {
      const again = resolveOnce(loc);
      if (again.status !== 'not_found') return again;
    } finally {
      forceFullScan = false;
    }
    return loc.target.nth === undefined ? { ...r, near: nearNames(loc.target) } : r;
  }
  function resolve(loc: { ref?: string; target?: Target }, expect?: Expect, final = false): Resolve {
    const r = resolveOnce(loc, expect);
    return final ? withNear(r, loc) : r;
  }

  const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
  /** Next animation frame, or null after `ms` when the page produces no frames (hidden/background). */
  function nextFrame(ms: number, win: Window = window): Promise<boolean> {
    return new Promise((resolveFrame) => {
      let done = false;
      const timer = setTimeout(() => {
        if (!done) {
          done = true;
          resolveFrame(false);
        }
      }, ms);
      win.requestAnimationFrame(() => {
        if (!done) {
          done = true;
          clearTimeout(timer);
          resolveFrame(true);
        }
      });
    });
  }
  /** One macrotask: lets microtasks and already-queued tasks (framework schedulers) run. */
  function macrotask(): Promise<void> {
    return new Promise((r) => {
      const ch = new MessageChannel();
      ch.port1.onmessage = () => r();
      ch.port2.postMessage(0);
    });
  }

  // How often in-page waits re-check: about two frames, cheap enough to be invisible in a profile.
  const POLL_MS = 30;
  // A page that produces no frame within this is hidden or backgrounded (a frame is ~16 ms).
  const NO_FRAME_MS = 100;

  async function waitResolve(loc: { ref?: string; target?: Target }, expect: Expect | undefined, timeoutMs: number): Promise<Resolve> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const r = resolveOnce(loc, expect);
      if (r.status !== 'not_found') return r;
      if (Date.now() >= deadline) return withNear(r, loc);
      await sleep(Math.min(POLL_MS, Math.max(1, deadline - Date.now())));
    }
  }

  // ── actionability ──
  function animating(el: Element): boolean {
    for (let d: Document | null = el.ownerDocument; d; ) {
      const anims = (d as any).getAnimations ? (d as any).getAnimations() : [];
      for (const a of anims) {
        if (a.playState !== 'running') continue;
        const t = a.effect && a.effect.target;
        if (t && isEl(t) && containsComposed(t, el)) return true;
        if (t && isEl(t) && d !== el.ownerDocument) return true;
      }
      if (d === document) break;
      const fe = frameElementOf(d);
      d = fe ? fe.ownerDocument : null;
    }
    return false;
  }
  function isDisabled(el: Element): string | null {
    try {
      if (el.matches(':disabled')) return 'element is disabled';
    } catch {
      /* not a form control */
    }
    for (let n: Node | null = el; n; n = composedParent(n)) {
      if (isEl(n) && n.getAttribute('aria-disabled') === 'true') return n === el ? 'element has aria-disabled="true"' : `ancestor ${describe(n)} has aria-disabled="true"`;
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
    if (!rendered(el, false)) return cs.display === 'none' ? 'element is display:none' : 'element (or an ancestor) is not rendered (display:none)';
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

  interface GateOpts {
    editable?: boolean;
    checkEnabled?: boolean;
    checkStable?: boolean;
    checkReceivesEvents?: boolean;
    timeoutMs: number;
    begin?: string;
  }
  type Gate =
    | { status: 'ok'; x: number; y: number; noFrames: boolean; scrolled: boolean }
    | { status: 'failed'; check: string; detail: string; noFrames: boolean }
    | { status: 'stale'; detail: string };

  async function gate(ref: string, opts: GateOpts): Promise<Gate> {
    const deadline = Date.now() + opts.timeoutMs;
    let noFrames = false;
    let scrolled = false;
    let last: Gate | null = null;
    for (let attempt = 0; ; attempt++) {
      const entry = state.refs.get(ref);
      const el = entry?.weak.deref();
      if (!entry || !el || !connected(el)) return { status: 'stale', detail: `ref=${ref} left the DOM before the action` };
      const r = await checkOnce(el, entry, opts);
      if (r.noFrames) noFrames = true;
      if (r.scrolled) scrolled = true;
      if (r.status === 'ok') {
        if (opts.begin) beginAction(ref, el, opts.begin);
        return { status: 'ok', x: r.x, y: r.y, noFrames, scrolled };
      }
      last = { status: 'failed', check: r.check, detail: r.detail, noFrames };
      if (Date.now() >= deadline) return last;
      // Wait for the page to change: a frame when it produces them, else a short sleep.
      if (noFrames) await sleep(Math.min(POLL_MS, Math.max(1, deadline - Date.now())));
      else await nextFrame(Math.min(100, Math.max(1, deadline - Date.now())), winOf(el));
    }
  }

  type Check = { status: 'ok'; x: number; y: number; noFrames: boolean; scrolled: boolean } | { status: 'failed'; check: string; detail: string; noFrames: boolean; scrolled: boolean };
  async function checkOnce(el: Element, entry: RefEntry, opts: GateOpts): Promise<Check> {
    let noFrames = false;
    let scrolled = false;
    const fail = (check: string, detail: string): Check => ({ status: 'failed', check, detail, noFrames, scrolled });
    if (!isVisible(el)) return fail('visible', invisibleReason(el));
    if (!inView(el)) {
      (el as HTMLElement).scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' as ScrollBehavior });
      scrolled = true;
    }
    if (opts.checkStable !== false) {
      // Two frames' boxes are compared when something can move the element: a running CSS / Web
      // animation on it or an ancestor, a scroll we just did, or a box that changed since it was
      // resolved. A still element needs no frame wait (the live-centre hit test still guards it).
      const anim = animating(el);
      // Under a running animation compare exact boxes: near an eased turning point the element
      // moves less than the quarter pixel boxKey keeps, and would pass as still.
      const keyOf = anim ? (r: Rect): string => `${r.x},${r.y},${r.width},${r.height}` : boxKey;
      const before = keyOf(topRect(el));
      const moved = entry.box !== undefined && entry.box !== before;
      if (scrolled || moved || anim) {
        const framed = await nextFrame(NO_FRAME_MS, winOf(el));
        if (!framed) {
          noFrames = true;
          // Without a second frame there is nothing to compare: a running animation is not stable.
          if (anim) return fail('stable', 'element is animating and no animation frame came to compare its position');
        }
        const after = keyOf(topRect(el));
        if (after !== before) {
          entry.box = after;
          return fail('stable', `element is moving: its box changed from (${before}) to (${after}) between two animation frames`);
        }
        // Under an animation, one more frame: at an alternating animation's turning point two
        // consecutive frames can give the same box, three cannot.
        if (anim && framed && (await nextFrame(NO_FRAME_MS, winOf(el)))) {
          const third = keyOf(topRect(el));
          if (third !== after) {
            entry.box = third;
            return fail('stable', `element is moving: its box changed from (${after}) to (${third}) between two animation frames`);
          }
        }
      }
      entry.box = before;
    }
    const dis = opts.checkEnabled === false ? null : isDisabled(el);
    if (dis) return fail('enabled', dis);
    if (opts.editable) {
      const why = isTextEditable(el);
      if (why) return fail('editable', why);
    }
    const p = actionPoint(el);
    if (opts.checkReceivesEvents !== false) {
      const h = hitTarget(el, p.x, p.y);
      if (!h.ok) {
        const owner = h.hit ? dialogOf(h.hit) : null;
        return fail('receives events', `${describe(h.hit)}${owner && owner !== h.hit ? ` (in ${describe(owner)})` : ''} would receive the click at (${Math.round(p.x)}, ${Math.round(p.y)}) instead`);
      }
    }
    return { status: 'ok', x: p.x, y: p.y, noFrames, scrolled };
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

  // ── effect read-back ──
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
    const opts = [...el.querySelectorAll('[role=option]')].filter((o) => o.getAttribute('aria-selected') === 'true' || o.getAttribute('aria-checked') === 'true');
    return opts.map((o) => accName(o, 'option'));
  }
  function listboxOf(el: Element): Element | null {
    for (const attr of ['aria-controls', 'aria-owns']) {
      const id = el.getAttribute(attr);
      if (id) {
        const lb = byIdIn(el, id.split(/\s+/)[0]!);
        if (lb) return lb.getAttribute('role') === 'listbox' ? lb : lb.querySelector('[role=listbox]') ?? lb;
      }
    }
    const inner = el.querySelector('[role=listbox]');
    if (inner) return inner;
    return null;
  }

  /** The events that end a user's input (the last one an action dispatches). */
  const TERMINAL_EVENTS = ['mouseup', 'click', 'contextmenu', 'keyup', 'input', 'change', 'wheel', 'scroll', 'drop', 'dragend', 'focusin', 'focusout'];
  function beginAction(ref: string, el: Element, read: string): void {
    endAction();
    let markInput = (): void => undefined;
    const inputSeen = new Promise<void>((r) => (markInput = r));
    const rec: ActionRecord = { ref, el, observers: [], count: 0, lastMutationAt: 0, frame: null, unlisten: [], inputSeen, markInput, read };
    const onMut = (records: MutationRecord[]): void => {
      rec.count += records.length;
      rec.lastMutationAt = performance.now();
    };
    // The frame that renders the action is requested from the task of its last input event (a
    // capture listener runs in the same task as the page's handlers). Requesting it earlier would
    // spend an idle page's immediate frame before the input arrives, and push the input's own
    // rendering to the next vsync.
    const onInput = (e: Event): void => {
      // A click ends with mouseup (click follows in the same task): the settle may go on from there.
      if (e.type === 'mouseup') rec.markInput();
      rec.frame = new Promise((resolveFrame) => requestAnimationFrame(() => resolveFrame({ at: performance.now(), count: countNow(rec) })));
    };
    const wins = new Set<Window>([window, winOf(el)]);
    for (const w of wins) {
      for (const type of TERMINAL_EVENTS) {
        w.addEventListener(type, onInput, { capture: true, passive: true });
        rec.unlisten.push(() => w.removeEventListener(type, onInput, { capture: true }));
      }
    }
    const roots = new Set<Node>([document]);
    for (let n: Node | null = el; n; ) {
      const root = n.getRootNode();
      roots.add(root);
      n = root.nodeType === 11 ? (root as ShadowRoot).host : root.nodeType === 9 && root !== document ? frameElementOf(root as Document) : null;
    }
    for (const r of roots) {
      const mo = new MutationObserver(onMut);
      mo.observe(r, { subtree: true, childList: true, attributes: true, characterData: true });
      rec.observers.push(mo);
    }
    if (read === 'text') rec.textBefore = readText(el);
    if (read === 'checked') rec.checkedBefore = readChecked(el);
    state.action = rec;
  }
  function countNow(rec: ActionRecord): number {
    let n = 0;
    for (const mo of rec.observers) n += mo.takeRecords().length;
    if (n) {
      rec.count += n;
      rec.lastMutationAt = performance.now();
    }
    return rec.count;
  }
  function endAction(): ActionRecord | null {
    const rec = state.action;
    if (!rec) return null;
    for (const off of rec.unlisten) off();
    for (const mo of rec.observers) {
      rec.count += mo.takeRecords().length;
      mo.disconnect();
    }
    state.action = null;
    return rec;
  }

  // The longest a settle waits for frames: above this the page is busy and we report what we see.
  const SETTLE_FRAMES_MAX = 2;
  /**
   * Wait for the action to settle: one macrotask (microtasks, framework schedulers), then the first
   * animation frame that follows the action's DOM changes; a further frame only when that frame
   * itself changed the DOM (rAF-driven rendering), at most SETTLE_FRAMES_MAX. Then read back.
   */
  async function settle(waitInputMs = 0): Promise<Record<string, unknown>> {
    const rec = state.action;
    if (!rec) return { mutations: 0, noFrames: false, framesWaited: 0, detached: false };
    // Sent before the dispatch was acknowledged: first wait for the input to arrive.
    if (waitInputMs > 0) await Promise.race([rec.inputSeen, sleep(waitInputMs)]);
    await macrotask();
    let framesWaited = 0;
    let noFrames = false;
    const timeout = (): Promise<null> => new Promise((r) => setTimeout(() => r(null), NO_FRAME_MS));
    // No input event reached the page (a change made through the runtime): the next frame.
    const first = rec.frame ?? new Promise<{ at: number; count: number }>((resolveFrame) => requestAnimationFrame(() => resolveFrame({ at: performance.now(), count: countNow(rec) })));
    let frame = await Promise.race([first, timeout()]);
    if (!frame) noFrames = true;
    else {
      framesWaited = 1;
      await macrotask();
      // Changes made after that frame began (the action's own, or the frame's rAF callbacks)
      // are rendered by a later one.
      for (let i = 1; i < SETTLE_FRAMES_MAX && countNow(rec) > 0 && rec.lastMutationAt > frame.at; i++) {
        const at = performance.now();
        const framed = await nextFrame(NO_FRAME_MS);
        if (!framed) {
          noFrames = true;
          break;
        }
        framesWaited++;
        frame = { at, count: countNow(rec) };
        await macrotask();
      }
    }
    endAction();
    const el = rec.el;
    const out: Record<string, unknown> = { mutations: rec.count, noFrames, framesWaited, detached: !connected(el) };
    if (rec.read === 'text') {
      out.text = readText(el);
      out.textBefore = rec.textBefore;
    }
    if (rec.read === 'checked') {
      out.checked = readChecked(el);
      out.checkedBefore = rec.checkedBefore;
    }
    if (rec.read === 'selected') out.selected = readSelected(el);
    return out;
  }

  // ── snapshot ──
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
    return { role: 'text', name: '', el: null, states: '', text: t, children: [], interactive: false, context: false, offscreen: false, count: 1 };
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
      if ((cs.overflowY !== 'visible' || cs.overflowX !== 'visible') && el !== el.ownerDocument.documentElement && el !== el.ownerDocument.body) {
        const r = el.getBoundingClientRect();
        w.clip = intersect(w.clip, { x: r.left + w.offset.x + el.clientLeft, y: r.top + w.offset.y + el.clientTop, width: el.clientWidth, height: el.clientHeight }) ?? { x: -1e6, y: -1e6, width: 0, height: 0 };
        const canScroll = (v: string): boolean => v === 'auto' || v === 'scroll' || v === 'overlay';
        scrolls = el.clientWidth > 0 && el.clientHeight > 0 && ((canScroll(cs.overflowY) && el.scrollHeight > el.clientHeight + 1) || (canScroll(cs.overflowX) && el.scrollWidth > el.clientWidth + 1));
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
    const n: SNode = { role, name, el, states: '', children: [], interactive: interactive || (isFocusable(el) && role !== 'dialog'), context, offscreen, count: 1 };
    if (n.interactive || isFocusable(el) || scrollable || isFrame || (context && name)) n.ref = refFor(el, role, name);
    n.states = statesOf(el, role, n, offscreen && (w.markEveryOffscreen || !w.inOffscreen), offscreen, tr, saved.clip, w) + (scrollable ? ' [scrollable]' : '');
    if (offscreen) w.inOffscreen = true;
    if (TYPEABLE.has(role) || (role === 'combobox' && el.localName === 'input')) n.typeable = !(el as HTMLInputElement).readOnly && !isDisabled(el);
    const v = valueOf(el, role);
    if (v !== undefined) n.value = v;
    if (isFrame) {
      const doc = sameOriginDoc(el);
      if (doc && doc.body) {
        const fr = el.getBoundingClientRect();
        const cs = styleOf(el);
        w.offset = { x: saved.offset.x + fr.left + el.clientLeft + parseFloat(cs.paddingLeft), y: saved.offset.y + fr.top + el.clientTop + parseFloat(cs.paddingTop) };
        w.clip = intersect(saved.clip, { x: w.offset.x, y: w.offset.y, width: el.clientWidth, height: el.clientHeight }) ?? { x: -1e6, y: -1e6, width: 0, height: 0 };
        const labels = w.labelTexts;
        collectLabelTexts(doc, labels);
        walkChildren(doc.body, n.children, w);
      }
    } else if (el.localName === 'select') {
      for (const o of (el as HTMLSelectElement).options) {
        const on: SNode = { role: 'option', name: norm(o.label || o.textContent), el: o, states: o.selected ? ' [selected]' : '', children: [], interactive: false, context: false, offscreen: false, count: 1 };
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

  function statesOf(el: Element, role: string, n: SNode, markOffscreen: boolean, offscreen: boolean, tr: Rect, clip: Rect, w: WalkCtx): string {
    let s = '';
    if (role === 'heading') {
      const lvl = el.getAttribute('aria-level') ?? (/^h([1-6])$/.exec(el.localName)?.[1] ?? '');
      if (lvl) s += ` [level=${lvl}]`;
    }
    const checked = role === 'checkbox' || role === 'radio' || role === 'switch' || role === 'menuitemcheckbox' || role === 'menuitemradio' ? readChecked(el) : null;
    if (checked === true) s += ' [checked]';
    else if (checked === 'mixed') s += ' [checked=mixed]';
    const pressed = el.getAttribute('aria-pressed');
    if (pressed === 'true') s += ' [pressed]';
    else if (pressed === 'mixed') s += ' [pressed=mixed]';
    if (role === 'option' || role === 'tab' || role === 'row' || role === 'gridcell' || role === 'treeitem') {
      if (el.getAttribute('aria-selected') === 'true' || (el.localName === 'option' && (el as HTMLOptionElement).selected)) s += ' [selected]';
    }
    const exp = el.getAttribute('aria-expanded') ?? (el.localName === 'summary' && el.parentElement?.localName === 'details' ? String((el.parentElement as HTMLDetailsElement).open) : null);
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
    if (role === 'combobox') return el.localName === 'select' ? controlValue(el) : el.getAttribute('aria-valuetext') ?? undefined;
    if (role === 'slider' || role === 'progressbar' || role === 'meter' || role === 'scrollbar') {
      return el.getAttribute('aria-valuetext') ?? el.getAttribute('aria-valuenow') ?? ((el as HTMLInputElement).value !== undefined ? String((el as HTMLInputElement).value) : undefined);
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
        const t = id ? ((doc as any).getElementById ? (doc as any).getElementById(id) : null) : null;
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

  interface Line {
    depth: number;
    text: string;
    weight: number;
  }
  function flatten(nodes: SNode[], depth: number, out: Line[], maxDepth: number): void {
    for (const n of nodes) {
      if (depth > maxDepth) continue;
      let text = lineOf(n);
      if (depth === maxDepth && n.children.length) text = text.replace(/:$/, '') + ` (+${n.count - 1} below)`;
      out.push({ depth, text, weight: n.summary ?? 1 });
      if (depth < maxDepth) flatten(n.children, depth + 1, out, maxDepth);
    }
  }

  function filterTree(nodes: SNode[], keep: (n: SNode) => boolean, keepAncestor: (n: SNode) => boolean): SNode[] {
    const out: SNode[] = [];
    for (const n of nodes) {
      const kids = filterTree(n.children, keep, keepAncestor);
      if (keep(n)) out.push({ ...n, children: kids, inline: n.inline, count: 1 + kids.reduce((s, k) => s + k.count, 0) });
      else if (kids.length && keepAncestor(n)) out.push({ ...n, children: kids, inline: undefined, count: 1 + kids.reduce((s, k) => s + k.count, 0) });
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
      for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) dp[i * (m + 1) + j] = ma[i] === mb[j] ? dp[(i + 1) * (m + 1) + j + 1]! + 1 : Math.max(dp[(i + 1) * (m + 1) + j]!, dp[i * (m + 1) + j + 1]!);
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

  function snapshot(opts: { depth?: number; within?: string; interactiveOnly?: boolean; grep?: string; diff?: boolean; maxBytes: number }): Record<string, unknown> {
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
    const w: WalkCtx = { clip: viewportRect(), offset: { x: 0, y: 0 }, summarize: !grepRe, active, labelTexts, occlusionBudget: OCCLUSION_CHECKS, nodes: 0, textHidden: false, inOffscreen: false, markEveryOffscreen: !!(opts.interactiveOnly || grepRe) };
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
    if (opts.interactiveOnly) roots = filterTree(roots, (n) => !!n.ref && n.interactive, (n) => n.context || n.role === 'dialog' || n.role === 'alertdialog' || n.role === 'iframe');
    if (grepRe) {
      const re = grepRe;
      roots = filterTree(roots, (n) => re.test(n.name) || re.test(n.value ?? '') || re.test(n.text ?? '') || re.test(n.inline ?? ''), () => true);
    }
    const lines: Line[] = [];
    flatten(roots, 0, lines, opts.depth ?? Infinity);
    const texts = lines.map((l) => '  '.repeat(l.depth) + l.text);
    if (texts.length === 0 && (grepRe || opts.interactiveOnly)) {
      texts.push(grepRe ? `(nothing matches grep ${JSON.stringify(opts.grep)}${grepLiteral ? ', taken literally: it is not a valid regex' : ''})` : '(no interactive elements)');
    }
    const refs: Record<string, [string, string]> = {};
    collectRefs(roots, refs);
    let body = texts;
    let diff: Record<string, unknown> | undefined;
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
      return { status: 'error', resolve: { status: 'invalid', detail: 'diff compares whole snapshots: drop within/depth/grep/interactiveOnly' } };
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

  // ── find / observe ──
  function mintQuery(locator: any, qBase: number): string {
    const key = JSON.stringify(locator);
    const existing = state.queryKeys.get(key);
    if (existing && state.queries.has(existing)) return existing;
    state.nextQ = Math.max(state.nextQ, qBase);
    const q = 'q' + state.nextQ++;
    state.queries.set(q, { locator });
    state.queryKeys.set(key, q);
    return q;
  }
  function find(spec: Target & { limit: number; qBase: number }): Record<string, unknown> {
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

  function observe(spec: { within?: string; role?: string; limit: number; qBase: number }): Record<string, unknown> {
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
      const locator: any = { role: rest.role, ...(rest.label ? { name: rest.label } : {}), ...(spec.within ? { within: spec.within } : {}), ...(dup ? { nth } : {}) };
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

  // ── element operations used by the steps ──
  function withEl<T>(ref: string, fn: (el: Element) => T): T | { status: 'stale'; detail: string } {
    const el = state.refs.get(ref)?.weak.deref();
    if (!el || !connected(el)) return { status: 'stale', detail: `ref=${ref} left the DOM` };
    return fn(el);
  }
  function elementOf(ref: string): Element | null {
    const el = state.refs.get(ref)?.weak.deref();
    return el && connected(el) ? el : null;
  }

  function box(ref: string, scroll: boolean): Record<string, unknown> {
    return withEl(ref, (el) => {
      if (scroll && !inView(el) && isVisible(el)) (el as HTMLElement).scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' as ScrollBehavior });
      return { status: 'ok', rect: topRect(el), visible: isVisible(el) };
    });
  }

  function focusEl(ref: string): Record<string, unknown> {
    return withEl(ref, (el) => {
      const was = deepActive() === el;
      if (!was) (el as HTMLElement).focus({ preventScroll: true });
      return { status: 'ok', focused: deepActive() === el, was };
    });
  }
  function blurEl(ref: string | null): Record<string, unknown> {
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
  function selectContent(ref: string): Record<string, unknown> {
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
      return { status: 'ok', value: readText(el), focused: deepActive() === el, valueAtFocus: (el as any).__rehearseFocusValue };
    });
  }
  /** A user's edit ends with `change` (on commit); fire it when the value differs from before editing. */
  function commitChange(ref: string, before: string): Record<string, unknown> {
    return withEl(ref, (el) => {
      const now = readText(el);
      const fired = (el.localName === 'input' || el.localName === 'textarea') && now !== before;
      if (fired) el.dispatchEvent(new Event('change', { bubbles: true }));
      return { status: 'ok', fired, value: now };
    });
  }

  function checkState(ref: string): Record<string, unknown> {
    return withEl(ref, (el) => {
      const role = roleOf(el);
      const checkable = role === 'checkbox' || role === 'radio' || role === 'switch' || role === 'menuitemcheckbox' || role === 'menuitemradio' || el.hasAttribute('aria-checked');
      return { status: 'ok', role, checkable, checked: readChecked(el) };
    });
  }

  function selectNative(ref: string, wanted: string[]): Record<string, unknown> {
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
      const available = options.map((o) => `${norm(o.label || o.textContent)}${o.value !== norm(o.label || o.textContent) ? ` (value "${o.value}")` : ''}`);
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
  function ariaOptions(ref: string): Record<string, unknown> {
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
  function scrollInfoOf(el: Element): Record<string, unknown> {
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
  function scrollContainer(ref: string | null, axis: 'x' | 'y'): Record<string, unknown> {
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
  async function awaitScroll(ref: string, x: number, y: number, timeoutMs: number): Promise<Record<string, unknown>> {
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
  function scrollByFallback(ref: string, x: number, y: number): Record<string, unknown> {
    return withEl(ref, (el) => {
      el.scrollTo({ left: x, top: y, behavior: 'instant' as ScrollBehavior });
      return { status: 'ok', x: el.scrollLeft, y: el.scrollTop };
    });
  }
  function scrollIntoViewRef(ref: string): Record<string, unknown> {
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
      return { status: 'ok', before, after: { x: container.scrollLeft, y: container.scrollTop }, inView: inView(el), wasInView: was, container: info.describe };
    });
  }

  // ── expect ──
  function expectOnce(spec: ExpectSpecIn): { pass: boolean; failures: { check: string; expected: unknown; actual: unknown }[]; invalid?: string } {
    const failures: { check: string; expected: unknown; actual: unknown }[] = [];
    if (spec.url !== undefined) {
      const want = spec.url;
      const here = location.href;
      const path = location.pathname + location.search + location.hash;
      const okUrl = here === want || path === want || location.pathname + location.search === want || location.pathname === want;
      if (!okUrl) failures.push({ check: 'url', expected: want, actual: here });
    }
    if (spec.locator) {
      const loc = spec.locator as { ref?: string; target?: Target };
      if (spec.count !== undefined) {
        let n: number;
        if (loc.ref) n = resolve(loc).status === 'ok' ? 1 : 0;
        else {
          try {
            n = matchTarget({ ...(loc.target ?? {}), nth: undefined }).length;
          } catch (e) {
            return { pass: false, failures, invalid: (e as Error).message };
          }
        }
        if (n !== spec.count) failures.push({ check: 'count', expected: spec.count, actual: n });
      }
      const needsOne = spec.visible !== undefined || spec.hidden !== undefined || spec.text !== undefined || spec.textContains !== undefined || spec.value !== undefined || spec.checked !== undefined;
      if (needsOne) {
        const r = resolve(loc);
        if (r.status === 'ambiguous') return { pass: false, failures, invalid: `the target matches ${r.count} elements: ${r.candidates.join(', ')}; add nth or narrow it` };
        if (r.status === 'invalid') return { pass: false, failures, invalid: r.detail };
        const el = r.status === 'ok' ? state.lastResolved : null;
        const vis = !!el && isVisible(el);
        const wantHidden = spec.hidden === true || spec.visible === false;
        const wantVisible = spec.visible === true || spec.hidden === false;
        if (wantVisible && !vis) failures.push({ check: 'visible', expected: true, actual: el ? invisibleReason(el) : 'no element matches' });
        if (wantHidden && vis) failures.push({ check: 'hidden', expected: true, actual: `visible: ${describe(el)}` });
        if (spec.text !== undefined || spec.textContains !== undefined) {
          const t = el ? (el.localName === 'input' || el.localName === 'textarea' ? (el as HTMLInputElement).value : norm(subtreeText(el.shadowRoot ?? el, null))) : null;
          if (spec.text !== undefined && t !== norm(spec.text)) failures.push({ check: 'text', expected: norm(spec.text), actual: t ?? 'no element matches' });
          if (spec.textContains !== undefined && (t === null || !t.toLowerCase().includes(spec.textContains.toLowerCase()))) failures.push({ check: 'textContains', expected: spec.textContains, actual: t ?? 'no element matches' });
        }
        if (spec.value !== undefined) {
          const v = el ? (el.localName === 'select' ? (el as HTMLSelectElement).value : 'value' in el ? String((el as HTMLInputElement).value) : el.getAttribute('aria-valuenow') ?? norm(el.textContent)) : null;
          const label = el && el.localName === 'select' ? controlValue(el) : null;
          if (v !== spec.value && label !== spec.value) failures.push({ check: 'value', expected: spec.value, actual: v ?? 'no element matches' });
        }
        if (spec.checked !== undefined) {
          const c = el ? readChecked(el) : null;
          if (c !== spec.checked) failures.push({ check: 'checked', expected: spec.checked, actual: el ? c : 'no element matches' });
        }
      }
    }
    return { pass: failures.length === 0, failures };
  }
  interface ExpectSpecIn {
    locator?: { ref?: string; target?: Target };
    visible?: boolean;
    hidden?: boolean;
    text?: string;
    textContains?: string;
    value?: string;
    checked?: boolean;
    count?: number;
    url?: string;
  }
  async function expectWait(spec: ExpectSpecIn, timeoutMs: number): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    const t0 = Date.now();
    for (;;) {
      const r = expectOnce(spec);
      if (r.pass || r.invalid || Date.now() >= deadline) return { ...r, waitedMs: Date.now() - t0 };
      await sleep(Math.min(POLL_MS, Math.max(1, deadline - Date.now())));
    }
  }

  async function framesAlive(ms: number): Promise<Record<string, unknown>> {
    const framed = await nextFrame(ms);
    return { framed, visibilityState: document.visibilityState, hasFocus: document.hasFocus() };
  }

  /**
   * wait_for's check. Visible text = innerText (skips display:none and visibility:hidden) of the
   * document, of open shadow roots and of same-origin iframes, whitespace collapsed. The roots come
   * from collectRoots, which walks every element only in documents that have shown a shadow root.
   */
  function visibleText(text: string | null, gone: string | null): { status: 'ok'; hasText: boolean; hasGone: boolean } {
    const parts: string[] = [];
    for (const root of collectRoots(document)) {
      if (root.nodeType === 9) parts.push((root as Document).body?.innerText ?? '');
      else if (root.nodeType === 11) for (const child of (root as ShadowRoot).children) if ((child as HTMLElement).innerText !== undefined) parts.push((child as HTMLElement).innerText);
    }
    const all = parts.join('\n').replace(/\s+/g, ' ');
    const norm = (t: string): string => t.replace(/\s+/g, ' ').trim();
    return { status: 'ok', hasText: text === null || all.includes(norm(text)), hasGone: gone !== null && all.includes(norm(gone)) };
  }

  // Checked against RuntimeApi (a type only: erased before this function is serialised).
  const api: { [M in keyof RuntimeApi]: (...args: any[]) => unknown } = {
    resolve,
    waitResolve,
    gate,
    settle,
    abortAction: () => {
      endAction();
      return { status: 'ok' };
    },
    snapshot,
    find,
    observe,
    box,
    focus: focusEl,
    blur: blurEl,
    selectContent,
    commitChange,
    checkState,
    selectNative,
    ariaOptions,
    scrollContainer,
    awaitScroll,
    scrollByFallback,
    scrollIntoView: scrollIntoViewRef,
    expect: expectWait,
    visibleText,
    framesAlive,
    defineQuery: (q: string, locator: any) => {
      state.queries.set(q, { locator });
      state.queryKeys.set(JSON.stringify(locator), q);
      const n = Number(q.slice(1));
      if (n >= state.nextQ) state.nextQ = n + 1;
      return { status: 'ok' };
    },
    begin: (ref: string, read: string) =>
      withEl(ref, (el) => {
        beginAction(ref, el, read);
        return { status: 'ok' };
      }),
    /** Observe an action aimed at whatever has focus (press_key without a target). */
    beginActive: () => {
      const a = deepActive() ?? document.body;
      const role = roleOf(a);
      const ref = refFor(a, role, accName(a, role));
      beginAction(ref, a, 'none');
      return { status: 'ok', ref };
    },
    /** A visible label of a control that is itself hidden (custom checkboxes): clicking it toggles the control. */
    labelFor: (ref: string) =>
      withEl(ref, (el) => {
        const labels = [...((el as HTMLInputElement).labels ?? [])].filter((l) => isVisible(l));
        const l = labels[0];
        if (!l) return { status: 'none' };
        return { status: 'ok', ref: refFor(l, roleOf(l), accName(l, roleOf(l))) };
      }),
    readValue: (ref: string) => withEl(ref, (el) => ({ status: 'ok', value: readText(el), focused: deepActive() === el })),
    activeInfo: () => {
      const a = deepActive();
      return { status: 'ok', active: a && a !== document.body ? describeRef(a) : null, value: a && (a.localName === 'input' || a.localName === 'textarea' || (a as HTMLElement).isContentEditable) ? readText(a) : undefined };
    },
  };
  const runtime = {
    version,
    stateVersion: 1,
    state,
    shadowSeenDocs,
    scannedDocs,
    api,
    element: elementOf,
    /** One entry point for the Node side: never throws, so a page exception is a value. */
    call(method: string, args: unknown[]): unknown {
      const fn = (api as Record<string, ((...a: unknown[]) => unknown) | undefined>)[method];
      if (!fn) return { status: 'runtime_error', detail: `unknown runtime method ${method}` };
      try {
        const r = fn(...args);
        if (r && typeof (r as Promise<unknown>).then === 'function') return (r as Promise<unknown>).catch((e: Error) => ({ status: 'runtime_error', detail: String(e && e.stack ? e.stack : e) }));
        return r;
      } catch (e) {
        return { status: 'runtime_error', detail: String(e && (e as Error).stack ? (e as Error).stack : e) };
      }
    },
  };
  Object.defineProperty(G, KEY, { value: runtime, configurable: true, enumerable: false, writable: true });
}

/** Changes whenever the runtime source changes, so a newer harness replaces an older runtime (keeping its refs). */
function hash(s: string): string {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return (h >>> 0).toString(36);
}
const MAIN_SOURCE = runtimeMain.toString();
export const RUNTIME_VERSION = hash(MAIN_SOURCE);
export const PAGE_RUNTIME_SOURCE = `(${MAIN_SOURCE})(${JSON.stringify(RUNTIME_VERSION)});`;
