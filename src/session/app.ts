/**
 * App lifecycle: the page under test comes from a served folder, a command the harness starts, or a
 * URL that is already up. All three end as one RunningApp, so the runner, the CLI session and MCP
 * never care which it was.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, createWriteStream, openSync, readSync, statSync, fstatSync, type WriteStream } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { PerfError, type ErrorCode } from '../errors.js';
import { joinUrl } from '../url.js';
import { sleep, terminate, trackProcess } from '../processes.js';
import { assertPortFree, freePort } from './ports.js';
import { serveStatic } from './static-server.js';
import { ensureDir, openLogNoFollow } from '../files.js';

export type AppSpec =
  | { kind: 'serve'; dir: string; spa?: boolean; port?: number; host?: string }
  | {
      kind: 'command';
      command: string;
      /** May contain ${PORT}; default http://127.0.0.1:${PORT}. */
      url?: string;
      cwd?: string;
      startTimeoutMs?: number;
      port?: number;
      logFile?: string;
      /** true = don't track for orphan-killing: a `perf start` session outlives the CLI. */
      detached?: boolean;
    }
  | { kind: 'url'; url: string }
  /** A desktop app alone: the WebDriver session starts it, so there is nothing to serve. */
  | { kind: 'desktop' }
  /** A terminal program: the terminal driver starts it for every repeat. */
  | { kind: 'terminal' };

export interface AppExit {
  code: number | null;
  signal: string | null;
}

export interface RunningApp {
  kind: AppSpec['kind'];
  /** No trailing slash. */
  baseUrl: string;
  pid?: number;
  port?: number;
  /** Where a command app's output is appended, when it is written to a file. */
  logFile?: string;
  urlFor(path?: string): string;
  /** The last `lines` lines of output (all kept lines when omitted). */
  logs(lines?: number): string[];
  stop(): Promise<void>;
  /** How a command app ended, or undefined while it runs (and always for serve/url). */
  exited(): AppExit | undefined;
}

// 30 s: a cold dev server (vite, next) compiles before it binds; slower than that is a real problem.
const DEFAULT_START_TIMEOUT_MS = 30_000;
// 100 ms: fast enough not to add visible latency to every restart, cheap enough to not load the app.
const POLL_INTERVAL_MS = 100;
// 2 s per probe: a server that accepted the socket but is compiling its first response is retried
// instead of hanging the whole start budget on one request.
const PROBE_TIMEOUT_MS = 2_000;
// 3 s: an already-running app on this machine answers in milliseconds; 3 s covers a busy host.
const URL_CHECK_TIMEOUT_MS = 3_000;
// 1000 lines: enough to see a dev server's startup and recent requests without unbounded memory.
const MAX_LOG_LINES = 1000;
// 20 lines: the usual size of a stack trace or "address in use" report, short enough for one error.
const ERROR_TAIL_LINES = 20;
// 250 ms: lets the pipes drain the last lines after exit, so the error shows why it died.
const EXIT_DRAIN_MS = 250;
// 1 MiB: the tail of a log file read back for logs(); far more than MAX_LOG_LINES of normal output.
const LOG_FILE_TAIL_BYTES = 1024 * 1024;

export async function startApp(spec: AppSpec): Promise<RunningApp> {
  switch (spec.kind) {
    case 'serve':
      return startServe(spec);
    case 'command':
      return startCommand(spec);
    case 'url':
      return startUrl(spec);
    case 'desktop':
    case 'terminal':
      return { kind: spec.kind, baseUrl: '', urlFor: () => '', logs: () => [], stop: async () => undefined, exited: () => undefined };
    default: {
      const exhaustive: never = spec;
      throw new PerfError({ code: 'invalid_app', message: `unknown app kind in ${JSON.stringify(exhaustive)}` });
    }
  }
}

function stripTrailingSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

