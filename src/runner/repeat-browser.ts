/** The seam between a repeat (runner/run.ts) and the browser it runs in: CDP or WebDriver. */
import type { RepeatMode } from '../perf/run-file.js';
import type { RestartMode } from '../drivers/define.js';
import type { StorageState } from '../drivers/storage.js';

export interface RepeatContext {
  index: number;
  mode: RepeatMode;
  warmup: boolean;
  restart: RestartMode;
  url: string;
  outDir: string;
  base: string;
  first: boolean;
  signal?: AbortSignal;
  /** Where to keep this repeat's trace until the run picks the median and slowest (none for warmups). */
  traceDir?: string;
  /** No repeat is scheduled after this one (a sequential run may still add some). */
  last?: boolean;
  onStep: (phase: 'setup' | 'steps', label: string) => void;
  /** The saved browser state (setupOnce's, a state file's) to restore before the app page opens. */
  state?: StorageState;
}

/**
 * What a repeat needs of the browser beyond the page: a clean restart onto the app page, the wait for
 * the browser's own background work before a measured window, what may start once it ended, and a
 * screenshot when the repeat fails. CDP (a BrowserSession) and WebDriver (a session per repeat) differ
 * here only.
 */
export interface RepeatBrowser {
  /**
   * perf launched the browser or program (and any WebDriver server) under its own process: CPU used
   * outside perf's process tree during a window is then another job's (runner/host-speed.ts).
   */
  readonly ownsProcesses: boolean;
  /**
   * Start clean on `rc.url` with the scenario's emulation; calls `mark('restart')` when the restart alone is timed. Throws to fail the
   * repeat.
   */
  open(rc: RepeatContext, mark: (phase: 'restart') => void): Promise<void>;
  settle(): Promise<void>;
  /** The measured window ended (a spare browser may start). */
  windowEnded(rc: RepeatContext): void;
  screenshot(): Promise<Buffer | undefined>;
}
