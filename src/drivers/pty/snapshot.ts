/**
 * The screen as an agent reads it: text lines with row numbers and `[ref=tN]` on what a user can act
 * on, target resolution on those refs and on text or cells, and a diff of two screens. Pure: a Screen
 * in, text and refs out; nothing here talks to a program.
 *
 * A terminal has no element tree, so what is actionable is read from how TUIs draw it:
 * - a button is a short bracketed label: `< OK >`, `<Cancel>`, `[ Save ]`;
 * - a highlight is a run of reverse video, or a run whose background differs from one colour shared
 *   by the cells right above and below it (dialog and ncurses lists draw the selected line that way);
 * - list items are two or more consecutive rows of a box (between the same vertical borders, text
 *   starting at the same column) of which one is highlighted: a menu;
 * - a field is where the visible cursor is, from the end of a prompt (`Name? `, `$ `) to the line's
 *   end or the box border.
 * Refs are numbered top to bottom, left to right, per snapshot: `t` so they never clash with web `e`
 * refs. Rows and columns count from 0.
 */
import { closest, PerfError } from '../../errors.js';
import { columnOf, type CellStyle, type Screen, type TerminalModes } from './screen.js';

export type RefKind = 'button' | 'item' | 'selection' | 'field';

/** Cells on one row (refs span one row): `width` cells from `col`. */
export interface CellRect {
  row: number;
  col: number;
  width: number;
  height: number;
}

export interface TerminalRef {
  ref: string;
  kind: RefKind;
  /** What it says: a button's label, an item's text, a field's prompt. */
  label: string;
  rect: CellRect;
  /** Drawn highlighted: the current item or the default button. */
  selected: boolean;
  /** The visible cursor is inside it. */
  cursor: boolean;
  /** A field's current text. */
  value?: string;
}

export interface SnapshotOptions {
  /** Cap on the text in bytes; the last line says what was cut. */
  maxBytes?: number;
  /** Case-insensitive regex on row text and ref labels: only matching rows are shown. */
  grep?: string;
  /** Only this rectangle of the screen. */
  within?: CellRect;
  /** For the header: whether the mouse can be used. */
  modes?: Pick<TerminalModes, 'mouseTracking' | 'mouseEncoding'>;
  /** The refs of the last snapshot, so what is still on the screen keeps its name. */
  memory?: RefMemory;
}

/** The last snapshot's refs and the next free number: refs survive a redraw as they do on a page. */
export interface RefMemory {
  refs: readonly TerminalRef[];
  next: number;
}

interface Named {
  kind: string;
  label: string;
  row: number;
  col: number;
}

/**
 * Names for this screen's refs. Without memory, t1… in reading order. With it, a ref still there
 * keeps its name: the same kind and label at the same cell, else the same kind and label when both
 * screens have exactly one (a menu that scrolled, a dialog that moved); anything else is new and
 * gets the next number, so a name never comes back meaning something else.
 */
export function nameRefs(found: readonly Named[], memory: RefMemory | undefined): string[] {
  if (!memory) return found.map((_, i) => `t${i + 1}`);
  const names: (string | undefined)[] = found.map(() => undefined);
  const used = new Set<string>();
  const same = (r: TerminalRef, c: Named): boolean => !used.has(r.ref) && r.kind === c.kind && r.label === c.label;
  found.forEach((c, i) => {
    const prev = memory.refs.find((r) => same(r, c) && r.rect.row === c.row && r.rect.col === c.col);
    if (prev) {
      names[i] = prev.ref;
      used.add(prev.ref);
    }
  });
  found.forEach((c, i) => {
    if (names[i] !== undefined) return;
    const prev = memory.refs.filter((r) => same(r, c));
    const now = found.filter((d, j) => names[j] === undefined && d.kind === c.kind && d.label === c.label);
    if (prev.length === 1 && now.length === 1) {
      names[i] = prev[0]!.ref;
      used.add(prev[0]!.ref);
    }
  });
  let next = memory.next;
  return names.map((n) => n ?? `t${next++}`);
}

