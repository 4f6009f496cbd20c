/**
 * dismiss_modals: close what blocks the page, the way a user would, and verify it. Native <dialog>
 * elements are closed with dialog.close(); ARIA modals (aria-modal="true", role=dialog|alertdialog)
 * first get Escape, then a click on their close / cancel / dismiss / OK button. Afterwards the page is
 * scanned again and whatever is still open is reported.
 */
import type { PageDriver } from '../page/index.js';
import { defineStep, type StepOutput } from './define.js';

// 300 ms for a modal to disappear after Escape or a click: covers the usual fade-out transition.
const CLOSE_WAIT_MS = 300;
// 50 ms between "still open?" checks during that wait.
const POLL_MS = 50;
// 5 rounds: closing one modal may reveal another stacked below; more than 5 is a page that reopens them.
const MAX_ROUNDS = 5;

export interface ModalInfo {
  /** Index in the page-side registry, valid until the next scan. */
  index: number;
  kind: 'dialog' | 'aria';
  role: string;
  name: string;
  /** Already handled in this step (so a modal that refuses to close is not retried forever). */
  tried: boolean;
}

export interface Dismissed {
  role: string;
  name: string;
  /** How it was closed: "dialog.close()", "Escape", "clicked \"Close\"", "hidePopover()". */
  how: string;
}

type ModalOp =
  'scan' | 'isOpen' | 'markTried' | 'close' | 'focusInside' | 'closeButton' | 'clickFallback' | 'hidePopovers' | 'blur' | 'resetTried';

/**
 * Page-side helper, serialised with toString(): elements stay in a registry in the page between calls
 * (indices from the last scan), so no attribute is ever written on the app's DOM.
 */
