/**
 * A terminal screen as a PNG, drawn from the screen model the way a terminal would: one 8×16 cell
 * per character in Terminus (a bitmap font under the SIL Open Font License, from the `bdf-fonts`
 * package: ASCII and Latin-1), xterm's 256-colour palette, bold, dim, underline, reverse video and
 * the cursor. Box drawing, block elements and Braille are drawn as shapes, as xterm.js and kitty do,
 * since TUIs are built of them; any other character shows as an outlined box of its width.
 */
import type { Terminal } from '@xterm/headless';
import terminus from 'bdf-fonts/fonts/Terminus/16.js';
import terminusBold from 'bdf-fonts/fonts/Terminus/16-b.js';
import { encodeRgbPng } from '../png.js';
import { styleOf, type CellStyle, type TerminalColor } from './screen.js';

// Terminus 16's cell: 8 px wide, 16 px high, the baseline 4 px above the bottom.
const CELL_W = 8;
const CELL_H = 16;
const BASELINE = 12;
// xterm's defaults: light grey on black.
const DEFAULT_FG = 0xe5e5e5;
const DEFAULT_BG = 0x000000;
// xterm's 16 base colours (its XTerm-col.ad defaults), then the 6×6×6 cube and 24 greys computed.
const BASE16 = [
  0x000000, 0xcd0000, 0x00cd00, 0xcdcd00, 0x0000ee, 0xcd00cd, 0x00cdcd, 0xe5e5e5, 0x7f7f7f, 0xff0000, 0x00ff00, 0xffff00, 0x5c5cff,
  0xff00ff, 0x00ffff, 0xffffff,
];
const CUBE_LEVELS = [0, 95, 135, 175, 215, 255];

export interface Cell {
  /** The character(s) of the cell; '' or ' ' for a blank. */
  chars: string;
  /** 1, or 2 for a wide character (its second cell is not listed). */
  width: number;
  style: CellStyle;
}

export interface CellGrid {
  cols: number;
  rows: number;
  /** Per row, [column, cell] for each cell that starts a character. */
  cells: [number, Cell][][];
  cursor: { row: number; col: number; visible: boolean };
  /** Per row, whether it continues the row above (the terminal wrapped a line too long for it). */
  wrapped?: boolean[];
}

export function paletteRgb(index: number): number {
  if (index < 16) return BASE16[index]!;
  if (index < 232) {
    const i = index - 16;
    return (CUBE_LEVELS[Math.floor(i / 36)]! << 16) | (CUBE_LEVELS[Math.floor(i / 6) % 6]! << 8) | CUBE_LEVELS[i % 6]!;
  }
  const grey = 8 + (index - 232) * 10;
  return (grey << 16) | (grey << 8) | grey;
}

function rgbOf(c: TerminalColor, fallback: number): number {
  if (c === 'default') return fallback;
  if (typeof c === 'number') return paletteRgb(c);
  return parseInt(c.slice(1), 16);
}

function blend(a: number, b: number): number {
  const mix = (shift: number): number => Math.round((((a >> shift) & 0xff) + ((b >> shift) & 0xff)) / 2) << shift;
  return mix(16) | mix(8) | mix(0);
}

/** Read every cell of the live screen (the renderer's input). */
export function readCells(term: Terminal, cursorVisible: boolean): CellGrid {
  const buf = term.buffer.active;
  const cell = buf.getNullCell();
  const cells: [number, Cell][][] = [];
  const wrapped: boolean[] = [];
  for (let r = 0; r < term.rows; r++) {
    const line = buf.getLine(buf.baseY + r);
    wrapped.push(line?.isWrapped === true);
    const row: [number, Cell][] = [];
    for (let c = 0; c < term.cols; c++) {
      const got = line?.getCell(c, cell);
      if (!got || got.getWidth() === 0) continue;
      row.push([c, { chars: got.getChars(), width: got.getWidth(), style: styleOf(got) }]);
    }
    cells.push(row);
  }
  const cursor = { row: buf.cursorY, col: Math.min(buf.cursorX, term.cols - 1), visible: cursorVisible };
  return { cols: term.cols, rows: term.rows, cells, wrapped, cursor };
}

