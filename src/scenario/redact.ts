/**
 * Values a scenario read from the environment (`${env.NAME}`: tokens, passwords, private hosts) must
 * not end up in a run file, a report or a trace that CI keeps as an artifact. Every place they can
 * reach (the app URL, step labels and so metric names, error messages) is rewritten to `${env.NAME}`.
 * A value is replaced where it stands as a whole token (not inside a longer run of letters and
 * digits), so a short value such as "1" does not mangle timestamps.
 */
import type { Scenario } from './load.js';

type Secrets = Scenario['secrets'];

function patterns(secrets: Secrets): { re: RegExp; name: string; shown: string }[] {
  // Longest first: a value that contains another is replaced whole.
  return [...secrets]
    .sort((a, b) => b.value.length - a.value.length)
    .map(({ name, value, shown }) => ({
      name,
      shown: shown ?? `\${env.${name}}`,
      re: new RegExp(`(?<![A-Za-z0-9])${value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![A-Za-z0-9])`, 'g'),
    }));
}

function replaceAll(text: string, ps: { re: RegExp; shown: string }[]): string {
  return ps.reduce((acc, { re, shown }) => acc.replace(re, () => shown), text);
}

/** `text` with every secret value replaced by `${env.NAME}`. */
export function redactText(text: string, secrets: Secrets): string {
  return secrets.length === 0 ? text : replaceAll(text, patterns(secrets));
}

/**
 * Where each secret stands in `text` as a whole token (the rule of redactText), longest first and
 * never overlapping: the spans a screen's picture masks.
 */
export function secretSpans(text: string, secrets: Secrets): { from: number; to: number; name: string }[] {
  const spans: { from: number; to: number; name: string }[] = [];
  for (const { re, name } of patterns(secrets)) {
    for (const m of text.matchAll(re)) {
      const from = m.index;
      const to = from + m[0].length;
      if (!spans.some((c) => from < c.to && to > c.from)) spans.push({ from, to, name });
    }
  }
  return spans.sort((a, b) => a.from - b.from);
}

