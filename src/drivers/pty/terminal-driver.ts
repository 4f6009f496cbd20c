/**
 * The terminal contract (src/drivers/terminal-driver.ts) over a PtyTerminal: every input is timed
 * (written → the screen settled) and logged, so a measured window reads its latencies; refs are
 * looked up in the last snapshot, as a page's are.
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { PerfError } from '../../errors.js';
import type { Modifier, MouseButton } from '../keys.js';
import {
  checkBeginOptions,
  sessionWithout,
  type PerfBeginOptions,
  type PerfMode,
  type PerfRecorder,
  type RawSession,
  type SessionMark,
} from '../measure.js';
import type { TerminalActionTiming, TerminalDriver, TerminalResolved, TerminalSnapshot, TerminalTargetSpec } from '../terminal-driver.js';
import { CastLog, screenAsOutput } from './cast.js';
import { maskCells, renderCellsPng } from './render-png.js';
import { diffScreens, findRefs, nextRefNumber, renderSnapshot, resolveTarget, type RefMemory, type TerminalRef } from './snapshot.js';
import type { Screen } from './screen.js';
import { PtyTerminal, type PtySpawnOptions } from './terminal.js';

// The input log a window reads its latencies from; older entries than a long window are not needed.
const ACTION_LOG_MAX = 10_000;

export class PtyTerminalDriver implements TerminalDriver {
  readonly kind = 'terminal' as const;
  private lastRefs: TerminalRef[] = [];
  /** The next ref number never handed out on this program: a ref name is never reused for something else. */
  private nextRef = 1;
  private lastScreen: Screen | undefined;
  /** Every timed input: when it was written (epoch ms) and its latency. */
  readonly actions: { at: number; latencyMs: number | undefined }[] = [];

  constructor(readonly pty: PtyTerminal) {}

  static spawn(opts: PtySpawnOptions): PtyTerminalDriver {
    return new PtyTerminalDriver(PtyTerminal.spawn(opts));
  }

  get crashReason(): string | undefined {
    const e = this.pty.exit;
    return e ? `the program exited (${e.signal ?? `code ${e.code}`})` : undefined;
  }

  private refMemory(): RefMemory {
    return { refs: this.lastRefs, next: this.nextRef };
  }

  get size(): { cols: number; rows: number } {
    return { cols: this.pty.cols, rows: this.pty.rows };
  }

  async snapshot(opts: { maxBytes?: number; grep?: string; diff?: boolean; within?: string }): Promise<TerminalSnapshot> {
    await this.pty.flush();
    const screen = this.pty.screen();
    if (opts.within !== undefined) {
      // A part of the screen: its refs are not the whole screen's, so the last snapshot's stay.
      const rect = this.lastRefs.find((r) => r.ref === opts.within)?.rect;
      if (!rect)
        throw new PerfError({
          code: 'stale_ref',
          kind: 'failed',
          message: `snap: no ref ${opts.within} in the last snapshot of this screen`,
          suggestion: 'take a whole snap first, then use one of its refs',
        });
      const part = renderSnapshot(screen, { within: rect, ...(opts.maxBytes ? { maxBytes: opts.maxBytes } : {}), modes: this.pty.modes() });
      return { text: part.text, bytes: part.bytes, truncated: part.truncated, refs: [] };
    }
    // Rendered from the screen just read: reading it again would cost as much as the rendering.
    const snap = renderSnapshot(screen, {
      ...(opts.maxBytes ? { maxBytes: opts.maxBytes } : {}),
      ...(opts.grep ? { grep: opts.grep } : {}),
      modes: this.pty.modes(),
      memory: this.refMemory(),
    });
    const previous = this.lastScreen;
    this.lastScreen = screen;
    this.lastRefs = snap.refs;
    this.nextRef = nextRefNumber(snap.refs, this.nextRef);
    const refs = snap.refs.map((r) => ({ ref: r.ref, kind: r.kind, label: r.label, row: r.rect.row, col: r.rect.col }));
    if (opts.diff && previous) {
      const d = diffScreens(previous, screen, { ...(opts.maxBytes ? { maxBytes: opts.maxBytes } : {}), refs: snap.refs });
      return { text: d.text, bytes: d.bytes, truncated: d.truncated, refs };
    }
    return { text: snap.text, bytes: snap.bytes, truncated: snap.truncated, refs };
  }

  async screenshotPng(opts: { hide?: (screenText: string) => readonly { from: number; to: number }[] } = {}): Promise<Buffer> {
    await this.pty.flush();
    const grid = this.pty.cells();
    return renderCellsPng(opts.hide ? maskCells(grid, opts.hide) : grid);
  }

  async screen(): Promise<{ lines: string[]; cursor: { row: number; col: number; visible: boolean } }> {
    await this.pty.flush();
    const s = this.pty.screen();
    return { lines: s.lines, cursor: s.cursor };
  }

  async resolve(target: TerminalTargetSpec): Promise<TerminalResolved> {
    await this.pty.flush();
    const screen = this.pty.screen();
    // Refs come from the last snapshot; text targets are found on the screen as it is now.
    const refs = 'ref' in target ? this.lastRefs : findRefs(screen, this.refMemory());
    const r = resolveTarget(screen, refs, target);
    return { row: r.row, col: r.col, label: r.label, ...(r.ref ? { ref: r.ref.ref } : {}) };
  }

  private async timed(action: () => void | Promise<void>): Promise<TerminalActionTiming> {
    const at = Date.now();
    const t = await this.pty.timeAction(action);
    this.actions.push({ at, latencyMs: t.latencyMs });
    if (this.actions.length > ACTION_LOG_MAX) this.actions.shift();
    return { latencyMs: t.latencyMs, settled: t.settled, bytesOut: t.bytesOut, frames: t.frames };
  }

  type(text: string): Promise<TerminalActionTiming> {
    return this.timed(() => this.pty.type(text));
  }

  paste(text: string): Promise<TerminalActionTiming> {
    return this.timed(() => this.pty.paste(text));
  }

  pressKey(key: string, modifiers: readonly Modifier[], repeat: number): Promise<TerminalActionTiming> {
    return this.timed(() => this.pty.pressKey(key, modifiers, { repeat }));
  }

  click(row: number, col: number, opts: { button?: MouseButton; clickCount?: number }): Promise<TerminalActionTiming> {
    return this.timed(() => this.pty.click(row, col, opts));
  }

  hover(row: number, col: number): Promise<TerminalActionTiming> {
    return this.timed(() => this.pty.hover(row, col));
  }

  scroll(row: number, col: number, notches: number): Promise<TerminalActionTiming> {
    return this.timed(() => this.pty.scroll(row, col, notches));
  }

  async waitFor(opts: { text?: string; textGone?: string; idleMs?: number; timeoutMs: number }): Promise<void> {
    if (opts.text !== undefined || opts.textGone !== undefined) {
      await this.pty.waitFor({
        ...(opts.text !== undefined ? { text: opts.text } : {}),
        ...(opts.textGone !== undefined ? { textGone: opts.textGone } : {}),
        timeoutMs: opts.timeoutMs,
      });
    }
    if (opts.idleMs !== undefined) await this.pty.waitIdle({ idleMs: opts.idleMs, timeoutMs: opts.timeoutMs });
  }

  resize(cols: number, rows: number): Promise<void> {
    return this.pty.resize(cols, rows);
  }

  async signal(name: string): Promise<void> {
    this.pty.signal(name);
  }

  readOutput(): { text: string; droppedChars: number } {
    return this.pty.readOutput();
  }

  async begin(opts: PerfBeginOptions): Promise<PerfRecorder> {
    checkBeginOptions(opts);
    return TerminalRecorder.begin(this, opts);
  }
}

