/**
 * The state behind the MCP server, shared by every transport connection: the tool list filtered by
 * the config, one call at a time in arrival order, the page host connected lazily to the session of
 * `app_start` / `perf start`, and which session this server started (and so must stop on exit).
 */
import path from 'node:path';
import { closest, isPerfError, PerfError } from '../errors.js';
import { SessionHost, connectedHost } from '../engine/host.js';
import { HostState } from '../host-state.js';
import { startTerminalApp, type RunningTerminal, type TerminalSpec } from '../session/terminal-app.js';
import { runStep, type StepResult } from '../engine/run-step.js';
import { bestErrors, compile, describeAjvError } from '../engine/validate.js';
import type * as managerModule from '../session/manager.js';
import type { StepHost } from '../steps/define.js';
import { getStep, STEPS, stepArgsSchema } from '../steps/registry.js';
import type { ErrorObject } from 'ajv';
import { insideWorkdir, type PathUse } from '../files.js';
import { isToolAllowed, isToolInCaps, type McpConfig } from './config.js';
import { capOf } from './caps.js';
import { errorReply, type ToolReply } from './format.js';
import type { FromSchema, JsonSchema } from '../schema-types.js';

/** The session functions the server uses (src/session/manager.ts); tests may pass their own. */
export type SessionManager = Pick<
  typeof managerModule,
  'startSession' | 'stopSession' | 'sessionStatus' | 'sessionLogs' | 'restartSession' | 'connectSession' | 'runSessionStep' | 'runDoctor'
>;
type Connection = Awaited<ReturnType<SessionManager['connectSession']>> & { host: SessionHost };
export type SessionStateOf = Awaited<ReturnType<SessionManager['startSession']>>;

export interface McpCoreOptions {
  manager: SessionManager;
  config: McpConfig;
  /** Every tool the server knows (steps, lifecycle, run), before the config filters them. */
  tools: readonly ToolDefinition<any>[];
  cwd?: string;
  /** Session state folder; default <cwd>/.perf like `perf start`. */
  stateDir?: string;
  /** `perf mcp --allow-outside`: tool arguments naming files and folders may lie outside cwd. */
  allowOutside?: boolean;
  /** `perf mcp --grid URL`: the Selenium Grid perf_run and perf_bisect run their browsers on. */
  grid?: string;
}

/** Errors that mean the connection to the page is gone, so the next call must reconnect. */
const CONNECTION_LOST_CODES = new Set(['target_closed', 'page_crashed', 'webdriver_timeout']);

export class McpCore {
  readonly manager: SessionManager;
  readonly config: McpConfig;
  readonly cwd: string;
  readonly stateDir: string;
  readonly allowOutside: boolean;
  readonly grid: string | undefined;
  private readonly all: readonly ToolDefinition<any>[];
  private readonly byName: Map<string, ToolDefinition<any>>;
  private tail: Promise<unknown> = Promise.resolve();
  private conn: Connection | undefined;
  /** The daemon of the session this server started with app_start, if it still owns one. */
  private ownedDaemonPid: number | undefined;
  private closing = false;

  constructor(opts: McpCoreOptions) {
    this.manager = opts.manager;
    this.config = opts.config;
    this.cwd = opts.cwd ?? process.cwd();
    this.stateDir = opts.stateDir ?? path.join(this.cwd, '.perf');
    this.allowOutside = opts.allowOutside === true;
    this.grid = opts.grid;
    this.all = opts.tools;
    this.byName = new Map(opts.tools.map((t) => [t.name, t]));
  }

  /** The tools the config allows, in declaration order. */
  listed(): ToolDefinition<any>[] {
    return this.all.filter((t) => isToolAllowed(t.name, this.config.tools));
  }

  isAllowed(name: string): boolean {
    return isToolAllowed(name, this.config.tools);
  }