function portOf(url: string): number | undefined {
  try {
    const u = new URL(url);
    if (u.port) return Number(u.port);
    return u.protocol === 'https:' ? 443 : u.protocol === 'http:' ? 80 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Check an app URL before anything starts or stops (a ${PORT} placeholder stands for a port yet to be
 * chosen): a caller replacing a running app must refuse a bad URL while the old app still runs.
 */
export function checkAppUrl(url: string): void {
  parseHttpUrl(url.replaceAll('${PORT}', '1'), 'invalid_app_url', 'app url');
}

function parseHttpUrl(url: string, code: ErrorCode, what: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (e) {
    throw new PerfError({
      code,
      kind: 'usage',
      message: `${what} is not a valid URL: ${url}`,
      suggestion: 'use a full URL such as http://127.0.0.1:5173',
      cause: e,
    });
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new PerfError({
      code,
      kind: 'usage',
      message: `${what} must be http or https, got ${parsed.protocol} in ${url}`,
      suggestion: 'use a full URL such as http://127.0.0.1:5173',
    });
  }
  return parsed;
}

/** The outcome of one readiness probe. */
type Probe = { status: 'answered'; httpStatus: number } | { status: 'no_answer'; reason: string };

/** One HTTP request; any status code counts as an answer (a 404 still proves the server is up). */
function probe(url: string, timeoutMs: number): Promise<Probe> {
  return new Promise((resolve) => {
    const request = url.startsWith('https:') ? httpsRequest : httpRequest;
    let settled = false;
    const done = (p: Probe): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(p);
    };
    // Dev servers often use self-signed certificates; we only ask "is it up", not "is it trusted".
    const req = request(url, { method: 'GET', agent: false, rejectUnauthorized: false }, (res) => {
      res.resume();
      done({ status: 'answered', httpStatus: res.statusCode ?? 0 });
      req.destroy();
    });
    // A hard timer rather than the socket idle timeout, which does not cover DNS or a slow connect.
    const timer = setTimeout(
      () => {
        done({ status: 'no_answer', reason: `no answer within ${timeoutMs} ms` });
        req.destroy();
      },
      Math.max(1, timeoutMs),
    );
    req.on('error', (e) => done({ status: 'no_answer', reason: (e as NodeJS.ErrnoException).code ?? e.message }));
    req.end();
  });
}

async function startServe(spec: Extract<AppSpec, { kind: 'serve' }>): Promise<RunningApp> {
  const lines = new LineBuffer(MAX_LOG_LINES);
  const server = await serveStatic({
    root: spec.dir,
    ...(spec.port ? { port: spec.port } : {}),
    ...(spec.spa ? { spaFallback: true } : {}),
    ...(spec.host !== undefined ? { host: spec.host } : {}),
    onRequest: (line) => lines.push(line),
  });
  return {
    kind: 'serve',
    baseUrl: server.url,
    port: server.port,
    urlFor: (p) => joinUrl(server.url, p),
    logs: (n) => lines.tail(n),
    stop: () => server.close(),
    exited: () => undefined,
  };
}

async function startUrl(spec: Extract<AppSpec, { kind: 'url' }>): Promise<RunningApp> {
  parseHttpUrl(spec.url, 'invalid_app_url', 'app url');
  const baseUrl = stripTrailingSlash(spec.url);
  const result = await probe(spec.url, URL_CHECK_TIMEOUT_MS);
  switch (result.status) {
    case 'answered':
      break;
    case 'no_answer':
      throw new PerfError({
        code: 'app_unreachable',
        kind: 'environment',
        message: `app at ${spec.url} did not answer (${result.reason})`,
        suggestion: 'start the app first, check the URL and port, or let rehearse start it with `command`',
      });
    default: {
      const exhaustive: never = result;
      throw new Error(`unhandled probe ${String(exhaustive)}`);
    }
  }
  const port = portOf(spec.url);
  return {
    kind: 'url',
    baseUrl,
    ...(port !== undefined ? { port } : {}),
    urlFor: (p) => joinUrl(baseUrl, p),
    logs: () => [],
    stop: async () => undefined,
    exited: () => undefined,
  };
}

/** The last N lines of a stream of chunks; partial lines are held until their newline arrives. */
class LineBuffer {
  private readonly lines: string[] = [];
  constructor(private readonly max: number) {}

  push(line: string): void {
    this.lines.push(line);
    if (this.lines.length > this.max) this.lines.splice(0, this.lines.length - this.max);
  }

  tail(n?: number): string[] {
    if (n === undefined) return [...this.lines];
    return n <= 0 ? [] : this.lines.slice(-n);
  }
}

/** Splits one stream's chunks into lines (stdout and stderr each get one, so lines never interleave mid-line). */
function lineSplitter(onLine: (line: string) => void): { write(chunk: string): void; flush(): void } {
  let partial = '';
  return {
    write(chunk: string): void {
      partial += chunk;
      let nl: number;
      while ((nl = partial.indexOf('\n')) !== -1) {
        onLine(partial.slice(0, nl).replace(/\r$/, ''));
        partial = partial.slice(nl + 1);
      }
    },
    flush(): void {
      if (partial !== '') onLine(partial.replace(/\r$/, ''));
      partial = '';
    },
  };
}

/** Last lines of a log file written since `fromByte` (for detached apps whose output goes to a file). */
function tailFile(file: string, fromByte: number, max: number): string[] {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return [];
  }
  try {
    const size = fstatSync(fd).size;
    const start = Math.max(fromByte, size - LOG_FILE_TAIL_BYTES);
    const length = Math.max(0, size - start);
    const buf = Buffer.alloc(length);
    readSync(fd, buf, 0, length, start);
    const lines = buf
      .toString('utf8')
      .split('\n')
      .map((l) => l.replace(/\r$/, ''));
    if (lines[lines.length - 1] === '') lines.pop();
    // A cut at the 1 MiB boundary leaves a partial first line; drop it rather than show half a line.
    if (start > fromByte) lines.shift();
    return lines.slice(-max);
  } finally {
    closeSync(fd);
  }
}

