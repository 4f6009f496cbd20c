/**
 * Trusted input through CDP (Input.dispatchMouseEvent / dispatchKeyEvent / insertText): the events a
 * real user produces, with the same ordering and modifier state. Coordinates are CSS px in the top
 * frame's viewport. Modifier keys pressed here are always released, even when delivery fails.
 */
import { PerfError } from '../../errors.js';
import type { Page } from './browser.js';

export type Modifier = 'control' | 'shift' | 'alt' | 'meta';
export const MODIFIERS: readonly Modifier[] = ['control', 'shift', 'alt', 'meta'];
export type MouseButton = 'left' | 'right' | 'middle';

/** CDP's modifier bit field. */
const MODIFIER_BIT: Record<Modifier, number> = { alt: 1, control: 2, meta: 4, shift: 8 };
const BUTTON_BIT: Record<MouseButton, number> = { left: 1, right: 2, middle: 4 };

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
  if (/^[a-z]$/.test(ch)) return { key: ch, code: `Key${ch.toUpperCase()}`, keyCode: ch.toUpperCase().charCodeAt(0), text: ch, shift: false };
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
function shifted(ch: string): string {
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
    candidates: Object.keys(NAMED).filter((k) => k.toLowerCase().startsWith(name.slice(0, 2).toLowerCase())).slice(0, 5),
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
  throw new PerfError({ code: 'unknown_modifier', message: `unknown modifier "${s}"`, suggestion: 'modifiers are control, shift, alt, meta' });
}

const MODIFIER_KEY: Record<Modifier, KeyDefinition> = { control: NAMED.Control!, shift: NAMED.Shift!, alt: NAMED.Alt!, meta: NAMED.Meta! };

/**
 * Run `fn` with `modifiers` held down (keyDown each, in order), and release every one that was
 * pressed, in reverse order, whatever happens in `fn` or during the presses.
 */
export async function withModifiers<T>(page: Page, modifiers: readonly Modifier[], fn: (mask: number) => Promise<T>): Promise<T> {
  const held: Modifier[] = [];
  let mask = 0;
  try {
    for (const m of modifiers) {
      if (held.includes(m)) continue;
      // Counted as held before the press is confirmed: a failed delivery may still have pressed it.
      held.push(m);
      mask |= MODIFIER_BIT[m];
      const k = MODIFIER_KEY[m];
      await page.send('Input.dispatchKeyEvent', { type: 'rawKeyDown', key: k.key, code: k.code, windowsVirtualKeyCode: k.keyCode, location: k.location, modifiers: mask });
    }
    return await fn(mask);
  } finally {
    for (const m of [...held].reverse()) {
      mask &= ~MODIFIER_BIT[m];
      const k = MODIFIER_KEY[m];
      await page.send('Input.dispatchKeyEvent', { type: 'keyUp', key: k.key, code: k.code, windowsVirtualKeyCode: k.keyCode, location: k.location, modifiers: mask }).catch(() => undefined);
    }
  }
}

/** Press and release one key (with `mask` already held). Text keys type their character unless Control/Alt/Meta is held. */
export async function pressKeyRaw(page: Page, def: KeyDefinition, mask: number, opts: { commands?: string[] } = {}): Promise<void> {
  const commandHeld = (mask & (MODIFIER_BIT.control | MODIFIER_BIT.alt | MODIFIER_BIT.meta)) !== 0;
  // With Shift held a character key produces its shifted character, as `key` and as typed text.
  const key = (mask & MODIFIER_BIT.shift) !== 0 && def.key.length === 1 ? shifted(def.key) : def.key;
  let text = def.text === undefined ? undefined : def.key.length === 1 ? key : def.text;
  if (commandHeld) text = undefined;
  const base = { key, code: def.code, windowsVirtualKeyCode: def.keyCode, nativeVirtualKeyCode: def.keyCode, modifiers: mask, ...(def.location ? { location: def.location } : {}) };
  const down = page.send('Input.dispatchKeyEvent', { type: text ? 'keyDown' : 'rawKeyDown', ...base, ...(text ? { text, unmodifiedText: def.text } : {}), ...(opts.commands ? { commands: opts.commands } : {}) });
  const up = page.send('Input.dispatchKeyEvent', { type: 'keyUp', ...base });
  // Both sent at once: CDP delivers them in order; awaiting each would add a round trip per key.
  await Promise.all([down, up]);
}

/**
 * Key events the page does not consume reach Chromium's own shortcuts: these manage tabs and
 * windows (close, quit, new window, tab search) and would act on the browser, not the page; tab
 * search even crashed Chromium later in our tests. Refused rather than sent.
 */
const BROWSER_SHORTCUTS = new Set(['control+w', 'control+q', 'control+n', 'control+t', 'control+shift+w', 'control+shift+q', 'control+shift+n', 'control+shift+t', 'control+shift+a', 'control+f4', 'alt+f4']);

