/**
 * The lifecycle tools: thin wrappers over src/session/manager.ts, the same operations as `perf start`,
 * `perf stop`, `perf status`, `perf logs`, `perf restart` and `perf doctor`.
 */
import { START_OPTIONS } from '../session/state.js';
import { onSessionDriver } from '../session/drivers/index.js';
import { PerfError } from '../errors.js';
import { okReply, type ToolReply } from './format.js';
import { defineTool, type McpCore, type SessionStateOf, type ToolDefinition } from './core.js';

// No arguments: MCP makes `properties` optional, and closed is what refuses a stray one.
const NO_ARGS = { type: 'object', additionalProperties: false } as const;

/** The session's summary, as its driver's session half gives it. */
function summary(state: SessionStateOf): Record<string, unknown> {
  return onSessionDriver(state, (d, s) => d.summary(s));
}

function timed<T>(fn: () => Promise<T>): Promise<{ value: T; durationMs: number }> {
  const t0 = performance.now();
  return fn().then((value) => ({ value, durationMs: Math.round((performance.now() - t0) * 10) / 10 }));
}

export const appStart = defineTool({
  name: 'app_start',
  description: 'Start the app and a browser (or a desktop app), replacing any running one.',
  inputSchema: {
    type: 'object',
    properties: {
      ...START_OPTIONS,
      headless: { type: 'boolean', description: 'Default true.' },
      terminal: {
        type: 'object',
        description: 'A terminal program instead.',
        properties: {
          command: { type: 'string' },
          args: { type: 'array', items: { type: 'string' } },
          cols: { type: 'integer', minimum: 2 },
          rows: { type: 'integer', minimum: 2 },
          cwd: { type: 'string' },
        },
        required: ['command'],
        additionalProperties: false,
      },
    },
    additionalProperties: false,
  },
  readOnly: false,
  async run(core, args) {
    for (const what of ['command', 'terminal', 'desktop'] as const) if (args[what] !== undefined) core.checkCommands('app_start', what);
    if (args.terminal !== undefined)
      return startTerminalTool(
        core,
        args.terminal,
        Object.keys(args).filter((k) => k !== 'terminal'),
      );
    if (args.serve === undefined && args.url === undefined && args.command === undefined && args.desktop === undefined) {
      throw new PerfError({
        code: 'invalid_arguments',
        message: 'app_start: give one of serve (a folder), url (a running app), command (+ url) or desktop (an app binary)',
        suggestion: 'e.g. app_start {"serve": "./dist", "path": "/index.html"}',
      });
    }
    await core.stopTerminal();
    await core.dropConnection();
    const { value: state, durationMs } = await timed(() =>
      core.manager.startSession({ ...args, cwd: core.cwd, stateDir: core.stateDir, allowOutside: core.allowOutside }),
    );
    await core.sessionStarted(state);
    return okReply({ tool: 'app_start', status: 'ok', durationMs, data: summary(state) });
  },
});

export const appStop = defineTool({
  name: 'app_stop',
  description: 'Stop the app and browser, whoever started them.',
  inputSchema: NO_ARGS,
  readOnly: false,
  async run(core) {
    if (await core.stopTerminal()) return okReply({ tool: 'app_stop', status: 'ok', data: { stopped: true, terminal: true } });
    await core.dropConnection();
    const { value, durationMs } = await timed(() => core.manager.stopSession(core.stateDir));
    await core.sessionStopped();
    return okReply({ tool: 'app_stop', status: 'ok', durationMs, data: { stopped: value.stopped, pids: value.pids } });
  },
});

export const appStatus = defineTool({
  name: 'app_status',
  description: 'URLs, driver, live processes, uptime.',
  inputSchema: NO_ARGS,
  readOnly: true,
  async run(core) {
    if (core.terminal) {
      const t = core.terminal.running;
      const crashed = t.driver.crashReason;
      return okReply({
        tool: 'app_status',
        status: 'ok',
        data: {
          running: !crashed,
          terminal: {
            command: t.spec.command,
            args: t.spec.args ?? [],
            pid: t.pid,
            ...t.driver.size,
            ...(crashed ? { exited: crashed } : {}),
          },
          uptimeMs: Date.now() - t.startedAt,
          ownedByThisServer: true,
        },
      });
    }
    const { value, durationMs } = await timed(() => core.manager.sessionStatus(core.stateDir));
    return okReply({
      tool: 'app_status',
      status: 'ok',
      durationMs,
      data: {
        running: value.running,
        alive: value.alive,
        ...(value.uptimeMs !== undefined ? { uptimeMs: Math.round(value.uptimeMs) } : {}),
        ...(value.state ? { session: summary(value.state) } : {}),
        ownedByThisServer: await core.ownsRunningSession(),
      },
    });
  },
});