/** The next free ref number after these refs (and after every number handed out before). */
export function nextRefNumber(refs: readonly TerminalRef[], before: number): number {
  return refs.reduce((n, r) => Math.max(n, Number(r.ref.slice(1)) + 1), before);
}

export interface Snapshot {
  text: string;
  refs: TerminalRef[];
  bytes: number;
  truncated: boolean;
  /** Body lines before the cap, and how many were shown. */
  lines: number;
  shownLines: number;
}

// The web snapshot's default cap (src/page/snapshot.ts): a 100×30 screen with refs is ~4 KB.
export const DEFAULT_SNAPSHOT_BYTES = 16_384;
// Room kept under maxBytes for the truncation line.
const FOOTER_BYTES = 160;
// A bracketed label longer than this is prose in brackets, not a button.
const BUTTON_LABEL_MAX_CHARS = 24;
// Two highlight runs this close on one row are one selection (dialog colours a menu tag and its
// text, leaving the two spaces between them in the box colour).
const HIGHLIGHT_JOIN_GAP_CELLS = 2;
// A prompt's text kept as a field's label: enough to recognise "Enter your name:".
const FIELD_LABEL_MAX_CHARS = 40;
// Refs listed in an error, so the message stays one readable line.
const ERROR_CANDIDATES = 8;