export function assertNotBrowserShortcut(key: string, modifiers: readonly Modifier[]): void {
  const mods = (['control', 'alt', 'shift', 'meta'] as const).filter((m) => modifiers.includes(m));
  const combo = [...mods, key.toLowerCase()].join('+');
  if (BROWSER_SHORTCUTS.has(combo)) {
    throw new PerfError({
      code: 'browser_shortcut',
      message: `${combo} is a browser shortcut (tabs and windows), not a key for the page`,
      suggestion: 'use navigate / reload / app_restart for what the browser would do; press other keys for the page',
    });
  }
}

/** Press a key combination: modifiers held around the key, then released (always). */
export async function pressKey(page: Page, key: string, modifiers: readonly Modifier[] = [], repeat = 1): Promise<void> {
  const def = keyDefinition(key);
  assertNotBrowserShortcut(def.key.length === 1 ? def.key : key, modifiers);
  await withModifiers(page, modifiers, async (mask) => {
    for (let i = 0; i < repeat; i++) await pressKeyRaw(page, def, mask);
  });
}

/**
 * Type text key by key: keydown/keypress/input/keyup per character, like a user on a US keyboard.
 * Characters without a key (emoji, other scripts) go through Input.insertText (one input event).
 */
export async function typeText(page: Page, text: string, opts: { delayMs?: number } = {}): Promise<void> {
  const sends: Promise<unknown>[] = [];
  for (const ch of text) {
    const k = charKey(ch);
    if (k) {
      const mask = k.shift ? MODIFIER_BIT.shift : 0;
      const base = { key: k.key, code: k.code, windowsVirtualKeyCode: k.keyCode, nativeVirtualKeyCode: k.keyCode, modifiers: mask };
      sends.push(page.send('Input.dispatchKeyEvent', { type: 'keyDown', ...base, text: k.text, unmodifiedText: k.text }));
      sends.push(page.send('Input.dispatchKeyEvent', { type: 'keyUp', ...base }));
    } else {
      sends.push(page.send('Input.insertText', { text: ch }));
    }
    if (opts.delayMs) {
      await Promise.all(sends.splice(0));
      await new Promise((r) => setTimeout(r, opts.delayMs));
    }
  }
  await Promise.all(sends);
}

/** Insert text as one edit (IME-commit style): one beforeinput/input pair, no key events. */
export async function insertText(page: Page, text: string): Promise<void> {
  await page.send('Input.insertText', { text });
}

/** Select the focused field's content with the platform's select-all editing command. */
export async function selectAllKey(page: Page): Promise<void> {
  const a = charKey('a')!;
  await withModifiers(page, ['control'], (mask) => pressKeyRaw(page, a, mask, { commands: ['selectAll'] }));
}

// Where this harness last put the mouse on each page: a click where the pointer already is needs
// no move (and a move is frame-aligned in Chromium: it would cost up to a frame).
const pointerAt = new WeakMap<Page, { x: number; y: number }>();
function samePoint(page: Page, x: number, y: number): boolean {
  const p = pointerAt.get(page);
  return !!p && Math.abs(p.x - x) < 0.5 && Math.abs(p.y - y) < 0.5;
}

export interface ClickOptions {
  button?: MouseButton;
  clickCount?: number;
  modifiers?: readonly Modifier[];
}

/** Move to (x, y) and click `clickCount` times (2 = dblclick, 3 = triple click). */
export async function click(page: Page, x: number, y: number, opts: ClickOptions = {}): Promise<void> {
  const button = opts.button ?? 'left';
  const count = opts.clickCount ?? 1;
  await withModifiers(page, opts.modifiers ?? [], async (modifiers) => {
    const sends: Promise<unknown>[] = [];
    if (!samePoint(page, x, y)) sends.push(page.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x, y, modifiers, button: 'none', buttons: 0 }));
    pointerAt.set(page, { x, y });
    for (let i = 1; i <= count; i++) {
      sends.push(page.send('Input.dispatchMouseEvent', { type: 'mousePressed', x, y, button, buttons: BUTTON_BIT[button], clickCount: i, modifiers }));
      sends.push(page.send('Input.dispatchMouseEvent', { type: 'mouseReleased', x, y, button, buttons: 0, clickCount: i, modifiers }));
    }
    // Pipelined: CDP keeps their order, and the renderer handles each before acking the next.
    await Promise.all(sends);
  });
}

/**
 * A click whose last press is acknowledged before the whole of it: `pressed` resolves when the
 * renderer took the last mousedown, `done` when every event was acknowledged (Chromium acks the
 * mouseup only after the frame that renders it). Lets the caller overlap its own wait with that.
 */
