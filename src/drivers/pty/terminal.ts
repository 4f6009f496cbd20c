/**
 * A terminal program driven like a page: spawned in a pseudo-terminal (node-pty), its output parsed
 * into a screen model (@xterm/headless), keys, pastes and mouse reports written the way xterm would
 * write them, and its whole process tree ended on close. Also the measurements a terminal offers:
 * output bytes and frames, input → settled latency, CPU and peak memory of the tree.
 *
 * Terminal responses the program asks for (device attributes, cursor position reports) are answered
 * by the screen model as a real terminal answers them: some programs wait for those replies.
 */
import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { constants as osConstants } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type * as NodePty from '@lydell/node-pty';
import type * as XtermHeadless from '@xterm/headless';
import { PerfError } from '../../errors.js';
import { markedPids, newProcessMark } from '../../process-mark.js';
import type { Modifier, MouseButton } from '../keys.js';
import { encodeKey, encodeMouse, encodePaste, mouseUnsupported, typedKeys, type MouseEvent } from './keys.js';
import { OutputLog, OutputMeter, type OutputCounters } from './meter.js';
import { readProcStat, type ProcStat } from '../../proc-stat.js';
import { programTree, readUsage, resetPeakRss, sendSignal, stillRuns, type ProcessUsage } from './proc.js';
import { readCells, type CellGrid } from './render-png.js';
import { ModeTracker, readScreen, readScrollback, type Screen, type TerminalModes } from './screen.js';
import { renderSnapshot, type Snapshot, type SnapshotOptions } from './snapshot.js';
import { findExecutable } from '../../files.js';

type XTerm = XtermHeadless.Terminal;

// Loaded by the first terminal, not with this module: every CLI command imports the driver registry, and these
// two cost ~60 ms of each process's start that only a terminal scenario uses (both are CommonJS: require is synchronous).
const requireHere = createRequire(import.meta.url);
let loaded: { pty: typeof NodePty; Terminal: typeof XtermHeadless.Terminal } | undefined;
function ptyModules(): NonNullable<typeof loaded> {
  loaded ??= {
    pty: requireHere('@lydell/node-pty') as typeof NodePty,
    Terminal: (requireHere('@xterm/headless') as typeof XtermHeadless).Terminal,
  };
  return loaded;
}

// The contract's default size (DESIGN.md "Drivers"): wide enough for two-pane TUIs, tall enough for a dialog.
export const DEFAULT_COLS = 100;
export const DEFAULT_ROWS = 30;
// xterm's own default: a prompt session's recent history, a few hundred KB at most.
const SCROLLBACK_LINES = 1000;
// A program that handles SIGTERM restores the terminal and exits within milliseconds; half a second
// lets one save its state, and a program that ignores SIGTERM costs each clean restart no more.
export const CLOSE_GRACE_MS = 500;
// After SIGKILL only uninterruptible sleep (a stuck disk or NFS read) delays the end; past this we report it.
const KILL_WAIT_MS = 3000;
// /proc is listed once per poll, a millisecond or two for a few hundred processes.
const CLOSE_POLL_MS = 20;
// Raw output kept for the `console` step between reads: several full redraws of a 100×30 screen.
const OUTPUT_LOG_CHARS = 64 * 1024;
/**
 * 40 ms of quiet ends a response: longer than two 60 Hz frames, so a program answering a key in two
 * or three bursts (redraw, then status line and cursor) is measured whole; short enough that a
 * periodic refresher (htop's 1.5 s) rarely lands inside it.
 */
export const SETTLE_QUIET_MS = 40;
// One second without any output means the action had no visible effect (the limit past which a
// user no longer feels a response as immediate; Nielsen, Response Times: The 3 Important Limits).
const NO_OUTPUT_MS = 1000;
// A wait with no deadline given: long enough for a program's start-up, short enough to fail a stuck test.
const DEFAULT_WAIT_MS = 10_000;
// Inherited variables that describe the harness's own terminal, not the program's: LINES/COLUMNS
// would override the pty size in ncurses, TMUX/STY would make a program talk to our multiplexer.
const FOREIGN_ENV = ['COLUMNS', 'LINES', 'TMUX', 'TMUX_PANE', 'STY', 'WINDOW', 'WINDOWID', 'TERMCAP'];

