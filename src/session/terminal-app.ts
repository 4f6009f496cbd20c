/**
 * A terminal program started for a run's repeat or an agent's session: spawned in a pseudo-terminal
 * (src/drivers/pty), tracked (its process group and its environment mark) so it and every process it
 * started die with the harness, and handed out as the terminal contract.
 */
import { closeSync, writeSync } from 'node:fs';
import { openLogNoFollow } from '../files.js';
import { PtyTerminalDriver } from '../drivers/pty/index.js';
import type { TerminalDriver } from '../drivers/terminal-driver.js';
import { trackEnvMark, trackProcess } from '../processes.js';

// How long a starting program may take to draw its first screen and go quiet (a slow TUI, a cold disk).
const START_QUIET_TIMEOUT_MS = 30_000;
// A program is quiet before it prints anything: wait this long for its first output (node or dialog
// on a loaded 2-core machine take a few hundred ms); one that prints nothing until typed to pays it once.
const FIRST_OUTPUT_TIMEOUT_MS = 2000;
// A full-screen program redraws a lot: 10 MB keeps hours of a prompt's output and never fills a disk.
const OUTPUT_LOG_MAX_BYTES = 10 * 1024 * 1024;

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

/** Append the program's raw output to a file, up to OUTPUT_LOG_MAX_BYTES; returns the unsubscribe. */
function logOutput(driver: PtyTerminalDriver, file: string): () => void {
  const fd = openLogNoFollow(file, 'terminal log');
  let written = 0;
  let open = true;
  const stop = driver.pty.onOutput((text) => {
    if (!open) return;
    const bytes = Buffer.from(text);
    if (written + bytes.length > OUTPUT_LOG_MAX_BYTES) {
      writeSync(fd, `\n[perf: output log cut at ${OUTPUT_LOG_MAX_BYTES} bytes]\n`);
      end();
      return;
    }
    written += bytes.length;
    writeSync(fd, bytes);
  });
  function end(): void {
    if (!open) return;
    open = false;
    stop();
    closeSync(fd);
  }
  return end;
}

/** Spawn the program and wait until its first screen has gone quiet. `logFile`: also append its raw output there (perf logs). */
export async function startTerminalApp(spec: TerminalSpec, opts: { logFile?: string } = {}): Promise<RunningTerminal> {
  const driver = PtyTerminalDriver.spawn({
    command: spec.command,
    ...(spec.args ? { args: spec.args } : {}),
    ...(spec.cols ? { cols: spec.cols } : {}),
    ...(spec.rows ? { rows: spec.rows } : {}),
    ...(spec.env ? { env: spec.env } : {}),
    ...(spec.cwd ? { cwd: spec.cwd } : {}),
  });
  const untrackGroup = trackProcess(driver.pty.pid, { group: true });
  // A descendant that double-forked out of the group still carries the mark: ended by it too.
  const untrackMark = trackEnvMark(driver.pty.envMark);
  const endLog = opts.logFile !== undefined ? logOutput(driver, opts.logFile) : () => undefined;
  const close = async (): Promise<void> => {
    await driver.pty.close();
    endLog();
    untrackGroup();
    untrackMark();
  };
  try {
    await driver.pty.waitFirstOutput(FIRST_OUTPUT_TIMEOUT_MS);
    await driver.pty.waitIdle({ timeoutMs: START_QUIET_TIMEOUT_MS });
  } catch (e) {
    await close();
    throw e;
  }
  return { driver, pid: driver.pty.pid, spec, startedAt: Date.now(), close };
}
