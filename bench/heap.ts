/**
 * Heap snapshots at scale (issue 30 item 3): a real Chromium page allocates millions of small objects over
 * ten iterations (they stay alive: a leak), heap snapshots are taken over CDP before, after the first and
 * after the last iteration, and `analyzeLeaks` reads the three in a child process whose peak RSS (VmHWM)
 * and wall time are the figures. Target: peak RSS ≤ 2× the last snapshot's size, ≤ 30 s on 2 cores.
 *
 *   npm run bench:heap [-- --objects-per-iteration 80000] [--keep DIR]
 */
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Browser, type Page } from '../src/drivers/cdp/browser.js';
import { launchChrome } from '../src/drivers/cdp/chrome.js';
import { analyzeLeaks } from '../src/perf/heap/leaks.js';

const ITERATIONS = 10;
// About 250 bytes of snapshot per item (the item, its pair array and their edges; measured): 10 iterations of this
// give ~200 MB (200,000 gave 500 MB).
const DEFAULT_OBJECTS_PER_ITERATION = 80_000;
// V8 serializes a large heap for tens of seconds before its first chunk.
const SNAPSHOT_TIMEOUT_MS = 600_000;

/** Allocates `n` linked items per call into window.items: each has a number, a shared string, a link and a small array. */
const PAGE_SCRIPT = `
class Item { constructor(i, prev) { this.i = i; this.tag = 'item'; this.prev = prev; this.pair = [i, i + 1]; } }
window.items = [];
window.grow = (n) => {
  let prev = null;
  for (let i = 0; i < n; i++) { prev = new Item(i, prev); window.items.push(prev); }
  return window.items.length;
};
`;

async function takeSnapshot(page: Page, file: string): Promise<void> {
  const out = createWriteStream(file);
  await page.send('HeapProfiler.enable');
  await page.send('HeapProfiler.collectGarbage');
  const off = page.on('HeapProfiler.addHeapSnapshotChunk', (p) => out.write(p.chunk));
  try {
    await page.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false }, SNAPSHOT_TIMEOUT_MS);
  } finally {
    off();
    out.end();
  }
  await once(out, 'finish');
}

async function makeSnapshots(dir: string, perIteration: number): Promise<{ baseline: string; first: string; last: string }> {
  mkdirSync(dir, { recursive: true });
  const chrome = await launchChrome({});
  try {
    const browser = await Browser.launched(chrome);
    const page = await browser.newPage({ isolated: true });
    await page.evaluate(PAGE_SCRIPT);
    const files = {
      baseline: join(dir, 'baseline.heapsnapshot'),
      first: join(dir, 'first.heapsnapshot'),
      last: join(dir, 'last.heapsnapshot'),
    };
    await takeSnapshot(page, files.baseline);
    await page.evaluate(`grow(${perIteration})`);
    await takeSnapshot(page, files.first);
    for (let i = 1; i < ITERATIONS; i++) await page.evaluate(`grow(${perIteration})`);
    const t0 = performance.now();
    await takeSnapshot(page, files.last);
    console.log(`snapshot of the last iteration taken over CDP in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    return files;
  } finally {
    await chrome.close();
  }
}

/** The child: analyse and print wall time and peak RSS (VmHWM, what the kernel saw at most) as JSON. */
async function child(files: { baseline: string; first: string; last: string }): Promise<void> {
  const t0 = performance.now();
  const r = await analyzeLeaks(files, ITERATIONS);
  const wallMs = performance.now() - t0;
  const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  const peakRssBytes = hwm ? Number(hwm[1]) * 1024 : r.peakRssBytes;
  const top = r.groups.slice(0, 3).map((g) => ({
    constructor: g.constructor,
    countPerIteration: g.countPerIteration,
    retainedBytes: g.retainedBytes,
    path: g.retainerPath.join(' > '),
  }));
  console.log(JSON.stringify({ wallMs, peakRssBytes, snapshots: r.snapshots, top }));
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args[0] === '--child') return child({ baseline: args[1]!, first: args[2]!, last: args[3]! });
  const at = args.indexOf('--objects-per-iteration');
  const perIteration = at >= 0 ? Number(args[at + 1]) : DEFAULT_OBJECTS_PER_ITERATION;
  // --keep DIR: the snapshots are written to DIR and left there, and an earlier run's are reused.
  const keep = args.indexOf('--keep') >= 0 ? args[args.indexOf('--keep') + 1] : undefined;
  const dir = keep ?? mkdtempSync(join(tmpdir(), 'rehearse-bench-heap-'));
  try {
    const kept = {
      baseline: join(dir, 'baseline.heapsnapshot'),
      first: join(dir, 'first.heapsnapshot'),
      last: join(dir, 'last.heapsnapshot'),
    };
    const files = keep && existsSync(kept.last) ? kept : await makeSnapshots(dir, perIteration);
    const lastBytes = statSync(files.last).size;
    const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--child', files.baseline, files.first, files.last], {
      encoding: 'utf8',
      maxBuffer: 1 << 20,
    });
    const r = JSON.parse(out.trim().split('\n').pop()!) as {
      wallMs: number;
      peakRssBytes: number;
      snapshots: { nodes: number; edges: number; parseMs: number }[];
      top: unknown[];
    };
    const mb = (b: number): string => (b / 2 ** 20).toFixed(0);
    const last = r.snapshots[2]!;
    const ratio = r.peakRssBytes / lastBytes;
    const met = (ok: boolean): string => (ok ? 'met' : 'NOT met');
    console.log(`last snapshot: ${mb(lastBytes)} MB, ${last.nodes.toLocaleString('en')} nodes, ${last.edges.toLocaleString('en')} edges`);
    console.log(`last snapshot parsed in ${(last.parseMs / 1000).toFixed(1)} s`);
    const wallS = (r.wallMs / 1000).toFixed(1);
    console.log(`analyzeLeaks (3 snapshots, ${ITERATIONS} iterations): ${wallS} s wall (target <= 30 s: ${met(r.wallMs <= 30_000)})`);
    console.log(`peak RSS ${mb(r.peakRssBytes)} MB = ${ratio.toFixed(2)}x the snapshot (target <= 2x: ${met(ratio <= 2)})`);
    console.log(`peak RSS per MB of snapshot: ${ratio.toFixed(2)} MB`);
    console.log(`largest groups: ${JSON.stringify(r.top)}`);
    console.log('(one run on a shared 2-core machine: other work may have been running beside it)');
  } finally {
    if (!keep) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
