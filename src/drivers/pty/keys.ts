/**
 * What a terminal sends for a key, a paste and a mouse event: the bytes xterm writes to the program
 * with its default settings (metaSendsEscape, DEL for Backspace, no modifyOtherKeys), in the mode the
 * program asked for (application cursor keys, bracketed paste, mouse tracking and its encoding).
 * Pure: modes in, bytes out. Key names and modifiers are the shared ones of src/drivers/keys.ts, so a
 * step says `ArrowDown` or `Control+c` the same way for a page and for a terminal.
 */
import { PerfError } from '../../errors.js';
import { keyDefinition, parseKeyCombo, shifted, type Modifier, type MouseButton } from '../keys.js';

/** The input-side modes a program sets with DECSET, as the encoders need them. */
export interface InputModes {
  /** DECCKM (`CSI ? 1 h`): unmodified arrows and Home/End are sent as SS3 instead of CSI. */
  applicationCursorKeys: boolean;
  /** `CSI ? 2004 h`: pasted text is wrapped in `CSI 200 ~` … `CSI 201 ~`. */
  bracketedPaste: boolean;
  mouseTracking: MouseTracking;
  mouseEncoding: MouseEncoding;
}

/** Which mouse events the program asked for: none, press only (9), press+release (1000), +drag (1002), +any motion (1003). */
export type MouseTracking = 'none' | 'x10' | 'vt200' | 'drag' | 'any';
/** How coordinates are written: X10 bytes, UTF-8 coded (1005), SGR decimal (1006/1016), urxvt decimal (1015). */
export type MouseEncoding = 'default' | 'utf8' | 'sgr' | 'urxvt';

const ESC = '\x1b';
const CSI = '\x1b[';
const SS3 = '\x1bO';

/** Final byte of the cursor keys that follow DECCKM: CSI x normally, SS3 x in application mode. */
const CURSOR_FINAL: Record<string, string> = { ArrowUp: 'A', ArrowDown: 'B', ArrowRight: 'C', ArrowLeft: 'D', Home: 'H', End: 'F' };
/** The numbered editing keys, sent as `CSI n ~`. */
const TILDE_NUMBER: Record<string, number> = {
  Insert: 2,
  Delete: 3,
  PageUp: 5,
  PageDown: 6,
  F5: 15,
  F6: 17,
  F7: 18,
  F8: 19,
  F9: 20,
  F10: 21,
  F11: 23,
  F12: 24,
};
/** F1–F4 are SS3 P…S unmodified, `CSI 1 ; m P…S` with a modifier. */
const PF_FINAL: Record<string, string> = { F1: 'P', F2: 'Q', F3: 'R', F4: 'S' };
/** Control with these characters gives the C0 codes that have no letter (xterm's table). */
const CONTROL_PUNCTUATION: Record<string, string> = {
  ' ': '\x00',
  '@': '\x00',
  '2': '\x00',
  '[': '\x1b',
  '3': '\x1b',
  '\\': '\x1c',
  '4': '\x1c',
  ']': '\x1d',
  '5': '\x1d',
  '^': '\x1e',
  '6': '\x1e',
  _: '\x1f',
  '-': '\x1f',
  '7': '\x1f',
  '?': '\x7f',
  '8': '\x7f',
};
/** Keys that produce no bytes on a terminal: a program never sees a lone modifier. */
const SILENT = new Set(['Shift', 'Control', 'Alt', 'Meta', 'ContextMenu']);

/** xterm's modifier parameter: 1 + Shift 1 + Alt 2 + Control 4 + Meta 8. */
function modifierParam(mods: ReadonlySet<Modifier>): number {
  return 1 + (mods.has('shift') ? 1 : 0) + (mods.has('alt') ? 2 : 0) + (mods.has('control') ? 4 : 0) + (mods.has('meta') ? 8 : 0);
}

/**
 * The bytes for one key press. `key` is a shared key name or alias ("Enter", "esc", "ArrowDown",
 * "F5", "a") or a combo ("Control+c", "Shift+Tab") when `modifiers` is not given.
 */