export interface PtySpawnOptions {
  command: string;
  args?: readonly string[];
  cols?: number;
  rows?: number;
  /** Over the harness's environment; an undefined value removes a variable. TERM defaults to xterm-256color. */
  env?: Record<string, string | undefined>;
  /** Absolute, or relative to the harness's cwd. */
  cwd?: string;
  scrollbackLines?: number;
}

export interface PtyExit {
  /** The exit status, undefined when a signal ended it. */
  code: number | undefined;
  /** The signal that ended it (SIGKILL…), undefined on a normal exit. */
  signal: string | undefined;
}

export interface ClickOptions {
  button?: MouseButton;
  /** 2 for a double click: press/release pairs back to back, as the program's own click timer expects. */
  clickCount?: number;
  modifiers?: readonly Modifier[];
}

export interface WaitForOptions {
  /** Appears on some line of the screen (a RegExp is tested line by line). */
  text?: string | RegExp;
  /** Is on no line of the screen. */
  textGone?: string | RegExp;
  predicate?: (screen: Screen) => boolean;
  timeoutMs?: number;
}

export interface ActionTiming {
  /** Input written → last byte of the response; undefined when the program printed nothing. */
  latencyMs: number | undefined;
  /** Input written → the quiet gap that ended the response was seen (latency + quiet window). */
  settledMs: number;
  /** False when output never went quiet before the deadline (a program that redraws continuously). */
  settled: boolean;
  bytesOut: number;
  frames: number;
}

type Listener<T extends unknown[]> = (...args: T) => void;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}

function signalName(n: number | undefined): string | undefined {
  if (!n) return undefined;
  for (const [name, value] of Object.entries(osConstants.signals)) if (value === n) return name;
  return `signal ${n}`;
}

function checkSize(cols: number, rows: number): void {
  // 1000 is far past any real screen and keeps a typo (100000) from allocating a huge buffer.
  const ok = (n: number) => Number.isInteger(n) && n >= 2 && n <= 1000;
  if (!ok(cols) || !ok(rows)) {
    throw new PerfError({
      code: 'invalid_arguments',
      message: `terminal size ${cols}x${rows} is not whole cells between 2 and 1000`,
      suggestion: 'use e.g. cols: 100, rows: 30',
    });
  }
}

export class PtyTerminal {
  /** The program's pid: also its process group and session id (forkpty makes it a session leader). */
  readonly pid: number;
  readonly command: string;
  readonly args: readonly string[];
  /** performance.now() when it was spawned. */
  readonly spawnedAtMs: number;
  /**
   * The `REHEARSE_RUN=<token>` entry in the program's environment: every process it starts inherits
   * it, so close() (and the watchdog, via trackEnvMark) finds those that left its session too.
   */
  readonly envMark: string;
  /**
   * TERM and SHELL as the program was started with them (the scenario's overrides applied), for a cast's header.
   * Kept from the spawn, not read back from /proc/PID/environ: until the forked child has exec'd the program, that
   * file still holds this process's own environment.
   */
  readonly spawnEnv: { TERM: string; SHELL: string };
  /** Resolves when the program (the session leader) has exited and its last output is on the screen. */
  readonly exited: Promise<PtyExit>;

  private readonly pty: NodePty.IPty;
  private readonly xterm: XTerm;
  private readonly tracker: ModeTracker;
  private readonly meter = new OutputMeter();
  private readonly log = new OutputLog(OUTPUT_LOG_CHARS);
  /** Processes seen in the tree (pid → start ticks), so one that left the session is still ours. */
  private readonly known = new Map<number, number>();
  private exitInfo: PtyExit | undefined;
  private readonly exitListeners = new Set<Listener<[PtyExit]>>();
  private readonly outputListeners = new Set<Listener<[string, number]>>();
  private readonly inputListeners = new Set<Listener<[string | Buffer, number]>>();
  private readonly parsedListeners = new Set<() => void>();
  /** Output handed to the screen model and not parsed yet. */
  private pendingWrites = 0;
  private closing: Promise<PtyExit> | undefined;

