/**
 * `.perf/state.json`: what `perf start` left running (pids, ports, endpoint, app URL), written
 * atomically (temp file + rename) so a reader never sees half a file.
 */
import type { AppSpec } from './app.js';
import { readFileSync, rmSync } from 'node:fs';
import { writeFileAtomic } from '../files.js';
import { join, resolve } from 'node:path';
import { PerfError } from '../errors.js';

export interface SessionStartOptions {
  serve?: string;
  url?: string;
  command?: string;
  path?: string;
  headless?: boolean;
  spa?: boolean;
  cwd?: string;
  /** `--allow-outside`: serve may name a folder outside the working folder. */
  allowOutside?: boolean;
}

export interface SessionState {
  version: 1;
  startedAt: string;
  appUrl: string;
  pageUrl: string;
  path: string;
  chrome: { pid: number; wsEndpoint: string; port: number; headless: boolean; version: string; executablePath: string };
  app: { kind: AppSpec['kind']; pid?: number; port?: number; logFile?: string };
  daemonPid: number;
  /** The daemon's watchdog (processes.ts): it outlives the daemon by the time it takes to reap. */
  watchdogPid?: number;
  targetId: string;
  stateDir: string;
  /** How it was started, so `perf restart` can do it again. */
  options: SessionStartOptions;
}

export function defaultStateDir(cwd = process.cwd()): string {
  return resolve(cwd, '.perf');
}

export function statePath(stateDir: string): string {
  return join(stateDir, 'state.json');
}

/** Write JSON atomically: a crash mid-write leaves the old file, never a truncated one. */
export function writeJsonAtomic(path: string, value: unknown): void {
  writeFileAtomic(path, JSON.stringify(value, null, 2) + '\n');
}

export function readState(stateDir: string): SessionState | undefined {
  let text: string;
  try {
    text = readFileSync(statePath(stateDir), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const s = JSON.parse(text) as SessionState;
    if (s.version !== 1) throw new Error(`unknown version ${String(s.version)}`);
    return s;
  } catch (cause) {
    throw new PerfError({
      code: 'state_invalid',
      message: `${statePath(stateDir)} is not a valid session state file: ${(cause as Error).message}`,
      suggestion: 'run `perf stop` to clear it, then `perf start` again',
      cause,
    });
  }
}

export function clearState(stateDir: string): void {
  rmSync(statePath(stateDir), { force: true });
}

/**
 * The app options `perf start` and MCP `app_start` share, declared once as JSON Schema: MCP sends it
 * as app_start's inputSchema and the CLI derives its flags from it.
 */
export const START_OPTIONS = {
  serve: { type: 'string', description: 'Folder to serve as a static site on a free port (inside the working folder).' },
  url: { type: 'string', description: 'URL of a running app; with command, the URL it will listen on (${PORT} allowed).' },
  command: { type: 'string', description: 'Shell command that starts the app; ${PORT} (also $PORT) is a free port.' },
  path: { type: 'string', description: 'Path opened once the app is up, e.g. /list.html. Default /.' },
  spa: { type: 'boolean', description: 'With serve: unknown paths without an extension get index.html.' },
} as const;
