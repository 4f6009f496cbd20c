/**
 * src/perf/heap: the dominator algorithm against the definition over thousands of random graphs, the
 * streaming parser on hand-made and real snapshots cut into small chunks, and leak finding on real heap
 * snapshots of a real headless Chromium (test/fixtures/leaks/leaky.html, and the same page with ?fixed).
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import type { Page } from '../src/drivers/cdp/browser.js';
import { dominators, NONE, retainedSizes, type Graph } from '../src/perf/heap/dominators.js';
import { analyzeLeaks, type LeakAnalysis } from '../src/perf/heap/leaks.js';
import { readSnapshot, readSnapshotIds } from '../src/perf/heap/parse.js';
import { fresh, sharedBrowser } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'rehearse-heap-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Park and Miller's minimal standard generator: seeded, so a failure replays. */
function rng(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 48271) % 2147483647) / 2147483647;
}

interface Edge {
  from: number;
  to: number;
  weak: boolean;
}

function graphOf(n: number, edges: Edge[]): Graph {
  const sorted = [...edges].sort((a, b) => a.from - b.from);
  const firstEdge = new Uint32Array(n + 1);
  for (const e of sorted) firstEdge[e.from + 1]!++;
  for (let i = 0; i < n; i++) firstEdge[i + 1]! += firstEdge[i]!;
  return {
    nodeCount: n,
    firstEdge,
    edgeTo: Uint32Array.from(sorted.map((e) => e.to)),
    edgeType: Uint8Array.from(sorted.map((e) => (e.weak ? 6 : 2))),
    excludedType: 6,
  };
}

/** Nodes reachable from 0 over strong edges without passing through `removed`. */
function reach(n: number, edges: Edge[], removed: number): boolean[] {
  const seen = new Array<boolean>(n).fill(false);
  if (removed === 0) return seen;
  const stack = [0];
  seen[0] = true;
  while (stack.length > 0) {
    const v = stack.pop()!;
    for (const e of edges) {
      if (e.from !== v || e.weak || e.to === removed || seen[e.to]) continue;
      seen[e.to] = true;
      stack.push(e.to);
    }
  }
  return seen;
}

/** The definition: d dominates v when every path from the root to v passes through d. idom: the strict dominator closest to v. */
function bruteIdom(n: number, edges: Edge[]): number[] {
  const reachable = reach(n, edges, -1);
  const without = Array.from({ length: n }, (_, d) => reach(n, edges, d));
  const strict = (v: number): number[] => Array.from({ length: n }, (_, d) => d).filter((d) => d !== v && !without[d]![v]);
  return Array.from({ length: n }, (_, v) => {
    if (v === 0) return 0;
    if (!reachable[v]) return NONE;
    const doms = strict(v);
    // The closest strict dominator is the one with the most strict dominators of its own.
    return doms.reduce((best, d) => (strict(d).length > strict(best).length ? d : best), doms[0]!);
  });
}

describe('dominators (Cooper, Harvey, Kennedy 2001)', { timeout: 120_000 }, () => {
  test("the paper's irreducible example and a diamond", () => {
    // CHK's Figure 4 graph (nodes renumbered from the root): 0→1, 0→2, 1→3, 2→4, 2→5, 3→4, 4→3, 4→5, 5→4.
    const fig: Edge[] = [
      [0, 1],
      [0, 2],
      [1, 3],
      [2, 4],
      [2, 5],
      [3, 4],
      [4, 3],
      [4, 5],
      [5, 4],
    ].map(([from, to]) => ({ from: from!, to: to!, weak: false }));
    assert.deepEqual([...dominators(graphOf(6, fig), 0).idom], [0, 0, 0, 0, 0, 0]);
    const diamond: Edge[] = [
      { from: 0, to: 1, weak: false },
      { from: 0, to: 2, weak: false },
      { from: 1, to: 3, weak: false },
      { from: 2, to: 3, weak: false },
      { from: 3, to: 4, weak: false },
      { from: 1, to: 5, weak: true },
    ];
    const d = dominators(graphOf(6, diamond), 0);
    assert.deepEqual([...d.idom], [0, 0, 0, 0, 3, NONE], 'a weak edge keeps nothing alive');
    assert.deepEqual([...retainedSizes(d, [1, 10, 100, 1000, 10000, 5])], [11111, 10, 100, 11000, 10000, 0]);
  });

  test('match the definition over 3,000 random graphs (retained sizes too)', () => {
    const random = rng(30);
    for (let round = 0; round < 3000; round++) {
      const n = 2 + Math.floor(random() * 14);
      const edges: Edge[] = [];
      const m = Math.floor(random() * n * 3);
      for (let k = 0; k < m; k++) {
        edges.push({ from: Math.floor(random() * n), to: Math.floor(random() * n), weak: random() < 0.15 });
      }
      const d = dominators(graphOf(n, edges), 0);
      const expected = bruteIdom(n, edges);
      assert.deepEqual([...d.idom], expected, `round ${round}: ${JSON.stringify(edges)}`);
      const self = Array.from({ length: n }, (_, i) => 1 + i * 7);
      const retained = retainedSizes(d, self);
      for (let x = 0; x < n; x++) {
        // Retained size by definition: the self sizes of the nodes x dominates (itself included).
        let want = 0;
        for (let v = 0; v < n; v++) {
          for (let w = v; w !== NONE; w = w === 0 ? NONE : expected[w]!) {
            if (w === x && expected[v] !== NONE) {
              want += self[v]!;
              break;
            }
          }
        }
        assert.equal(retained[x], want, `round ${round}, node ${x}`);
      }
    }
  });
});

