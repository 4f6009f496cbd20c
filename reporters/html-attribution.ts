/**
 * Attribution in the HTML compare report (issue 27). Beside a row that regressed or is inconclusive:
 * where its change is, the two runs side by side (functions by self time, forced layouts and style
 * recalculations, long tasks, steps). For the comparison: a differential flame graph of the two runs'
 * median attribution repeats, so a reviewer sees the frame that grew among the ones that did not.
 *
 * Names and urls come from the page under test, so they are hostile: every string goes through
 * escapeHtml (clipped first, so a 1 MB name cannot bloat the file), every number through ms() or
 * share(), which print only a finite number. The flame graph is inline SVG written here, no script:
 * its fills are presentation attributes (integers we compute), which a style-src policy does not
 * govern, and its tooltips are <title> elements, text only.
 */
import type { AttributionKind, AttributionLine, ComparisonFlame, RepeatAttribution, RowAttribution } from '../src/perf/attribution.js';
import { formatNumber as num, shareOfDelta } from './format.js';
import { escapeHtml as e, table } from './html-markup.js';

// A minified or generated name can run to thousands of characters; 160 shows any real name or url whole.
const MAX_NAME_CHARS = 160;

function clip(s: unknown): string {
  const text = typeof s === 'string' ? s : '';
  return text.length > MAX_NAME_CHARS ? `${text.slice(0, MAX_NAME_CHARS - 1)}…` : text;
}

/** Milliseconds as markup: a finite number only, anything else as a dash. */
export function ms(v: unknown, signed = false): string {
  if (typeof v !== 'number' || !Number.isFinite(v)) return '–';
  // 0.1 ms as everywhere in the report; under 1 ms two decimals, so a small function does not read as 0.
  let s = Math.abs(v) < 1 ? v.toFixed(2) : v.toFixed(1);
  if (/^-0(\.0+)?$/.test(s)) s = s.slice(1);
  return signed && v > 0 ? `+${s}` : s;
}

function share(v: unknown): string {
  return typeof v === 'number' && Number.isFinite(v) ? shareOfDelta(v).replace(' of Δ', '') : '–';
}

// ─── a row's attribution ────────────────────────────────────────────────────────────────────────────

const KIND_HEADING: Record<AttributionKind, string> = {
  function: 'Functions, by self time',
  forcedLayout: 'Forced layouts, charged to the function that forced them',
  forcedStyle: 'Forced style recalculations, charged to the function that forced them',
  longTask: 'Long tasks (over 50 ms), charged to the function with the most self time in each',
  step: 'Steps, by the time of their window',
};

function whereCell(line: AttributionLine): string {
  const url = line.url ? `<br><span class="muted where">${e(clip(line.url))}</span>` : '';
  return `<code>${e(clip(line.name))}</code>${url}`;
}

function deltaCell(line: AttributionLine): string {
  const ci = line.ci ? `<br><span class="muted">${ms(line.ci.lowMs, true)}…${ms(line.ci.highMs, true)}</span>` : '';
  return `<b>${ms(line.deltaMs, true)}</b>${ci}`;
}

/** The lines of one kind, in the order they were ranked; kinds in the order of their first line. */
function byKind(lines: readonly AttributionLine[]): Map<AttributionKind, AttributionLine[]> {
  const groups = new Map<AttributionKind, AttributionLine[]>();
  for (const line of lines) {
    const group = groups.get(line.kind);
    if (group) group.push(line);
    else groups.set(line.kind, [line]);
  }
  return groups;
}

function kindTable(kind: AttributionKind, lines: AttributionLine[]): string {
  const head = [kind === 'step' ? 'step' : 'function', 'A ms/repeat', 'B ms/repeat', 'Δ ms (interval)', 'share of row Δ'];
  const rows = lines.map((l) => [whereCell(l), ms(l.a), ms(l.b), deltaCell(l), share(l.share)]);
  return `<h4>${e(KIND_HEADING[kind] ?? String(kind))}</h4>${table(head, rows, [1, 2, 3, 4])}`;
}