function tailMessage(lines: string[]): string {
  return lines.length ? `\nlast output:\n${lines.map((l) => `  ${l}`).join('\n')}` : '\n(no output)';
}

function describeExit(exit: AppExit): string {
  return exit.signal ? `was killed by ${exit.signal}` : `exited with code ${String(exit.code)}`;
}

/** The command's working folder, which must exist; an empty command is refused first. */
function commandCwd(spec: Extract<AppSpec, { kind: 'command' }>): string {
  if (!spec.command.trim()) {
    throw new PerfError({
      code: 'invalid_app_command',
      kind: 'usage',
      message: 'app command is empty',
      suggestion: 'give the command that starts the app, e.g. "npm run preview -- --port ${PORT}"',
    });
  }
  const cwd = path.resolve(spec.cwd ?? process.cwd());
  let cwdIsDir = false;
  try {
    cwdIsDir = statSync(cwd).isDirectory();
  } catch {
    cwdIsDir = false;
  }
  if (!cwdIsDir) {
    throw new PerfError({
      code: 'app_cwd_missing',
      kind: 'usage',
      message: `working folder for the app command does not exist: ${cwd}`,
      suggestion: 'check the path (relative paths resolve against the scenario file)',
    });
  }
  return cwd;
}

/**
 * The shell running the command in its own process group (so stop() can kill the whole tree it
 * starts); a detached one writes to the log file directly. Returns where the log file stood before.
 */
async function spawnCommand(
  command: string,
  opts: { cwd: string; env: NodeJS.ProcessEnv; detachedLog: string | undefined },
): Promise<{ child: ChildProcess; pid: number; fileStartByte: number }> {
  const { cwd, env, detachedLog } = opts;
  let child: ChildProcess;
  let fileStartByte = 0;
  try {
    if (detachedLog) {
      const fd = openLogNoFollow(detachedLog, 'app log');
      try {
        fileStartByte = fstatSync(fd).size;
        child = spawn('/bin/sh', ['-c', command], { cwd, env, detached: true, stdio: ['ignore', fd, fd] });
      } finally {
        closeSync(fd);
      }
    } else {
      child = spawn('/bin/sh', ['-c', command], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    }
  } catch (e) {
    throw new PerfError({
      code: 'app_spawn_failed',
      kind: 'environment',
      message: `could not start the app command \`${command}\`: ${(e as Error).message}`,
      suggestion: 'check that /bin/sh exists and the working folder is readable',
      cause: e,
    });
  }
  const pid = child.pid;
  if (pid === undefined) {
    const spawnError = await new Promise<Error | undefined>((r) => {
      child.once('error', r);
      setImmediate(() => r(undefined));
    });
    throw new PerfError({
      code: 'app_spawn_failed',
      kind: 'environment',
      message: `could not start the app command \`${command}\`${spawnError ? `: ${spawnError.message}` : ''}`,
      suggestion: 'check that /bin/sh exists and the working folder is readable',
      cause: spawnError,
    });
  }
  return { child, pid, fileStartByte };
}

/** The command's output, line by line, into the in-memory tail and the log file (if any); returns the file's stream. */
function collectOutput(child: ChildProcess, lines: LineBuffer, logFile: string | undefined): WriteStream | undefined {
  let logStream: WriteStream | undefined;
  if (logFile) {
    logStream = createWriteStream(logFile, { fd: openLogNoFollow(logFile, 'app log') });
    logStream.on('error', () => undefined);
  }
  const onLine = (line: string): void => {
    lines.push(line);
    logStream?.write(line + '\n');
  };
  for (const stream of [child.stdout, child.stderr]) {
    if (!stream) continue;
    const splitter = lineSplitter(onLine);
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => splitter.write(chunk));
    stream.on('end', () => splitter.flush());
    stream.on('error', () => undefined);
  }
  return logStream;
}

