/**
 * Shortest retainer paths from the GC roots, and readable names for nodes and edges.
 *
 * Breadth-first from the snapshot's root (node 0) over non-weak edges, which is Chrome DevTools' "distance"
 * (HeapSnapshot.ts `calculateDistances`). Like DevTools, the root's user roots (its non-synthetic children:
 * the Window globals) are visited before its synthetic ones ((GC roots), (Internalized strings)…), so when
 * a page object is as close through the window as through V8's internals, its path goes through the window.
 */
import type { HeapSnapshot } from './parse.js';
import { NONE } from './dominators.js';

export interface ShortestPaths {
  /** Edges from the root (NONE: unreachable over non-weak edges). */
  distance: Uint32Array;
  /** The edge by which BFS first reached the node (NONE for the root and unreachable nodes). */
  parentEdge: Uint32Array;
}

// Longer labels (a minified function's source name, a URL) are cut: a path is for reading.
const MAX_LABEL_CHARS = 80;

export function typeIndex(types: string[], name: string): number {
  const i = types.indexOf(name);
  // 255 matches no Uint8 type written by V8 (its type lists are short): a missing type excludes nothing.
  return i < 0 ? 255 : i;
}

export function shortestPaths(s: HeapSnapshot): ShortestPaths {
  const n = s.nodeCount;
  const distance = new Uint32Array(n).fill(NONE);
  const parentEdge = new Uint32Array(n).fill(NONE);
  const queue = new Uint32Array(n);
  const weak = typeIndex(s.edgeTypes, 'weak');
  const synthetic = typeIndex(s.nodeTypes, 'synthetic');
  let tail = 0;
  distance[0] = 0;
  // The root's children: user roots first, then the synthetic ones.
  for (const wantSynthetic of [false, true]) {
    for (let e = s.firstEdge[0]!; e < s.firstEdge[1]!; e++) {
      const w = s.edgeTo[e]!;
      if (s.edgeType[e] === weak || distance[w] !== NONE || (s.nodeType[w] === synthetic) !== wantSynthetic) continue;
      distance[w] = 1;
      parentEdge[w] = e;
      queue[tail++] = w;
    }
  }
  for (let head = 0; head < tail; head++) {
    const v = queue[head]!;
    const d = distance[v]! + 1;
    const end = s.firstEdge[v + 1]!;
    for (let e = s.firstEdge[v]!; e < end; e++) {
      const w = s.edgeTo[e]!;
      if (distance[w] !== NONE || s.edgeType[e] === weak) continue;
      distance[w] = d;
      parentEdge[w] = e;
      queue[tail++] = w;
    }
  }
  return { distance, parentEdge };
}

/** The node an edge leaves from (binary search in firstEdge: paths are few, a per-edge array would cost 4 bytes an edge). */
export function edgeOwner(s: HeapSnapshot, e: number): number {
  let lo = 0;
  let hi = s.nodeCount - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (s.firstEdge[mid]! <= e) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

function cut(text: string): string {
  return text.length > MAX_LABEL_CHARS ? `${text.slice(0, MAX_LABEL_CHARS - 1)}…` : text;
}

/**
 * A node's name as a reader knows it: '(closure) onResize' for a function, 'Window' for a page's global
 * (V8 names it 'Window / http://…'), '(string)' for strings, else V8's name (the constructor for objects,
 * the DOM class for native nodes, 'Detached HTMLDivElement' for detached DOM).
 */
export function nodeLabel(s: HeapSnapshot, v: number): string {
  const type = s.nodeTypes[s.nodeType[v]!] ?? 'unknown';
  const name = s.strings[s.nodeName[v]!] ?? '';
  switch (type) {
    case 'closure':
      return cut(`(closure) ${name || 'anonymous'}`);
    case 'string':
    case 'concatenated string':
    case 'sliced string':
      return '(string)';
    case 'number':
    case 'heap number':
      return '(number)';
    default: {
      // A page's global: 'Window / http://…', 'Window [JSGlobalObject] / ://' (about:blank).
      if (/^Window( \[[^\]]*\])? \/ /.test(name)) return 'Window';
      const global = / \/ (https?|file|about|data|chrome):/.exec(name);
      if (global) return cut(name.slice(0, global.index));
      // V8 names DOM nodes '<div class="x">' and marks the detached ones in the detachedness field.
      if (s.detachedness?.[v] === 2 && !name.startsWith('Detached ')) return cut(`Detached ${name}`);
      return cut(name || `(${type})`);
    }
  }
}

