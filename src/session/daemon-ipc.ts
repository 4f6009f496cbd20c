/**
 * How a session daemon (the browser one in daemon.ts, the terminal one in runner/terminal-daemon.ts)
 * tells `perf start` that it is ready or why it is not, over the fork's IPC channel.
 */
import { isPerfError } from '../errors.js';
import { statePath, writeJsonAtomic, type AnySessionState } from './state.js';

export type DaemonMessage =
  | { kind: 'ready'; state: AnySessionState }
  | { kind: 'error'; error: { code: string; kind: string; message: string; suggestion?: string } };

/** Write the state file, then say ready and let go of the parent (which exits). */
export function daemonReady(stateDir: string, state: AnySessionState): void {
  writeJsonAtomic(statePath(stateDir), state);
  process.send?.({ kind: 'ready', state } satisfies DaemonMessage);
  process.disconnect?.();
}

/** Say why the start failed, stop what was started, and exit 3 (environment). */
export async function daemonFailed(e: unknown, stop: () => Promise<void>): Promise<never> {
  const error = isPerfError(e) ? e.toJSON() : { kind: 'environment', code: 'session_start_failed', message: (e as Error).message };
  process.send?.({ kind: 'error', error } satisfies DaemonMessage);
  await stop();
  process.exit(3);
}