  deniedError(name: string): PerfError {
    const where = this.config.source ?? '.perf/mcp.json (not present: built-in defaults)';
    const cap = capOf(name);
    const capOff = cap !== undefined && !isToolInCaps(name, this.config.tools);
    const caps = cap && capOff ? [...this.config.tools.caps, cap.name] : this.config.tools.caps;
    if (this.config.tools.offByDefault.includes(name) && isToolAllowed(name, { ...this.config.tools, caps: caps, offByDefault: [] })) {
      return new PerfError({
        code: 'tool_denied',
        message: `tool "${name}" is off: it runs arbitrary code in the page${capOff ? ` (and its cap, ${cap.name}, is not enabled)` : ''}`,
        suggestion: `restart the MCP server with --caps ${caps.join(',')} --allow ${name} (a project's .perf/mcp.json cannot turn it on)`,
      });
    }
    if (cap && capOff) {
      return new PerfError({
        code: 'tool_not_enabled',
        message:
          `tool "${name}" is in the ${cap.name} cap, which this server does not ` +
          `offer (caps on: ${this.config.tools.caps.join(', ') || 'none'})`,
        suggestion: `restart the MCP server with --caps ${caps.join(',')} (or add "${cap.name}" to tools.caps in ${where})`,
      });
    }
    return new PerfError({
      code: 'tool_denied',
      message: `tool "${name}" is denied by the MCP config ${where}`,
      suggestion:
        `to allow it, add "${name}" to tools.allow and remove any tools.deny ` +
        `pattern matching it in ${where}, then restart the MCP server`,
    });
  }

  /**
   * A tool argument naming a file or folder, resolved against the working folder: one outside it (after
   * `..` and symlinks) is a usage error naming the argument (`who`, e.g. "perf_compare a"), unless the
   * server runs with --allow-outside.
   */
  confine(who: string, target: string, use: PathUse): string {
    if (this.allowOutside) return path.resolve(this.cwd, target);
    const suggestion = 'give a path inside the working folder, or restart perf mcp with --allow-outside';
    return insideWorkdir(this.cwd, target, { who, use, suggestion });
  }

  /** Refuse to start a program (app_start command / terminal / desktop, a scenario's) when the config turned that off. */
  checkCommands(who: string, what: string): void {
    const by = this.config.tools.commandsOffBy;
    if (by === undefined) return;
    throw new PerfError({
      code: 'commands_denied',
      message: `${who}: ${what} runs a program, and ${by} turned that off`,
      suggestion: 'start the app yourself (perf start, or your dev server) and pass its url instead',
    });
  }

  /**
   * Run one tool call after every earlier call has finished (arrival order). Always resolves: any
   * failure becomes an error reply.
   */
  call(name: string, args: unknown, ctx: ToolCallContext = {}): Promise<ToolReply> {
    const job = this.tail.then(() => this.dispatch(name, args, ctx));
    this.tail = job.catch(() => undefined);
    return job.catch((e: unknown) => errorReply(e));
  }

  private async dispatch(name: string, raw: unknown, ctx: ToolCallContext): Promise<ToolReply> {
    const tool = this.byName.get(name);
    if (!tool) {
      const near = closest(
        name,
        this.listed().map((t) => t.name),
      );
      return errorReply(
        new PerfError({
          code: 'unknown_tool',
          message: `unknown tool "${name}"${near.length ? `; did you mean ${near.map((n) => `"${n}"`).join(' or ')}?` : ''}`,
          suggestion: 'list the tools (tools/list) to see what this server offers',
          candidates: near,
        }),
      );
    }
    if (!this.isAllowed(name)) return errorReply(this.deniedError(name));
    const args = raw ?? {};
    const validate = compile(tool.inputSchema);
    if (!validate(args)) {
      const first = bestErrors(validate.errors ?? [])[0]!;
      return errorReply(
        new PerfError({
          code: 'invalid_arguments',
          message: describeAjvError(first, name).message,
          suggestion: scenarioOnlyHint(name, first) ?? `see the inputSchema of ${name}`,
        }),
      );
    }
    try {
      return await tool.run(this, args as never, ctx);
    } catch (e) {
      return errorReply(e);
    }
  }

