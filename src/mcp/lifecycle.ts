/**
 * The lifecycle tools: thin wrappers over src/session/manager.ts, the same operations as `perf start`,
 * `perf stop`, `perf status`, `perf logs`, `perf restart` and `perf doctor`.
 */
import { START_OPTIONS } from '../session/state.js';
import path from 'node:path';
import { PerfError } from '../errors.js';
import { okReply } from './format.js';
import { defineTool, type SessionStateOf, type ToolDefinition } from './core.js';

function summary(state: SessionStateOf): Record<string, unknown> {
  return {
    appUrl: state.appUrl,
    pageUrl: state.pageUrl,
    path: state.path,
    app: state.app,
    chrome: { pid: state.chrome.pid, port: state.chrome.port, headless: state.chrome.headless, version: state.chrome.version },
    startedAt: state.startedAt,
    stateDir: state.stateDir,
  };
}

function timed<T>(fn: () => Promise<T>): Promise<{ value: T; durationMs: number }> {
  const t0 = performance.now();
  return fn().then((value) => ({ value, durationMs: Math.round((performance.now() - t0) * 10) / 10 }));
}

export const appStart = defineTool({
  name: 'app_start',
  description: 'Start the app (serve a folder, a running url, or command + url) and a Chromium on it, replacing any running app; page tools work after this.',
  inputSchema: {
    type: 'object',
    properties: {
      ...START_OPTIONS,
      headless: { type: 'boolean', description: 'Run Chromium without a window. Default true.' },
    },
    additionalProperties: false,
  },
  readOnly: false,
  async run(core, args) {
    if (args.serve === undefined && args.url === undefined && args.command === undefined) {
      throw new PerfError({
        code: 'invalid_arguments',
        message: 'app_start: give one of serve (a folder), url (a running app) or command (+ url)',
        suggestion: 'e.g. app_start {"serve": "./dist", "path": "/index.html"}',
      });
    }
    await core.dropConnection();
    const { value: state, durationMs } = await timed(() => core.manager.startSession({ ...args, cwd: core.cwd, stateDir: core.stateDir, allowOutside: core.allowOutside }));
    await core.sessionStarted(state);
    return okReply({ tool: 'app_start', status: 'ok', durationMs, data: summary(state) });
  },
});

export const appStop = defineTool({
  name: 'app_stop',
  description: 'Stop the running app and its Chromium, whoever started them; page tools answer "no app" afterwards.',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  readOnly: false,
  async run(core) {
    await core.dropConnection();
    const { value, durationMs } = await timed(() => core.manager.stopSession(core.stateDir));
    await core.sessionStopped();
    return okReply({ tool: 'app_stop', status: 'ok', durationMs, data: { stopped: value.stopped, pids: value.pids } });
  },
});

export const appStatus = defineTool({
  name: 'app_status',
  description: 'Whether an app is running: its URLs, the current page, whether daemon, Chromium and app process are alive, and uptime.',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  readOnly: true,
  async run(core) {
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
  description: "The last lines of the app's output and of Chromium's stderr: why the app did not start, or what it printed.",
  inputSchema: {
    type: 'object',
    properties: { lines: { type: 'integer', minimum: 1, maximum: 1000, description: 'Lines of each log, newest last. Default 50.' } },
    additionalProperties: false,
  },
  readOnly: true,
  async run(core, args) {
    const logs = core.manager.sessionLogs(core.stateDir, args.lines ?? DEFAULT_LOG_LINES);
    return okReply({ tool: 'app_logs', status: 'ok', data: { app: logs.app, chrome: logs.chrome } });
  },
});

export const appRestart = defineTool({
  name: 'app_restart',
  description: 'Restart the app and Chromium with the same options on the start path: a clean page; earlier refs no longer apply.',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  readOnly: false,
  async run(core) {
    const wasOwned = await core.ownsRunningSession();
    await core.dropConnection();
    const { value: state, durationMs } = await timed(() => core.manager.restartSession(core.stateDir));
    await core.sessionRestarted(state, wasOwned);
    return okReply({ tool: 'app_restart', status: 'ok', durationMs, data: summary(state) });
  },
});

export const doctor = defineTool({
  name: 'doctor',
  description: 'Check the environment (Node, Chromium, a free port, output folder writable); a failed check says how to fix it.',
  inputSchema: {
    type: 'object',
    properties: { outDir: { type: 'string', description: 'Output folder to check. Default build/perf.' } },
    additionalProperties: false,
  },
  readOnly: true,
  async run(core, args) {
    const { value, durationMs } = await timed(() => core.manager.runDoctor({ outDir: path.resolve(core.cwd, args.outDir ?? 'build/perf') }));
    return okReply({ tool: 'doctor', status: 'ok', durationMs, data: { ok: value.ok, checks: value.checks } });
  },
});

export const LIFECYCLE_TOOLS: readonly ToolDefinition<any>[] = [appStart, appStop, appStatus, appLogs, appRestart, doctor];