/** An edge's name: the property or variable name, '[i]' for elements and hidden edges. */
export function edgeLabel(s: HeapSnapshot, e: number): string {
  const type = s.edgeTypes[s.edgeType[e]!] ?? 'unknown';
  const name = s.edgeName[e]!;
  if (type === 'element' || type === 'hidden') return `[${name}]`;
  return cut(String(s.strings[name] ?? name));
}

/** The path's shape: element indices are left out, so the members of one array share a shape. */
export function shapeOf(edgeLabelText: string): string {
  return /^\[\d+\]$/.test(edgeLabelText) ? '[]' : edgeLabelText;
}

/** The edges from the root to v, root first (empty for the root and unreachable nodes). */
export function pathEdges(s: HeapSnapshot, p: ShortestPaths, v: number): number[] {
  const edges: number[] = [];
  for (let e = p.parentEdge[v]!; e !== NONE; e = p.parentEdge[edgeOwner(s, e)]!) edges.push(e);
  return edges.reverse();
}

// Engine plumbing between the window and the page's objects (Blink's listener vectors, V8's contexts and
// maps): true, but not what a reader acts on. The path keeps the objects a page's code made or can name.
const PLUMBING = /^(system \/ |blink::|cppgc::|v8::|WTF::|\(.*\)$)/;
const PLUMBING_TYPES = new Set(['hidden', 'array', 'code', 'synthetic', 'object shape', 'string', 'number']);

export function readableNode(s: HeapSnapshot, v: number): boolean {
  const type = s.nodeTypes[s.nodeType[v]!] ?? '';
  if (type === 'closure') return true;
  return !PLUMBING_TYPES.has(type) && !PLUMBING.test(s.strings[s.nodeName[v]!] ?? '');
}

export function readableEdge(s: HeapSnapshot, e: number, owner: number): boolean {
  switch (s.edgeTypes[s.edgeType[e]!]) {
    case 'property':
    case 'context':
    case 'shortcut':
      return true;
    case 'element':
      // An index into a page's own array says which entry; into an engine vector it says nothing.
      return s.nodeTypes[s.nodeType[owner]!] === 'object';
    default:
      return false;
  }
}

/**
 * The retainer path of v as a reader wants it, root first: from the page's 'Window' (when the path passes
 * one; V8's handles before it are plumbing) through the names a page's code knows (properties, closure
 * variables, '(closure) onResize', constructors, DOM nodes), v's own name last. Over `maxSteps`, the first
 * two steps and the last ones are kept, joined by '…' (what holds the object at both ends).
 */
export function retainerPath(s: HeapSnapshot, p: ShortestPaths, v: number, maxSteps: number): string[] {
  const edges = pathEdges(s, p, v);
  const steps: string[] = [];
  let owner = 0;
  let windowAt = -1;
  for (const [k, e] of edges.entries()) {
    const w = s.edgeTo[e]!;
    if (owner !== 0 && readableEdge(s, e, owner)) steps.push(edgeLabel(s, e));
    if (k === edges.length - 1 || readableNode(s, w)) {
      const label = nodeLabel(s, w);
      if (windowAt < 0 && label === 'Window') windowAt = steps.length;
      steps.push(label);
    }
    owner = w;
  }
  const kept = windowAt > 0 ? steps.slice(windowAt) : steps;
  if (kept.length <= maxSteps) return kept;
  return [...kept.slice(0, 2), '…', ...kept.slice(kept.length - (maxSteps - 3))];
}
