/**
 * screenshot: the viewport, the whole page, one element, or a rectangle relative to an element, as
 * PNG or JPEG. Returned as image content; optionally written to a file inside the working folder.
 */
import { elementBox } from '../page/index.js';
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { PerfError } from '../errors.js';
import { confinedPath, writeFileNoFollow } from '../files.js';
import { defineStep, TARGET_ARGS, type TargetSpec } from './define.js';
import { terminalScreenshot } from './terminal.js';

// 16384 CSS px: Chromium's largest capturable texture side; a taller full-page capture is cut there.
const MAX_CAPTURE_PX = 16_384;

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Pixel size read from the image bytes (PNG IHDR, JPEG SOFn), i.e. what was really captured. */
export function imageSize(buf: Buffer): { width: number; height: number } | undefined {
  if (buf.length >= 24 && buf.readUInt32BE(0) === 0x89504e47 && buf.toString('ascii', 12, 16) === 'IHDR') {
    return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
  }
  if (buf.length >= 4 && buf[0] === 0xff && buf[1] === 0xd8) {
    let i = 2;
    while (i + 9 < buf.length) {
      if (buf[i] !== 0xff) return undefined;
      const marker = buf[i + 1]!;
      const len = buf.readUInt16BE(i + 2);
      // SOF0..SOF15 carry the frame size, except DHT (C4), JPG (C8) and DAC (CC).
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return { height: buf.readUInt16BE(i + 5), width: buf.readUInt16BE(i + 7) };
      }
      i += 2 + len;
    }
  }
  return undefined;
}

export const screenshot = defineStep({
  name: 'screenshot',
  description: 'Capture the viewport, the full page, an element or a rect in it as PNG or JPEG; returns the image.',
  details:
    'Default: the viewport, as PNG. Returns the image plus {width, height, bytes} read ' +
    'from the image; with path, also writes it to a file inside the working folder.',
  args: {
    type: 'object',
    properties: {
      ...TARGET_ARGS,
      format: { type: 'string', enum: ['png', 'jpeg'], description: 'Default png, or jpeg when path ends in .jpg/.jpeg.' },
      quality: { type: 'integer', minimum: 0, maximum: 100, description: 'JPEG quality 0-100. Default 80.' },
      rect: {
        type: 'object',
        description: 'Rectangle relative to the ref/target element, in CSS px.',
        properties: {
          x: { type: 'number', description: "Left edge, CSS px from the element's left." },
          y: { type: 'number', description: "Top edge, CSS px from the element's top." },
          width: { type: 'number', exclusiveMinimum: 0, description: 'Width in CSS px.' },
          height: { type: 'number', exclusiveMinimum: 0, description: 'Height in CSS px.' },
        },
        required: ['x', 'y', 'width', 'height'],
        additionalProperties: false,
      },
      fullPage: { type: 'boolean', description: 'Whole scrollable page instead of the viewport; not with ref/target.' },
      path: { type: 'string', minLength: 1, description: 'Also write the image to this file, inside the working folder.' },
      overwrite: { type: 'boolean', description: 'Replace an existing file at path. Default false: error.' },
    },
  } as const,
  readOnly: true,
  writesFiles: true,
  terminal: (ctx, args) => terminalScreenshot(ctx, args),
  async run(ctx, args) {
    const { page } = ctx;
    const hasElement = args.ref !== undefined || args.target !== undefined;
    if (args.ref !== undefined && args.target !== undefined) {
      throw new PerfError({ code: 'invalid_arguments', message: 'screenshot: give ref or target, not both' });
    }
    if (args.rect && !hasElement) {
      throw new PerfError({
        code: 'rect_without_ref',
        message: 'screenshot: rect is relative to an element; give ref or target with it',
        suggestion: 'add ref (from snap) or target, or drop rect to capture the viewport',
      });
    }
    if (args.fullPage && hasElement) {
      throw new PerfError({
        code: 'invalid_arguments',
        message: 'screenshot: fullPage captures the whole page; it cannot be combined with ref or target',
      });
    }
    const format = args.format ?? (args.path && /\.jpe?g$/i.test(args.path) ? 'jpeg' : 'png');
    if (args.quality !== undefined && format !== 'jpeg') {
      throw new PerfError({
        code: 'quality_needs_jpeg',
        message: 'screenshot: quality applies to JPEG only',
        suggestion: 'add format: jpeg, or drop quality',
      });
    }
    // Check the destination before capturing, so a refused path costs nothing.
    const file = args.path !== undefined ? await confinedPath(ctx.host.cwd, args.path, 'screenshot') : undefined;

    const warnings: string[] = [];
    let clip: Box | undefined;
    if (hasElement) {
      const locator: { ref?: string; target?: TargetSpec } = args.ref !== undefined ? { ref: args.ref } : { target: args.target! };
      const box = await elementBox(ctx, locator);
      // elementBox is viewport-relative (like getBoundingClientRect); the capture clip is in page coordinates.
      const { scrollX, scrollY } = await page.capture.geometry();
      const r = args.rect ?? { x: 0, y: 0, width: box.width, height: box.height };
      clip = { x: box.x + r.x + scrollX, y: box.y + r.y + scrollY, width: r.width, height: r.height };
      if (clip.width <= 0 || clip.height <= 0) {
        throw new PerfError({
          code: 'empty_clip',
          kind: 'failed',
          message: `screenshot: the element box is ${box.width}×${box.height}; nothing to capture`,
          suggestion: 'pick a visible element, or give rect',
        });
      }
    } else if (args.fullPage) {
      const { contentWidth, contentHeight } = await page.capture.geometry();
      const height = Math.min(Math.ceil(contentHeight), MAX_CAPTURE_PX);
      if (contentHeight > MAX_CAPTURE_PX)
        warnings.push(`the page is ${Math.ceil(contentHeight)} px tall; captured the first ${MAX_CAPTURE_PX} px`);
      clip = { x: 0, y: 0, width: Math.min(Math.ceil(contentWidth), MAX_CAPTURE_PX), height };
    }

    const bytes = await page.capture.screenshot({
      format,
      ...(format === 'jpeg' ? { quality: args.quality ?? 80 } : {}),
      ...(clip ? { clip } : {}),
    });
    const size = imageSize(bytes);
    if (file) writeFileNoFollow(file, bytes, { overwrite: args.overwrite === true, who: 'screenshot', shown: args.path });
    return {
      image: { mimeType: format === 'jpeg' ? 'image/jpeg' : 'image/png', base64: bytes.toString('base64') },
      data: {
        format,
        width: size?.width ?? 0,
        height: size?.height ?? 0,
        bytes: bytes.length,
        ...(clip ? { clip: { x: clip.x, y: clip.y, width: clip.width, height: clip.height } } : {}),
        ...(file ? { path: path.relative(await realpath(ctx.host.cwd), file) } : {}),
      },
      ...(warnings.length ? { warnings } : {}),
    };
  },
});
