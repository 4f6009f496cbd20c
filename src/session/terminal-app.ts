/**
 * A terminal program started for a run's repeat or an agent's session: spawned in a pseudo-terminal
 * (src/drivers/pty), tracked so it dies with the harness, and handed out as the terminal contract.
 */
import { PtyTerminalDriver } from '../drivers/pty/index.js';
import type { TerminalDriver } from '../drivers/terminal-driver.js';
import { trackProcess } from './processes.js';

// How long a starting program may take to draw its first screen and go quiet (a slow TUI, a cold disk).
const START_QUIET_TIMEOUT_MS = 30_000;

export interface TerminalSpec {
  command: string;
  args?: readonly string[];
  cols?: number;
  rows?: number;
  env?: Record<string, string>;
  /** Absolute, or relative to the harness's working folder. */
  cwd?: string;
}

export interface RunningTerminal {
  driver: TerminalDriver;
  pid: number;
  spec: TerminalSpec;
  startedAt: number;
  /** End the program and everything it started; resolves once they are gone. */
  close(): Promise<void>;
}

/** Spawn the program and wait until its first screen has gone quiet. */
export async function startTerminalApp(spec: TerminalSpec): Promise<RunningTerminal> {
  const driver = PtyTerminalDriver.spawn({ command: spec.command, ...(spec.args ? { args: spec.args } : {}), ...(spec.cols ? { cols: spec.cols } : {}), ...(spec.rows ? { rows: spec.rows } : {}), ...(spec.env ? { env: spec.env } : {}), ...(spec.cwd ? { cwd: spec.cwd } : {}) });
  const untrack = trackProcess(driver.pty.pid, { group: true });
  const close = async (): Promise<void> => {
    await driver.pty.close();
    untrack();
  };
  try {
    await driver.pty.waitIdle({ timeoutMs: START_QUIET_TIMEOUT_MS });
  } catch (e) {
    await close();
    throw e;
  }
  return { driver, pid: driver.pty.pid, spec, startedAt: Date.now(), close };
}