/** Where a row's change is: the two runs' lines side by side, grouped by kind, and what could not be named. */
export function attributionBlock(attribution: RowAttribution): string {
  const { lines, repeats, missing } = attribution;
  const groups = [...byKind(lines)].map(([kind, group]) => kindTable(kind, group));
  const none = !lines.length && missing === undefined ? '<p class="muted">No function, forced layout, long task or step changed.</p>' : '';
  return `<div class="attribution">
<h4 class="attr-title">Where the change is</h4>
<p class="legend muted">Medians per repeat of ${num(repeats.a)} attribution repeat${repeats.a === 1 ? '' : 's'} of A and \
${num(repeats.b)} of B; Δ: shift B − A with its interval; share: of this row's shift. The profiler inflates milliseconds: \
use them to rank.</p>
${missing !== undefined ? `<p class="missing">Not named: ${e(clip(missing))}</p>` : ''}${none}
${groups.join('\n')}
</div>`;
}

// ─── differential flame graph ───────────────────────────────────────────────────────────────────────

/** One frame of the merged tree (a path from the root), with each run's self and total ms there. */
export interface FlameNode {
  frame: string;
  depth: number;
  self: { a: number; b: number };
  total: { a: number; b: number };
  children: Map<string, FlameNode>;
  /** What it is drawn as wide as, in ms (sizeTree). */
  widthMs: number;
  /** Frames in its subtree, itself included. */
  count: number;
}

// Recursion can fold thousands of frames deep; 64 rows (about 1,100 px) keep every page stack we have seen
// whole and bound the picture's height. Deeper frames count in the 64th's own time.
export const MAX_FLAME_DEPTH = 64;
// Drawn frames: past this the file outgrows a report you would send (about 300 bytes a frame).
export const MAX_FLAME_RECTS = 1500;
// The picture is 1,000 units wide, close to a CSS pixel in the report's 1,120 px column.
const FLAME_WIDTH = 1000;
// A frame narrower than half a pixel is not visible; it is counted instead.
const MIN_FRAME_WIDTH = 0.5;
const ROW_HEIGHT = 17;
// An 11 px monospace character is about 6.6 px wide; a label needs room for 3 of them.
const CHAR_WIDTH = 6.6;
const MIN_LABEL_CHARS = 3;
// Under 0.05 ms of self time a change is below what the profiler's 0.1 ms sampling can tell.
const NEUTRAL_MS = 0.05;

function newNode(frame: string, depth: number): FlameNode {
  return { frame, depth, self: { a: 0, b: 0 }, total: { a: 0, b: 0 }, children: new Map(), widthMs: 0, count: 1 };
}

/** Adds one run's folded stacks (root → leaf, self ms at the leaf); returns how many were cut at MAX_FLAME_DEPTH. */
function addStacks(root: FlameNode, stacks: RepeatAttribution['stacks'], side: 'a' | 'b'): number {
  let cut = 0;
  for (const stack of stacks) {
    const selfMs = stack.selfMs;
    if (typeof selfMs !== 'number' || !Number.isFinite(selfMs) || selfMs <= 0 || !Array.isArray(stack.frames)) continue;
    if (stack.frames.length > MAX_FLAME_DEPTH) cut++;
    root.total[side] += selfMs;
    let node = root;
    for (const frame of stack.frames.slice(0, MAX_FLAME_DEPTH)) {
      const key = typeof frame === 'string' ? frame : '';
      let child = node.children.get(key);
      if (!child) node.children.set(key, (child = newNode(key, node.depth + 1)));
      child.total[side] += selfMs;
      node = child;
    }
    node.self[side] += selfMs;
  }
  return cut;
}

/**
 * Width in ms, bottom up: B's time (the candidate is what ships), except a frame B no longer runs, which
 * keeps A's so what went away shows too. A frame B runs is its own B time plus its children's widths.
 */
function sizeTree(node: FlameNode): { maxAbsDeltaMs: number } {
  let maxAbsDeltaMs = Math.abs(node.self.b - node.self.a);
  let childrenMs = 0;
  node.count = 1;
  for (const child of node.children.values()) {
    maxAbsDeltaMs = Math.max(maxAbsDeltaMs, sizeTree(child).maxAbsDeltaMs);
    childrenMs += child.widthMs;
    node.count += child.count;
  }
  node.widthMs = node.total.b > 0 ? node.self.b + childrenMs : node.total.a;
  return { maxAbsDeltaMs };
}

/** Both runs' stacks in one tree under an "all" root. */
export function mergeFlame(flame: ComparisonFlame): { root: FlameNode; cutStacks: number; maxAbsDeltaMs: number } {
  const root = newNode('all', 0);
  let cutStacks = 0;
  if (flame.a) cutStacks += addStacks(root, flame.a.stacks, 'a');
  if (flame.b) cutStacks += addStacks(root, flame.b.stacks, 'b');
  const { maxAbsDeltaMs } = sizeTree(root);
  return { root, cutStacks, maxAbsDeltaMs };
}