export function clickOverlapped(page: Page, x: number, y: number, opts: ClickOptions = {}): { pressed: Promise<void>; done: Promise<void> } {
  let pressedResolve!: () => void;
  let pressedReject!: (e: unknown) => void;
  const pressed = new Promise<void>((res, rej) => {
    pressedResolve = res;
    pressedReject = rej;
  });
  const button = opts.button ?? 'left';
  const count = opts.clickCount ?? 1;
  const done = withModifiers(page, opts.modifiers ?? [], async (modifiers) => {
    const sends: Promise<unknown>[] = [];
    if (!samePoint(page, x, y)) sends.push(page.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x, y, modifiers, button: 'none', buttons: 0 }));
    pointerAt.set(page, { x, y });
    let lastPress: Promise<unknown> = Promise.resolve();
    for (let i = 1; i <= count; i++) {
      lastPress = page.send('Input.dispatchMouseEvent', { type: 'mousePressed', x, y, button, buttons: BUTTON_BIT[button], clickCount: i, modifiers });
      sends.push(lastPress);
      sends.push(page.send('Input.dispatchMouseEvent', { type: 'mouseReleased', x, y, button, buttons: 0, clickCount: i, modifiers }));
    }
    lastPress.then(() => pressedResolve(), pressedReject);
    await Promise.all(sends);
  });
  done.catch(pressedReject);
  return { pressed, done };
}

export async function hover(page: Page, x: number, y: number): Promise<void> {
  pointerAt.set(page, { x, y });
  await page.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x, y, button: 'none', buttons: 0, modifiers: 0 });
}

// A drag must cross the 4-5 px thresholds drag libraries use before they start; five steps at least.
export const MIN_DRAG_STEPS = 5;

/**
 * Press at `from`, move through `steps` intermediate points, release at `to`. HTML5 drag and drop
 * (draggable=true) is intercepted and replayed as drag events, which a headless Chromium otherwise
 * never starts from synthetic mouse input.
 */
export async function drag(page: Page, from: { x: number; y: number }, to: { x: number; y: number }, opts: { steps?: number; modifiers?: readonly Modifier[] } = {}): Promise<{ html5: boolean }> {
  // Ten moves by default: smooth enough for libraries that track velocity, still a few ms.
  const steps = Math.max(MIN_DRAG_STEPS, opts.steps ?? 10);
  pointerAt.set(page, to);
  let dragData: unknown;
  const off = page.on('Input.dragIntercepted', (p) => {
    dragData = p.data;
  });
  await page.send('Input.setInterceptDrags', { enabled: true });
  let pressed = false;
  try {
    return await withModifiers(page, opts.modifiers ?? [], async (modifiers) => {
      await page.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x: from.x, y: from.y, modifiers, button: 'none', buttons: 0 });
      await page.send('Input.dispatchMouseEvent', { type: 'mousePressed', x: from.x, y: from.y, button: 'left', buttons: 1, clickCount: 1, modifiers });
      pressed = true;
      for (let i = 1; i <= steps; i++) {
        const x = from.x + ((to.x - from.x) * i) / steps;
        const y = from.y + ((to.y - from.y) * i) / steps;
        await page.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x, y, button: 'left', buttons: 1, modifiers });
        if (dragData) break;
      }
      if (dragData) {
        const d = dragData as { items: { mimeType: string; data: string }[]; dragOperationsMask: number };
        await page.send('Input.dispatchDragEvent', { type: 'dragEnter', x: to.x, y: to.y, data: d, modifiers });
        await page.send('Input.dispatchDragEvent', { type: 'dragOver', x: to.x, y: to.y, data: d, modifiers });
        await page.send('Input.dispatchDragEvent', { type: 'drop', x: to.x, y: to.y, data: d, modifiers });
      }
      await page.send('Input.dispatchMouseEvent', { type: 'mouseReleased', x: to.x, y: to.y, button: 'left', buttons: 0, clickCount: 1, modifiers });
      pressed = false;
      return { html5: dragData !== undefined };
    });
  } finally {
    // A button left down would turn every later move into a drag.
    if (pressed) await page.send('Input.dispatchMouseEvent', { type: 'mouseReleased', x: to.x, y: to.y, button: 'left', buttons: 0, clickCount: 1 }).catch(() => undefined);
    off();
    await page.send('Input.setInterceptDrags', { enabled: false }).catch(() => undefined);
  }
}

/** One wheel event at (x, y): scrolls what a user's wheel would scroll there (scroll chaining included). */
export async function wheel(page: Page, x: number, y: number, deltaX: number, deltaY: number): Promise<void> {
  pointerAt.set(page, { x, y });
  await page.send('Input.dispatchMouseEvent', { type: 'mouseWheel', x, y, deltaX, deltaY, modifiers: 0, button: 'none', buttons: 0 });
}
