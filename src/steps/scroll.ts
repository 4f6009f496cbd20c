import { abortAction, settleAction, treeEffect, locatorOf, remaining, resolveTarget } from '../page/index.js';
import { actionOutput } from './act.js';
import { PerfError } from '../errors.js';
import { TARGET_ARGS, defineStep } from './define.js';
import { terminalScroll } from './terminal.js';

const ARGS = {
  type: 'object',
  properties: {
    ...TARGET_ARGS,
    direction: { type: 'string', enum: ['up', 'down', 'left', 'right'], description: 'Which way to scroll (with pixels).' },
    pixels: { type: 'number', exclusiveMinimum: 0, description: "Distance in CSS px. Default 80% of the container's visible size." },
    dx: { type: 'number', description: 'Horizontal scroll in CSS px (positive: right).' },
    dy: { type: 'number', description: 'Vertical scroll in CSS px (positive: down).' },
    intoView: { type: 'boolean', description: 'Scroll ref/target into view (centred) instead of by an amount.' },
  },
  additionalProperties: false,
} as const;

// A wheel can land short (scroll snapping, momentum caps): send the remainder a few times at most.
const MAX_WHEELS = 4;
// Smooth scrolling of a wheel takes ~100-300 ms in Chromium; past this we read what it reached.
const WHEEL_SETTLE_MS = 1500;
// Default step: most of a screen, keeping some overlap so nothing is skipped unseen.
const PAGE_FRACTION = 0.8;

export const scroll = defineStep({
  name: 'scroll',
  description:
    'Scroll with wheel events (direction+pixels or dx/dy) in the container of ref/target or the page, or intoView; reads back the offset.',
  details:
    'With ref/target it scrolls that element or its nearest scrollable ancestor; without, the first scrollable element of ' +
    'the page (else the document). Wheel events at the container run scroll handlers and frames as for a user. Clamped to ' +
    'the scroll range. intoView scrolls the element into view instead. The effect: scrollOffset {changed, before, after}.',
  args: ARGS,
  readOnly: false,
  actsOnTarget: true,
  shorthand: (direction) => ({ direction }),
  terminal: (ctx, args) => terminalScroll(ctx, args),
  async run(ctx, args) {
    const page = ctx.page;
    const hasLocator = args.ref !== undefined || args.target !== undefined;
    const amounts = args.direction !== undefined || args.dx !== undefined || args.dy !== undefined;
    if (args.intoView) {
      if (!hasLocator)
        throw new PerfError({
          code: 'invalid_arguments',
          message: 'scroll: intoView needs ref or target (the element to bring into view)',
        });
      if (amounts)
        throw new PerfError({ code: 'invalid_arguments', message: 'scroll: give intoView or an amount (direction / dx / dy), not both' });
      const { r } = await resolveTarget(ctx, locatorOf('scroll', args));
      await page.call('begin', [r.ref, 'none']);
      const v = await page.call('scrollIntoView', [r.ref]);
      if (v.status !== 'ok') {
        await abortAction(ctx);
        throw new PerfError({ code: 'stale_ref', kind: 'usage', message: v.detail, suggestion: 'run snap again' });
      }
      const settle = await settleAction(ctx);
      const changed = v.before.x !== v.after.x || v.before.y !== v.after.y;
      return actionOutput(ctx, args, {
        data: { container: v.container, inView: v.inView, alreadyInView: v.wasInView },
        effect: { scrollOffset: { changed, before: v.before, after: v.after }, ...treeEffect(settle) },
        reresolved: r.reresolved && r.ref,
      });
    }
    if (!amounts)
      throw new PerfError({
        code: 'invalid_arguments',
        message: 'scroll: give direction (+ pixels), dx / dy, or intoView with a ref/target',
        suggestion: 'e.g. scroll: { direction: down } or scroll: { target: { role: list }, dy: 600 }',
      });
    if (args.direction !== undefined && (args.dx !== undefined || args.dy !== undefined))
      throw new PerfError({ code: 'invalid_arguments', message: 'scroll: give direction (+ pixels) or dx / dy, not both' });
    if (args.pixels !== undefined && args.direction === undefined)
      throw new PerfError({ code: 'invalid_arguments', message: 'scroll: pixels goes with direction' });
    let ref: string | null = null;
    let reresolved: string | false = false;
    if (hasLocator) {
      const { r } = await resolveTarget(ctx, locatorOf('scroll', args));
      ref = r.ref;
      if (r.reresolved) reresolved = r.ref;
    }
    const horizontal =
      args.direction === 'left' ||
      args.direction === 'right' ||
      (args.direction === undefined && (args.dx ?? 0) !== 0 && (args.dy ?? 0) === 0);
    const c = await page.call('scrollContainer', [ref, horizontal ? 'x' : 'y']);
    if (c.status !== 'ok') throw new PerfError({ code: 'stale_ref', kind: 'usage', message: c.detail, suggestion: 'run snap again' });
    let dx = args.dx ?? 0;
    let dy = args.dy ?? 0;
    if (args.direction) {
      const px = args.pixels ?? Math.round((horizontal ? c.clientWidth : c.clientHeight) * PAGE_FRACTION);
      dx = args.direction === 'left' ? -px : args.direction === 'right' ? px : 0;
      dy = args.direction === 'up' ? -px : args.direction === 'down' ? px : 0;
    }
    const before = { x: c.x, y: c.y };
    const goal = { x: clamp(c.x + dx, 0, c.maxX), y: clamp(c.y + dy, 0, c.maxY) };
    const data: Record<string, unknown> = { container: c.describe };
    if (goal.x === c.x && goal.y === c.y) {
      return actionOutput(ctx, args, {
        data: { ...data, atLimit: true, method: 'none' },
        effect: { scrollOffset: { changed: false, before, after: before } },
        reresolved,
      });
    }
    await page.call('begin', [c.ref, 'none']);
    let now = before;
    let method = 'wheel';
    try {
      for (let i = 0; i < MAX_WHEELS; i++) {
        await page.input.wheel(c.point.x, c.point.y, goal.x - now.x, goal.y - now.y);
        const wait = Math.min(WHEEL_SETTLE_MS, remaining(ctx));
        const a = await page.call('awaitScroll', [c.ref, goal.x, goal.y, wait], { awaitPromise: true, timeoutMs: wait + 2000 });
        if (a.status !== 'ok') throw new PerfError({ code: 'stale_ref', kind: 'usage', message: a.detail, suggestion: 'run snap again' });
        const moved = a.x !== now.x || a.y !== now.y;
        now = { x: a.x, y: a.y };
        if (!moved || (Math.abs(now.x - goal.x) < 1 && Math.abs(now.y - goal.y) < 1)) break;
      }
      if (now.x === before.x && now.y === before.y) {
        // The wheel moved nothing (a handler prevented it, or it scrolled something in front).
        const f = await page.call('scrollByFallback', [c.ref, goal.x, goal.y]);
        if (f.status === 'ok') now = { x: f.x, y: f.y };
        method = 'scrollTo';
      }
    } catch (e) {
      await abortAction(ctx);
      throw e;
    }
    const settle = await settleAction(ctx);
    const changed = now.x !== before.x || now.y !== before.y;
    return actionOutput(ctx, args, {
      data: { ...data, method, ...(goal.x !== c.x + dx || goal.y !== c.y + dy ? { clamped: true } : {}) },
      effect: { scrollOffset: { changed, before, after: now }, ...treeEffect(settle) },
      reresolved,
    });
  },
});

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, v));
}
