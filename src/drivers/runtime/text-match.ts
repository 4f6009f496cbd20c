/**
 * Matching a target by its visible text or accessible name: the innermost element whose text matches,
 * promoted to the interactive element it sits in.
 */
import type { helpersModule } from './helpers.js';
import type { rolesModule } from './roles.js';
import type { namesModule } from './names.js';
import type { visibilityModule } from './visibility.js';
import type { refsModule } from './refs.js';

type Deps = ReturnType<typeof helpersModule> &
  ReturnType<typeof rolesModule> &
  ReturnType<typeof namesModule> &
  ReturnType<typeof visibilityModule> &
  ReturnType<typeof refsModule>;

export function textMatchModule(dep: Deps) {
  const { SKIP_TAGS, a11yVisible, accName, composedParent, isEl, norm, queryAll, roleOf, subtreeText } = dep;

  function nameMatches(el: Element, want: string, exact: boolean, caseFold: boolean): boolean {
    const role = roleOf(el);
    const n = accName(el, role);
    if (!n) return false;
    if (exact) return caseFold ? n.toLowerCase() === want.toLowerCase() : n === want;
    return n.toLowerCase().includes(want.toLowerCase());
  }
  const NAMED_SELECTOR = '[aria-label],[aria-labelledby],img[alt],input,select,textarea,[title]';
  const INTERACTIVE_ANCESTOR =
    'button,a[href],summary,[role=button],[role=link],[role=option],[role=menuitem],' +
    '[role=menuitemcheckbox],[role=menuitemradio],[role=tab],[role=checkbox],[role=radio],[role=switch],' +
    '[role=treeitem]';

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

  return { byText, nameMatches };
}
