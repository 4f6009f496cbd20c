/**
 * resize_viewport: emulate a viewport size, pixel ratio, mobile layout and touch, then report what
 * the page itself sees (innerWidth, innerHeight, devicePixelRatio, maxTouchPoints).
 */
import type { PageDriver, ViewportReadBack, ViewportSpec } from '../page/index.js';
import { defineStep } from './define.js';

// 50 ms × 10: the resize reaches the page with its next frame; half a second covers a busy one.
const SETTLE_POLL_MS = 50;
const SETTLE_POLLS = 10;

/** Read the viewport until `done` says so (or the polls run out) and return the last reading. */
export async function readViewportUntil(page: PageDriver, done: (seen: ViewportReadBack) => boolean): Promise<ViewportReadBack> {
  let seen = await page.emulation.readViewport();
  for (let i = 0; i < SETTLE_POLLS && !done(seen); i++) {
    await new Promise((r) => setTimeout(r, SETTLE_POLL_MS));
    seen = await page.emulation.readViewport();
  }
  return seen;
}

/** Read the viewport until it matches `want` (or the polls run out) and return the last reading. */
export function readViewportSettled(page: PageDriver, want: { width: number; height: number; dpr: number }): Promise<ViewportReadBack> {
  return readViewportUntil(page, (seen) => seen.width === want.width && seen.height === want.height && seen.dpr === want.dpr);
}

/** The answer of resize_viewport and device_profile: the read-back values, and whether they match. */
export function viewportAnswer(want: ViewportSpec, seen: ViewportReadBack): { data: Record<string, unknown>; warnings?: string[] } {
  const verified = seen.width === want.width && seen.height === want.height && seen.dpr === want.dpr && seen.touch === want.touch;
  const warnings: string[] = [];
  if (!verified) {
    warnings.push(
      `the page reports ${seen.width}×${seen.height} @${seen.dpr}x${seen.touch ? ' touch' : ''}` +
        `, not ${want.width}×${want.height} @${want.dpr}x${want.touch ? ' touch' : ''}` +
        (want.mobile && seen.width !== want.width
          ? ' (in mobile mode a page without <meta name="viewport" content="width=device-width"> lays out at 980 px)'
          : ''),
    );
  }
  return {
    data: {
      width: seen.width,
      height: seen.height,
      dpr: seen.dpr,
      // Chromium offers no read-back for the mobile flag; it is what was applied.
      mobile: want.mobile,
      touch: seen.touch,
      verified,
    },
    ...(warnings.length ? { warnings } : {}),
  };
}

export const resizeViewport = defineStep({
  name: 'resize_viewport',
  description: 'Emulate a viewport (CSS px, pixel ratio, mobile, touch); answers what the page reads back.',
  details:
    'mobile honours the meta viewport tag and uses overlay scrollbars; touch sets maxTouchPoints and enables touch ' +
    'events (both default false). Read back: innerWidth, innerHeight, devicePixelRatio, touch. device_profile reset ' +
    'undoes it. On a terminal program, width and height are columns and rows (the program gets SIGWINCH).',
  args: {
    type: 'object',
    properties: {
      width: { type: 'integer', minimum: 1, maximum: 10000, description: 'CSS px.' },
      height: { type: 'integer', minimum: 1, maximum: 10000, description: 'CSS px.' },
      dpr: { type: 'number', exclusiveMinimum: 0, maximum: 10, description: 'Pixel ratio, default 1.' },
      mobile: { type: 'boolean', description: 'Mobile layout (meta viewport).' },
      touch: { type: 'boolean', description: 'Touch screen.' },
    },
    required: ['width', 'height'],
  } as const,
  readOnly: false,
  async terminal(ctx, args) {
    // A terminal's viewport is its grid: width and height are columns and rows.
    await ctx.terminal.resize(args.width, args.height);
    const { lines } = await ctx.terminal.screen();
    return {
      data: {
        cols: ctx.terminal.size.cols,
        rows: ctx.terminal.size.rows,
        verified: ctx.terminal.size.cols === args.width && ctx.terminal.size.rows === args.height && lines.length === args.height,
      },
    };
  },
  async run(ctx, args) {
    const want: ViewportSpec = {
      width: args.width,
      height: args.height,
      dpr: args.dpr ?? 1,
      mobile: args.mobile ?? false,
      touch: args.touch ?? false,
    };
    await ctx.page.emulation.applyViewport(want);
    const seen = await readViewportSettled(ctx.page, want);
    return viewportAnswer(want, seen);
  },
});
