/**
 * reset_overlays: bring the page back to a neutral state between interactions. Escape once at page
 * level (closes menus, tooltips, comboboxes and modals that listen for it), open popovers hidden,
 * then the dismiss_modals sequence, and finally the focused element blurred. Everything is read back.
 */
import { defineStep } from './define.js';
import { dismissAnswer, dismissOpenModals, modalOp, pressEscape, type Dismissed, type ModalInfo } from './dismiss-modals.js';

export const resetOverlays = defineStep({
  name: 'reset_overlays',
  description:
    'Reset transient UI: press Escape, hide popovers, close modals (like dismiss_modals), ' +
    'blur the focused element. Returns what it did and the modals left.',
  details:
    'Escape is pressed once at page level; modals are closed with dialog.close(), Escape, ' +
    'or their close/cancel/OK button. How many modals remain open is read back.',
  args: { type: 'object', properties: {} } as const,
  readOnly: false,
  async run(ctx) {
    const { page } = ctx;
    const before = await modalOp<ModalInfo[]>(page, 'scan');
    await pressEscape(page);
    // Let Escape handlers run and a closing transition start before looking again.
    await page.evaluate('new Promise((r) => setTimeout(r, 50))');
    const afterEscape = await modalOp<ModalInfo[]>(page, 'scan');
    const key = (m: ModalInfo): string => `${m.role}\u0000${m.name}`;
    const stillOpen = new Set(afterEscape.map(key));
    const closedByEscape: Dismissed[] = before
      .filter((m) => !stillOpen.has(key(m)))
      .map((m) => ({ role: m.role, name: m.name, how: 'Escape (page level)' }));
    const popovers = await modalOp<{ role: string; name: string }[]>(page, 'hidePopovers');
    const modals = await dismissOpenModals(page, ctx.deadline);
    const blurred = await modalOp<{ role: string; name: string } | null>(page, 'blur');
    const dismissed = [...closedByEscape, ...popovers.map((p) => ({ ...p, how: 'hidePopover()' })), ...modals.dismissed];
    return dismissAnswer(
      { dismissed, remaining: modals.remaining },
      { escapePressed: true, blurred },
      dismissed.length > 0 || blurred !== null,
    );
  },
});