/** Vertical box borders, as xterm renders the DEC line-drawing `x` and Unicode boxes. */
const BORDERS = new Set(['│', '┃', '║']);
const WORDISH = /[\p{L}\p{N}]/u;
const BUTTON_RE = /(?<![^\s│┃║])(<\s*([^<>\s](?:[^<>]*[^<>\s])?)\s*>|\[\s*([^[\]\s](?:[^[\]]*[^[\]\s])?)\s*\])(?![^\s│┃║])/gu;
const PROMPT_END_RE = /[?:>$#%❯»]\s+/u;

/** The background a cell shows: its foreground colour when reverse video swaps them. */
function effectiveBg(style: CellStyle): string {
  if (style.inverse) return style.fg === 'default' ? 'inverse-default' : `c${style.fg}`;
  return style.bg === 'default' ? 'default' : `c${style.bg}`;
}

interface Grid {
  /** Per row, per cell: effective background key. */
  bg: string[][];
  inverse: boolean[][];
  /** Per row, per cell: the characters drawn there ('' for the second half of a wide character). */
  chars: string[][];
}

function gridOf(screen: Screen): Grid {
  const bg: string[][] = [];
  const inverse: boolean[][] = [];
  const chars: string[][] = [];
  for (let r = 0; r < screen.rows; r++) {
    const rowBg = new Array<string>(screen.cols).fill('default');
    const rowInv = new Array<boolean>(screen.cols).fill(false);
    for (const run of screen.runs[r] ?? []) {
      const key = effectiveBg(run.style);
      for (let c = run.col; c < run.col + run.width && c < screen.cols; c++) {
        rowBg[c] = key;
        rowInv[c] = run.style.inverse;
      }
    }
    const rowChars = new Array<string>(screen.cols).fill(' ');
    const line = screen.lines[r] ?? '';
    let last = -1;
    for (let i = 0; i < line.length; i++) {
      const c = columnOf(screen, r, i);
      if (c < 0 || c >= screen.cols) continue;
      // A combining character joins its cell; a column skipped over is a wide character's second half.
      if (c === last) rowChars[c] += line[i]!;
      else {
        for (let k = last + 1; k < c; k++) rowChars[k] = '';
        rowChars[c] = line[i]!;
      }
      last = c;
    }
    bg.push(rowBg);
    inverse.push(rowInv);
    chars.push(rowChars);
  }
  return { bg, inverse, chars };
}

interface Span {
  row: number;
  col: number;
  /** Exclusive. */
  end: number;
}

function textOf(grid: Grid, s: Span): string {
  return grid.chars[s.row]!.slice(s.col, s.end).join('');
}

/** Highlighted runs: reverse video, or a background island between one shared colour above and below. */
function findHighlights(screen: Screen, grid: Grid): Span[] {
  const out: Span[] = [];
  for (let r = 0; r < screen.rows; r++) {
    const spans: Span[] = [];
    const row = grid.bg[r]!;
    for (let c = 0; c < screen.cols;) {
      let e = c + 1;
      while (e < screen.cols && row[e] === row[c]) e++;
      const span = { row: r, col: c, end: e };
      if (WORDISH.test(textOf(grid, span)) && isHighlight(screen, grid, span)) spans.push(span);
      c = e;
    }
    // Join runs a short blank gap apart.
    for (const s of spans) {
      const prev = out[out.length - 1];
      if (
        prev &&
        prev.row === r &&
        s.col - prev.end <= HIGHLIGHT_JOIN_GAP_CELLS &&
        textOf(grid, { row: r, col: prev.end, end: s.col }).trim() === ''
      )
        prev.end = s.end;
      else out.push({ ...s });
    }
  }
  // Trim the padding: the rectangle is the text, so its centre is on the text.
  return out.map((s) => trimSpan(grid, s)).filter((s) => s.end > s.col);
}

function isHighlight(screen: Screen, grid: Grid, s: Span): boolean {
  const inv = grid.inverse[s.row]!;
  let allInverse = true;
  for (let c = s.col; c < s.end; c++) if (!inv[c]) allInverse = false;
  if (allInverse) return true;
  if (s.row === 0 || s.row === screen.rows - 1) return false;
  const own = grid.bg[s.row]![s.col]!;
  const uniform = (r: number): string | undefined => {
    const row = grid.bg[r]!;
    const first = row[s.col]!;
    for (let c = s.col + 1; c < s.end; c++) if (row[c] !== first) return undefined;
    return first;
  };
  const above = uniform(s.row - 1);
  const below = uniform(s.row + 1);
  return above !== undefined && above === below && above !== own;
}

function trimSpan(grid: Grid, s: Span): Span {
  const chars = grid.chars[s.row]!;
  let a = s.col;
  let b = s.end;
  while (a < b && chars[a]!.trim() === '') a++;
  while (b > a && chars[b - 1]!.trim() === '') b--;
  return { row: s.row, col: a, end: b };
}

function overlaps(a: Span, b: Span): boolean {
  return a.row === b.row && a.col < b.end && b.col < a.end;
}

interface Candidate {
  kind: RefKind;
  label: string;
  span: Span;
  selected: boolean;
  value?: string;
}

function findButtons(screen: Screen, grid: Grid, highlights: Span[]): Candidate[] {
  const out: Candidate[] = [];
  for (let r = 0; r < screen.rows; r++) {
    const line = screen.lines[r]!;
    const found: { span: Span; label: string }[] = [];
    for (const m of line.matchAll(BUTTON_RE)) {
      const label = (m[2] ?? m[3] ?? '').trim();
      // `[X]` and `[ ]` are check boxes; `<b>` is a tag in some text: a button label has two characters or more.
      if ([...label].length < 2 || [...label].length > BUTTON_LABEL_MAX_CHARS || !WORDISH.test(label)) continue;
      const col = columnOf(screen, r, m.index);
      const end = columnOf(screen, r, m.index + m[0].length - 1) + 1;
      found.push({ span: { row: r, col, end }, label });
    }
    for (const f of found) {
      const selected = highlights.some((h) => overlaps(h, innerLabelSpan(grid, f.span))) || standsOut(screen, grid, f.span);
      out.push({ kind: 'button', label: f.label, span: f.span, selected });
    }
  }
  return out;
}

/** The label's cells, without the brackets and padding. */
function innerLabelSpan(grid: Grid, s: Span): Span {
  return trimSpan(grid, { row: s.row, col: s.col + 1, end: s.end - 1 });
}

/**
 * A button drawn in another background than the cells right outside its brackets is the focused or
 * default one: dialog paints it so, and the others in the box colour.
 */
function standsOut(screen: Screen, grid: Grid, button: Span): boolean {
  const row = grid.bg[button.row]!;
  const outside = [button.col - 1, button.end].filter((c) => c >= 0 && c < screen.cols).map((c) => row[c]!);
  if (outside.length === 0 || new Set(outside).size !== 1) return false;
  const label = innerLabelSpan(grid, button);
  return label.end > label.col && row[label.col] !== outside[0];
}

interface Segment {
  /** Columns of the borders on either side (-1 / cols when the row edge is the border). */
  left: number;
  right: number;
  contentCol: number;
  contentEnd: number;
}

function segmentsOf(screen: Screen, grid: Grid, r: number): Segment[] {
  const chars = grid.chars[r]!;
  const borders: number[] = [];
  for (let c = 0; c < screen.cols; c++) if (BORDERS.has(chars[c]!)) borders.push(c);
  const out: Segment[] = [];
  for (let i = 0; i + 1 < borders.length; i++) {
    const left = borders[i]!;
    const right = borders[i + 1]!;
    const t = trimSpan(grid, { row: r, col: left + 1, end: right });
    if (t.end > t.col) out.push({ left, right, contentCol: t.col, contentEnd: t.end });
  }
  return out;
}

function findItems(screen: Screen, grid: Grid, highlights: Span[]): Candidate[] {
  const out: Candidate[] = [];
  const perRow = Array.from({ length: screen.rows }, (_, r) => segmentsOf(screen, grid, r));
  const key = (s: Segment) => `${s.left}:${s.right}:${s.contentCol}`;
  const taken = new Set<string>();
  for (let r = 0; r < screen.rows; r++) {
    for (const seg of perRow[r]!) {
      const k = key(seg);
      if (taken.has(`${r}:${k}`)) continue;
      const group: { row: number; seg: Segment }[] = [];
      for (let rr = r; rr < screen.rows; rr++) {
        const s = perRow[rr]!.find((x) => key(x) === k);
        if (!s) break;
        group.push({ row: rr, seg: s });
        taken.add(`${rr}:${k}`);
      }
      if (group.length < 2) continue;
      const spans = group.map((g) => ({ row: g.row, col: g.seg.contentCol, end: g.seg.contentEnd }));
      const lit = spans.map((s) => highlights.some((h) => overlaps(h, s)));
      // A menu shows where the selection is; aligned rows with none are a paragraph.
      if (!lit.some(Boolean) || lit.every(Boolean)) continue;
      spans.forEach((s, i) => out.push({ kind: 'item', label: textOf(grid, s).trim(), span: s, selected: lit[i]! }));
    }
  }
  return out;
}

function findField(screen: Screen, grid: Grid, taken: Candidate[]): Candidate | undefined {
  const { row, col, visible } = screen.cursor;
  if (!visible || row < 0 || row >= screen.rows) return undefined;
  const at: Span = { row, col, end: col + 1 };
  if (taken.some((c) => overlaps(c.span, at))) return undefined;
  const chars = grid.chars[row]!;
  // The field ends at the next box border right of the cursor, or the row's end.
  let end = screen.cols;
  for (let c = col; c < screen.cols; c++) {
    if (BORDERS.has(chars[c]!)) {
      end = c;
      break;
    }
  }
  // It starts at the left border or after a ref left of the cursor (less's highlighted file name)…
  let bound = 0;
  for (let c = col - 1; c >= 0; c--) {
    if (BORDERS.has(chars[c]!)) {
      bound = c + 1;
      break;
    }
  }
  let start = bound;
  for (const c of taken) if (c.span.row === row && c.span.end <= col) start = Math.max(start, c.span.end);
  // …then after the prompt before the cursor ("Name? ", "$ "), else at the first text. The first
  // prompt mark, not the last: what the user typed after it may hold ": " or "> " too.
  const before = chars.slice(start, col).join('');
  const prompt = PROMPT_END_RE.exec(before);
  const promptEnd = prompt ? prompt.index + prompt[0].length : -1;
  if (promptEnd >= 0) {
    for (let used = 0; start < col && used < promptEnd; start++) used += chars[start]!.length;
  } else {
    const firstText = chars.slice(start, col).findIndex((ch) => ch.trim() !== '');
    start = firstText < 0 ? col : start + firstText;
  }
  const label = textOf(grid, { row, col: bound, end: start }).trim().slice(-FIELD_LABEL_MAX_CHARS);
  const span = { row, col: start, end: Math.max(end, col + 1) };
  return { kind: 'field', label, span, selected: false, value: textOf(grid, span).trim() };
}

/** Everything a user can act on, in reading order, named by nameRefs. */
export function findRefs(screen: Screen, memory?: RefMemory): TerminalRef[] {
  const grid = gridOf(screen);
  const highlights = findHighlights(screen, grid);
  const buttons = findButtons(screen, grid, highlights);
  const items = findItems(screen, grid, highlights).filter((i) => !buttons.some((b) => overlaps(b.span, i.span)));
  const claimed = [...buttons, ...items];
  const selections: Candidate[] = highlights
    .filter((h) => !claimed.some((c) => overlaps(c.span, h)))
    .map((h) => ({ kind: 'selection', label: textOf(grid, h).trim(), span: h, selected: true }));
  const all = [...claimed, ...selections];
  const field = findField(screen, grid, all);
  if (field) all.push(field);
  all.sort((a, b) => a.span.row - b.span.row || a.span.col - b.span.col);
  const cursorAt: Span = { row: screen.cursor.row, col: screen.cursor.col, end: screen.cursor.col + 1 };
  const names = nameRefs(
    all.map((c) => ({ kind: c.kind, label: c.label, row: c.span.row, col: c.span.col })),
    memory,
  );
  return all.map((c, i) => ({
    ref: names[i]!,
    kind: c.kind,
    label: c.label,
    rect: { row: c.span.row, col: c.span.col, width: c.span.end - c.span.col, height: 1 },
    selected: c.selected,
    cursor: screen.cursor.visible && overlaps(c.span, cursorAt),
    ...(c.value !== undefined ? { value: c.value } : {}),
  }));
}

/** The cell to click for a rectangle: its centre, leaning left on an even width. */
export function centreOf(rect: CellRect): { row: number; col: number } {
  return { row: rect.row + Math.floor((rect.height - 1) / 2), col: rect.col + Math.floor((rect.width - 1) / 2) };
}

function describeRef(r: TerminalRef): string {
  const what = r.kind === 'selection' ? 'selected' : r.kind;
  let s = `[ref=${r.ref}] ${what} ${JSON.stringify(r.label)}`;
  if (r.kind === 'field') s += ` value ${JSON.stringify(r.value ?? '')}`;
  if (r.selected && r.kind !== 'selection') s += ' (selected)';
  return s;
}

function utf8Bytes(s: string): number {
  return Buffer.byteLength(s);
}

function header(screen: Screen, refs: TerminalRef[], modes: SnapshotOptions['modes']): string[] {
  const parts = [`terminal ${screen.cols}x${screen.rows}`, screen.alternate ? 'alternate screen' : 'normal screen'];
  if (modes)
    parts.push(
      modes.mouseTracking === 'none'
        ? 'no mouse (use keys)'
        : `mouse ${modes.mouseTracking}${modes.mouseEncoding === 'default' ? '' : `/${modes.mouseEncoding}`}`,
    );
  if (screen.title) parts.push(`title ${JSON.stringify(screen.title)}`);
  parts.push('rows and cols count from 0');
  const c = screen.cursor;
  const inRef = refs.find((r) => r.cursor);
  const cursor = `cursor row ${c.row} col ${c.col}${c.visible ? '' : ' (hidden)'}${inRef ? ` in [ref=${inRef.ref}]` : ''}`;
  return [parts.join(' · '), cursor];
}

/** Cut the body to fit `maxBytes` with the header, ending with a line that says what was left out. */
function bound(head: string[], body: string[], maxBytes: number, hint: string): { text: string; truncated: boolean; shown: number } {
  let bytes = head.reduce((n, l) => n + utf8Bytes(l) + 1, 0);
  let shown = 0;
  for (const l of body) {
    const b = utf8Bytes(l) + 1;
    if (bytes + b > maxBytes - FOOTER_BYTES) break;
    bytes += b;
    shown++;
  }
  const truncated = shown < body.length;
  const lines = [...head, ...body.slice(0, shown)];
  if (truncated) lines.push(`… truncated: ${body.length - shown} more line${body.length - shown === 1 ? '' : 's'} not shown; ${hint}`);
  return { text: lines.join('\n'), truncated, shown };
}

function sliceCols(screen: Screen, row: number, from: number, to: number): string {
  const line = screen.lines[row] ?? '';
  let out = '';
  for (let i = 0; i < line.length; i++) {
    const c = columnOf(screen, row, i);
    if (c >= from && c < to) out += line[i];
  }
  return out.replace(/ +$/, '');
}

/** The screen as text: a header, the cursor line, then one line per row with its refs after `←`. */
export function renderSnapshot(screen: Screen, opts: SnapshotOptions = {}): Snapshot {
  const refs = findRefs(screen, opts.memory);
  const maxBytes = opts.maxBytes ?? DEFAULT_SNAPSHOT_BYTES;
  let grepRe: RegExp | undefined;
  if (opts.grep !== undefined && opts.grep !== '') {
    try {
      grepRe = new RegExp(opts.grep, 'i');
    } catch {
      grepRe = new RegExp(opts.grep.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i');
    }
  }
  const w = opts.within;
  const rowFrom = w ? Math.max(0, w.row) : 0;
  const rowTo = w ? Math.min(screen.rows, w.row + w.height) : screen.rows;
  const colFrom = w ? Math.max(0, w.col) : 0;
  const colTo = w ? Math.min(screen.cols, w.col + w.width) : screen.cols;
  const shownRefs = refs.filter(
    (r) => r.rect.row >= rowFrom && r.rect.row < rowTo && r.rect.col < colTo && r.rect.col + r.rect.width > colFrom,
  );
  const numWidth = String(screen.rows - 1).length;
  const body: string[] = [];
  let blankFrom = -1;
  const flushBlank = (upTo: number) => {
    if (blankFrom < 0) return;
    const n = upTo - blankFrom;
    body.push(n === 1 ? String(blankFrom).padStart(numWidth) : `${String(blankFrom).padStart(numWidth)}–${upTo - 1} (blank)`);
    blankFrom = -1;
  };
  for (let r = rowFrom; r < rowTo; r++) {
    const text = w ? sliceCols(screen, r, colFrom, colTo) : (screen.lines[r] ?? '');
    const rowRefs = shownRefs.filter((x) => x.rect.row === r);
    if (grepRe && !grepRe.test(text) && !rowRefs.some((x) => grepRe.test(x.label))) continue;
    if (text.trim() === '' && rowRefs.length === 0 && !grepRe) {
      if (blankFrom < 0) blankFrom = r;
      continue;
    }
    flushBlank(r);
    const num = String(r).padStart(numWidth);
    const note = rowRefs.length ? `   ← ${rowRefs.map(describeRef).join(', ')}` : '';
    body.push(text === '' ? `${num}${note}` : `${num} ${text}${note}`);
  }
  flushBlank(rowTo);
  if (grepRe && body.length === 0) body.push(`(no row matches grep ${JSON.stringify(opts.grep)})`);
  const head = header(screen, refs, opts.modes);
  const b = bound(head, body, maxBytes, 'narrow with within or grep');
  return { text: b.text, refs, bytes: utf8Bytes(b.text), truncated: b.truncated, lines: body.length, shownLines: b.shown };
}

export interface ScreenDiff {
  text: string;
  changedRows: number[];
  bytes: number;
  truncated: boolean;
}

/** The rows that differ between two screens (`-` before, `+` after, refs of the new screen), and the cursor if it moved. */
export function diffScreens(before: Screen, after: Screen, opts: { maxBytes?: number; refs?: TerminalRef[] } = {}): ScreenDiff {
  const refs = opts.refs ?? findRefs(after);
  const numWidth = String(Math.max(before.rows, after.rows) - 1).length;
  const changed: number[] = [];
  const body: string[] = [];
  for (let r = 0; r < Math.max(before.rows, after.rows); r++) {
    const a = r < before.rows ? before.lines[r]! : undefined;
    const b = r < after.rows ? after.lines[r]! : undefined;
    if (a === b) continue;
    changed.push(r);
    const num = String(r).padStart(numWidth);
    if (a !== undefined) body.push(`-${num} ${a}`);
    if (b !== undefined) {
      const rowRefs = refs.filter((x) => x.rect.row === r);
      body.push(`+${num} ${b}${rowRefs.length ? `   ← ${rowRefs.map(describeRef).join(', ')}` : ''}`);
    }
  }
  const head: string[] = [];
  if (before.cols !== after.cols || before.rows !== after.rows)
    head.push(`size ${before.cols}x${before.rows} → ${after.cols}x${after.rows}`);
  if (before.alternate !== after.alternate) head.push(after.alternate ? 'entered the alternate screen' : 'left the alternate screen');
  const bc = before.cursor;
  const ac = after.cursor;
  if (bc.row !== ac.row || bc.col !== ac.col || bc.visible !== ac.visible) {
    head.push(
      `cursor row ${bc.row} col ${bc.col}${bc.visible ? '' : ' (hidden)'} → row ${ac.row} col ${ac.col}${ac.visible ? '' : ' (hidden)'}`,
    );
  }
  head.push(changed.length ? `${changed.length} of ${after.rows} rows changed` : 'no row changed');
  const b = bound(head, body, opts.maxBytes ?? DEFAULT_SNAPSHOT_BYTES, 'take a whole snap instead');
  return { text: b.text, changedRows: changed, bytes: utf8Bytes(b.text), truncated: b.truncated };
}

export type TerminalTarget = { ref: string } | { text: string } | { contains: string } | { row: number; col: number };

export interface ResolvedTarget {
  /** The cell to act on: the centre of the rectangle. */
  row: number;
  col: number;
  rect: CellRect;
  ref?: TerminalRef;
  label: string;
}

function describeTarget(t: TerminalTarget): string {
  if ('ref' in t) return `ref=${t.ref}`;
  if ('text' in t) return `text ${JSON.stringify(t.text)}`;
  if ('contains' in t) return `contains ${JSON.stringify(t.contains)}`;
  return `row ${t.row} col ${t.col}`;
}

function short(r: TerminalRef): string {
  return `${r.ref} ${r.kind} ${JSON.stringify(r.label)} (row ${r.rect.row} col ${r.rect.col})`;
}

/** Occurrences of `needle` in the screen's rows, as cell spans; `whole` keeps only those not inside a longer word. */
function occurrences(screen: Screen, needle: string, whole: boolean, caseless: boolean): Span[] {
  const out: Span[] = [];
  if (!needle) return out;
  const n = caseless ? needle.toLowerCase() : needle;
  for (let r = 0; r < screen.rows; r++) {
    const line = caseless ? screen.lines[r]!.toLowerCase() : screen.lines[r]!;
    for (let i = line.indexOf(n); i >= 0; i = line.indexOf(n, i + 1)) {
      const before = line[i - 1] ?? ' ';
      const after = line[i + n.length] ?? ' ';
      if (whole && (WORDISH.test(before) || WORDISH.test(after))) continue;
      out.push({ row: r, col: columnOf(screen, r, i), end: columnOf(screen, r, i + n.length - 1) + 1 });
    }
  }
  return out;
}

/**
 * One target, strictly: a ref of the last snapshot, a ref's exact label or an exact word run on the
 * screen (`text`), a substring (`contains`, ignoring case), or a cell. Several matches are an error
 * listing them; none is target_not_found with the closest labels.
 */
export function resolveTarget(screen: Screen, refs: readonly TerminalRef[], target: TerminalTarget): ResolvedTarget {
  const fromRef = (r: TerminalRef): ResolvedTarget => ({ ...centreOf(r.rect), rect: r.rect, ref: r, label: r.label });
  const fromSpan = (s: Span): ResolvedTarget => {
    const rect = { row: s.row, col: s.col, width: s.end - s.col, height: 1 };
    const inside = refs.find((r) => overlaps({ row: r.rect.row, col: r.rect.col, end: r.rect.col + r.rect.width }, s));
    return { ...centreOf(rect), rect, ...(inside ? { ref: inside } : {}), label: sliceCols(screen, s.row, s.col, s.end) };
  };
  if ('ref' in target) {
    const r = refs.find((x) => x.ref === target.ref);
    if (r) return fromRef(r);
    throw new PerfError({
      code: 'stale_ref',
      kind: 'usage',
      message: `ref=${target.ref} is not on the last terminal snapshot ${refsHint(refs.map(short))}`,
      suggestion: 'run snap again and use a ref from the new snapshot, or target by text',
    });
  }
  if ('row' in target) {
    const { row, col } = target;
    if (!Number.isInteger(row) || !Number.isInteger(col) || row < 0 || col < 0 || row >= screen.rows || col >= screen.cols) {
      throw new PerfError({
        code: 'invalid_target',
        kind: 'usage',
        message: `cell row ${row} col ${col} is off the ${screen.cols}x${screen.rows} screen`,
        suggestion: `rows count 0–${screen.rows - 1}, cols 0–${screen.cols - 1}`,
      });
    }
    const r = refs.find((x) => x.rect.row === row && col >= x.rect.col && col < x.rect.col + x.rect.width);
    return { row, col, rect: { row, col, width: 1, height: 1 }, ...(r ? { ref: r } : {}), label: sliceCols(screen, row, col, col + 1) };
  }
  const exact = 'text' in target;
  const needle = exact ? target.text : target.contains;
  const refHits = refs.filter((r) => (exact ? r.label === needle : r.label.toLowerCase().includes(needle.toLowerCase())));
  let hits: ResolvedTarget[];
  if (refHits.length) hits = refHits.map(fromRef);
  else hits = occurrences(screen, needle, exact, !exact).map(fromSpan);
  if (hits.length === 1) return hits[0]!;
  if (hits.length > 1) {
    const list = hits.map((h) =>
      h.ref && h.ref.label === h.label ? short(h.ref) : `row ${h.rect.row} col ${h.rect.col} ${JSON.stringify(h.label)}`,
    );
    throw new PerfError({
      code: 'ambiguous_target',
      kind: 'usage',
      message:
        `${describeTarget(target)} matches ${hits.length} places on the screen: ${list.slice(0, ERROR_CANDIDATES).join(', ')}` +
        `${hits.length > ERROR_CANDIDATES ? ', …' : ''}`,
      suggestion: 'use one of the refs, or a { row, col } cell',
      candidates: list.slice(0, ERROR_CANDIDATES),
    });
  }
  const near = closest(
    needle,
    refs.map((r) => r.label),
  );
  throw new PerfError({
    code: 'target_not_found',
    kind: 'failed',
    message: `${describeTarget(target)} is not on the screen`,
    suggestion: near.length
      ? `did you mean ${near.map((n) => JSON.stringify(n)).join(' or ')}? run snap to see the screen`
      : 'run snap to see the screen; wait_for the text if it comes later',
    ...(near.length ? { candidates: near } : {}),
  });
}

/** "(it has a, b, …)" for a stale ref's message: the first few refs the snapshot does have. */
function refsHint(refs: string[]): string {
  if (!refs.length) return '(it has no refs)';
  const more = refs.length > ERROR_CANDIDATES ? ', …' : '';
  return `(it has ${refs.slice(0, ERROR_CANDIDATES).join(', ')}${more})`;
}
