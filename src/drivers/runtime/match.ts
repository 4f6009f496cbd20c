/**
 * Target matching (role/name, text, label, testId, css, nth aside) within a set of roots, and the
 * names near a target that matched nothing.
 */
import type { helpersModule } from './helpers.js';
import type { rolesModule } from './roles.js';
import type { namesModule } from './names.js';
import type { visibilityModule } from './visibility.js';
import type { refsModule } from './refs.js';
import type { textMatchModule } from './text-match.js';
import type { Target } from './types.js';

type Deps = ReturnType<typeof helpersModule> &
  ReturnType<typeof rolesModule> &
  ReturnType<typeof namesModule> &
  ReturnType<typeof visibilityModule> &
  ReturnType<typeof refsModule> &
  ReturnType<typeof textMatchModule>;

export function matchModule(dep: Deps) {
  const { ROLE_TAGS, a11yVisible, accName, byText, collectRoots, isGeneric, norm, queryAll, roleOf } = dep;

  class Invalid extends Error {}

  function byLabel(roots: (Document | ShadowRoot | Element)[], want: string): Element[] {
    const w = norm(want).toLowerCase();
    const controls = queryAll(
      roots,
      'input,select,textarea,[contenteditable],[role=textbox],[role=searchbox],[role=combobox],' +
        '[role=spinbutton],[role=checkbox],[role=radio],[role=switch],[role=slider],[role=listbox],' +
        '[aria-label],[aria-labelledby]',
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

  /** The elements in `roots` that match every field of `t` but within and nth (the caller scopes and picks). */
  function matchIn(roots: (Document | ShadowRoot | Element)[], t: Target): Element[] {
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

  return { Invalid, byRole, describeTarget, matchIn, nearNames };
}