/**
 * A measured window on a terminal: counters and the process tree's usage read at both ends, and a
 * recording of the window (asciicast events: the screen at the start, then output and input).
 */
class TerminalRecorder implements PerfRecorder {
  private readonly marks: SessionMark[] = [];
  readonly token = `ps-${randomBytes(4).toString('hex')}`;
  startedAt = Date.now();
  private stopRecording: (() => void) | undefined;

  private constructor(
    private readonly driver: PtyTerminalDriver,
    private readonly opts: PerfBeginOptions,
    private readonly before: { frames: number; bytesOut: number; cpuMs: number | undefined },
    private readonly cast: { log: CastLog; width: number; height: number; env: { TERM: string; SHELL: string } },
  ) {
    const pty = driver.pty;
    const offOutput = pty.onOutput((text, atMs) => cast.log.push('o', text, atMs));
    const offInput = pty.onInput((data, atMs) => cast.log.push('i', data, atMs));
    this.stopRecording = () => {
      offOutput();
      offInput();
    };
  }

  static async begin(driver: PtyTerminalDriver, opts: PerfBeginOptions): Promise<TerminalRecorder> {
    if (driver.crashReason) throw new PerfError({ code: 'page_crashed', kind: 'environment', message: driver.crashReason });
    await driver.pty.flush();
    const c = driver.pty.counters();
    driver.pty.resetPeakRss();
    const usage = safeUsage(driver);
    // The screen and the clock are read together, with nothing awaited in between: the first
    // event repaints exactly the state every later output chunk was drawn on.
    const screen = driver.pty.screen();
    const t0Ms = performance.now();
    const log = new CastLog(t0Ms);
    log.push('o', screenAsOutput(screen), t0Ms);
    const cast = { log, width: screen.cols, height: screen.rows, env: driver.pty.spawnEnv };
    return new TerminalRecorder(driver, opts, { frames: c.frames, bytesOut: c.bytesOut, cpuMs: usage?.cpuMs }, cast);
  }

