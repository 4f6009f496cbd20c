/**
 * Resolving a ref or a target (within a container, nth) to one element: re-finding a ref whose element
 * was re-rendered, and suggesting near names when nothing matches.
 */
import type { helpersModule } from './helpers.js';
import type { rolesModule } from './roles.js';
import type { namesModule } from './names.js';
import type { visibilityModule } from './visibility.js';
import type { refsModule } from './refs.js';
import type { matchModule } from './match.js';
import type { Expect, Locator, Resolve, State, Target } from './types.js';

type Deps = ReturnType<typeof helpersModule> &
  ReturnType<typeof rolesModule> &
  ReturnType<typeof namesModule> &
  ReturnType<typeof visibilityModule> &
  ReturnType<typeof refsModule> &
  ReturnType<typeof matchModule> & { state: State };

export function targetsModule(dep: Deps) {
  const {
    Invalid,
    POLL_MS,
    accName,
    boxKey,
    byRole,
    collectRoots,
    connected,
    cut,
    describeRef,
    describeTarget,
    matchIn,
    nearNames,
    refFor,
    roleOf,
    route,
    scan,
    sleep,
    state,
    topRect,
  } = dep;

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

  function matchTarget(t: Target): Element[] {
    return matchIn(scopeRoots(t.within), t);
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
      detail:
        `ref=${ref} (${role}${name ? ` "${cut(name, 60)}"` : ''}) ${where}, ` +
        `and ${m.length === 0 ? 'no element' : `${m.length} elements`} now match${m.length === 1 ? 'es' : ''} that role and name`,
    };
  }

  function resolveRef(ref: string, expect: Expect | undefined): Resolve {
    if (ref.startsWith('q')) {
      const q = state.queries.get(ref);
      if (!q)
        return {
          status: 'unknown_ref',
          detail:
            `ref=${ref} is not known on this page ` + '(find/observe handles live in the page and were lost when it navigated or reloaded)',
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
        detail:
          `ref=${ref} (${entry.role} "${cut(entry.name, 60)}") left the page; ` +
          `it was on ${entry.route} and the page is now on ${route()}`,
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

  return { resolve, resolveRef, matchTarget, waitResolve };
}
