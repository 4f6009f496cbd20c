/**
 * Keys as a US keyboard produces them: names and aliases ("Enter", "esc", "Control+a"), the key,
 * code and key code of each printable character, and the combinations refused because they act on
 * the browser rather than the page. Pure data, shared by every driver that sends key events.
 */
import { PerfError } from '../errors.js';

export type Modifier = 'control' | 'shift' | 'alt' | 'meta';
export const MODIFIERS: readonly Modifier[] = ['control', 'shift', 'alt', 'meta'];
export type MouseButton = 'left' | 'right' | 'middle';

export interface KeyDefinition {
  key: string;
  code: string;
  keyCode: number;
  text?: string;
  /** The text with Shift held (letters, digits and punctuation on a US layout). */
  shiftText?: string;
  shiftKey?: string;
  location?: number;
}

const NAMED: Record<string, KeyDefinition> = {
  Enter: { key: 'Enter', code: 'Enter', keyCode: 13, text: '\r' },
  Escape: { key: 'Escape', code: 'Escape', keyCode: 27 },
  Tab: { key: 'Tab', code: 'Tab', keyCode: 9 },
  Backspace: { key: 'Backspace', code: 'Backspace', keyCode: 8 },
  Delete: { key: 'Delete', code: 'Delete', keyCode: 46 },
  Insert: { key: 'Insert', code: 'Insert', keyCode: 45 },
  ArrowUp: { key: 'ArrowUp', code: 'ArrowUp', keyCode: 38 },
  ArrowDown: { key: 'ArrowDown', code: 'ArrowDown', keyCode: 40 },
  ArrowLeft: { key: 'ArrowLeft', code: 'ArrowLeft', keyCode: 37 },
  ArrowRight: { key: 'ArrowRight', code: 'ArrowRight', keyCode: 39 },
  Home: { key: 'Home', code: 'Home', keyCode: 36 },
  End: { key: 'End', code: 'End', keyCode: 35 },
  PageUp: { key: 'PageUp', code: 'PageUp', keyCode: 33 },
  PageDown: { key: 'PageDown', code: 'PageDown', keyCode: 34 },
  Space: { key: ' ', code: 'Space', keyCode: 32, text: ' ' },
  Shift: { key: 'Shift', code: 'ShiftLeft', keyCode: 16, location: 1 },
  Control: { key: 'Control', code: 'ControlLeft', keyCode: 17, location: 1 },
  Alt: { key: 'Alt', code: 'AltLeft', keyCode: 18, location: 1 },
  Meta: { key: 'Meta', code: 'MetaLeft', keyCode: 91, location: 1 },
  ContextMenu: { key: 'ContextMenu', code: 'ContextMenu', keyCode: 93 },
};
for (let i = 1; i <= 12; i++) NAMED[`F${i}`] = { key: `F${i}`, code: `F${i}`, keyCode: 111 + i };

const ALIASES: Record<string, string> = {
  esc: 'Escape',
  escape: 'Escape',
  return: 'Enter',
  enter: 'Enter',
  tab: 'Tab',
  backspace: 'Backspace',
  delete: 'Delete',
  del: 'Delete',
  insert: 'Insert',
  up: 'ArrowUp',
  down: 'ArrowDown',
  left: 'ArrowLeft',
  right: 'ArrowRight',
  arrowup: 'ArrowUp',
  arrowdown: 'ArrowDown',
  arrowleft: 'ArrowLeft',
  arrowright: 'ArrowRight',
  home: 'Home',
  end: 'End',
  pageup: 'PageUp',
  pagedown: 'PageDown',
  space: 'Space',
  spacebar: 'Space',
  shift: 'Shift',
  control: 'Control',
  ctrl: 'Control',
  alt: 'Alt',
  option: 'Alt',
  meta: 'Meta',
  cmd: 'Meta',
  command: 'Meta',
  contextmenu: 'ContextMenu',
};

// US layout: the unshifted and shifted character of each punctuation key.
const PUNCTUATION: [string, string, string, number][] = [
  ['-', '_', 'Minus', 189],
  ['=', '+', 'Equal', 187],
  ['[', '{', 'BracketLeft', 219],
  [']', '}', 'BracketRight', 221],
  ['\\', '|', 'Backslash', 220],
  [';', ':', 'Semicolon', 186],
  ["'", '"', 'Quote', 222],
  [',', '<', 'Comma', 188],
  ['.', '>', 'Period', 190],
  ['/', '?', 'Slash', 191],
  ['`', '~', 'Backquote', 192],
];
const DIGIT_SHIFTED = ')!@#$%^&*(';