/**
 * The grid with some characters drawn as '*' in their own style, one per cell: `hide` gets the screen
 * as text (rows joined by line breaks; a row the terminal wrapped joins the next without one, so a
 * value wrapped across rows is one run) and returns the spans of it to mask.
 */
export function maskCells(grid: CellGrid, hide: (text: string) => readonly { from: number; to: number }[]): CellGrid {
  let text = '';
  // For each UTF-16 unit of the text: [row, index of the cell in the row], or undefined for a line break.
  const owner: ([number, number] | undefined)[] = [];
  grid.cells.forEach((row, r) => {
    if (r > 0 && !grid.wrapped?.[r]) {
      text += '\n';
      owner.push(undefined);
    }
    row.forEach(([, cell], k) => {
      const chars = cell.chars === '' ? ' ' : cell.chars;
      text += chars;
      for (let i = 0; i < chars.length; i++) owner.push([r, k]);
    });
  });
  const masked = new Set<string>();
  for (const { from, to } of hide(text)) {
    for (let i = from; i < to; i++) {
      const o = owner[i];
      if (o) masked.add(`${o[0]},${o[1]}`);
    }
  }
  if (masked.size === 0) return grid;
  // A wide character's two cells become two stars: the row keeps its layout.
  const stars = (col: number, cell: Cell): [number, Cell][] =>
    Array.from({ length: cell.width }, (_, i) => [col + i, { chars: '*', width: 1, style: cell.style }]);
  const cells = grid.cells.map((row, r) =>
    row.flatMap(([col, cell], k): [number, Cell][] => (masked.has(`${r},${k}`) ? stars(col, cell) : [[col, cell]])),
  );
  return { ...grid, cells };
}

class Canvas {
  readonly rgb: Uint8Array;
  constructor(
    readonly width: number,
    readonly height: number,
  ) {
    this.rgb = new Uint8Array(width * height * 3);
  }
  fill(x: number, y: number, w: number, h: number, color: number): void {
    for (let yy = Math.max(0, y); yy < Math.min(this.height, y + h); yy++) {
      for (let xx = Math.max(0, x); xx < Math.min(this.width, x + w); xx++) this.set(xx, yy, color);
    }
  }
  set(x: number, y: number, color: number): void {
    const i = (y * this.width + x) * 3;
    this.rgb[i] = (color >> 16) & 0xff;
    this.rgb[i + 1] = (color >> 8) & 0xff;
    this.rgb[i + 2] = color & 0xff;
  }
}

/** Line weights of a box-drawing character: [left, right, up, down], 1 light, 2 heavy, 3 double. */
const BOX: Record<number, [number, number, number, number]> = {};
function box(chars: string, l: number, r: number, u: number, d: number): void {
  for (const ch of chars) BOX[ch.codePointAt(0)!] = [l, r, u, d];
}
box('─┄┈╌', 1, 1, 0, 0);
box('━┅┉╍', 2, 2, 0, 0);
box('│┆┊╎', 0, 0, 1, 1);
box('┃┇┋╏', 0, 0, 2, 2);
box('┌╭', 0, 1, 0, 1);
box('┐╮', 1, 0, 0, 1);
box('└╰', 0, 1, 1, 0);
box('┘╯', 1, 0, 1, 0);
box('├', 0, 1, 1, 1);
box('┤', 1, 0, 1, 1);
box('┬', 1, 1, 0, 1);
box('┴', 1, 1, 1, 0);
box('┼', 1, 1, 1, 1);
box('┏', 0, 2, 0, 2);
box('┓', 2, 0, 0, 2);
box('┗', 0, 2, 2, 0);
box('┛', 2, 0, 2, 0);
box('┣', 0, 2, 2, 2);
box('┫', 2, 0, 2, 2);
box('┳', 2, 2, 0, 2);
box('┻', 2, 2, 2, 0);
box('╋', 2, 2, 2, 2);
box('═', 3, 3, 0, 0);
box('║', 0, 0, 3, 3);
box('╔', 0, 3, 0, 3);
box('╗', 3, 0, 0, 3);
box('╚', 0, 3, 3, 0);
box('╝', 3, 0, 3, 0);
box('╠', 0, 3, 3, 3);
box('╣', 3, 0, 3, 3);
box('╦', 3, 3, 0, 3);
box('╩', 3, 3, 3, 0);
box('╬', 3, 3, 3, 3);
box('╴', 1, 0, 0, 0);
box('╵', 0, 0, 1, 0);
box('╶', 0, 1, 0, 0);
box('╷', 0, 0, 0, 1);

