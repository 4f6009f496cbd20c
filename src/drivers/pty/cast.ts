/**
 * A measured window's terminal recording, as asciicast v2 events (perf_trace writes them to a .cast
 * file, `perf replay` plays one back): the screen as it was when the window opened, then every
 * output chunk and every input write with its time, bounded.
 *
 * The window opens in the middle of a program's life (vim already on the alternate screen, a prompt
 * already drawn): a recording of the output alone would replay as stray redraws on an empty screen.
 * So the first event repaints the screen model's state at that moment (text, colours, cursor).
 */
import { isUtf8 } from 'node:buffer';
import type { CellStyle, Screen, TerminalColor } from './screen.js';

/**
 * 4 MiB of event text: a full-colour redraw of a 100×30 screen is 5–20 KB, so this holds a few
 * hundred of them, minutes of editing; and a closed session stays in an MCP host's memory until the
 * next one replaces it.
 */
export const CAST_MAX_BYTES = 4 * 1024 * 1024;

export type CastEvent = [seconds: number, code: 'o' | 'i', data: string];

export interface CastCut {
  atS: number;
  maxBytes: number;
  droppedEvents: number;
  droppedBytes: number;
}

/** Events since `t0Ms` (performance.now()), up to `maxBytes` of data; past it, nothing more. */
export class CastLog {
  readonly events: CastEvent[] = [];
  private bytes = 0;
  private cutAt: CastCut | undefined;

  constructor(
    private readonly t0Ms: number,
    private readonly maxBytes = CAST_MAX_BYTES,
  ) {}

  push(code: 'o' | 'i', data: string | Buffer, atMs: number): void {
    // X10 mouse reports carry coordinate bytes above 127 that are not UTF-8: kept byte for byte.
    const text = typeof data === 'string' ? data : data.toString(isUtf8(data) ? 'utf8' : 'latin1');
    const size = Buffer.byteLength(text);
    const atS = secondsSince(this.t0Ms, atMs);
    // Once cut, always cut: a later chunk drawn on a screen the player never saw would replay wrong.
    if (this.cutAt || this.bytes + size > this.maxBytes) {
      this.cutAt ??= { atS, maxBytes: this.maxBytes, droppedEvents: 0, droppedBytes: 0 };
      this.cutAt.droppedEvents++;
      this.cutAt.droppedBytes += size;
      return;
    }
    this.bytes += size;
    this.events.push([atS, code, text]);
  }

  get cut(): CastCut | undefined {
    return this.cutAt;
  }

  /** Seconds from the log's start to `atMs` (performance.now()), on the events' clock. */
  secondsTo(atMs: number): number {
    return secondsSince(this.t0Ms, atMs);
  }
}

function secondsSince(t0Ms: number, atMs: number): number {
  // Microseconds, as asciinema writes them: finer is noise, coarser could reorder close chunks.
  return Math.round(Math.max(0, atMs - t0Ms) * 1000) / 1e6;
}

/**
 * Output that paints `screen` on a terminal of its size: the alternate screen when the program was
 * on it, every row with its colours and attributes, then the cursor where it was (and hidden if it was).
 */
export function screenAsOutput(screen: Screen): string {
  let out = (screen.alternate ? '\x1b[?1049h' : '') + '\x1b[0m\x1b[H\x1b[2J';
  for (let r = 0; r < screen.rows; r++) {
    const runs = screen.runs[r] ?? [];
    // Trailing blanks in the default style are what the clear already painted.
    let last = runs.length - 1;
    while (last >= 0 && isBlank(runs[last]!.text, runs[last]!.style)) last--;
    if (last < 0) continue;
    out += `\x1b[${r + 1};1H`;
    for (let i = 0; i <= last; i++) out += sgr(runs[i]!.style) + runs[i]!.text;
    out += '\x1b[0m';
  }
  return out + `\x1b[${screen.cursor.row + 1};${screen.cursor.col + 1}H` + (screen.cursor.visible ? '' : '\x1b[?25l');
}

function isBlank(text: string, s: CellStyle): boolean {
  return text.trim() === '' && s.bg === 'default' && !s.inverse && !s.underline && !s.strikethrough;
}

/** The SGR sequence for a style, from a reset: runs are painted independently. */
function sgr(s: CellStyle): string {
  const p = ['0'];
  if (s.bold) p.push('1');
  if (s.dim) p.push('2');
  if (s.italic) p.push('3');
  if (s.underline) p.push('4');
  if (s.inverse) p.push('7');
  if (s.invisible) p.push('8');
  if (s.strikethrough) p.push('9');
  p.push(...colour(s.fg, 30), ...colour(s.bg, 40));
  return `\x1b[${p.join(';')}m`;
}

/** SGR parameters of a colour: base 30 for the foreground, 40 for the background. */
function colour(c: TerminalColor, base: 30 | 40): string[] {
  if (c === 'default') return [];
  if (typeof c === 'number') {
    if (c < 8) return [String(base + c)];
    if (c < 16) return [String(base + 60 + c - 8)];
    return [`${base + 8};5;${c}`];
  }
  const n = Number.parseInt(c.slice(1), 16);
  return [`${base + 8};2;${(n >> 16) & 255};${(n >> 8) & 255};${n & 255}`];
}
