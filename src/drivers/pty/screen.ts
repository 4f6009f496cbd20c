/**
 * The screen model as plain data: what `@xterm/headless` holds after parsing the program's output,
 * read into lines, style runs, the cursor and the terminal modes. Everything above this file (the
 * snapshot renderer, targets, waits) works on these types and never on xterm's objects, so it stays
 * pure and testable with a hand-made screen.
 *
 * Rows and columns count from 0 everywhere, as in xterm's buffer and `tput cup`; the mouse encoders
 * add the 1 the wire format wants.
 */
import type { IBufferCell, Terminal } from '@xterm/headless';
import type { InputModes, MouseEncoding, MouseTracking } from './keys.js';

/** `default`, a palette index 0–255, or a true colour `#rrggbb`. */
export type TerminalColor = 'default' | number | `#${string}`;

export interface CellStyle {
  fg: TerminalColor;
  bg: TerminalColor;
  bold: boolean;
  dim: boolean;
  italic: boolean;
  underline: boolean;
  /** Reverse video (SGR 7): how most programs draw a selection. */
  inverse: boolean;
  invisible: boolean;
  strikethrough: boolean;
}

/** Consecutive cells of one row with the same style. */
export interface StyleRun {
  col: number;
  /** Cells covered (a wide character covers two). */
  width: number;
  text: string;
  style: CellStyle;
}

export interface CursorState {
  row: number;
  col: number;
  /** DECTCEM (`CSI ? 25 l` hides it): programs hide it while a menu has the focus. */
  visible: boolean;
}

export interface Screen {
  cols: number;
  rows: number;
  /** One string per row, trailing spaces trimmed. */
  lines: string[];
  /** Style runs per row, covering every cell, trailing blanks included (a highlight bar's padding counts). */
  runs: StyleRun[][];
  /**
   * Per row, the cell column of each UTF-16 index of `lines[row]`, only for rows where they differ
   * (wide or combining characters); null where index and column are the same.
   */
  colOf: (number[] | null)[];
  cursor: CursorState;
  /** The alternate screen (full-screen programs: vim, less, dialog) rather than the normal one with scrollback. */
  alternate: boolean;
  /** The window title the program set (OSC 0/2), or empty. */
  title: string;
}

export interface TerminalModes extends InputModes {
  applicationKeypad: boolean;
  /** Focus in/out reports (1004). */
  sendFocus: boolean;
  /** Synchronized output (2026): the program brackets each frame. */
  synchronizedOutput: boolean;
  cursorVisible: boolean;
  alternate: boolean;
}

/** The cell column of index `i` of a screen line. */
export function columnOf(screen: Screen, row: number, i: number): number {
  const map = screen.colOf[row];
  if (!map) return i;
  return i < map.length ? map[i]! : (map[map.length - 1] ?? -1) + 1 + (i - map.length);
}

function color(mode: 'fg' | 'bg', cell: IBufferCell): TerminalColor {
  const isDefault = mode === 'fg' ? cell.isFgDefault() : cell.isBgDefault();
  if (isDefault) return 'default';
  const value = mode === 'fg' ? cell.getFgColor() : cell.getBgColor();
  const rgb = mode === 'fg' ? cell.isFgRGB() : cell.isBgRGB();
  return rgb ? `#${value.toString(16).padStart(6, '0')}` : value;
}

export function styleOf(cell: IBufferCell): CellStyle {
  return {
    fg: color('fg', cell),
    bg: color('bg', cell),
    bold: cell.isBold() !== 0,
    dim: cell.isDim() !== 0,
    italic: cell.isItalic() !== 0,
    underline: cell.isUnderline() !== 0,
    inverse: cell.isInverse() !== 0,
    invisible: cell.isInvisible() !== 0,
    strikethrough: cell.isStrikethrough() !== 0,
  };
}

export function sameStyle(a: CellStyle, b: CellStyle): boolean {
  return (
    a.fg === b.fg &&
    a.bg === b.bg &&
    a.bold === b.bold &&
    a.dim === b.dim &&
    a.italic === b.italic &&
    a.underline === b.underline &&
    a.inverse === b.inverse &&
    a.invisible === b.invisible &&
    a.strikethrough === b.strikethrough
  );
}

