/**
 * The snapshot: the page as an indented accessibility tree with refs, states and values, summarised
 * offscreen runs, filters (within, depth, grep, interactiveOnly), a diff to the last one, and a byte bound.
 */
import type { helpersModule } from './helpers.js';
import type { rolesModule } from './roles.js';
import type { namesModule } from './names.js';
import type { visibilityModule } from './visibility.js';
import type { refsModule } from './refs.js';
import type { targetsModule } from './targets.js';
import type { snapshotStatesModule } from './snapshot-states.js';
import type { snapshotWalkModule } from './snapshot-walk.js';
import type { snapshotTextModule } from './snapshot-text.js';
import type { snapshotDiffModule } from './snapshot-diff.js';
import type { Line, SNode, State, WalkCtx } from './types.js';
import type { RuntimeApi, RuntimeResolve, RuntimeSnapshot, SnapshotOptions } from './api.js';

type Deps = ReturnType<typeof helpersModule> &
  ReturnType<typeof rolesModule> &
  ReturnType<typeof namesModule> &
  ReturnType<typeof visibilityModule> &
  ReturnType<typeof refsModule> &
  ReturnType<typeof targetsModule> &
  ReturnType<typeof snapshotStatesModule> &
  ReturnType<typeof snapshotWalkModule> &
  ReturnType<typeof snapshotTextModule> &
  ReturnType<typeof snapshotDiffModule> & { state: State };

export function snapshotModule(dep: Deps) {
  const {
    collectLabelTexts,
    collectRefs,
    collectRoots,
    compact,
    compactLineOf,
    deepActive,
    diffLines,
    filterTree,
    bound,
    flatten,
    frameOffset,
    lineOf,
    resolveRef,
    route,
    state,
    utf8,
    viewportRect,
    visibleRect,
    visit,
    walkChildren,
  } = dep;

  // Hit tests for [occluded] cost one elementFromPoint each; a page rarely shows more controls.
  const OCCLUSION_CHECKS = 300;
  type SnapError = { status: 'error'; resolve: RuntimeResolve };

  function grepOf(grep: string | undefined): { grepRe: RegExp | null; grepLiteral: boolean } {
    let grepRe: RegExp | null = null;
    let grepLiteral = false;
    if (grep !== undefined && grep !== '') {
      try {
        grepRe = new RegExp(grep, 'i');
      } catch {
        grepRe = new RegExp(grep.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i');
        grepLiteral = true;
      }
    }
    return { grepRe, grepLiteral };
  }

  /** The tree to print: walked from the body or from `within`, merged, then filtered. */
  function treeOf(opts: SnapshotOptions, grepRe: RegExp | null, w: WalkCtx): SNode[] | SnapError {
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
    return roots;
  }

  /** The tree's lines, indented (with a line saying so when a filter left nothing). */
  function textsOf(roots: SNode[], opts: SnapshotOptions, grepRe: RegExp | null, grepLiteral: boolean): { lines: Line[]; texts: string[] } {
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
    return { lines, texts };
  }

  /** The body to print: the lines, or their diff to the last whole snapshot (which these become). */
  function withDiff(
    texts: string[],
    filtered: boolean,
    opts: SnapshotOptions,
  ): { body: string[]; diff: RuntimeSnapshot['diff'] } | SnapError {
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
    return { body, diff };
  }

  function snapshot(opts: SnapshotOptions): ReturnType<RuntimeApi['snapshot']> {
    const active = deepActive();
    const labelTexts = new Set<Element>();
    collectLabelTexts(document, labelTexts);
    for (const r of collectRoots(document)) if (r.nodeType === 11) collectLabelTexts(r as ShadowRoot, labelTexts);
    const { grepRe, grepLiteral } = grepOf(opts.grep);
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
    const roots = treeOf(opts, grepRe, w);
    if (!Array.isArray(roots)) return roots;
    const { lines, texts } = textsOf(roots, opts, grepRe, grepLiteral);
    const refs: Record<string, [string, string]> = {};
    collectRefs(roots, refs);
    const withBody = withDiff(texts, filtered, opts);
    if ('status' in withBody) return withBody;
    const { body, diff } = withBody;
    const { kept, shown, truncated } = bound(body, lines, diff, opts.maxBytes);
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

  return { snapshot };
}