/** A V8-shaped snapshot: root → Window (shortcut) → a string-named object; a weak edge; escaped and non-ASCII strings. */
const TINY = JSON.stringify({
  snapshot: {
    meta: {
      node_fields: ['type', 'name', 'id', 'self_size', 'edge_count', 'trace_node_id', 'detachedness'],
      node_types: [['hidden', 'array', 'string', 'object', 'code', 'closure', 'regexp', 'number', 'native', 'synthetic'], 'string'],
      edge_fields: ['type', 'name_or_index', 'to_node'],
      edge_types: [['context', 'element', 'property', 'internal', 'hidden', 'shortcut', 'weak'], 'string_or_number', 'node'],
    },
    node_count: 3,
    edge_count: 3,
  },
  nodes: [9, 0, 1, 0, 1, 0, 0, 3, 1, 3, 40, 2, 0, 0, 3, 2, 5, 24, 0, 0, 2],
  edges: [5, 1, 7, 2, 3, 14, 6, 4, 0],
  trace_function_infos: [],
  trace_tree: [[1, 2, [3]]],
  locations: [],
  strings: ['', 'Window / http://x/', 'Détail "panel"\n\u2603', 'panel', 'weak ref'],
});

describe('the streaming parser', { timeout: 120_000 }, () => {
  test('reads a hand-made snapshot whatever the chunk size', async () => {
    const file = join(dir, 'tiny.heapsnapshot');
    writeFileSync(file, TINY);
    for (const chunkBytes of [1, 2, 3, 7, 64, 1 << 20]) {
      const s = await readSnapshot(file, { chunkBytes });
      assert.equal(s.nodeCount, 3);
      assert.equal(s.edgeCount, 3);
      assert.deepEqual([...s.nodeId], [1, 3, 5]);
      assert.deepEqual([...s.selfSize], [0, 40, 24]);
      assert.deepEqual([...s.detachedness!], [0, 0, 2]);
      assert.deepEqual([...s.firstEdge], [0, 1, 3, 3]);
      assert.deepEqual([...s.edgeTo], [1, 2, 0]);
      assert.deepEqual(s.strings, ['', 'Window / http://x/', 'Détail "panel"\n\u2603', 'panel', 'weak ref'], `chunk ${chunkBytes}`);
      assert.deepEqual(await readSnapshotIds(file, { chunkBytes }), { nodeCount: 3, maxNodeId: 5 });
    }
  });

  test('refuses a truncated file and a file that is not a snapshot', async () => {
    const cut = join(dir, 'cut.heapsnapshot');
    writeFileSync(cut, TINY.slice(0, TINY.indexOf('"strings"') + 20));
    await assert.rejects(readSnapshot(cut), /ends early/);
    const other = join(dir, 'other.heapsnapshot');
    writeFileSync(other, '{"traceEvents":[1,2,3]}');
    await assert.rejects(readSnapshot(other), /not a V8 heap snapshot/);
  });
});

