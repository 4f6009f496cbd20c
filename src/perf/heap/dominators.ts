/**
 * Dominator tree and retained sizes of a graph given as arrays (pure: numbers in, numbers out).
 *
 * Method: K. D. Cooper, T. J. Harvey, K. Kennedy, "A Simple, Fast Dominance Algorithm", Software Practice &
 * Experience 4 (2001): iterate over the nodes in reverse post-order, each node's dominator being the
 * intersection (walk up by post-order number) of its already-processed predecessors' dominators, until
 * nothing changes. On heap graphs it converges in two or three passes, near-linear in nodes + edges; it is
 * what Chrome DevTools' HeapSnapshot.ts `buildDominatorTree` uses. Edges of the `excludedType` (V8's weak
 * edges) are not followed, as in DevTools: a weak reference does not keep its target alive.
 * Retained size of x: the self sizes of x's dominator subtree (what a GC frees once x is unreachable).
 */

/** The graph: node i's edges are firstEdge[i] .. firstEdge[i + 1] - 1, edge j goes to edgeTo[j]. */
export interface Graph {
  nodeCount: number;
  firstEdge: Uint32Array;
  edgeTo: Uint32Array;
  /** Per edge: its type; edges whose type is `excludedType` are ignored. */
  edgeType: Uint8Array;
  excludedType: number;
}

export interface Dominators {
  /** Immediate dominator of each node; the root's is itself; NONE for nodes the root does not reach. */
  idom: Uint32Array;
  /** Reachable nodes in DFS post-order (the root last): a node's dominators all come after it. */
  postOrder: Uint32Array;
}

export const NONE = 0xffffffff;

// Marks a node pushed on the DFS stack but not finished yet (post-order numbers stay below it).
const SEEN = NONE - 1;

/**
 * Depth-first post-order from `root` over the followed edges (iterative: heap graphs are millions deep).
 * `po` (n, filled with NONE) receives each node's post-order number; `stack` (n) and `cursor` (n) are scratch
 * space the caller reuses afterwards: at 200 MB snapshots every n-sized array is 10 MB of peak memory.
 */
function postOrderInto(g: Graph, root: number, po: Uint32Array, stack: Uint32Array, cursor: Uint32Array): Uint32Array {
  const order = new Uint32Array(g.nodeCount);
  let count = 0;
  let top = 0;
  stack[0] = root;
  cursor[0] = g.firstEdge[root]!;
  po[root] = SEEN;
  while (top >= 0) {
    const v = stack[top]!;
    const end = g.firstEdge[v + 1]!;
    let e = cursor[top]!;
    while (e < end && (g.edgeType[e] === g.excludedType || po[g.edgeTo[e]!] !== NONE)) e++;
    if (e < end) {
      cursor[top] = e + 1;
      const w = g.edgeTo[e]!;
      po[w] = SEEN;
      top++;
      stack[top] = w;
      cursor[top] = g.firstEdge[w]!;
    } else {
      po[v] = count;
      order[count++] = v;
      top--;
    }
  }
  return order.subarray(0, count);
}

/** Depth-first post-order from `root` over the followed edges. */
export function postOrderOf(g: Graph, root: number): Uint32Array {
  const n = g.nodeCount;
  return postOrderInto(g, root, new Uint32Array(n).fill(NONE), new Uint32Array(n), new Uint32Array(n));
}

/** Predecessors over the followed edges: node i's are preds[start[i] .. start[i + 1] - 1]; `start` is n + 1 long. */
function predecessors(g: Graph, start: Uint32Array): Uint32Array {
  const n = g.nodeCount;
  start.fill(0);
  const edges = g.edgeTo.length;
  for (let e = 0; e < edges; e++) if (g.edgeType[e] !== g.excludedType) start[g.edgeTo[e]! + 1]!++;
  for (let i = 0; i < n; i++) start[i + 1]! += start[i]!;
  const preds = new Uint32Array(start[n]!);
  // Filled from the end of each range down, so no second offsets array: start[t + 1] walks back to where
  // t's range begins; the offsets are then one place to the right, and shifted back.
  for (let v = n - 1; v >= 0; v--) {
    for (let e = g.firstEdge[v + 1]! - 1; e >= g.firstEdge[v]!; e--) {
      if (g.edgeType[e] !== g.excludedType) preds[--start[g.edgeTo[e]! + 1]!] = v;
    }
  }
  for (let i = 0; i < n; i++) start[i] = start[i + 1]!;
  start[n] = preds.length;
  return preds;
}

export function dominators(g: Graph, root: number): Dominators {
  const n = g.nodeCount;
  // Post-order number of each node (NONE: unreachable); the root's is count - 1.
  const po = new Uint32Array(n).fill(NONE);
  const scratchA = new Uint32Array(n);
  const scratchB = new Uint32Array(n + 1);
  const postOrder = postOrderInto(g, root, po, scratchA, scratchB);
  const count = postOrder.length;
  const start = scratchB;
  const preds = predecessors(g, start);
  // doms in post-order numbers, as in the paper (the DFS stack's space, free again).
  const doms = scratchA.subarray(0, count).fill(NONE);
  doms[count - 1] = count - 1;
  for (let changed = true; changed;) {
    changed = false;
    for (let i = count - 2; i >= 0; i--) {
      const v = postOrder[i]!;
      let idom = NONE;
      for (let k = start[v]!, end = start[v + 1]!; k < end; k++) {
        const p = po[preds[k]!]!;
        if (p === NONE || doms[p] === NONE) continue;
        if (idom === NONE) {
          idom = p;
          continue;
        }
        // intersect(p, idom): walk the finger with the smaller post-order number up.
        let a = p;
        let b = idom;
        while (a !== b) {
          while (a < b) a = doms[a]!;
          while (b < a) b = doms[b]!;
        }
        idom = a;
      }
      if (doms[i] !== idom) {
        doms[i] = idom;
        changed = true;
      }
    }
  }
  // In place over the post-order numbers (one n-sized array less at the peak): each entry is read, then written once.
  const idom = po;
  for (let v = 0; v < n; v++) if (po[v] !== NONE) idom[v] = postOrder[doms[po[v]!]!]!;
  return { idom, postOrder };
}

/** Retained sizes: each node's self size plus its dominator subtree's (0 for unreachable nodes). */
export function retainedSizes(d: Dominators, selfSize: ArrayLike<number>): Float64Array {
  const retained = new Float64Array(d.idom.length);
  const order = d.postOrder;
  for (let i = 0; i < order.length; i++) retained[order[i]!] = selfSize[order[i]!]!;
  // A node's immediate dominator is a DFS ancestor, so it comes later in post-order: children are done first.
  for (let i = 0; i < order.length - 1; i++) {
    const v = order[i]!;
    retained[d.idom[v]!]! += retained[v]!;
  }
  return retained;
}