  get mode(): PerfMode {
    return this.opts.mode;
  }

  addMark(mark: SessionMark): void {
    this.marks.push(mark);
  }

  async end(): Promise<RawSession> {
    await this.driver.pty.flush();
    // What arrived up to here is the window's; the clock read with it bounds every event time.
    this.stopRecording?.();
    this.stopRecording = undefined;
    const castEndS = this.cast.log.secondsTo(performance.now());
    const usage = safeUsage(this.driver);
    const endedAt = Date.now();
    const c = this.driver.pty.counters();
    const latenciesMs = this.driver.actions.filter((a) => a.at >= this.startedAt && a.latencyMs !== undefined).map((a) => a.latencyMs!);
    const na = 'a terminal has no';
    return sessionWithout({
      token: this.token,
      mode: this.opts.mode,
      phases: this.opts.phases,
      startedAt: this.startedAt,
      endedAt,
      durationMs: endedAt - this.startedAt,
      marks: this.marks,
      terminal: { frames: c.frames - this.before.frames, bytesOut: c.bytesOut - this.before.bytesOut, latenciesMs },
      cast: {
        width: this.cast.width,
        height: this.cast.height,
        events: this.cast.log.events,
        durationS: castEndS,
        env: this.cast.env,
        ...(this.cast.log.cut ? { cut: { ...this.cast.log.cut } } : {}),
      },
      ...(usage && this.before.cpuMs !== undefined
        ? { process: { cpuMs: Math.max(0, usage.cpuMs - this.before.cpuMs), maxRssBytes: usage.maxRssBytes } }
        : {}),
      missing: {
        trace: `${na} Chromium trace`,
        counters: `${na} Performance counters`,
        interactions: `${na} Event Timing: see terminal.latencyMs`,
        longFrames: `${na} Long Animation Frames`,
        layoutShift: `${na} layout shifts`,
        memory: 'no heap over a terminal: see process.maxRssBytes',
        ...(usage ? {} : { process: "the program's processes could not be read from /proc" }),
        // In either mode: a timing window's insights then know a profile cannot be had here, not just that none was asked.
        profile: `${na} CPU profile`,
      },
      env: {
        browser: 'terminal',
        userAgent: '',
        headless: true,
        viewport: { width: this.driver.size.cols, height: this.driver.size.rows, dpr: 1, mobile: false },
        cpuThrottle: 1,
        cpuThrottleSource: 'default',
        url: '',
      },
    });
  }

  async dispose(): Promise<void> {
    // Nothing was switched on in the program (counters are read, not started): only our listeners to drop.
    this.stopRecording?.();
    this.stopRecording = undefined;
  }
}

function safeUsage(driver: PtyTerminalDriver): { cpuMs: number; maxRssBytes: number } | undefined {
  try {
    return driver.pty.usage();
  } catch {
    return undefined;
  }
}