/** HeapProfiler.collectGarbage, then takeHeapSnapshot with its chunks appended to `file`. */
async function takeSnapshot(page: Page, file: string): Promise<void> {
  const out = createWriteStream(file);
  await page.send('HeapProfiler.enable');
  await page.send('HeapProfiler.collectGarbage');
  const off = page.on('HeapProfiler.addHeapSnapshotChunk', (p) => out.write(p.chunk));
  try {
    await page.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false }, 120_000);
  } finally {
    off();
    out.end();
  }
  await once(out, 'finish');
}

const ITERATIONS = 6;

/** Baseline, one open/close, then up to ITERATIONS: the three snapshots leak finding reads. */
async function leaksOf(query: string, name: string): Promise<LeakAnalysis> {
  const { fixtures } = await sharedBrowser();
  const { session } = await fresh(`${fixtures.url}/leaks/leaky.html${query}`);
  const files = {
    baseline: join(dir, `${name}-0.heapsnapshot`),
    first: join(dir, `${name}-1.heapsnapshot`),
    last: join(dir, `${name}-n.heapsnapshot`),
  };
  await takeSnapshot(session.page, files.baseline);
  await session.page.evaluate('openClose()');
  await takeSnapshot(session.page, files.first);
  for (let i = 1; i < ITERATIONS; i++) await session.page.evaluate('openClose()');
  await takeSnapshot(session.page, files.last);
  // A full snapshot from the same files with tiny reads: same arrays as with 4 MB reads.
  const [a, b] = [await readSnapshot(files.first), await readSnapshot(files.first, { chunkBytes: 997 })];
  assert.deepEqual([a.nodeCount, a.edgeCount, a.strings.length], [b.nodeCount, b.edgeCount, b.strings.length]);
  assert.ok(
    Buffer.compare(
      Buffer.from(a.edgeTo.buffer, a.edgeTo.byteOffset, a.edgeTo.byteLength),
      Buffer.from(b.edgeTo.buffer, b.edgeTo.byteOffset, b.edgeTo.byteLength),
    ) === 0,
  );
  assert.deepEqual(a.strings, b.strings);
  return analyzeLeaks(files, ITERATIONS);
}

describe('leak finding on real Chromium heap snapshots', { timeout: 300_000 }, () => {
  test('the leaky page: DetailsPanel, its detached div subtree, held by the resize listener closure', async () => {
    const r = await leaksOf('', 'leaky');
    const panel = r.groups.find((g) => g.constructor === 'DetailsPanel');
    assert.ok(panel, `no DetailsPanel group in ${JSON.stringify(r.groups.map((g) => g.constructor))}`);
    assert.equal(panel.countPerIteration, 1);
    assert.equal(panel.count, ITERATIONS);
    assert.ok(panel.retainerPath.includes('(closure) onResize'), panel.retainerPath.join(' → '));
    assert.ok(
      panel.retainerPath.some((s) => /EventListener/.test(s)),
      panel.retainerPath.join(' → '),
    );
    assert.equal(panel.retainerPath[0], 'Window');
    assert.ok(panel.retainerPath.length <= 12);
    // 40 rows and the panel's own div per iteration.
    assert.ok(panel.detached && panel.detached.nodes >= 41 * ITERATIONS, JSON.stringify(panel.detached));
    assert.ok(panel.detached.retainedBytes > 0 && panel.retainedBytes >= panel.detached.retainedBytes);
    const div = r.groups.find((g) => g.constructor.startsWith('Detached <div class="details"'));
    assert.ok(div?.detached && div.countPerIteration === 1, JSON.stringify(div));
    assert.ok(r.groups.length <= 50);
    assert.ok(r.groups.every((g, i) => g.countPerIteration > 0 && (i === 0 || r.groups[i - 1]!.retainedBytes >= g.retainedBytes)));
    assert.equal(r.snapshots.length, 3);
    assert.ok(r.snapshots.every((s) => s.bytes > 0 && s.nodes > 0));
    assert.ok(r.peakRssBytes > 0);
  });

  test('the same page with the listener removed: no DetailsPanel group', async () => {
    const r = await leaksOf('?fixed', 'fixed');
    assert.deepEqual(
      r.groups.filter((g) => /DetailsPanel|onResize|details/.test(g.constructor)),
      [],
    );
    assert.ok(
      r.groups.every((g) => g.countPerIteration < 1),
      JSON.stringify(r.groups),
    );
  });
});
