/**
 * Target matching (role/name, text, label, testId, css, within, nth) and resolving a ref or target to
 * one element: re-finding a ref whose element was re-rendered, and suggesting near names when nothing matches.
 */
import type { helpersModule } from './helpers.js';
import type { rolesModule } from './roles.js';
import type { visibilityModule } from './visibility.js';
import type { refsModule } from './refs.js';
import type { Expect, Locator, Resolve, State, Target } from './types.js';

type Deps = ReturnType<typeof helpersModule> &
  ReturnType<typeof rolesModule> &
  ReturnType<typeof visibilityModule> &
  ReturnType<typeof refsModule> & { state: State };

export function targetsModule(dep: Deps) {
  const {
    a11yVisible,
    accName,
    boxKey,
    collectRoots,
    composedParent,
    connected,
    cut,
    describeRef,
    isEl,
    isGeneric,
    norm,
    POLL_MS,
    queryAll,
    refFor,
    ROLE_TAGS,
    roleOf,
    route,
    scan,
    SKIP_TAGS,
    sleep,
    subtreeText,
    topRect,
    state,
  } = dep;

  class Invalid extends Error {}
  // An ambiguity lists this many candidates (with refs), then counts the rest.
  const MAX_CANDIDATES = 10;

  function scopeRoots(within: string | Target | undefined): (Document | ShadowRoot | Element)[] {
    if (within === undefined) return collectRoots(document);
    const r = typeof within === 'string' ? resolveRef(within, undefined) : resolveTarget(within);
    if (r.status !== 'ok')
      throw new Invalid(`within: ${r.status === 'ambiguous' ? `the container matches ${r.count} elements` : r.detail}`);
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
  const INTERACTIVE_ANCESTOR =
    'button,a[href],summary,[role=button],[role=link],[role=option],[role=menuitem],[role=menuitemcheckbox],[role=menuitemradio],[role=tab],[role=checkbox],[role=radio],[role=switch],[role=treeitem]';

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
    const matchesText = (t: string): boolean =>
      exact ? (caseFold ? t.toLowerCase() === wantL : t === wantN) : t.toLowerCase().includes(wantL);
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
    visible = visible.filter(
      (e) => !(e.localName === 'label' && (e as HTMLLabelElement).control && seen.has((e as HTMLLabelElement).control!)),
    );
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
    const controls = queryAll(
      roots,
      'input,select,textarea,[contenteditable],[role=textbox],[role=searchbox],[role=combobox],[role=spinbutton],[role=checkbox],[role=radio],[role=switch],[role=slider],[role=listbox],[aria-label],[aria-labelledby]',
    );
    const exact = controls.filter((e) => {
      const role = roleOf(e);
      if (role === 'none') return false;
      return accName(e, role).toLowerCase() === w || norm(e.getAttribute('placeholder')).toLowerCase() === w;
    });
    return exact.filter((e) => a11yVisible(e));
  }

  function byRole(roots: (Document | ShadowRoot | Element)[], role: string): Element[] {
    // Explicit roles by token; none/presentation on a focusable element falls back to the tag's role.
    const sel =
      (ROLE_TAGS[role] ? ROLE_TAGS[role] + ',' : '') +
      `[role~=${JSON.stringify(role)} i]` +
      (role === 'textbox' ? ',[contenteditable]' : '');
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
    for (const k of ['role', 'name', 'text', 'contains', 'label', 'testId', 'css'] as const)
      if (t[k] !== undefined) parts.push(`${k} ${JSON.stringify(t[k])}`);
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
      if (!el)
        return {
          status: 'not_found',
          detail: `${describeTarget(t)} matches ${m.length} element${m.length === 1 ? '' : 's'}, so nth ${t.nth} does not exist`,
          near: [],
        };
      return ok(el, false);
    }
    if (m.length === 1) return ok(m[0]!, false);
    if (m.length === 0) return { status: 'not_found', detail: `no element matches ${describeTarget(t)}`, near: [] };
    return { status: 'ambiguous', count: m.length, candidates: m.slice(0, MAX_CANDIDATES).map(describeRef) };
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
      return {
        status: 'ok',
        ref,
        role,
        name,
        reresolved: true,
        hidden: document.visibilityState === 'hidden',
        docId: state.docId,
        route: route(),
      };
    }
    return {
      status: 'stale',
      detail: `ref=${ref} (${role}${name ? ` "${cut(name, 60)}"` : ''}) ${where}, and ${m.length === 0 ? 'no element' : `${m.length} elements`} now match${m.length === 1 ? 'es' : ''} that role and name`,
    };
  }

  function resolveRef(ref: string, expect: Expect | undefined): Resolve {
    if (ref.startsWith('q')) {
      const q = state.queries.get(ref);
      if (!q)
        return {
          status: 'unknown_ref',
          detail: `ref=${ref} is not known on this page (find/observe handles live in the page and were lost when it navigated or reloaded)`,
        };
      return resolveTarget(q.locator);
    }
    let entry = state.refs.get(ref);
    if (expect && expect.docId !== state.docId) entry = undefined;
    if (!entry) {
      if (!expect)
        return {
          status: 'unknown_ref',
          detail: `ref=${ref} is not known on this page (refs belong to the document they were minted in; it navigated or reloaded since)`,
        };
      if (expect.route !== route())
        return {
          status: 'stale',
          detail: `ref=${ref} (${expect.role} "${cut(expect.name, 60)}") was minted on ${expect.route}; the page is now on ${route()}`,
        };
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
      return {
        status: 'ok',
        ref,
        role,
        name,
        reresolved: false,
        hidden: document.visibilityState === 'hidden',
        docId: state.docId,
        route: route(),
      };
    }
    if (entry.route !== route())
      return {
        status: 'stale',
        detail: `ref=${ref} (${entry.role} "${cut(entry.name, 60)}") left the page; it was on ${entry.route} and the page is now on ${route()}`,
      };
    return relocate(ref, entry.role, entry.name, 'left the DOM');
  }

  function resolveOnce(loc: Locator, expect?: Expect): Resolve {
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
  function withNear(r: Resolve, loc: Locator): Resolve {
    if (r.status !== 'not_found' || !loc.target) return r;
    scan.forceFullScan = true;
    try {
      const again = resolveOnce(loc);
      if (again.status !== 'not_found') return again;
    } finally {
      scan.forceFullScan = false;
    }
    return loc.target.nth === undefined ? { ...r, near: nearNames(loc.target) } : r;
  }
  function resolve(loc: Locator, expect?: Expect, final = false): Resolve {
    const r = resolveOnce(loc, expect);
    return final ? withNear(r, loc) : r;
  }

  async function waitResolve(loc: Locator, expect: Expect | undefined, timeoutMs: number): Promise<Resolve> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const r = resolveOnce(loc, expect);
      if (r.status !== 'not_found') return r;
      if (Date.now() >= deadline) return withNear(r, loc);
      await sleep(Math.min(POLL_MS, Math.max(1, deadline - Date.now())));
    }
  }

  return { resolve, resolveRef, Invalid, matchTarget, nearNames, waitResolve };
}
