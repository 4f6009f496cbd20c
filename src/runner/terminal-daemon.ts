/**
 * The session daemon of `perf start --terminal CMD`: a detached process that runs the program in a
 * pseudo-terminal and the steps sent to it (src/session/step-socket.ts), since a pty cannot be handed
 * to the short-lived `perf <step>` processes. It lives in the runner because it runs steps (the
 * engine), which the session layer below may not import; the session manager starts it by its entry,
 * bin/perf-terminal-daemon.mjs.
 *
 * The program exiting does not end the session: `perf status` says how it ended and `perf restart`
 * starts it again. SIGTERM (perf stop) ends the program's whole process group, then the daemon.
 */
import type { Server } from 'node:net';
import { join, resolve } from 'node:path';
import { SessionHost } from '../engine/host.js';
import { runStep } from '../engine/run-step.js';
import type { DaemonRequest } from '../session/daemon.js';
import { daemonFailed, daemonReady } from '../session/daemon-ipc.js';
import { installSignalHandlers, onShutdown, watchdogPid } from '../processes.js';
import { clearStateIfOwnedBy, type TerminalSessionState } from '../session/state.js';
import { serveSteps, stepSocketPath, type StepRequest } from '../session/step-socket.js';
import { startTerminalApp, type RunningTerminal } from '../session/terminal-app.js';

async function main(): Promise<void> {
  const { stateDir, options } = JSON.parse(process.argv[2] ?? '{}') as DaemonRequest;
  let running: RunningTerminal | undefined;
  let server: Server | undefined;
  const socket = stepSocketPath(stateDir);
  const stop = async (): Promise<void> => {
    server?.close();
    await running?.close().catch(() => undefined);
    clearStateIfOwnedBy(stateDir, process.pid);
  };
  installSignalHandlers();
  onShutdown(stop);
  try {
    const t = options.terminal!;
    const cwd = options.cwd ?? process.cwd();
    const logFile = join(stateDir, 'terminal.log');
    running = await startTerminalApp(
      {
        command: t.command,
        ...(t.args ? { args: t.args } : {}),
        ...(t.cols ? { cols: t.cols } : {}),
        ...(t.rows ? { rows: t.rows } : {}),
        cwd: resolve(cwd, t.cwd ?? '.'),
      },
      { logFile },
    );
    const host = new SessionHost({ terminal: running.driver }, undefined, cwd);
    server = await serveSteps(socket, async (req: StepRequest) => {
      host.cwd = req.cwd;
      return runStep(host, req.step, req.args, { validated: req.validated });
    });
    const state: TerminalSessionState = {
      version: 1,
      startedAt: new Date().toISOString(),
      appUrl: '',
      pageUrl: '',
      path: '',
      app: { kind: 'terminal', pid: running.pid, logFile },
      daemonPid: process.pid,
      ...(watchdogPid() !== undefined ? { watchdogPid: watchdogPid()! } : {}),
      stateDir,
      options,
      driver: 'pty',
      terminal: { pid: running.pid, command: t.command, args: t.args ?? [], ...running.driver.size, socket, logFile },
    };
    daemonReady(stateDir, state);
  } catch (e) {
    await daemonFailed(e, stop);
  }
}

void main();