interface Placed {
  node: FlameNode;
  x: number;
  w: number;
}

/**
 * Every frame at least MIN_FRAME_WIDTH wide, children left-heavy under their parent (widest first, as
 * speedscope's "left heavy" view, so the two runs' big frames line up whatever their order in time).
 */
function place(root: FlameNode, unitsPerMs: number): { placed: Placed[]; narrow: number } {
  const placed: Placed[] = [];
  let narrow = 0;
  const todo: { node: FlameNode; x: number }[] = [{ node: root, x: 0 }];
  for (let item = todo.pop(); item; item = todo.pop()) {
    const w = item.node.widthMs * unitsPerMs;
    if (w < MIN_FRAME_WIDTH) {
      narrow += item.node.count;
      continue;
    }
    placed.push({ node: item.node, x: item.x, w });
    // Children from the parent's left edge; its own time is the room left at its right.
    let x = item.x;
    const kids = [...item.node.children.values()].sort((p, q) => q.widthMs - p.widthMs || (p.frame < q.frame ? -1 : 1));
    for (const child of kids) {
      todo.push({ node: child, x });
      x += child.widthMs * unitsPerMs;
    }
  }
  return { placed, narrow };
}

// Colour ramp for a changed frame: channel value from pale (a small change) to saturated (the largest).
const PALE = 225;
const SATURATED = 40;
const SAME_FILL = 'rgb(221,221,221)';

/**
 * Colour by the change of the frame's own (self) time, as Gregg's differential flame graphs do (B. Gregg,
 * "Differential Flame Graphs", 2014): red grew, blue shrank, intensity relative to the largest change, so
 * the frame that holds the change stands out and its callers, whose totals only carry it, stay grey.
 */
function fillOf(node: FlameNode, maxAbsDeltaMs: number, diff: boolean): string {
  const deltaMs = node.self.b - node.self.a;
  if (!diff || Math.abs(deltaMs) < NEUTRAL_MS || maxAbsDeltaMs <= 0) return SAME_FILL;
  const t = Math.min(1, Math.abs(deltaMs) / maxAbsDeltaMs);
  const c = Math.round(PALE - (PALE - SATURATED) * t);
  return deltaMs > 0 ? `rgb(255,${c},${c})` : `rgb(${c},${c},255)`;
}

/** "name url" as folded (the url has no space: path:line:col or a VM bucket). */
function splitFrame(frame: string): { name: string; url: string } {
  const i = frame.lastIndexOf(' ');
  return i > 0 ? { name: frame.slice(0, i), url: frame.slice(i + 1) } : { name: frame, url: '' };
}

function tooltip(node: FlameNode, diff: boolean): string {
  const { name, url } = splitFrame(node.frame);
  const lines = [clip(name) || '(anonymous)'];
  if (url) lines.push(clip(url));
  lines.push(`A ${ms(node.total.a)} ms (self ${ms(node.self.a)}) · B ${ms(node.total.b)} ms (self ${ms(node.self.b)})`);
  if (diff) lines.push(`Δ self ${ms(node.self.b - node.self.a, true)} ms · Δ total ${ms(node.total.b - node.total.a, true)} ms`);
  if (diff && node.total.b === 0) lines.push('only in A: gone in B (drawn as wide as in A)');
  else if (diff && node.total.a === 0) lines.push('only in B: new');
  return lines.join('\n');
}

function label(name: string, widthUnits: number): string {
  const room = Math.floor((widthUnits - 6) / CHAR_WIDTH);
  if (room < MIN_LABEL_CHARS) return '';
  return name.length > room ? `${name.slice(0, room - 1)}…` : name;
}

const r1 = (v: number): string => String(Math.round(v * 10) / 10);

function frameSvg(p: Placed, maxAbsDeltaMs: number, diff: boolean): string {
  const y = p.node.depth * ROW_HEIGHT;
  const text = label(clip(splitFrame(p.node.frame).name) || '(anonymous)', p.w);
  const fill = fillOf(p.node, maxAbsDeltaMs, diff);
  const rect = `<rect x="${r1(p.x)}" y="${y}" width="${r1(p.w)}" height="${ROW_HEIGHT - 1}" fill="${fill}"/>`;
  const textSvg = text ? `<text x="${r1(p.x + 3)}" y="${y + 12}">${e(text)}</text>` : '';
  return `<g><title>${e(tooltip(p.node, diff))}</title>${rect}${textSvg}</g>`;
}