export function encodeKey(
  key: string,
  modifiers: readonly Modifier[] | undefined,
  modes: Pick<InputModes, 'applicationCursorKeys'>,
): string {
  let name = key;
  let modList: readonly Modifier[] = modifiers ?? [];
  if (modifiers === undefined && key.length > 1 && key.includes('+')) {
    const combo = parseKeyCombo(key);
    name = combo.key;
    modList = combo.modifiers;
  }
  const def = keyDefinition(name);
  const mods = new Set(modList);
  const k = def.key;
  if (SILENT.has(k)) {
    throw new PerfError({
      code: 'key_not_in_terminal',
      message: `${k} alone sends nothing to a terminal program`,
      suggestion: `hold it with another key instead, e.g. press_key "${k}+a"`,
    });
  }
  // Alt (and Meta, which xterm treats the same with metaSendsEscape) prefixes ESC to what the key
  // sends without it; keys with a CSI form carry it in the modifier parameter instead.
  const escPrefix = mods.has('alt') || mods.has('meta');
  const withoutAlt = new Set([...mods].filter((m) => m !== 'alt' && m !== 'meta'));

  const cursor = CURSOR_FINAL[k];
  if (cursor) {
    if (mods.size === 0) return (modes.applicationCursorKeys ? SS3 : CSI) + cursor;
    return `${CSI}1;${modifierParam(mods)}${cursor}`;
  }
  const tilde = TILDE_NUMBER[k];
  if (tilde !== undefined) return mods.size === 0 ? `${CSI}${tilde}~` : `${CSI}${tilde};${modifierParam(mods)}~`;
  const pf = PF_FINAL[k];
  if (pf) return mods.size === 0 ? SS3 + pf : `${CSI}1;${modifierParam(mods)}${pf}`;

  let base: string;
  switch (k) {
    case 'Enter':
      base = '\r';
      break;
    case 'Tab':
      if (withoutAlt.has('shift')) return (escPrefix ? ESC : '') + `${CSI}Z`;
      base = '\t';
      break;
    case 'Escape':
      base = ESC;
      break;
    case 'Backspace':
      // xterm's default backarrowKey sends DEL; Control flips it to BS, which is how editors tell them apart.
      base = withoutAlt.has('control') ? '\x08' : '\x7f';
      break;
    default: {
      const ch = def.text ?? k;
      base = encodeCharacter(ch, withoutAlt);
    }
  }
  return (escPrefix ? ESC : '') + base;
}

function encodeCharacter(ch: string, mods: ReadonlySet<Modifier>): string {
  let c = mods.has('shift') ? shifted(ch) : ch;
  if (!mods.has('control')) return c;
  if (/^[a-zA-Z]$/.test(c)) return String.fromCharCode(c.toUpperCase().charCodeAt(0) & 0x1f);
  // Control+Shift+2 is Control+@ on a US layout: look the shifted character up first, then the plain one.
  c = CONTROL_PUNCTUATION[c] ?? CONTROL_PUNCTUATION[ch] ?? c;
  return c;
}

/** Text as a user types it: each character its key, a newline the Enter key (CR). */
export function typedKeys(text: string): string[] {
  const out: string[] = [];
  for (const ch of text.replace(/\r\n/g, '\n')) out.push(ch === '\n' ? '\r' : ch);
  return out;
}

/**
 * A paste: newlines become CR as xterm sends them; wrapped in the bracketed-paste markers when the
 * program asked for them. An end marker inside the text is dropped, so pasted text cannot end the
 * paste early and be run as typed keys.
 */
export function encodePaste(text: string, bracketed: boolean): string {
  const body = text.replace(/\r?\n/g, '\r');
  if (!bracketed) return body;
  return `${CSI}200~${body.split(`${CSI}201~`).join('')}${CSI}201~`;
}

export type MouseAction = 'press' | 'release' | 'move' | 'wheelUp' | 'wheelDown';

export interface MouseEvent {
  action: MouseAction;
  /** 0-based cell. */
  row: number;
  col: number;
  button?: MouseButton;
  modifiers?: readonly Modifier[];
}