function drawBox(cv: Canvas, x: number, y: number, [l, r, u, d]: [number, number, number, number], fg: number): void {
  const cx = x + CELL_W / 2 - 1;
  const cy = y + CELL_H / 2 - 1;
  // A segment from the centre to one edge: light is 1 px, heavy 2 px, double two 1-px lines 2 px apart.
  const horizontal = (from: number, to: number, weight: number): void => {
    if (weight === 3) {
      cv.fill(from, cy - 1, to - from, 1, fg);
      cv.fill(from, cy + 1, to - from, 1, fg);
    } else if (weight > 0) cv.fill(from, cy, to - from, weight, fg);
  };
  const vertical = (from: number, to: number, weight: number): void => {
    if (weight === 3) {
      cv.fill(cx - 1, from, 1, to - from, fg);
      cv.fill(cx + 1, from, 1, to - from, fg);
    } else if (weight > 0) cv.fill(cx, from, weight, to - from, fg);
  };
  horizontal(x, cx + 2, l);
  horizontal(cx, x + CELL_W, r);
  vertical(y, cy + 2, u);
  vertical(cy, y + CELL_H, d);
}

/** Block elements U+2580–U+259F: halves, eighths, shades and quadrants. */
function drawBlock(cv: Canvas, x: number, y: number, cp: number, fg: number, bg: number): boolean {
  const eighthH = CELL_H / 8;
  const eighthW = CELL_W / 8;
  if (cp === 0x2580) cv.fill(x, y, CELL_W, CELL_H / 2, fg);
  else if (cp >= 0x2581 && cp <= 0x2588) {
    const h = (cp - 0x2580) * eighthH;
    cv.fill(x, y + CELL_H - h, CELL_W, h, fg);
  } else if (cp >= 0x2589 && cp <= 0x258f) cv.fill(x, y, (0x2590 - cp) * eighthW, CELL_H, fg);
  else if (cp === 0x2590) cv.fill(x + CELL_W / 2, y, CELL_W / 2, CELL_H, fg);
  else if (cp >= 0x2591 && cp <= 0x2593) {
    // Light, medium and dark shade: 1, 2 or 3 pixels of every 4 in fg.
    const on = cp - 0x2590;
    for (let yy = 0; yy < CELL_H; yy++)
      for (let xx = 0; xx < CELL_W; xx++) cv.set(x + xx, y + yy, ((xx % 2) + 2 * (yy % 2) + (yy % 4 >= 2 ? 1 : 0)) % 4 < on ? fg : bg);
  } else if (cp === 0x2594) cv.fill(x, y, CELL_W, eighthH, fg);
  else if (cp === 0x2595) cv.fill(x + CELL_W - eighthW, y, eighthW, CELL_H, fg);
  else if (cp >= 0x2596 && cp <= 0x259f) {
    // Quadrants, as bits upper-left, upper-right, lower-left, lower-right.
    const bits = [0b0010, 0b0001, 0b1000, 0b1011, 0b1001, 0b1110, 0b1101, 0b0100, 0b0110, 0b0111][cp - 0x2596]!;
    const w = CELL_W / 2;
    const h = CELL_H / 2;
    if (bits & 0b1000) cv.fill(x, y, w, h, fg);
    if (bits & 0b0100) cv.fill(x + w, y, w, h, fg);
    if (bits & 0b0010) cv.fill(x, y + h, w, h, fg);
    if (bits & 0b0001) cv.fill(x + w, y + h, w, h, fg);
  } else return false;
  return true;
}

