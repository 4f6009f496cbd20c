/**
 * The history store as `perf bisect`'s second cache (runner/bisect.ts ComparisonStore), for the CLI and MCP alike. A store
 * that fails mid-bisect loses nothing (the cache file has every comparison): the first failure is reported through
 * `onFailure`, and the store is not used again for the rest of that bisect.
 */
import { isPerfError, type PerfError } from '../errors.js';
import type { HistoryStore } from './types.js';

export interface BisectStoreCache {
  get(key: string): Promise<string | undefined>;
  set(key: string, json: string): Promise<void>;
  /** Whether the store failed (and was left) during this bisect. */
  failed(): boolean;
}

export function bisectStoreCache(store: HistoryStore, onFailure: (e: PerfError) => void): BisectStoreCache {
  let failed = false;
  const guard = async <T>(work: () => Promise<T>, fallback: T): Promise<T> => {
    if (failed) return fallback;
    try {
      return await work();
    } catch (e) {
      if (!isPerfError(e)) throw e;
      failed = true;
      onFailure(e);
      return fallback;
    }
  };
  return {
    get: (key) => guard(() => store.bisectComparison(key), undefined),
    set: (key, json) => guard(() => store.putBisectComparison(key, json), undefined),
    failed: () => failed,
  };
}