const BUTTON_CODE: Record<MouseButton, number> = { left: 0, middle: 1, right: 2 };
// The X10 encoding puts 32 + coordinate in one byte: 223 is the last 1-based coordinate it can carry.
const X10_MAX_COORD = 223;
// UTF-8 mode (1005) writes 32 + coordinate as one UTF-8 character of at most two bytes (up to U+07FF).
const UTF8_MAX_COORD = 2015;

/** Why a mouse event cannot be sent, as a PerfError the caller throws. */
export function mouseUnsupported(
  modes: Pick<InputModes, 'mouseTracking'>,
  what: string,
  suggestion = 'use keys instead: press_key Tab / ArrowDown / ArrowUp to move, Enter to choose',
): PerfError | undefined {
  if (modes.mouseTracking === 'none') {
    return new PerfError({
      code: 'mouse_not_supported',
      message: `${what}: the program did not turn on mouse reporting, so it would never see the mouse`,
      suggestion,
    });
  }
  return undefined;
}

/**
 * The bytes for one mouse event in the program's encoding, or undefined when its tracking mode does
 * not report that event (a release under X10, motion without `any`). Returns bytes, not a string:
 * the X10 encoding carries coordinates above 95 as single bytes above 127, which are not UTF-8.
 */
export function encodeMouse(ev: MouseEvent, modes: Pick<InputModes, 'mouseTracking' | 'mouseEncoding'>): Buffer | undefined {
  const tracking = modes.mouseTracking;
  const unsupported = mouseUnsupported(modes, `mouse ${ev.action}`);
  if (unsupported) throw unsupported;
  if (ev.action === 'release' && tracking === 'x10') return undefined;
  if (ev.action === 'move' && tracking !== 'any' && !(tracking === 'drag' && ev.button !== undefined)) return undefined;
  const mods = new Set(ev.modifiers ?? []);
  // X10 mode reports no modifiers (xterm's ctlseqs: "the modifiers are not reported").
  const modBits =
    tracking === 'x10' ? 0 : (mods.has('shift') ? 4 : 0) + (mods.has('alt') || mods.has('meta') ? 8 : 0) + (mods.has('control') ? 16 : 0);
  let code: number;
  switch (ev.action) {
    case 'press':
    case 'release':
      code = BUTTON_CODE[ev.button ?? 'left'];
      break;
    case 'move':
      // Motion adds 32 to the held button, or to 3 ("no button") when none is held.
      code = 32 + (ev.button === undefined ? 3 : BUTTON_CODE[ev.button]);
      break;
    case 'wheelUp':
      code = 64;
      break;
    case 'wheelDown':
      code = 65;
      break;
  }
  code += modBits;
  const x = ev.col + 1;
  const y = ev.row + 1;
  switch (modes.mouseEncoding) {
    case 'sgr':
      return Buffer.from(`${CSI}<${code};${x};${y}${ev.action === 'release' ? 'm' : 'M'}`);
    case 'urxvt':
      return Buffer.from(`${CSI}${32 + (ev.action === 'release' ? 3 + modBits : code)};${x};${y}M`);
    case 'utf8':
    case 'default': {
      // Without SGR a release does not say which button: it is code 3.
      const b = ev.action === 'release' ? 3 + modBits : code;
      const max = modes.mouseEncoding === 'utf8' ? UTF8_MAX_COORD : X10_MAX_COORD;
      if (x > max || y > max) {
        throw new PerfError({
          code: 'mouse_out_of_range',
          message: `cell row ${ev.row} col ${ev.col} is past what the program's mouse encoding can carry (${max})`,
          suggestion: 'use keys for cells that far out, or a smaller terminal size',
        });
      }
      if (modes.mouseEncoding === 'utf8') return Buffer.from(`${CSI}M${String.fromCharCode(32 + b, 32 + x, 32 + y)}`, 'utf8');
      return Buffer.concat([Buffer.from(`${CSI}M`), Buffer.from([32 + b, 32 + x, 32 + y])]);
    }
  }
}
