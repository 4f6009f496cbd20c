/**
 * The snapshot's walk of the DOM (shadow roots, slots, same-origin frames), skipping what is hidden
 * and summarising long offscreen runs.
 */
import type { helpersModule } from './helpers.js';
import type { rolesModule } from './roles.js';
import type { namesModule } from './names.js';
import type { visibilityModule } from './visibility.js';
import type { refsModule } from './refs.js';
import type { elementStateModule } from './element-state.js';
import type { snapshotStatesModule } from './snapshot-states.js';
import type { snapshotNodeModule } from './snapshot-node.js';
import type { SNode, WalkCtx } from './types.js';

type Deps = ReturnType<typeof helpersModule> &
  ReturnType<typeof rolesModule> &
  ReturnType<typeof namesModule> &
  ReturnType<typeof visibilityModule> &
  ReturnType<typeof refsModule> &
  ReturnType<typeof elementStateModule> &
  ReturnType<typeof snapshotStatesModule> &
  ReturnType<typeof snapshotNodeModule>;

export function snapshotWalkModule(dep: Deps) {
  const {
    SKIP_TAGS,
    TEXT,
    clipToScroller,
    collectLabelTexts,
    containsComposed,
    cut,
    enterFrame,
    intersect,
    isEl,
    isGeneric,
    nodeOf,
    norm,
    pushOptions,
    rendered,
    roleOf,
    sameOriginDoc,
    textNode,
  } = dep;

  // A container with more children than this is checked for long runs of offscreen rows.
  const LONG_LIST = 40;
  // Runs of at least this many offscreen rows are summarised in one line.
  const SUMMARY_MIN_RUN = 8;

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
        const kind = `${isGeneric(role) ? 'item' : role}${run.length === 1 ? '' : 's'}`;
        const ends = first ? ` (${JSON.stringify(cut(first, 40))} … ${JSON.stringify(cut(last, 40))})` : '';
        out.push({
          role: 'summary',
          name: '',
          el: null,
          states: '',
          text: `… ${run.length} more ${kind} offscreen${ends}; scroll or grep to see them`,
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
    const scrolls = clipToScroller(el, w);
    if (isGeneric(role) && !scrolls) {
      walkChildren(el, out, w);
      w.clip = saved.clip;
      return;
    }
    w.nodes++;
    const n = nodeOf(el, role, scrolls, isFrame, saved, w);
    if (isFrame) {
      const doc = sameOriginDoc(el);
      if (doc && doc.body) {
        enterFrame(el, saved, w);
        const labels = w.labelTexts;
        collectLabelTexts(doc, labels);
        walkChildren(doc.body, n.children, w);
      }
    } else if (el.localName === 'select') {
      pushOptions(el as HTMLSelectElement, n.children);
    } else if (el.localName !== 'input' && el.localName !== 'textarea') {
      walkChildren(el, n.children, w);
    }
    w.clip = saved.clip;
    w.offset = saved.offset;
    w.inOffscreen = saved.inOffscreen;
    out.push(n);
  }

  return { visit, walkChildren };
}