// 50 lines: the tail that usually shows a startup error or the last requests, small enough to read.
const DEFAULT_LOG_LINES = 50;

export const appLogs = defineTool({
  name: 'app_logs',
  description: "Last lines of the app's and the browser's output.",
  inputSchema: {
    type: 'object',
    properties: { lines: { type: 'integer', minimum: 1, maximum: 1000, description: 'Lines per log. Default 50.' } },
    additionalProperties: false,
  },
  readOnly: true,
  async run(core, args) {
    const logs = core.manager.sessionLogs(core.stateDir, args.lines ?? DEFAULT_LOG_LINES);
    return okReply({
      tool: 'app_logs',
      status: 'ok',
      data: { app: logs.app, ...(logs.chrome ? { chrome: logs.chrome } : {}), ...(logs.webdriver ? { webdriver: logs.webdriver } : {}) },
    });
  },
});

export const appRestart = defineTool({
  name: 'app_restart',
  description: 'Restart as started: a clean page, old refs void.',
  inputSchema: NO_ARGS,
  readOnly: false,
  async run(core) {
    if (core.terminal) {
      // A terminal program restarts as it was started: a fresh process, old refs void.
      const { value: running, durationMs } = await timed(() => core.startTerminal(core.terminal!.running.spec));
      return okReply({
        tool: 'app_restart',
        status: 'ok',
        durationMs,
        data: { terminal: { command: running.spec.command, args: running.spec.args ?? [], pid: running.pid, ...running.driver.size } },
      });
    }
    const wasOwned = await core.ownsRunningSession();
    await core.dropConnection();
    const { value: state, durationMs } = await timed(() => core.manager.restartSession(core.stateDir));
    await core.sessionRestarted(state, wasOwned);
    return okReply({ tool: 'app_restart', status: 'ok', durationMs, data: summary(state) });
  },
});

export const doctor = defineTool({
  name: 'doctor',
  description: 'Check Node, browsers, a port, the out folder; failures say how to fix.',
  inputSchema: {
    type: 'object',
    properties: { outDir: { type: 'string', description: 'Default build/perf.' } },
    additionalProperties: false,
  },
  readOnly: true,
  async run(core, args) {
    const outDir = core.confine('doctor outDir', args.outDir ?? 'build/perf', 'folder');
    const { value, durationMs } = await timed(() => core.manager.runDoctor({ outDir }));
    return okReply({ tool: 'doctor', status: 'ok', durationMs, data: { ok: value.ok, checks: value.checks } });
  },
});

/** app_start {terminal}: the program runs in this server's process; a running app of ours is replaced. */
async function startTerminalTool(
  core: McpCore,
  t: { command: string; args?: string[]; cols?: number; rows?: number; cwd?: string },
  others: string[],
): Promise<ToolReply> {
  if (others.length)
    throw new PerfError({ code: 'invalid_arguments', message: `app_start: terminal is the whole app; drop ${others.join(', ')}` });
  const cwd = t.cwd === undefined ? core.cwd : core.confine('app_start terminal.cwd', t.cwd, 'folder');
  if (await core.ownsRunningSession()) {
    await core.dropConnection();
    await core.manager.stopSession(core.stateDir);
    await core.sessionStopped();
  }
  const { value: running, durationMs } = await timed(() => core.startTerminal({ ...t, cwd }));
  return okReply({
    tool: 'app_start',
    status: 'ok',
    durationMs,
    data: { terminal: { command: t.command, args: t.args ?? [], pid: running.pid, ...running.driver.size } },
  });
}

export const LIFECYCLE_TOOLS: readonly ToolDefinition<any>[] = [appStart, appStop, appStatus, appLogs, appRestart, doctor];
