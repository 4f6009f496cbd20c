/**
 * Trusted input through CDP (Input.dispatchMouseEvent / dispatchKeyEvent / insertText): the events a
 * real user produces, with the same ordering and modifier state. Coordinates are CSS px in the top
 * frame's viewport. Modifier keys pressed here are always released, even when delivery fails.
 */
import type { Page } from './browser.js';
import type { ClickOptions } from '../page-driver.js';
import {
  MIN_DRAG_STEPS,
  assertNotBrowserShortcut,
  charKey,
  keyDefinition,
  namedKey,
  shifted,
  type KeyDefinition,
  type Modifier,
  type MouseButton,
} from '../keys.js';

/** CDP's modifier bit field. */
const MODIFIER_BIT: Record<Modifier, number> = { alt: 1, control: 2, meta: 4, shift: 8 };
const BUTTON_BIT: Record<MouseButton, number> = { left: 1, right: 2, middle: 4 };

const MODIFIER_KEY: Record<Modifier, KeyDefinition> = {
  control: namedKey('Control'),
  shift: namedKey('Shift'),
  alt: namedKey('Alt'),
  meta: namedKey('Meta'),
};

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
      await page.send('Input.dispatchKeyEvent', {
        type: 'rawKeyDown',
        key: k.key,
        code: k.code,
        windowsVirtualKeyCode: k.keyCode,
        location: k.location,
        modifiers: mask,
      });
    }
    return await fn(mask);
  } finally {
    for (const m of [...held].reverse()) {
      mask &= ~MODIFIER_BIT[m];
      const k = MODIFIER_KEY[m];
      await page
        .send('Input.dispatchKeyEvent', {
          type: 'keyUp',
          key: k.key,
          code: k.code,
          windowsVirtualKeyCode: k.keyCode,
          location: k.location,
          modifiers: mask,
        })
        .catch(() => undefined);
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
  const base = {
    key,
    code: def.code,
    windowsVirtualKeyCode: def.keyCode,
    nativeVirtualKeyCode: def.keyCode,
    modifiers: mask,
    ...(def.location ? { location: def.location } : {}),
  };
  const down = page.send('Input.dispatchKeyEvent', {
    type: text ? 'keyDown' : 'rawKeyDown',
    ...base,
    ...(text ? { text, unmodifiedText: def.text } : {}),
    ...(opts.commands ? { commands: opts.commands } : {}),
  });
  const up = page.send('Input.dispatchKeyEvent', { type: 'keyUp', ...base });
  // Both sent at once: CDP delivers them in order; awaiting each would add a round trip per key.
  await Promise.all([down, up]);
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

/** Move to (x, y) and click `clickCount` times (2 = dblclick, 3 = triple click). */
export async function click(page: Page, x: number, y: number, opts: ClickOptions = {}): Promise<void> {
  const button = opts.button ?? 'left';
  const count = opts.clickCount ?? 1;
  await withModifiers(page, opts.modifiers ?? [], async (modifiers) => {
    const sends: Promise<unknown>[] = [];
    if (!samePoint(page, x, y))
      sends.push(page.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x, y, modifiers, button: 'none', buttons: 0 }));
    pointerAt.set(page, { x, y });
    for (let i = 1; i <= count; i++) {
      sends.push(
        page.send('Input.dispatchMouseEvent', {
          type: 'mousePressed',
          x,
          y,
          button,
          buttons: BUTTON_BIT[button],
          clickCount: i,
          modifiers,
        }),
      );
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
export function clickOverlapped(
  page: Page,
  x: number,
  y: number,
  opts: ClickOptions = {},
): { pressed: Promise<void>; done: Promise<void> } {
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
    if (!samePoint(page, x, y))
      sends.push(page.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x, y, modifiers, button: 'none', buttons: 0 }));
    pointerAt.set(page, { x, y });
    let lastPress: Promise<unknown> = Promise.resolve();
    for (let i = 1; i <= count; i++) {
      lastPress = page.send('Input.dispatchMouseEvent', {
        type: 'mousePressed',
        x,
        y,
        button,
        buttons: BUTTON_BIT[button],
        clickCount: i,
        modifiers,
      });
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

/**
 * Press at `from`, move through `steps` intermediate points, release at `to`. HTML5 drag and drop
 * (draggable=true) is intercepted and replayed as drag events, which a headless Chromium otherwise
 * never starts from synthetic mouse input.
 */
export async function drag(
  page: Page,
  from: { x: number; y: number },
  to: { x: number; y: number },
  opts: { steps?: number; modifiers?: readonly Modifier[] } = {},
): Promise<{ html5: boolean }> {
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
      await page.send('Input.dispatchMouseEvent', {
        type: 'mousePressed',
        x: from.x,
        y: from.y,
        button: 'left',
        buttons: 1,
        clickCount: 1,
        modifiers,
      });
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
      await page.send('Input.dispatchMouseEvent', {
        type: 'mouseReleased',
        x: to.x,
        y: to.y,
        button: 'left',
        buttons: 0,
        clickCount: 1,
        modifiers,
      });
      pressed = false;
      return { html5: dragData !== undefined };
    });
  } finally {
    // A button left down would turn every later move into a drag.
    if (pressed)
      await page
        .send('Input.dispatchMouseEvent', { type: 'mouseReleased', x: to.x, y: to.y, button: 'left', buttons: 0, clickCount: 1 })
        .catch(() => undefined);
    off();
    await page.send('Input.setInterceptDrags', { enabled: false }).catch(() => undefined);
  }
}

/** One wheel event at (x, y): scrolls what a user's wheel would scroll there (scroll chaining included). */
export async function wheel(page: Page, x: number, y: number, deltaX: number, deltaY: number): Promise<void> {
  pointerAt.set(page, { x, y });
  await page.send('Input.dispatchMouseEvent', { type: 'mouseWheel', x, y, deltaX, deltaY, modifiers: 0, button: 'none', buttons: 0 });
}