async function startCommand(spec: Extract<AppSpec, { kind: 'command' }>): Promise<RunningApp> {
  const cwd = commandCwd(spec);
  if (spec.port !== undefined) await assertPortFree(spec.port);
  const port = spec.port ?? (await freePort());
  const substitute = (s: string): string => s.replaceAll('${PORT}', String(port));
  const command = substitute(spec.command);
  const url = substitute(spec.url ?? 'http://127.0.0.1:${PORT}');
  parseHttpUrl(url, 'invalid_app_url', 'app url');
  const baseUrl = stripTrailingSlash(url);
  const startTimeoutMs = spec.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;

  // A detached session outlives this process: its output cannot go to our pipes (it would get
  // SIGPIPE once we exit), so it goes straight to a file, a temp one if none was asked for.
  const detached = spec.detached === true;
  const logFile = spec.logFile
    ? path.resolve(spec.logFile)
    : detached
      ? path.join(os.tmpdir(), `rehearse-app-${process.pid}-${Date.now()}.log`)
      : undefined;
  if (logFile) ensureDir(path.dirname(logFile), 'app log');

  const lines = new LineBuffer(MAX_LOG_LINES);
  const detachedLog = detached ? logFile : undefined;
  const env = { ...process.env, PORT: String(port) };
  const { child, pid, fileStartByte } = await spawnCommand(command, { cwd, env, detachedLog });
  const untrack = detached ? undefined : trackProcess(pid, { group: true });
  const logStream = detachedLog ? undefined : collectOutput(child, lines, logFile);
  const readLogs = (n?: number): string[] =>
    detached && logFile ? tailFile(logFile, fileStartByte, Math.min(n ?? MAX_LOG_LINES, MAX_LOG_LINES)) : lines.tail(n);

  let exit: AppExit | undefined;
  let closed = false;
  child.on('error', () => undefined);
  child.on('exit', (code, sig) => {
    exit = { code, signal: sig };
  });
  child.on('close', () => {
    closed = true;
    logStream?.end();
  });

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      await terminate(pid, { group: true });
      untrack?.();
      logStream?.end();
    })();
    return stopping;
  };

  // Wait until the URL answers, the process dies, or time runs out.
  const deadline = Date.now() + startTimeoutMs;
  let lastReason = 'not probed yet';
  for (;;) {
    if (exit) {
      const drainUntil = Date.now() + EXIT_DRAIN_MS;
      while (!closed && Date.now() < drainUntil) await sleep(10);
      const exitInfo: AppExit = exit;
      // The shell is gone but something it started may still hold the group; don't leave it behind.
      await stop();
      throw new PerfError({
        code: 'app_exited',
        kind: 'environment',
        message: `app command \`${command}\` ${describeExit(exitInfo)} before ${url} answered${tailMessage(readLogs(ERROR_TAIL_LINES))}`,
        suggestion: 'run the command by hand in that folder to see why it stops',
      });
    }
    const remainingMs = deadline - Date.now();
    if (remainingMs <= 0) break;
    const result = await probe(url, Math.min(PROBE_TIMEOUT_MS, remainingMs));
    if (result.status === 'answered') {
      // Past startup the app must not hold this process open; tracked apps still die with us.
      child.unref();
      for (const stream of [child.stdout, child.stderr]) (stream as { unref?: () => void } | null)?.unref?.();
      return {
        kind: 'command',
        baseUrl,
        pid,
        port,
        ...(logFile ? { logFile } : {}),
        urlFor: (p) => joinUrl(baseUrl, p),
        logs: readLogs,
        stop,
        exited: () => exit,
      };
    }
    lastReason = result.reason;
    if (exit) continue;
    await sleep(Math.min(POLL_INTERVAL_MS, Math.max(0, deadline - Date.now())));
  }

  await stop();
  throw startTimeoutError({ command, url, startTimeoutMs, lastReason, port }, readLogs(ERROR_TAIL_LINES));
}

function startTimeoutError(
  at: { command: string; url: string; startTimeoutMs: number; lastReason: string; port: number },
  logs: string[],
): PerfError {
  return new PerfError({
    code: 'app_start_timeout',
    kind: 'environment',
    message:
      `app command \`${at.command}\` did not answer at ${at.url} within ${at.startTimeoutMs}` +
      ` ms (last probe: ${at.lastReason})${tailMessage(logs)}`,
    suggestion:
      `check that the command binds 127.0.0.1:${at.port} (use \${PORT} ` + `or the PORT environment variable), or raise startTimeoutMs`,
  });
}
