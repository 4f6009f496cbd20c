/**
 * What src/page needs of a step: the page, the host's per-page state, the step's time budget. A
 * StepContext is one; so is anything else that acts on a page through this layer.
 */
import type { HostState } from '../host-state.js';
import type { PageDriver } from '../drivers/page-driver.js';

export interface PageContext {
  page: PageDriver;
  host: { state: HostState };
  timeoutMs: number;
  /** Epoch ms when the step's time runs out. */
  deadline: number;
}

// Warnings raised while resolving or gating (no frames…), collected for the step's output.
const warningsByCtx = new WeakMap<PageContext, string[]>();

export function addWarning(ctx: PageContext, w: string): void {
  let list = warningsByCtx.get(ctx);
  if (!list) warningsByCtx.set(ctx, (list = []));
  if (!list.includes(w)) list.push(w);
}

export function takeWarnings(ctx: PageContext): string[] {
  const w = warningsByCtx.get(ctx) ?? [];
  warningsByCtx.delete(ctx);
  return w;
}

/**
 * Time an in-page wait may take: what is left of the step, minus a margin to report the failure
 * before the step's own timeout fires (a fifth of the budget, at most 100 ms).
 */
export const remaining = (ctx: PageContext): number => Math.max(0, ctx.deadline - Date.now() - Math.min(100, ctx.timeoutMs / 5));