function modalRuntime(op: ModalOp, index: number, buttonPatterns: string[]): unknown {
  type Reg = { list: Element[]; tried: WeakSet<Element> };
  const g = globalThis as unknown as Record<symbol, Reg | undefined>;
  const key = Symbol.for('rehearse.modals');
  const reg: Reg = g[key] ?? (g[key] = { list: [], tried: new WeakSet() });
  const clean = (s: string | null | undefined): string => (s ?? '').replace(/\s+/g, ' ').trim();
  const visible = (el: Element): boolean => {
    const r = el.getBoundingClientRect();
    const cv = (el as Element & { checkVisibility?: (o: object) => boolean }).checkVisibility;
    return r.width > 0 && r.height > 0 && (cv ? cv.call(el, { checkVisibilityCSS: true }) : getComputedStyle(el).visibility !== 'hidden');
  };
  const nameOf = (el: Element): string => {
    const label = el.getAttribute('aria-label');
    if (label) return clean(label);
    const ids = el.getAttribute('aria-labelledby');
    if (ids) {
      const root = el.getRootNode() as Document | ShadowRoot;
      const text = ids
        .split(/\s+/)
        .map((id) => clean(root.getElementById?.(id)?.textContent))
        .join(' ')
        .trim();
      if (text) return text;
    }
    return clean(
      el.querySelector('h1,h2,h3,h4,h5,h6,[role=heading]')?.textContent ?? (el instanceof HTMLElement ? el.innerText.slice(0, 40) : ''),
    );
  };
  const isOpen = (el: Element): boolean => (el instanceof HTMLDialogElement ? el.open : el.isConnected && visible(el));
  const all = (root: Document | ShadowRoot, out: Element[]): Element[] => {
    for (const el of root.querySelectorAll('*')) {
      out.push(el);
      if (el.shadowRoot) all(el.shadowRoot, out);
    }
    return out;
  };
  const buttonName = (b: Element): string =>
    clean(b.getAttribute('aria-label') || (b as HTMLElement).innerText || b.getAttribute('title') || (b as HTMLInputElement).value);

  switch (op) {
    case 'scan': {
      const found: Element[] = [];
      for (const el of all(document, [])) {
        const role = el.getAttribute('role');
        const candidate =
          el instanceof HTMLDialogElement
            ? el.open
            : (el.getAttribute('aria-modal') === 'true' || role === 'dialog' || role === 'alertdialog') && visible(el);
        if (candidate) found.push(el);
      }
      // A dialog inside another one closes with its container: handle the outermost only.
      reg.list = found.filter((el) => !found.some((other) => other !== el && other.contains(el)));
      return reg.list.map((el, i) => ({
        index: i,
        kind: el instanceof HTMLDialogElement ? 'dialog' : 'aria',
        role: el.getAttribute('role') ?? 'dialog',
        name: nameOf(el),
        tried: reg.tried.has(el),
      }));
    }
    case 'resetTried':
      reg.tried = new WeakSet();
      return true;
    case 'isOpen': {
      const el = reg.list[index];
      return el ? isOpen(el) : false;
    }
    case 'markTried': {
      const el = reg.list[index];
      if (el) reg.tried.add(el);
      return true;
    }
    case 'close': {
      const el = reg.list[index];
      if (!(el instanceof HTMLDialogElement)) return false;
      // close() fires its close event in a later task: wait for it, so the app's close handler has
      // run when the effect is read back. 200 ms: the event comes within a task or two; a dialog
      // that was not open fires none.
      const fired = new Promise((resolve) => {
        el.addEventListener('close', resolve, { once: true });
        setTimeout(resolve, 200);
      });
      el.close();
      return fired.then(() => !el.open);
    }
    case 'focusInside': {
      // Escape goes to the focused element; an app listening on the modal only hears it from inside.
      const el = reg.list[index];
      if (!el) return false;
      let active: Element | null = document.activeElement;
      while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
      if (active && el.contains(active)) return true;
      const focusable = el.querySelector<HTMLElement>(
        'button:not([disabled]),[href],input:not([disabled]),select,textarea,[tabindex]:not([tabindex="-1"])',
      );
      (focusable ?? (el as HTMLElement)).focus?.();
      return true;
    }
    case 'closeButton': {
      // The best close control inside the modal, by preference order of the pattern's alternatives.
      const el = reg.list[index];
      if (!el) return null;
      const buttons = [...el.querySelectorAll('button,[role=button],input[type=button],input[type=submit],input[type=reset]')].filter(
        visible,
      );
      for (const alt of buttonPatterns) {
        const re = new RegExp(alt, 'i');
        const b = buttons.find((x) => re.test(buttonName(x)));
        if (!b) continue;
        reg.list.push(b);
        const r = b.getBoundingClientRect();
        const x = r.left + r.width / 2;
        const y = r.top + r.height / 2;
        const hit = document.elementFromPoint(x, y);
        return { button: reg.list.length - 1, name: buttonName(b), x, y, hittable: !!hit && (hit === b || b.contains(hit)) };
      }
      return null;
    }
    case 'clickFallback': {
      const b = reg.list[index];
      if (b instanceof HTMLElement) b.click();
      return !!b;
    }
    case 'hidePopovers': {
      const hidden: { role: string; name: string }[] = [];
      for (const el of all(document, [])) {
        if (el instanceof HTMLElement && el.matches(':popover-open')) {
          el.hidePopover();
          hidden.push({ role: el.getAttribute('role') ?? 'popover', name: nameOf(el) });
        }
      }
      return hidden;
    }
    case 'blur': {
      let active: Element | null = document.activeElement;
      while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
      if (!active || active === document.body || active === document.documentElement || !(active instanceof HTMLElement)) return null;
      const info = { role: active.getAttribute('role') ?? active.tagName.toLowerCase(), name: buttonName(active) || nameOf(active) };
      active.blur();
      return info;
    }
  }
}

/**
 * Close-button names in order of preference: leaving without side effects (close, ×, dismiss, cancel)
 * before accepting (got it, OK). Word boundaries keep "ok" from matching "Book" or "Look".
 */
const CLOSE_BUTTON_PATTERNS = [
  '\\bclose\\b',
  '^\\s*[×✕✖x]\\s*$',
  '[×✕✖]',
  '\\bdismiss\\b',
  '\\bcancel\\b',
  '\\bgot it\\b',
  '\\bok\\b',
  '\\bokay\\b',
];

export async function modalOp<T>(page: PageDriver, op: ModalOp, index = -1): Promise<T> {
  return page.evaluate<T>(`(${modalRuntime.toString()})(${JSON.stringify(op)}, ${index}, ${JSON.stringify(CLOSE_BUTTON_PATTERNS)})`);
}