/** The key for one printable character, or undefined when it has no key on a US layout (insertText then). */
export function charKey(ch: string): (KeyDefinition & { shift: boolean }) | undefined {
  if (/^[a-z]$/.test(ch))
    return { key: ch, code: `Key${ch.toUpperCase()}`, keyCode: ch.toUpperCase().charCodeAt(0), text: ch, shift: false };
  if (/^[A-Z]$/.test(ch)) return { key: ch, code: `Key${ch}`, keyCode: ch.charCodeAt(0), text: ch, shift: true };
  if (/^[0-9]$/.test(ch)) return { key: ch, code: `Digit${ch}`, keyCode: ch.charCodeAt(0), text: ch, shift: false };
  const di = DIGIT_SHIFTED.indexOf(ch);
  if (di >= 0) return { key: ch, code: `Digit${di}`, keyCode: 48 + di, text: ch, shift: true };
  if (ch === ' ') return { ...NAMED.Space!, shift: false };
  if (ch === '\n' || ch === '\r') return { ...NAMED.Enter!, shift: false };
  for (const [plain, shifted, code, keyCode] of PUNCTUATION) {
    if (ch === plain) return { key: ch, code, keyCode, text: ch, shift: false };
    if (ch === shifted) return { key: ch, code, keyCode, text: ch, shift: true };
  }
  return undefined;
}

/** The character Shift turns `ch` into on a US layout (itself when Shift changes nothing). */
export function shifted(ch: string): string {
  if (/^[a-z]$/.test(ch)) return ch.toUpperCase();
  if (/^[0-9]$/.test(ch)) return DIGIT_SHIFTED[Number(ch)]!;
  for (const [plain, shift] of PUNCTUATION) if (ch === plain) return shift;
  return ch;
}

/** Resolve a key name ("Enter", "esc", "a", "ArrowDown", "F5") to its definition. */
export function keyDefinition(name: string): KeyDefinition {
  const named = NAMED[name] ?? NAMED[ALIASES[name.toLowerCase()] ?? ''];
  if (named) return named;
  if ([...name].length === 1) {
    const c = charKey(name);
    if (c) return c;
    return { key: name, code: '', keyCode: 0, text: name };
  }
  throw new PerfError({
    code: 'unknown_key',
    message: `unknown key "${name}"`,
    suggestion: `use a single character or one of: ${Object.keys(NAMED).join(', ')}; combine modifiers with "+" (Control+a)`,
    candidates: Object.keys(NAMED)
      .filter((k) => k.toLowerCase().startsWith(name.slice(0, 2).toLowerCase()))
      .slice(0, 5),
  });
}

/** "Control+Shift+K" → modifiers [control, shift] and key "K". A lone "+" is the plus key. */
export function parseKeyCombo(combo: string): { key: string; modifiers: Modifier[] } {
  if (combo === '+' || !combo.includes('+') || combo.endsWith('++')) {
    const key = combo.endsWith('++') ? '+' : combo;
    const mods = combo.endsWith('++') ? combo.slice(0, -2).split('+').filter(Boolean) : [];
    return { key, modifiers: mods.map(toModifier) };
  }
  const parts = combo.split('+');
  const key = parts.pop()!;
  return { key, modifiers: parts.map(toModifier) };
}
function toModifier(s: string): Modifier {
  const n = (ALIASES[s.toLowerCase()] ?? s).toLowerCase();
  if (n === 'control' || n === 'shift' || n === 'alt' || n === 'meta') return n;
  throw new PerfError({
    code: 'unknown_modifier',
    message: `unknown modifier "${s}"`,
    suggestion: 'modifiers are control, shift, alt, meta',
  });
}

/** A named key's definition (Control, Shift…): one of the table's own names. */
export function namedKey(name: string): KeyDefinition {
  return NAMED[name]!;
}

/**
 * Key events the page does not consume reach Chromium's own shortcuts: these manage tabs and
 * windows (close, quit, new window, tab search) and would act on the browser, not the page; tab
 * search even crashed Chromium later in our tests. Refused rather than sent.
 */
const BROWSER_SHORTCUTS = new Set([
  'control+w',
  'control+q',
  'control+n',
  'control+t',
  'control+shift+w',
  'control+shift+q',
  'control+shift+n',
  'control+shift+t',
  'control+shift+a',
  'control+f4',
  'alt+f4',
]);

export function assertNotBrowserShortcut(key: string, modifiers: readonly Modifier[]): void {
  const mods = (['control', 'alt', 'shift', 'meta'] as const).filter((m) => modifiers.includes(m));
  const combo = [...mods, key.toLowerCase()].join('+');
  if (BROWSER_SHORTCUTS.has(combo)) {
    throw new PerfError({
      code: 'browser_shortcut',
      message: `${combo} is a browser shortcut (tabs and windows), not a key for the page`,
    });
  }
}

// A drag must cross the 4-5 px thresholds drag libraries use before they start; five steps at least.
export const MIN_DRAG_STEPS = 5;
