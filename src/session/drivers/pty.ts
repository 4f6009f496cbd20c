/** The session half of the pty driver: the daemon owns the pseudo-terminal and runs the steps sent to it. */
import { PerfError } from '../../errors.js';
import type { TerminalSessionState } from '../state.js';
import { aliveWord, type SessionDriver } from './define.js';

export const ptySession: SessionDriver<TerminalSessionState> = {
  // The program is the session's app (state.app.pid): nothing else is the driver's.
  ownedPids: () => [],
  afterStop: async () => undefined,
  status: async (_state, { daemon, app }) => ({ running: daemon && app === true, alive: { daemon, terminal: app === true, app } }),
  logs: () => ({}),
  connect(state) {
    return Promise.reject(
      new PerfError({
        code: 'terminal_session',
        kind: 'environment',
        message:
          `the session runs a terminal program (${state.terminal.command}): ` +
          'its steps run in the session (runSessionStep), not on a page',
        suggestion: 'send steps with `perf <step>` or an MCP tool',
      }),
    );
  },
  summary: (state) => {
    const t = state.terminal;
    return {
      driver: 'pty',
      terminal: { command: t.command, args: t.args, pid: t.pid, cols: t.cols, rows: t.rows },
      startedAt: state.startedAt,
      stateDir: state.stateDir,
    };
  },
  describe(state) {
    const t = state.terminal;
    return [
      `terminal ${[t.command, ...t.args].map(shellQuote).join(' ')} (pid ${t.pid}, ${t.cols}x${t.rows})`,
      `output   ${t.logFile}`,
      `session  pid ${state.daemonPid}, steps on ${t.socket}, state in ${state.stateDir}/state.json`,
    ];
  },
  processes: (_state, alive) => ({
    text: `, program ${aliveWord(alive.terminal)}`,
    ...(alive.terminal === false ? { note: 'the program has exited: `perf restart` starts it again' } : {}),
  }),
};

/** A word as a POSIX shell would need it quoted, for showing the command line. */
function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
