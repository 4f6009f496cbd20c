/**
 * The terminal contract: what steps may do to a terminal program (src/drivers/pty implements it over
 * a pseudo-terminal and a screen model). Steps act on cells and read screen text; no pty or xterm
 * type in sight. Beside page-driver.ts for the same reason: a driver implements it without importing
 * a layer above.
 */
import type { Modifier, MouseButton } from './keys.js';
import type { PerfBeginOptions, PerfRecorder } from './measure.js';

/** A cell target: a ref from snap (t3), exact text, a case-insensitive substring, or a cell. */
export type TerminalTargetSpec = { ref: string } | { text: string } | { contains: string } | { row: number; col: number };

export interface TerminalResolved {
  row: number;
  col: number;
  label: string;
  ref?: string;
}

/** One input's cost: written → the screen settled (the quiet gap after the last byte). */
export interface TerminalActionTiming {
  /** Input written → last byte of the response; undefined when the program printed nothing. */
  latencyMs: number | undefined;
  settled: boolean;
  bytesOut: number;
  frames: number;
}

export interface TerminalSnapshot {
  text: string;
  bytes: number;
  truncated: boolean;
  refs: { ref: string; kind: string; label: string; row: number; col: number }[];
}

export interface TerminalDriver {
  readonly kind: 'terminal';
  /** Why the program is gone (it exited, or was killed), or undefined while it runs. */
  readonly crashReason: string | undefined;
  readonly size: { cols: number; rows: number };
  /**
   * The screen as text with refs on what can be acted on; `diff`: only the lines changed since the last snapshot; `within`: only a ref's
   * cells (from the last snapshot).
   */
  snapshot(opts: { maxBytes?: number; grep?: string; diff?: boolean; within?: string }): Promise<TerminalSnapshot>;
  /**
   * The screen drawn as a terminal shows it (font, colours, cursor), as PNG bytes. `hide` gets the
   * screen's text (rows joined by line breaks, wrapped rows joined) and returns spans drawn as '*'.
   */
  screenshotPng(opts?: { hide?: (screenText: string) => readonly { from: number; to: number }[] }): Promise<Buffer>;
  /** The screen's lines (trailing spaces trimmed) and the cursor. */
  screen(): Promise<{ lines: string[]; cursor: { row: number; col: number; visible: boolean } }>;
  /** Strict: several matches are an error listing them; a ref is looked up in the last snapshot. */
  resolve(target: TerminalTargetSpec): Promise<TerminalResolved>;
  type(text: string): Promise<TerminalActionTiming>;
  paste(text: string): Promise<TerminalActionTiming>;
  pressKey(key: string, modifiers: readonly Modifier[], repeat: number): Promise<TerminalActionTiming>;
  /** Through mouse reporting; PerfError mouse_not_supported when the program did not turn it on. */
  click(row: number, col: number, opts: { button?: MouseButton; clickCount?: number }): Promise<TerminalActionTiming>;
  hover(row: number, col: number): Promise<TerminalActionTiming>;
  scroll(row: number, col: number, notches: number): Promise<TerminalActionTiming>;
  waitFor(opts: { text?: string; textGone?: string; idleMs?: number; timeoutMs: number }): Promise<void>;
  resize(cols: number, rows: number): Promise<void>;
  signal(name: string): Promise<void>;
  /** The raw output since the last read, bounded. */
  readOutput(): { text: string; droppedChars: number };
  /** Open a measured window: screen updates, bytes out, input→settled latencies, the process tree's CPU and memory. */
  begin(opts: PerfBeginOptions): Promise<PerfRecorder>;
}