/** Read the live screen (not the scrollback) of an xterm into plain data. */
export function readScreen(term: Terminal, extra: { cursorVisible: boolean; title: string }): Screen {
  const buf = term.buffer.active;
  const cols = term.cols;
  const rows = term.rows;
  const lines: string[] = [];
  const runs: StyleRun[][] = [];
  const colOf: (number[] | null)[] = [];
  const cell = buf.getNullCell();
  for (let r = 0; r < rows; r++) {
    const line = buf.getLine(buf.baseY + r);
    let text = '';
    const map: number[] = [];
    let identity = true;
    const rowRuns: StyleRun[] = [];
    let run: StyleRun | undefined;
    for (let c = 0; c < cols; c++) {
      const got = line?.getCell(c, cell);
      if (!got) {
        map.push(c);
        text += ' ';
        continue;
      }
      const width = got.getWidth();
      // The second half of a wide character: its text and style belong to the cell before.
      if (width === 0) {
        identity = false;
        if (run) run.width++;
        continue;
      }
      const chars = got.getChars() || ' ';
      for (let k = 0; k < chars.length; k++) map.push(c);
      if (chars.length !== 1) identity = false;
      text += chars;
      const style = styleOf(got);
      if (run && sameStyle(run.style, style)) {
        run.width += 1;
        run.text += chars;
      } else {
        run = { col: c, width: 1, text: chars, style };
        rowRuns.push(run);
      }
    }
    const trimmed = text.replace(/ +$/, '');
    lines.push(trimmed);
    runs.push(rowRuns);
    colOf.push(identity ? null : map.slice(0, trimmed.length));
  }
  return {
    cols,
    rows,
    lines,
    runs,
    colOf,
    cursor: { row: buf.cursorY, col: Math.min(buf.cursorX, cols - 1), visible: extra.cursorVisible },
    alternate: buf.type === 'alternate',
    title: extra.title,
  };
}

/** Lines above the live screen (normal buffer only; full-screen programs have none), oldest first. */
export function readScrollback(term: Terminal, maxLines: number): string[] {
  const buf = term.buffer.normal;
  const out: string[] = [];
  for (let y = Math.max(0, buf.baseY - maxLines); y < buf.baseY; y++) out.push(buf.getLine(y)?.translateToString(true) ?? '');
  return out;
}

/**
 * What xterm.js keeps to itself but a driver needs: cursor visibility and the mouse encoding (its
 * public `modes` has the tracking mode only). Hooks on DECSET/DECRST that return false, so xterm's
 * own handling still runs after them; a full reset (RIS) and a soft reset (DECSTR) reset them too.
 */
export class ModeTracker {
  cursorVisible = true;
  mouseEncoding: MouseEncoding = 'default';
  title = '';

  constructor(term: Terminal) {
    const set =
      (on: boolean) =>
      (params: (number | number[])[]): boolean => {
        for (const p of params) {
          const n = typeof p === 'number' ? p : p[0];
          if (n === 25) this.cursorVisible = on;
          // xterm itself parses only SGR (1006, and 1016 in pixels, which we send as cells); 1005 and
          // 1015 are tracked so a program that asks for them still gets what it can decode.
          else if (n === 1006 || n === 1016) this.mouseEncoding = on ? 'sgr' : 'default';
          else if (n === 1015) this.mouseEncoding = on ? 'urxvt' : 'default';
          else if (n === 1005) this.mouseEncoding = on ? 'utf8' : 'default';
        }
        return false;
      };
    const reset = (): boolean => {
      this.cursorVisible = true;
      this.mouseEncoding = 'default';
      return false;
    };
    term.parser.registerCsiHandler({ prefix: '?', final: 'h' }, set(true));
    term.parser.registerCsiHandler({ prefix: '?', final: 'l' }, set(false));
    term.parser.registerCsiHandler({ intermediates: '!', final: 'p' }, reset);
    term.parser.registerEscHandler({ final: 'c' }, reset);
    term.onTitleChange((t) => {
      this.title = t;
    });
  }

  modes(term: Terminal): TerminalModes {
    const m = term.modes;
    const tracking: MouseTracking = m.mouseTrackingMode;
    return {
      applicationCursorKeys: m.applicationCursorKeysMode,
      applicationKeypad: m.applicationKeypadMode,
      bracketedPaste: m.bracketedPasteMode,
      mouseTracking: tracking,
      mouseEncoding: this.mouseEncoding,
      sendFocus: m.sendFocusMode,
      synchronizedOutput: m.synchronizedOutputMode,
      cursorVisible: this.cursorVisible,
      alternate: term.buffer.active.type === 'alternate',
    };
  }
}