/** Braille U+2800–U+28FF: dots 1–3 and 7 down the left, 4–6 and 8 down the right (Unicode's bit order). */
function drawBraille(cv: Canvas, x: number, y: number, cp: number, fg: number): void {
  const bits = cp - 0x2800;
  const dots: [number, number][] = [
    [0, 0],
    [0, 1],
    [0, 2],
    [1, 0],
    [1, 1],
    [1, 2],
    [0, 3],
    [1, 3],
  ];
  dots.forEach(([dx, dy], i) => {
    if (bits & (1 << i)) cv.fill(x + 1 + dx * 4, y + 1 + dy * 4, 2, 2, fg);
  });
}

function drawGlyph(cv: Canvas, x: number, y: number, cp: number, bold: boolean, fg: number): boolean {
  const index = cp >= 0x20 && cp <= 0x7e ? cp - 0x20 : cp >= 0xa1 && cp <= 0xff ? cp - 0xa1 + 95 : cp === 0xa0 ? 0 : -1;
  const glyph = (bold ? terminusBold : terminus)[index];
  if (!glyph) return false;
  const top = y + BASELINE - (glyph.BBoy + glyph.BBh);
  glyph.BITMAP.forEach((bits, row) => {
    for (let b = 0; b < glyph.BITS; b++) if (bits & (1 << (glyph.BITS - 1 - b))) cv.set(x + glyph.BBox + b, top + row, fg);
  });
  return true;
}

/** Render the cells as an RGB PNG of cols×8 by rows×16 pixels. */
export function renderCellsPng(grid: CellGrid): Buffer {
  const cv = new Canvas(grid.cols * CELL_W, grid.rows * CELL_H);
  cv.fill(0, 0, cv.width, cv.height, DEFAULT_BG);
  grid.cells.forEach((row, r) => {
    for (const [c, cell] of row) {
      const s = cell.style;
      // Bold brightens the 8 base colours, as xterm's boldColors (on by default) does: dialog's 3-D frames rely on it.
      let fg = rgbOf(s.bold && typeof s.fg === 'number' && s.fg < 8 ? s.fg + 8 : s.fg, DEFAULT_FG);
      let bg = rgbOf(s.bg, DEFAULT_BG);
      const onCursor = grid.cursor.visible && grid.cursor.row === r && grid.cursor.col === c;
      if (s.inverse !== onCursor) [fg, bg] = [bg, fg];
      if (s.dim) fg = blend(fg, bg);
      if (s.invisible) fg = bg;
      const x = c * CELL_W;
      const y = r * CELL_H;
      const w = cell.width * CELL_W;
      cv.fill(x, y, w, CELL_H, bg);
      const cp = cell.chars.codePointAt(0) ?? 0x20;
      if (cp !== 0x20) {
        const shape = BOX[cp];
        if (shape) drawBox(cv, x, y, shape, fg);
        else if (cp >= 0x2800 && cp <= 0x28ff) drawBraille(cv, x, y, cp, fg);
        else if (!drawBlock(cv, x, y, cp, fg, bg) && !drawGlyph(cv, x, y, cp, s.bold, fg)) {
          // No glyph: an outlined box the character's width, so the layout still reads.
          cv.fill(x + 1, y + 2, w - 2, 1, fg);
          cv.fill(x + 1, y + CELL_H - 3, w - 2, 1, fg);
          cv.fill(x + 1, y + 2, 1, CELL_H - 4, fg);
          cv.fill(x + w - 2, y + 2, 1, CELL_H - 4, fg);
        }
      }
      if (s.underline) cv.fill(x, y + CELL_H - 2, w, 1, fg);
      if (s.strikethrough) cv.fill(x, y + CELL_H / 2, w, 1, fg);
    }
  });
  return encodeRgbPng(cv.width, cv.height, cv.rgb);
}
