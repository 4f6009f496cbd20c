/**
 * Leak finding over three V8 heap snapshots (issue 30, items 2 and 3): objects allocated after the baseline
 * and alive after the last iteration, grouped by constructor and retainer-path shape, whose count grows
 * from the first iteration's snapshot to the last one's.
 *
 * "Allocated after the baseline" is "node id greater than every id in the baseline": V8 gives ids in
 * allocation order and keeps an object's id across snapshots (HeapObjectsMap), the same test memlab's
 * "leak filter" and DevTools' "Objects allocated between snapshots" make. The snapshots are read one after
 * the other (baseline: ids only), so peak memory is one parsed snapshot and its analysis.
 */
import { PerfError } from '../../errors.js';
import { dominators, NONE, retainedSizes, type Dominators } from './dominators.js';
import { readSnapshot, readSnapshotIds, snapshotBytes, type HeapSnapshot } from './parse.js';
import {
  edgeLabel,
  edgeOwner,
  nodeLabel,
  readableEdge,
  readableNode,
  retainerPath,
  shapeOf,
  shortestPaths,
  typeIndex,
  type ShortestPaths,
} from './paths.js';

export interface LeakGroup {
  /** Constructor or node name, e.g. 'DetailsPanel', 'Detached HTMLDivElement', '(closure)' with its function name. */
  constructor: string;
  /** Growth of the group's alive count per iteration, between the snapshot after the first and after the last iteration. */
  countPerIteration: number;
  /** Members alive in the last snapshot that were allocated after the baseline snapshot. */
  count: number;
  /** Retained size of the group's members (dominator tree), not double counting members that dominate each other. */
  retainedBytes: number;
  /** Shortest retainer path from a GC root to a representative member, root first, e.g.
   * ['Window', 'listeners', 'resize', '(closure) onResize', 'DetailsPanel', 'div']. Weak edges are not followed. */
  retainerPath: string[];
  /** Present when the members are detached DOM: the detached subtree's node count and retained size. */
  detached?: { nodes: number; retainedBytes: number };
}
export interface SnapshotStats {
  file: string;
  bytes: number;
  nodes: number;
  edges: number;
  parseMs: number;
}
export interface LeakAnalysis {
  iterations: number;
  groups: LeakGroup[];
  snapshots: SnapshotStats[];
  peakRssBytes: number;
}

// A report is read by a person or an agent (MCP answers are bounded to 6 KB): the 50 largest groups say it.
const MAX_GROUPS = 50;
// Twelve steps show the window, the listener or cache that holds the object, and the object's owners.
const MAX_PATH_STEPS = 12;
// The group key's separator: a byte no V8 name holds.
const SEP = '\u0001';

/** The objects a page's code made: its objects and closures, regexps, and DOM nodes; not V8's and Blink's internals. */
function candidateFilter(s: HeapSnapshot): (v: number) => boolean {
  const object = typeIndex(s.nodeTypes, 'object');
  const closure = typeIndex(s.nodeTypes, 'closure');
  const regexp = typeIndex(s.nodeTypes, 'regexp');
  const native = typeIndex(s.nodeTypes, 'native');
  return (v) => {
    const t = s.nodeType[v]!;
    const name = s.strings[s.nodeName[v]!] ?? '';
    if (t === native) {
      // DOM nodes carry an attached/detached state; other native nodes are Blink's plumbing (listener vectors…).
      if (s.detachedness) return s.detachedness[v] === 1 || s.detachedness[v] === 2;
      return name.startsWith('Detached ');
    }
    return (t === object || t === closure || t === regexp) && !name.startsWith('system / ');
  };
}

/** A group's name: the node's label, with a DOM node's attributes other than its class left out (ids differ per row). */
export function groupName(s: HeapSnapshot, v: number): string {
  const label = nodeLabel(s, v);
  const dom = /^(Detached )?<([\w-]+)([^>]*)>$/.exec(label);
  if (!dom) return label;
  const cls = /\bclass="[^"]*"/.exec(dom[3]!);
  return `${dom[1] ?? ''}<${dom[2]}${cls ? ` ${cls[0]}` : ''}>`;
}

/** 32-bit FNV-1a of `text`, continued from `seed` (Fowler, Noll, Vo; http://www.isthe.com/chongo/tech/comp/fnv/). */
function fnv1a(seed: number, text: string): number {
  let h = seed;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}
// FNV's offset basis, and a second basis for an independent second hash: 64 bits make a collision between
// two shapes of one snapshot (millions at most) a one-in-millions event.
const FNV_BASIS = 2166136261;
const FNV_BASIS_2 = 0x9747b28c;

/**
 * Path shapes, interned: a node's shape is its parent's plus the hop (edge label without element indices,
 * node label). A hop equal to the parent's last hop is not added, so a linked list's or a nested array's
 * members share one shape instead of one each. A shape's name is a 64-bit hash of its hops, the same in
 * every snapshot (its id is only this snapshot's).
 */