  private constructor(opts: PtySpawnOptions) {
    const cols = opts.cols ?? DEFAULT_COLS;
    const rows = opts.rows ?? DEFAULT_ROWS;
    checkSize(cols, rows);
    const cwd = path.resolve(opts.cwd ?? process.cwd());
    let cwdIsDir = false;
    try {
      cwdIsDir = statSync(cwd).isDirectory();
    } catch {
      cwdIsDir = false;
    }
    if (!cwdIsDir) {
      throw new PerfError({
        code: 'terminal_cwd_not_found',
        kind: 'environment',
        message: `terminal cwd ${cwd} is not a folder`,
        suggestion: 'set app.terminal.cwd to an existing folder (relative to the scenario)',
      });
    }
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !FOREIGN_ENV.includes(k)) env[k] = v;
    env.TERM = 'xterm-256color';
    for (const [k, v] of Object.entries(opts.env ?? {})) {
      if (v === undefined) delete env[k];
      else env[k] = v;
    }
    // Set last: a scenario's env cannot remove or replace the mark its processes are found by.
    const mark = newProcessMark();
    env[mark.name] = mark.value;
    this.envMark = mark.entry;
    this.spawnEnv = { TERM: env.TERM ?? '', SHELL: env.SHELL ?? '' };
    const file = findExecutable(opts.command, { cwd, ...(env.PATH !== undefined ? { envPath: env.PATH } : {}) });
    if (!file) {
      throw new PerfError({
        code: 'terminal_command_not_found',
        kind: 'environment',
        message:
          `terminal command "${opts.command}" was not found` +
          `${opts.command.includes('/') ? ` (looked at ${path.resolve(cwd, opts.command)})` : ' on PATH'}`,
        suggestion: 'install it, or give its full path in app.terminal.command',
      });
    }
    this.command = opts.command;
    this.args = [...(opts.args ?? [])];

    this.xterm = new (ptyModules().Terminal)({ cols, rows, scrollback: opts.scrollbackLines ?? SCROLLBACK_LINES, allowProposedApi: true });
    this.tracker = new ModeTracker(this.xterm);
    this.xterm.onWriteParsed(() => {
      for (const fn of this.parsedListeners) fn();
    });

    try {
      this.pty = ptyModules().pty.spawn(file, [...this.args], { name: env.TERM, cols, rows, cwd, env });
    } catch (e) {
      throw new PerfError({
        code: 'terminal_spawn_failed',
        kind: 'environment',
        message: `could not start "${opts.command}" in a pseudo-terminal: ${e instanceof Error ? e.message : String(e)}`,
        suggestion: 'check that the machine has free ptys (ls /dev/pts) and the process limit is not reached',
        cause: e,
      });
    }
    this.pid = this.pty.pid;
    this.spawnedAtMs = performance.now();