  /**
   * The host to run page steps on: the existing connection when it is still alive, else a new one to
   * the session. Throws PerfError `no_app` when no session runs. Reconnecting here is safe: nothing
   * has been dispatched to the page yet.
   */
  async host(): Promise<StepHost> {
    // A terminal program this server started runs in this process: its host is the one to use.
    if (this.terminal) return this.terminal.host;
    if (this.conn && !(await this.alive(this.conn))) await this.dropConnection();
    if (!this.conn) {
      try {
        const c = await this.manager.connectSession(this.stateDir);
        // The server keeps this connection: it watches the page's network from the browser (the page keeps its own fetch).
        this.conn = { ...c, host: connectedHost(c, { watchNetwork: true }) };
      } catch (e) {
        if (isPerfError(e) && (e.code === 'no_session' || e.code === 'no_app')) throw noApp(e);
        // A `perf start --terminal` session: its daemon owns the program and runs the steps.
        if (isPerfError(e) && e.code === 'terminal_session') return new TerminalSessionHost(this.stateDir, this.cwd, this.manager);
        throw e;
      }
    }
    return this.conn.host;
  }

  private async alive(conn: Connection): Promise<boolean> {
    try {
      const page = await conn.host.page();
      return page.alive();
    } catch {
      return false;
    }
  }

  /** Forget the page connection (after app_start/app_restart/app_stop, or when it dropped). */
  async dropConnection(): Promise<void> {
    const conn = this.conn;
    this.conn = undefined;
    await conn?.close().catch(() => undefined);
  }

  /**
   * Run one step through the engine. With no app, a step that needs no page still runs on a host
   * without one. A result saying the page went away drops the connection for the next call; the
   * step itself is not retried (it may have been dispatched).
   */
  async runStepCall(name: string, args: unknown, host?: StepHost, opts: { validated?: boolean } = {}): Promise<StepResult> {
    let h = host;
    if (!h) {
      try {
        h = await this.host();
      } catch (e) {
        if (getStep(name).needsPage === false && isPerfError(e) && e.code === 'no_app') h = new SessionHost(undefined, undefined, this.cwd);
        else throw e;
      }
    }
    if (h instanceof TerminalSessionHost) return h.run(name, args, opts.validated === true);
    const result = await runStep(h, name, args, opts);
    if (result.status !== 'ok' && CONNECTION_LOST_CODES.has(result.error.code)) await this.dropConnection();
    return result;
  }

  /** The terminal program app_start {terminal} started, in this process (a pty cannot be handed to another). */
  terminal: { running: RunningTerminal; host: SessionHost } | undefined;

  async startTerminal(spec: TerminalSpec): Promise<RunningTerminal> {
    await this.stopTerminal();
    const running = await startTerminalApp(spec);
    this.terminal = { running, host: new SessionHost({ terminal: running.driver }, undefined, this.cwd) };
    return running;
  }

  /** Stop the terminal program this server started; whether there was one. */
  async stopTerminal(): Promise<boolean> {
    const t = this.terminal;
    this.terminal = undefined;
    await t?.running.close();
    return t !== undefined;
  }

  /** Remember the session app_start started: this server stops it when it exits. */
  async sessionStarted(state: SessionStateOf): Promise<void> {
    this.ownedDaemonPid = state.daemonPid;
    await this.dropConnection();
  }

  /** After app_restart: still ours if it was ours, under its new daemon. */
  async sessionRestarted(state: SessionStateOf, wasOwned: boolean): Promise<void> {
    if (wasOwned) this.ownedDaemonPid = state.daemonPid;
    await this.dropConnection();
  }

  async sessionStopped(): Promise<void> {
    this.ownedDaemonPid = undefined;
    await this.dropConnection();
  }

  /** True when the running session is the one this server started. */
  async ownsRunningSession(): Promise<boolean> {
    if (this.ownedDaemonPid === undefined) return false;
    const status = await this.manager.sessionStatus(this.stateDir);
    return status.running && status.state?.daemonPid === this.ownedDaemonPid;
  }