class Shapes {
  private readonly ofNode: Int32Array;
  private readonly ids = new Map<string, number>();
  private readonly lastHop: string[] = [''];
  /** Per shape id: its name (two 32-bit hashes in hex). */
  readonly names: string[] = ['root'];
  private readonly hashA: number[] = [FNV_BASIS];
  private readonly hashB: number[] = [FNV_BASIS_2];

  constructor(
    private readonly s: HeapSnapshot,
    private readonly p: ShortestPaths,
  ) {
    this.ofNode = new Int32Array(s.nodeCount).fill(-1);
    this.ofNode[0] = 0;
  }

  of(v: number): number {
    const pending: number[] = [];
    let w = v;
    while (this.ofNode[w]! < 0 && this.p.parentEdge[w] !== NONE) {
      pending.push(w);
      w = edgeOwner(this.s, this.p.parentEdge[w]!);
    }
    pending.push(w);
    let shape = this.ofNode[w]!;
    for (let k = pending.length - 2; k >= 0; k--) {
      const x = pending[k]!;
      const hop = this.hop(pending[k + 1]!, this.p.parentEdge[x]!, x);
      if (hop !== SEP && this.lastHop[shape] !== hop) shape = this.intern(shape, hop);
      this.ofNode[x] = shape;
    }
    return shape;
  }

  /** What a hop adds: only the readable steps (Blink's vectors are inline for one listener, a backing store for more). */
  private hop(owner: number, e: number, x: number): string {
    const edge = owner !== 0 && readableEdge(this.s, e, owner) ? shapeOf(edgeLabel(this.s, e)) : '';
    return `${edge}${SEP}${readableNode(this.s, x) ? groupName(this.s, x) : ''}`;
  }

  private intern(parent: number, hop: string): number {
    const key = `${parent}${SEP}${hop}`;
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.lastHop.length;
      this.ids.set(key, id);
      this.lastHop.push(hop);
      const a = fnv1a(this.hashA[parent]!, hop);
      const b = fnv1a(this.hashB[parent]!, hop);
      this.hashA.push(a);
      this.hashB.push(b);
      this.names.push(`${a.toString(16)}:${b.toString(16)}`);
    }
    return id;
  }
}

interface Group {
  name: string;
  count: number;
  representative: number;
  retainedBytes: number;
  detachedNodes: number;
  detachedBytes: number;
}

interface Survey {
  s: HeapSnapshot;
  paths: ShortestPaths;
  /** Group keys in order of first member; `groupOf[v]` indexes them (-1: not a member). */
  keys: string[];
  groups: Group[];
  groupOf: Int32Array;
}

/** Every new, reachable object of the snapshot, grouped by name and path shape. */
function survey(s: HeapSnapshot, newerThan: number): Survey {
  const paths = shortestPaths(s);
  const shapes = new Shapes(s, paths);
  const isCandidate = candidateFilter(s);
  const index = new Map<string, number>();
  const keys: string[] = [];
  const groups: Group[] = [];
  const groupOf = new Int32Array(s.nodeCount).fill(-1);
  for (let v = 0; v < s.nodeCount; v++) {
    if (s.nodeId[v]! <= newerThan || paths.distance[v] === NONE || !isCandidate(v)) continue;
    const name = groupName(s, v);
    const key = `${name}${SEP}${shapes.names[shapes.of(v)]!}`;
    let g = index.get(key);
    if (g === undefined) {
      g = groups.length;
      index.set(key, g);
      keys.push(key);
      groups.push({ name, count: 0, representative: v, retainedBytes: 0, detachedNodes: 0, detachedBytes: 0 });
    }
    const group = groups[g]!;
    group.count++;
    if (paths.distance[v]! < paths.distance[group.representative]!) group.representative = v;
    groupOf[v] = g;
  }
  return { s, paths, keys, groups, groupOf };
}

function isDetached(s: HeapSnapshot, v: number): boolean {
  if (s.detachedness) return s.detachedness[v] === 2;
  return (s.strings[s.nodeName[v]!] ?? '').startsWith('Detached ');
}

/**
 * Each group's retained size and detached DOM, in one depth-first walk of the dominator tree: a member
 * counts only when no member of its own group dominates it (its size is already in that member's), and a
 * detached node counts for every group with a member above it (a panel's detached div is the panel's).
 */
