/**
 * The page's V8 heap over CDP, for `perf leaks`: a full garbage collection (HeapProfiler.collectGarbage)
 * and a heap snapshot (HeapProfiler.takeHeapSnapshot) whose HeapProfiler.addHeapSnapshotChunk events are
 * appended to a file as they arrive. A snapshot of a real app is 50–500 MB: it is never held in memory,
 * only the chunk in hand is. Chrome sends every chunk before it answers takeHeapSnapshot.
 */
import { PerfError } from '../../errors.js';
import { createFileAtomic, SECRET_FILE_MODE } from '../../files.js';
import type { Page } from './browser.js';

// 60 s for a collection: a full GC of a 500 MB heap takes a few seconds; one still running after a
// minute is a hung renderer, not a big heap.
const GC_TIMEOUT_MS = 60_000;
// 5 minutes for a snapshot: Chrome writes roughly 20–50 MB/s of snapshot on a loaded 2-core machine, so a
// 500 MB heap's snapshot fits with room to spare; past that the page (or the machine) is stuck.
export const HEAP_SNAPSHOT_TIMEOUT_MS = 300_000;

/**
 * Force a full, compacting garbage collection in the page (what DevTools' "Collect garbage" does). It needs
 * no HeapProfiler.enable (Chromium 156): one round trip, at both ends of every measured window too.
 */
export async function collectGarbage(page: Page, timeoutMs = GC_TIMEOUT_MS): Promise<void> {
  await page.send('HeapProfiler.collectGarbage', undefined, timeoutMs);
}

/**
 * Write a heap snapshot of the page to `file`: a secret (it holds whatever the page holds, tokens included),
 * so mode 0600, streamed into a temporary file renamed over `file` once complete (a symlink planted at `file`
 * is replaced, never written through). Resolves with its size once Chrome has answered; on the deadline the
 * error says how much had arrived and how long ago the last chunk came.
 */
export async function takeHeapSnapshot(page: Page, file: string, timeoutMs = HEAP_SNAPSHOT_TIMEOUT_MS): Promise<{ bytes: number }> {
  await page.send('HeapProfiler.enable', undefined, timeoutMs);
  const sink = createFileAtomic(file, { who: 'heap snapshot', mode: SECRET_FILE_MODE });
  let chunks = 0;
  const t0 = Date.now();
  let lastChunkAt = t0;
  let writeError: unknown;
  const off = page.on('HeapProfiler.addHeapSnapshotChunk', ({ chunk }) => {
    if (writeError) return;
    try {
      // Synchronous: the chunk is written before the next event is read, so memory holds one chunk at a time.
      sink.write(chunk);
      chunks++;
      lastChunkAt = Date.now();
    } catch (e) {
      writeError = e;
    }
  });
  try {
    await page.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false, captureNumericValue: false }, timeoutMs).catch((cause) => {
      const now = Date.now();
      throw new PerfError({
        code: 'heap_snapshot_failed',
        message:
          `heap snapshot to ${file}: waited ${now - t0} ms for Chrome to finish HeapProfiler.takeHeapSnapshot; ${sink.bytes} bytes ` +
          `in ${chunks} chunks had arrived, the last ${now - lastChunkAt} ms before: ${(cause as Error).message}`,
        cause,
      });
    });
    if (writeError) {
      throw new PerfError({
        code: 'heap_snapshot_failed',
        message: `heap snapshot: could not write ${file}: ${(writeError as Error).message}`,
        suggestion: 'check the free space and permissions of --out',
        cause: writeError,
      });
    }
    sink.commit();
    return { bytes: sink.bytes };
  } finally {
    off();
    sink.abort();
  }
}