  /**
   * On exit: drop the page connection and stop the session this server started, but never one it
   * merely connected to (a `perf start` session belongs to the terminal that started it).
   */
  async shutdown(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    await this.stopTerminal().catch(() => false);
    await this.dropConnection();
    try {
      if (await this.ownsRunningSession()) await this.manager.stopSession(this.stateDir);
    } catch (e) {
      process.stderr.write(`perf mcp: could not stop the app session on exit: ${(e as Error).message}\n`);
    }
    this.ownedDaemonPid = undefined;
  }
}

/**
 * The host of a terminal session started by `perf start --terminal`: the program lives in that
 * session's daemon, so runStepCall sends each step there rather than running it here.
 */
class TerminalSessionHost implements StepHost {
  state = new HostState();
  constructor(
    private readonly stateDir: string,
    public cwd: string,
    private readonly manager: SessionManager,
  ) {}
  surface(): 'terminal' {
    return 'terminal';
  }
  page(): Promise<never> {
    return Promise.reject(new PerfError({ code: 'unsupported_on_driver', message: 'this app is a terminal program, not a web page' }));
  }
  appUrl(): undefined {
    return undefined;
  }
  async run(name: string, args: unknown, validated: boolean): Promise<StepResult> {
    const result = await this.manager.runSessionStep(this.stateDir, { step: name, args, cwd: this.cwd, validated });
    if (result === undefined)
      throw new PerfError({
        code: 'session_gone',
        kind: 'environment',
        message: 'the terminal session ended',
        suggestion: 'app_start again',
      });
    return result as StepResult;
  }
}

function noApp(cause: unknown): PerfError {
  return new PerfError({
    code: 'no_app',
    kind: 'environment',
    message: 'no app: call app_start first',
    suggestion:
      'app_start {"serve": "./dist"} serves a folder, {"url": "http://127.0.0.1:5173"} ' +
      'opens a running app; or run `perf start` in a terminal',
    cause,
  });
}

/**
 * An argument the step takes in a scenario file but its tool does not list (press_key's target, expect's hidden): a
 * step line of the run tool is checked against the step's full schema, so it takes it there.
 */
function scenarioOnlyHint(name: string, e: ErrorObject): string | undefined {
  if (e.keyword !== 'additionalProperties' || e.instancePath !== '') return undefined;
  const extra = String(e.params.additionalProperty);
  const def = STEPS.find((s) => s.name === name);
  if (!def || !Object.hasOwn(stepArgsSchema(def).properties ?? {}, extra)) return undefined;
  return `${name} lists ${extra} for scenario files only; a run step line takes it: run {steps: [{"${name}": {"${extra}": …}}]}`;
}

/**
 * An MCP tool declared as one literal: name, description, JSON Schema of its arguments (sent verbatim
 * as inputSchema and checked by ajv before `run`), and whether it only reads. Declared beside the
 * core that runs it, so neither module imports the other.
 */
export interface ToolDefinition<S extends JsonSchema = JsonSchema> {
  /** snake_case, unique across steps and lifecycle tools. */
  name: string;
  description: string;
  inputSchema: S;
  /**
   * MCP readOnlyHint: true only when the tool changes nothing (the app, the page, the session, a file, a database), so
   * a client may run it without asking. The other hints are left at the spec's defaults, which assume the worst of a
   * tool that writes (destructiveHint and openWorldHint true, idempotentHint false).
   */
  readOnly: boolean;
  /**
   * Called with arguments already validated against inputSchema. Never throws to the caller: the core turns a throw into an error reply.
   */
  run(core: McpCore, args: FromSchema<S>, ctx: ToolCallContext): Promise<ToolReply>;
}

/** What a long-running tool (perf_run) may use of the request: progress notifications and cancellation. */
export interface ToolCallContext {
  /** Present when the client sent a progressToken: sends notifications/progress. */
  progress?: (progress: number, total?: number, message?: string) => void;
  /** Aborted when the client cancels the request. */
  signal?: AbortSignal;
}

/** Identity with a precise type: the schema literal types the `run` arguments. */
export function defineTool<const S extends JsonSchema>(def: ToolDefinition<S>): ToolDefinition<S> {
  return def;
}