function measureGroups(sv: Survey, d: Dominators, retained: Float64Array): void {
  const { s, groups, groupOf } = sv;
  const n = s.nodeCount;
  // Dominator tree children, as arrays.
  const start = new Uint32Array(n + 1);
  for (const v of d.postOrder) if (v !== 0) start[d.idom[v]! + 1]!++;
  for (let i = 0; i < n; i++) start[i + 1]! += start[i]!;
  // Filled from the end of each node's range down (no second offsets array): start[p + 1] walks back to
  // where p's range begins, so the offsets end up one place to the right, and are shifted back.
  const total = start[n]!;
  const children = new Uint32Array(total);
  for (const v of d.postOrder) if (v !== 0) children[--start[d.idom[v]! + 1]!] = v;
  for (let i = 0; i < n; i++) start[i] = start[i + 1]!;
  start[n] = total;
  const active = new Uint32Array(groups.length);
  const open: number[] = [];
  const stack = new Uint32Array(d.postOrder.length);
  const cursor = new Uint32Array(d.postOrder.length);
  let top = 0;
  stack[0] = 0;
  cursor[0] = start[0]!;
  while (top >= 0) {
    const v = stack[top]!;
    if (cursor[top] === start[v]) enter(v);
    if (cursor[top]! < start[v + 1]!) {
      const w = children[cursor[top]!++]!;
      stack[++top] = w;
      cursor[top] = start[w]!;
      continue;
    }
    const g = groupOf[v]!;
    if (g >= 0 && --active[g]! === 0) open.pop();
    top--;
  }
  function enter(v: number): void {
    const g = groupOf[v]!;
    const opens = g >= 0 && active[g]!++ === 0;
    if (opens) {
      groups[g]!.retainedBytes += retained[v]!;
      open.push(g);
    }
    if (open.length === 0 || !isDetached(s, v)) return;
    // A detached subtree's size is its top node's retained size, for each group holding it: a member that is
    // itself a detached node is the top of what its group holds.
    const topmost = !isDetached(s, d.idom[v]!);
    for (const o of open) {
      groups[o]!.detachedNodes++;
      if (topmost || (opens && o === g)) groups[o]!.detachedBytes += retained[v]!;
    }
  }
}

function check(iterations: number): void {
  if (!Number.isInteger(iterations) || iterations < 1) {
    throw new PerfError({
      code: 'invalid_arguments',
      message: `leak analysis: iterations must be a whole number ≥ 1, not ${iterations}`,
      suggestion: 'pass the number of iterations the steps ran between the first and the last snapshot',
    });
  }
}

async function timedRead(file: string): Promise<{ s: HeapSnapshot; stats: SnapshotStats }> {
  const t0 = performance.now();
  const s = await readSnapshot(file);
  const parseMs = Math.round(performance.now() - t0);
  return { s, stats: { file, bytes: snapshotBytes(file), nodes: s.nodeCount, edges: s.edgeCount, parseMs } };
}

/** baseline: before the first iteration; first/last: after the first and the last iteration (V8 .heapsnapshot files). */
export async function analyzeLeaks(files: { baseline: string; first: string; last: string }, iterations: number): Promise<LeakAnalysis> {
  check(iterations);
  const t0 = performance.now();
  const base = await readSnapshotIds(files.baseline);
  const baseStats: SnapshotStats = {
    file: files.baseline,
    bytes: snapshotBytes(files.baseline),
    nodes: base.nodeCount,
    edges: 0,
    parseMs: Math.round(performance.now() - t0),
  };
  const first = await countFirst(files.first, base.maxNodeId);
  const last = await timedRead(files.last);
  const sv = survey(last.s, base.maxNodeId);
  const growing = sv.groups
    .map((g, i) => ({ g, perIteration: perIteration(g.count, first.counts.get(sv.keys[i]!) ?? 0, iterations) }))
    .filter((x) => x.perIteration > 0);
  if (growing.length > 0) {
    const d = dominators(
      {
        nodeCount: last.s.nodeCount,
        firstEdge: last.s.firstEdge,
        edgeTo: last.s.edgeTo,
        edgeType: last.s.edgeType,
        excludedType: typeIndex(last.s.edgeTypes, 'weak'),
      },
      0,
    );
    measureGroups(sv, d, retainedSizes(d, last.s.selfSize));
  }
  const groups = growing
    .sort((a, b) => b.g.retainedBytes - a.g.retainedBytes || b.perIteration - a.perIteration)
    .slice(0, MAX_GROUPS)
    .map(({ g, perIteration: countPerIteration }) => toLeakGroup(sv, g, countPerIteration));
  return {
    iterations,
    groups,
    snapshots: [baseStats, first.stats, last.stats],
    peakRssBytes: process.resourceUsage().maxRSS * 1024,
  };
}

/** Each group's count in the first snapshot; its arrays are garbage once this returns, before the last one is read. */
async function countFirst(file: string, newerThan: number): Promise<{ counts: Map<string, number>; stats: SnapshotStats }> {
  const { s, stats } = await timedRead(file);
  const sv = survey(s, newerThan);
  return { counts: new Map(sv.keys.map((key, g) => [key, sv.groups[g]!.count])), stats };
}

/** Growth per iteration between the first and the last snapshot; with one iteration, what it left. */
function perIteration(countLast: number, countFirst: number, iterations: number): number {
  const growth = iterations > 1 ? (countLast - countFirst) / (iterations - 1) : countLast;
  // Two decimals: a count per iteration is read, not computed with.
  return Math.round(growth * 100) / 100;
}

function toLeakGroup(sv: Survey, g: Group, countPerIteration: number): LeakGroup {
  return {
    constructor: g.name,
    countPerIteration,
    count: g.count,
    retainedBytes: g.retainedBytes,
    retainerPath: retainerPath(sv.s, sv.paths, g.representative, MAX_PATH_STEPS),
    ...(g.detachedNodes > 0 ? { detached: { nodes: g.detachedNodes, retainedBytes: g.detachedBytes } } : {}),
  };
}