/** A real Escape key press (trusted, reaches keydown listeners and native dialogs): the driver's key input. */
export async function pressEscape(page: PageDriver): Promise<void> {
  await page.input.pressKey('Escape');
}

async function waitClosed(page: PageDriver, index: number, deadline: number): Promise<boolean> {
  const until = Math.min(deadline, Date.now() + CLOSE_WAIT_MS);
  for (;;) {
    if (!(await modalOp<boolean>(page, 'isOpen', index))) return true;
    if (Date.now() + POLL_MS > until) return false;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** Close one modal; returns how, or undefined when it stayed open. */
async function closeOne(page: PageDriver, m: ModalInfo, deadline: number): Promise<string | undefined> {
  await modalOp(page, 'markTried', m.index);
  if (m.kind === 'dialog') {
    await modalOp(page, 'close', m.index);
    return (await waitClosed(page, m.index, deadline)) ? 'dialog.close()' : undefined;
  }
  await modalOp(page, 'focusInside', m.index);
  await pressEscape(page);
  if (await waitClosed(page, m.index, deadline)) return 'Escape';
  const button = await modalOp<{ button: number; name: string; x: number; y: number; hittable: boolean } | null>(
    page,
    'closeButton',
    m.index,
  );
  if (!button) return undefined;
  // A real click when nothing covers the button; otherwise the DOM click() still runs its handler.
  if (button.hittable) await page.input.click(button.x, button.y);
  else await modalOp(page, 'clickFallback', button.button);
  return (await waitClosed(page, m.index, deadline)) ? `clicked "${button.name}"` : undefined;
}

export interface DismissResult {
  dismissed: Dismissed[];
  /** Modals still open after the attempt, read back from the page. */
  remaining: { role: string; name: string }[];
}

/** Close every open modal (stacked ones too, up to MAX_ROUNDS), then read back what is left. */
export async function dismissOpenModals(page: PageDriver, deadline: number): Promise<DismissResult> {
  const dismissed: Dismissed[] = [];
  await modalOp(page, 'resetTried');
  for (let round = 0; round < MAX_ROUNDS && Date.now() < deadline; round++) {
    const open = await modalOp<ModalInfo[]>(page, 'scan');
    // From the top down: native dialogs live in the top layer (and a modal one makes the rest of the
    // page inert, so Escape could not reach anything else); among the others, the last in document
    // order is usually on top.
    const fresh = open.filter((m) => !m.tried).reverse();
    const todo = [...fresh.filter((m) => m.kind === 'dialog'), ...fresh.filter((m) => m.kind === 'aria')];
    if (todo.length === 0) break;
    for (const m of todo) {
      const how = await closeOne(page, m, deadline);
      if (how) dismissed.push({ role: m.role, name: m.name, how });
    }
  }
  const left = await modalOp<ModalInfo[]>(page, 'scan');
  return { dismissed, remaining: left.map((m) => ({ role: m.role, name: m.name })) };
}

/** The step answer shared by dismiss_modals and reset_overlays. */
export function dismissAnswer(r: DismissResult, extra: Record<string, unknown> = {}, changed = r.dismissed.length > 0): StepOutput {
  return {
    data: {
      ...extra,
      dismissed: r.dismissed,
      remaining: r.remaining.length,
      ...(r.remaining.length ? { remainingModals: r.remaining } : {}),
    },
    effect: { treeChanged: { changed } },
    ...(r.remaining.length
      ? {
          warnings: [
            `${r.remaining.length} modal(s) still open: ${r.remaining.map((m) => `${m.role} "${m.name}"`).join(', ')}; ` +
              'close them with tap on their own button',
          ],
        }
      : {}),
  };
}

export const dismissModals = defineStep({
  name: 'dismiss_modals',
  description:
    'Close open modals (<dialog>, aria-modal, role=dialog/alertdialog) as a user would, and verify: ' +
    'returns {dismissed: [{role, name, how}], remaining}.',
  details:
    '<dialog> elements get dialog.close(); visible ARIA modals get Escape, then a click on their close/cancel/dismiss/OK button. ' +
    'remaining counts those still open. Cookie banners are out of scope.',
  args: { type: 'object', properties: {} } as const,
  readOnly: false,
  async run(ctx) {
    const result = await dismissOpenModals(ctx.page, ctx.deadline);
    return dismissAnswer(result);
  },
});