export interface FlameDrawing {
  svg: string;
  /** Frames drawn, and frames left out: narrower than MIN_FRAME_WIDTH, or past MAX_FLAME_RECTS. */
  drawn: number;
  narrow: number;
  overCap: number;
  /** Stacks deeper than MAX_FLAME_DEPTH, cut there. */
  cutStacks: number;
}

/**
 * The merged tree as SVG, root at the top (an icicle: reads downward like DevTools' call tree). When the
 * cap bites, the widest frames stay: a parent is never narrower than its child, so what stays is whole
 * from the root down.
 */
export function flameSvg(flame: ComparisonFlame): FlameDrawing | undefined {
  const { root, cutStacks, maxAbsDeltaMs } = mergeFlame(flame);
  if (!(root.widthMs > 0) || !Number.isFinite(root.widthMs)) return undefined;
  const diff = Boolean(flame.a && flame.b);
  const { placed, narrow } = place(root, FLAME_WIDTH / root.widthMs);
  const widestFirst = (p: Placed, q: Placed): number => q.w - p.w || p.node.depth - q.node.depth;
  const kept = placed.length > MAX_FLAME_RECTS ? [...placed].sort(widestFirst).slice(0, MAX_FLAME_RECTS) : placed;
  const height = (Math.max(...kept.map((p) => p.node.depth)) + 1) * ROW_HEIGHT;
  const body = kept.map((p) => frameSvg(p, maxAbsDeltaMs, diff)).join('\n');
  const svg = `<svg class="flame" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${FLAME_WIDTH} ${height}" \
preserveAspectRatio="xMinYMin meet" aria-label="flame graph">\n${body}\n</svg>`;
  return { svg, drawn: kept.length, narrow, overCap: placed.length - kept.length, cutStacks };
}

const FLAME_LEGEND = `<p class="legend muted">One box per function on a call path, callers above callees; width: the candidate's \
(B) ms, a frame B no longer runs drawn as wide as in A; colour: the change of the frame's own time, <span class="sw grew"></span> \
grew, <span class="sw shrank"></span> shrank, <span class="sw same"></span> about the same. Hover a frame for its numbers.</p>`;

function flameNotes(d: FlameDrawing): string {
  const notes: string[] = [];
  if (d.narrow) notes.push(`${num(d.narrow)} frame${d.narrow === 1 ? '' : 's'} narrower than half a pixel not drawn`);
  if (d.overCap) notes.push(`${num(d.overCap)} more not drawn past the first ${num(MAX_FLAME_RECTS)}`);
  if (d.cutStacks) {
    notes.push(`${num(d.cutStacks)} stack${d.cutStacks === 1 ? '' : 's'} deeper than ${num(MAX_FLAME_DEPTH)} frames cut there`);
  }
  return `<p class="muted flame-notes">${num(d.drawn)} frames drawn${notes.length ? `; ${notes.join('; ')}` : ''}.</p>`;
}

function sideNote(flame: ComparisonFlame): string {
  if (!flame.a && !flame.b) return 'Neither run kept an attribution repeat with a CPU profile: there is no flame graph to draw.';
  const alone = (missing: string, shown: string): string =>
    `The ${missing} kept no attribution repeat with a CPU profile: this is the ${shown} flame graph alone, not a difference.`;
  if (!flame.a) return alone('baseline (A)', "candidate's (B)");
  if (!flame.b) return alone('candidate (B)', "baseline's (A)");
  return '';
}

/** The comparison's differential flame graph, or what is missing for one. */
export function flameSection(flame: ComparisonFlame): string {
  const repeatOf = (who: 'A' | 'B', side: ComparisonFlame['a']): string => (side ? `${who} repeat ${num(side.repeat)}` : `${who}: none`);
  const repeats = `${repeatOf('A', flame.a)}, ${repeatOf('B', flame.b)}`;
  const head = `<h2>Differential flame graph <span class="muted">(median attribution repeats: ${repeats})</span></h2>`;
  const note = sideNote(flame);
  const drawing = flameSvg(flame);
  if (!drawing) return `${head}<p class="missing">${e(note || "The median repeats' profiles hold no page function time to draw.")}</p>`;
  const intro = note ? `<p class="missing">${e(note)}</p>` : FLAME_LEGEND;
  return `${head}${intro}<div class="card flame-card">${drawing.svg}</div>${flameNotes(drawing)}`;
}