    // The screen model's replies (DA, CPR…) go straight back, as a terminal's do: not user input.
    this.xterm.onData((d) => this.rawWrite(d));
    this.xterm.onBinary((d) => this.rawWrite(Buffer.from(d, 'latin1')));
    this.pty.onData((d: string | Buffer) => {
      const at = performance.now();
      const text = typeof d === 'string' ? d : d.toString('utf8');
      this.meter.output(typeof d === 'string' ? Buffer.byteLength(d) : d.length, at);
      this.log.push(text);
      this.pendingWrites++;
      this.xterm.write(text, () => {
        this.pendingWrites--;
      });
      for (const fn of this.outputListeners) fn(text, at);
    });
    this.exited = new Promise<PtyExit>((resolve) => {
      this.pty.onExit(({ exitCode, signal }) => {
        const sig = signalName(signal);
        const info: PtyExit = { code: sig ? undefined : exitCode, signal: sig };
        // The last output is in the parser's queue: the final screen is readable once `exited` resolves.
        void this.flush().then(() => {
          this.exitInfo = info;
          for (const fn of this.exitListeners) fn(info);
          resolve(info);
        });
      });
    });
  }

  /** Start `command` in a new pseudo-terminal. Throws PerfError when the command or cwd does not exist. */
  static spawn(opts: PtySpawnOptions): PtyTerminal {
    return new PtyTerminal(opts);
  }

  get cols(): number {
    return this.xterm.cols;
  }
  get rows(): number {
    return this.xterm.rows;
  }
  /** How the program ended, once it has. */
  get exit(): PtyExit | undefined {
    return this.exitInfo;
  }

  onExit(fn: (exit: PtyExit) => void): () => void {
    if (this.exitInfo) {
      const info = this.exitInfo;
      queueMicrotask(() => fn(info));
      return () => undefined;
    }
    this.exitListeners.add(fn);
    return () => this.exitListeners.delete(fn);
  }
  /** Every read of output as it arrives, with its performance.now() time (a recorder's feed). */
  onOutput(fn: (text: string, atMs: number) => void): () => void {
    this.outputListeners.add(fn);
    return () => this.outputListeners.delete(fn);
  }
  /** Every write of input, as sent. */
  onInput(fn: (data: string | Buffer, atMs: number) => void): () => void {
    this.inputListeners.add(fn);
    return () => this.inputListeners.delete(fn);
  }

  /** The pids of the program's process tree now (leader first): what a watchdog must kill. */
  processes(): number[] {
    const tree = this.tree();
    return tree.map((e) => e.pid).sort((a, b) => (a === this.pid ? -1 : b === this.pid ? 1 : a - b));
  }

  // ---- screen ----

  /** Resolves once everything received so far is parsed into the screen. */
  flush(): Promise<void> {
    // Nothing waiting to be parsed: resolve now. An empty write's callback comes from xterm's write
    // timer, ~1 ms on every screen read even when the screen is already up to date.
    if (this.pendingWrites === 0) return Promise.resolve();
    return new Promise((resolve) => this.xterm.write('', resolve));
  }
  /** The screen as parsed so far (await flush() first for everything received). */
  /** Every cell with its style, for a PNG of the screen. */
  cells(): CellGrid {
    return readCells(this.xterm, this.tracker.cursorVisible);
  }

  screen(): Screen {
    return readScreen(this.xterm, { cursorVisible: this.tracker.cursorVisible, title: this.tracker.title });
  }
  modes(): TerminalModes {
    return this.tracker.modes(this.xterm);
  }
  /** Up to `maxLines` lines that scrolled off the top of the normal screen, oldest first. */
  scrollback(maxLines = SCROLLBACK_LINES): string[] {
    return readScrollback(this.xterm, maxLines);
  }
  /** The screen as text with refs on what a user can act on (see snapshot.ts). */
  snapshot(opts: Omit<SnapshotOptions, 'modes'> = {}): Snapshot {
    return renderSnapshot(this.screen(), { ...opts, modes: this.modes() });
  }
  /** The raw output since the last call (escape sequences included), bounded to the most recent 64 K characters. */
  readOutput(): { text: string; droppedChars: number } {
    return this.log.take();
  }

  // ---- input ----

  /** Bytes to the program as they are. */
  write(data: string | Uint8Array): void {
    this.assertRunning('write');
    const payload = typeof data === 'string' ? data : Buffer.from(data);
    const at = performance.now();
    this.meter.input(typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length, at);
    this.rawWrite(payload);
    for (const fn of this.inputListeners) fn(payload, at);
  }

  /** Text key by key, as typed: one write per character, a newline as Enter. */
  async type(text: string, opts: { delayMs?: number } = {}): Promise<void> {
    for (const key of typedKeys(text)) {
      this.write(key);
      if (opts.delayMs) await sleep(opts.delayMs);
    }
  }

  /** Text as one paste: bracketed when the program turned bracketed paste on. */
  paste(text: string): void {
    this.write(encodePaste(text, this.modes().bracketedPaste));
  }

  /** A named key ("Enter", "ArrowDown", "F5", "a") or combo ("Control+c") with modifiers, encoded for the program's current modes. */
  pressKey(key: string, modifiers?: readonly Modifier[], opts: { repeat?: number } = {}): void {
    const bytes = encodeKey(key, modifiers, this.modes());
    for (let i = 0; i < (opts.repeat ?? 1); i++) this.write(bytes);
  }

  /** Click a cell through the program's mouse reporting; PerfError mouse_not_supported when it has none. */
  click(row: number, col: number, opts: ClickOptions = {}): void {
    this.checkCell(row, col);
    const modes = this.modes();
    const unsupported = mouseUnsupported(modes, 'click');
    if (unsupported) throw unsupported;
    const base = { row, col, button: opts.button ?? 'left', ...(opts.modifiers ? { modifiers: opts.modifiers } : {}) } satisfies Omit<
      MouseEvent,
      'action'
    >;
    for (let i = 0; i < (opts.clickCount ?? 1); i++) {
      this.sendMouse({ ...base, action: 'press' }, modes);
      this.sendMouse({ ...base, action: 'release' }, modes);
    }
  }

  /** Move the pointer over a cell with no button held: only programs tracking all motion (1003) see it. */
  hover(row: number, col: number): void {
    this.checkCell(row, col);
    const modes = this.modes();
    const bytes = encodeMouse({ action: 'move', row, col }, modes);
    if (!bytes) {
      throw new PerfError({
        code: 'mouse_not_supported',
        message: `hover: the program reports clicks but not motion without a button (mouse tracking "${modes.mouseTracking}")`,
        suggestion: 'click, or use keys to move the highlight',
      });
    }
    this.write(bytes);
  }

  /** Wheel over a cell: one wheel event per notch, positive down, negative up. */
  scroll(row: number, col: number, notches: number): void {
    this.checkCell(row, col);
    if (!Number.isInteger(notches) || notches === 0) {
      throw new PerfError({
        code: 'invalid_arguments',
        message: `scroll by ${notches} notches: give a whole number, positive down, negative up`,
        suggestion: 'e.g. 3 scrolls down three wheel notches',
      });
    }
    const modes = this.modes();
    const unsupported = mouseUnsupported(modes, 'scroll', 'use keys instead: press_key PageDown / PageUp / ArrowDown to scroll');
    if (unsupported) throw unsupported;
    for (let i = 0; i < Math.abs(notches); i++) this.sendMouse({ action: notches > 0 ? 'wheelDown' : 'wheelUp', row, col }, modes);
  }

  /** New size: the screen model reflows and the program gets SIGWINCH through the pty. */
  async resize(cols: number, rows: number): Promise<void> {
    checkSize(cols, rows);
    this.assertRunning('resize');
    // Output already received was drawn for the old size: parse it before the model changes size.
    await this.flush();
    this.xterm.resize(cols, rows);
    this.pty.resize(cols, rows);
  }

  /** A signal ("TERM", "SIGINT", "SIGTSTP") to the program's process group. */
  signal(name: string): void {
    const sig = (name.toUpperCase().startsWith('SIG') ? name.toUpperCase() : `SIG${name.toUpperCase()}`) as NodeJS.Signals;
    if (!(sig in osConstants.signals)) {
      throw new PerfError({
        code: 'unknown_signal',
        message: `unknown signal "${name}"`,
        suggestion: 'use a POSIX name: INT, TERM, HUP, TSTP, CONT, USR1, WINCH, KILL',
      });
    }
    this.assertRunning('signal');
    if (!sendSignal(-this.pid, sig)) sendSignal(this.pid, sig);
  }

  // ---- settling and measurement ----

  /** Output and input so far: bytes each way and frames (bursts of output ending in an 8 ms gap). */
  counters(): OutputCounters {
    return this.meter.counters();
  }

  /**
   * Resolves when nothing has arrived for `idleMs` (counted from the last output, the last input or
   * the spawn, whichever is latest) and the screen holds all of it; or once the program has exited.
   */
  /** Resolves at the program's first output, its exit, or after `timeoutMs`, whichever comes first. */
  async waitFirstOutput(timeoutMs: number): Promise<void> {
    if (this.meter.lastOutputAtMs > -Infinity || this.exitInfo) return;
    let off: () => void = () => undefined;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => {
        off = this.onOutput(() => resolve());
      }),
      this.exited,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
      }),
    ]);
    off();
    clearTimeout(timer);
  }

  async waitIdle(opts: { idleMs?: number; timeoutMs?: number } = {}): Promise<void> {
    const idleMs = opts.idleMs ?? SETTLE_QUIET_MS;
    const timeoutMs = opts.timeoutMs ?? DEFAULT_WAIT_MS;
    const start = performance.now();
    for (;;) {
      if (this.exitInfo) return;
      const now = performance.now();
      const quietMs = now - Math.max(this.meter.lastOutputAtMs, this.meter.lastInputAtMs, this.spawnedAtMs);
      if (quietMs >= idleMs) break;
      if (now - start >= timeoutMs) {
        throw new PerfError({
          code: 'timeout',
          kind: 'failed',
          message: `the terminal did not go quiet for ${idleMs} ms within ${timeoutMs} ms (${this.meter.frames} frames so far)`,
          suggestion: 'the program redraws continuously: wait_for text instead of idle, or raise timeoutMs',
        });
      }
      await Promise.race([sleep(Math.min(idleMs - quietMs, timeoutMs - (now - start))), this.exited]);
    }
    await this.flush();
  }

  /** Resolves with the screen once it shows `text`, no longer shows `textGone`, or satisfies `predicate`. */
  async waitFor(opts: WaitForOptions): Promise<Screen> {
    const timeoutMs = opts.timeoutMs ?? DEFAULT_WAIT_MS;
    // Lines are stored trimmed; a needle ending in spaces ("Name? ") still matches at a line's end.
    const has = (s: Screen, t: string | RegExp) => s.lines.some((l) => (typeof t === 'string' ? l.padEnd(s.cols).includes(t) : t.test(l)));
    const met = (s: Screen): boolean =>
      (opts.text === undefined || has(s, opts.text)) &&
      (opts.textGone === undefined || !has(s, opts.textGone)) &&
      (opts.predicate === undefined || opts.predicate(s));
    await this.flush();
    let screen = this.screen();
    if (met(screen)) return screen;
    return new Promise<Screen>((resolve, reject) => {
      let done = false;
      const finish = (err?: unknown) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        this.parsedListeners.delete(check);
        unExit();
        if (err) reject(err);
        else resolve(screen);
      };
      const check = () => {
        screen = this.screen();
        if (met(screen)) finish();
      };
      const what = [
        opts.text !== undefined ? `text ${String(opts.text)}` : '',
        opts.textGone !== undefined ? `textGone ${String(opts.textGone)}` : '',
        opts.predicate ? 'the predicate' : '',
      ]
        .filter(Boolean)
        .join(' and ');
      const excerpt = () =>
        screen.lines
          .filter((l) => l.trim())
          .slice(-5)
          .map((l) => l.trim().slice(0, 80))
          .join(' | ');
      const timer = setTimeout(() => {
        check();
        finish(
          new PerfError({
            code: 'timeout',
            kind: 'failed',
            message: `the screen did not show ${what} within ${timeoutMs} ms; it ends with: ${excerpt()}`,
            suggestion: 'snap to see the screen; raise timeoutMs if the program is slow',
          }),
        );
      }, timeoutMs);
      const unExit = this.onExit((exit) => {
        check();
        finish(
          new PerfError({
            code: 'terminal_exited',
            kind: 'failed',
            message:
              `the program exited (${exit.signal ?? `code ${exit.code}`}) before ` +
              `the screen showed ${what}; it ends with: ${excerpt()}`,
          }),
        );
      });
      this.parsedListeners.add(check);
    });
  }

  /**
   * Time one action: run it (it writes input), then wait for the program's response to go quiet.
   * latencyMs runs from just before the action to the last byte of the response, so the quiet window
   * itself is not counted; the future `terminal.latencyMs` metric. Start it on a quiet screen
   * (waitIdle): output still arriving from an earlier action would count as this one's response.
   */
  async timeAction(
    action: () => void | Promise<void>,
    opts: { quietMs?: number; noOutputMs?: number; timeoutMs?: number } = {},
  ): Promise<ActionTiming> {
    const quietMs = opts.quietMs ?? SETTLE_QUIET_MS;
    const noOutputMs = opts.noOutputMs ?? NO_OUTPUT_MS;
    const timeoutMs = opts.timeoutMs ?? DEFAULT_WAIT_MS;
    const before = this.meter.counters();
    const t0 = performance.now();
    await action();
    let settled = true;
    for (;;) {
      const now = performance.now();
      const last = this.meter.lastOutputAtMs;
      if (now - t0 >= timeoutMs) {
        settled = false;
        break;
      }
      if (last >= t0) {
        if (now - last >= quietMs || this.exitInfo) break;
        await sleep(quietMs - (now - last));
        continue;
      }
      if (now - t0 >= noOutputMs || this.exitInfo) break;
      // Poll at the quiet window's pace: the response time is taken from read timestamps, not from this loop.
      await sleep(Math.min(quietMs, noOutputMs - (now - t0)));
    }
    await this.flush();
    const after = this.meter.counters();
    const last = this.meter.lastOutputAtMs;
    return {
      latencyMs: last >= t0 ? last - t0 : undefined,
      settledMs: performance.now() - t0,
      settled,
      bytesOut: after.bytesOut - before.bytesOut,
      frames: after.frames - before.frames,
    };
  }

  /** CPU and peak memory of the process tree now; read twice for a window (cpuMs subtracts). */
  usage(): ProcessUsage {
    return readUsage(this.tree(), performance.now());
  }
  /** Start a new peak-memory window: each process's peak becomes its current RSS. */
  resetPeakRss(): void {
    resetPeakRss(this.tree());
  }

  // ---- end ----

  /**
   * End the program and everything it started: SIGTERM (and SIGCONT, so a stopped job can act on
   * it) to its group, every process of its tree and every process carrying its environment mark (a
   * double-forked or setsid'd descendant), SIGKILL to whatever is left after `graceMs`.
   * Resolves once none of them runs. Safe to call again or after the program exited by itself.
   */
  close(opts: { graceMs?: number } = {}): Promise<PtyExit> {
    this.closing ??= this.shutdown(opts.graceMs ?? CLOSE_GRACE_MS);
    return this.closing;
  }

  private async shutdown(graceMs: number): Promise<PtyExit> {
    const start = performance.now();
    let tree = this.tree();
    let marked = this.marked(tree);
    // Not to the group once the leader is reaped and nothing of it is left: its pid and group may be
    // someone else's by then. Marked processes (double-forked, setsid) are signalled by pid.
    const signalAll = (sig: NodeJS.Signals) => {
      if (tree.length || !this.exitInfo) sendSignal(-this.pid, sig);
      for (const e of [...tree, ...marked]) sendSignal(e.pid, sig);
    };
    if (tree.length || marked.length || !this.exitInfo) {
      signalAll('SIGTERM');
      signalAll('SIGCONT');
    }
    for (;;) {
      tree = this.tree().filter((e) => stillRuns(e.pid, e.startTicks));
      marked = this.marked(tree);
      if (tree.length === 0 && marked.length === 0 && this.exitInfo) break;
      const elapsed = performance.now() - start;
      // Past the grace, every poll kills what it finds: a process forked since the last one included.
      if (elapsed >= graceMs) signalAll('SIGKILL');
      if (elapsed >= graceMs + KILL_WAIT_MS) {
        const left = [...tree, ...marked].map((e) => `${e.pid} (${e.state})`).join(', ') || `${this.pid} (no exit reported)`;
        throw new PerfError({
          code: 'terminal_close_failed',
          kind: 'environment',
          message: `terminal program "${this.command}" did not end ${KILL_WAIT_MS} ms after SIGKILL: pids ${left}`,
          suggestion: 'a process in uninterruptible sleep (state D) waits on a device or network file system; check it with ps',
        });
      }
      await sleep(CLOSE_POLL_MS);
    }
    return this.exited;
  }

  // ---- internals ----

  private tree() {
    const tree = programTree(this.pid, this.known);
    for (const e of tree) this.known.set(e.pid, e.startTicks);
    return tree;
  }

  /** Live processes outside the tree that carry the program's environment mark (they left its session). */
  private marked(tree: readonly ProcStat[]): ProcStat[] {
    const inTree = new Set(tree.map((e) => e.pid));
    return markedPids(this.envMark)
      .filter((pid) => !inTree.has(pid))
      .map((pid) => readProcStat(pid))
      .filter((e): e is ProcStat => e !== undefined && e.state !== 'Z' && e.state !== 'X');
  }

  private rawWrite(data: string | Buffer): void {
    if (this.exitInfo) return;
    // node-pty types write() as string but hands any chunk to its socket, which takes raw bytes too:
    // needed for X10 mouse reports, whose coordinate bytes above 127 are not UTF-8.
    const sink: { write(data: string | Buffer): void } = this.pty;
    sink.write(data);
  }

  private sendMouse(ev: MouseEvent, modes: TerminalModes): void {
    const bytes = encodeMouse(ev, modes);
    if (bytes) this.write(bytes);
  }

  private checkCell(row: number, col: number): void {
    if (!Number.isInteger(row) || !Number.isInteger(col) || row < 0 || col < 0 || row >= this.rows || col >= this.cols) {
      throw new PerfError({
        code: 'invalid_target',
        message: `cell row ${row} col ${col} is off the ${this.cols}x${this.rows} screen`,
        suggestion: `rows count 0–${this.rows - 1}, cols 0–${this.cols - 1}`,
      });
    }
  }

  private assertRunning(what: string): void {
    if (this.exitInfo || this.closing) {
      const exit = this.exitInfo;
      throw new PerfError({
        code: 'terminal_exited',
        kind: 'failed',
        message: `${what}: the program has ${exit ? `exited (${exit.signal ?? `code ${exit.code}`})` : 'been closed'}`,
      });
    }
  }
}