// ECMA-48 escapes: control sequences (CSI … final byte), OSC strings (ended by BEL or ST), device
// control and other strings (DCS, SOS, PM, APC, ended by ST), nF escapes (charset selection such
// as ESC ( B, which ncurses writes with every colour reset), then any other two-byte escape.
const ESCAPE_SEQUENCE = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[PX^_][^\x1b]*\x1b\\|[ -/]+[0-~]|[0-~])/y;
// Cursor back n columns (CSI n D): on the screen the same as n backspaces.
const CURSOR_BACK = /^\x1b\[(\d*)D$/;
// Any other cursor move (up, down, forward, next/previous line, column, position, row): what a
// backspace was about to overwrite is no longer under the cursor.
const CURSOR_MOVE = /^\x1b\[[\d;]*[ABCEFGHdf]$/;

/**
 * How a view reads a backspace (BS, DEL, cursor back): `none` ignores it; `erase` drops the character
 * before it, as a line editor's echo ("\b \b") does; `overwrite` drops the next character drawn, as
 * a masked prompt's "s\b*" does. A secret hides from some views and not from others: all are searched.
 */
type BackspaceMode = 'none' | 'erase' | 'overwrite';

/**
 * The printable characters of a stream in the order they were written, escape sequences and control
 * characters removed: `at[i]` is the stream index of view character i, and `gap[i]` says that
 * something was removed just before it (a cursor move, a colour, a line break), which bounds a token
 * as a space does.
 */
interface View {
  text: string;
  at: Int32Array;
  gap: Uint8Array;
}

function viewOf(whole: string, mode: BackspaceMode): View {
  const codes = new Uint16Array(whole.length);
  const at = new Int32Array(whole.length);
  const gap = new Uint8Array(whole.length + 1);
  let n = 0;
  let pendingGap = false;
  let skip = 0;
  const back = (count: number): void => {
    if (mode === 'erase') n = Math.max(0, n - count);
    else if (mode === 'overwrite') skip += count;
    pendingGap = true;
  };
  for (let i = 0; i < whole.length;) {
    const c = whole.charCodeAt(i);
    if (c === 0x1b) {
      ESCAPE_SEQUENCE.lastIndex = i;
      const m = ESCAPE_SEQUENCE.exec(whole);
      const len = m ? m[0].length : 1;
      const cub = m ? CURSOR_BACK.exec(m[0]) : null;
      if (cub) back(Number(cub[1] || 1));
      else if (m && CURSOR_MOVE.test(m[0])) skip = 0;
      pendingGap = true;
      i += len;
      continue;
    }
    if (c === 0x08 || c === 0x7f) back(1);
    else if (c < 0x20 || (c >= 0x80 && c < 0xa0)) {
      // A line break or a tab moves the cursor too.
      if (c >= 0x09 && c <= 0x0d) skip = 0;
      pendingGap = true;
    } else if (skip > 0) skip--;
    else {
      codes[n] = c;
      at[n] = i;
      gap[n] = pendingGap ? 1 : 0;
      pendingGap = false;
      n++;
    }
    i++;
  }
  gap[n] = pendingGap ? 1 : 0;
  let text = '';
  // In slices: String.fromCharCode takes its arguments on the stack.
  for (let from = 0; from < n; from += 8192) text += String.fromCharCode(...codes.subarray(from, Math.min(n, from + 8192)));
  return { text, at: at.subarray(0, n), gap: gap.subarray(0, n + 1) };
}

const isWordChar = (ch: string | undefined): boolean => ch !== undefined && /[A-Za-z0-9]/.test(ch);

/** Stream indexes of each whole-token match of `value` in a view: a removed escape or control bounds a token. */
function matchesIn(view: View, value: string): number[][] {
  const out: number[][] = [];
  const { text, gap } = view;
  for (let from = text.indexOf(value); from >= 0;) {
    const to = from + value.length;
    const startOk = from === 0 || gap[from] === 1 || !isWordChar(text[from - 1]);
    const endOk = to === text.length || gap[to] === 1 || !isWordChar(text[to]);
    if (startOk && endOk) {
      out.push(Array.from(view.at.subarray(from, to)));
      from = text.indexOf(value, to);
    } else {
      from = text.indexOf(value, from + 1);
    }
  }
  return out;
}

/**
 * A stream cut into chunks (a recording's inputs, one per keystroke; its output, one per read) with
 * every secret replaced as if the chunks were one text: a password typed key by key spans many
 * chunks. The secret is looked for in what a terminal shows, not in the raw bytes: escape sequences
 * and control characters are taken out first, so a program that echoes a secret one character at a
 * time with a cursor move before each ("\x1b[5;11Hs\x1b[5;12He…"), or with characters it erases in
 * between, is caught. The matched characters are removed where they stand, the first replaced by
 * `${env.NAME}`; every escape sequence and control stays, so each chunk keeps its place (and its
 * time) and a replay still draws.
 */
export function redactChunks(chunks: readonly string[], secrets: Secrets): string[] {
  if (secrets.length === 0) return [...chunks];
  const whole = chunks.join('');
  const views = (['none', 'erase', 'overwrite'] as const).map((mode) => viewOf(whole, mode));
  const taken = new Uint8Array(whole.length);
  const replaced = new Map<number, string>();
  // Longest first: a shorter secret inside a longer one's match is already covered.
  for (const { name, value, shown } of [...secrets].sort((a, b) => b.value.length - a.value.length)) {
    if (value === '') continue;
    for (const view of views) {
      for (const positions of matchesIn(view, value)) {
        if (positions.some((p) => taken[p])) continue;
        for (const p of positions) taken[p] = 1;
        replaced.set(positions[0]!, shown ?? `\${env.${name}}`);
      }
    }
  }
  if (replaced.size === 0) return [...chunks];
  const out: string[] = [];
  let at = 0;
  for (const chunk of chunks) {
    let text = '';
    let kept = 0;
    for (let i = 0; i < chunk.length; i++) {
      if (!taken[at + i]) continue;
      text += chunk.slice(kept, i) + (replaced.get(at + i) ?? '');
      kept = i + 1;
    }
    out.push(text + chunk.slice(kept));
    at += chunk.length;
  }
  return out;
}

/** A deep copy of `value` with secrets replaced in every string and every object key. */
export function redactSecrets<T>(value: T, secrets: Secrets): T {
  if (secrets.length === 0) return value;
  const ps = patterns(secrets);
  const text = (s: string): string => replaceAll(s, ps);
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return text(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [text(k), walk(x)]));
    return v;
  };
  return walk(value) as T;
}
