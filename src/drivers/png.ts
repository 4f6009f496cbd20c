/**
 * The little PNG the drivers need, with no image library. Crop: WebDriver captures the viewport only,
 * so a clipped screenshot (an element, a rect) is the viewport's PNG cut down. Handles what browsers
 * write (8-bit RGB or RGBA, not interlaced): the rows are inflated, unfiltered (PNG spec, section 9:
 * None, Sub, Up, Average, Paeth), cut, and written back unfiltered. Encode: a terminal's screen
 * rendered to RGB pixels.
 */
import { crc32, deflateSync, inflateSync } from 'node:zlib';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export interface PixelRect {
  x: number;
  y: number;
  width: number;
  height: number;
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/** The image's size, read from its header. */
export function pngSize(png: Buffer): { width: number; height: number } {
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

/** The pixels of a PNG browsers write (8-bit RGB or RGBA, not interlaced), unfiltered; undefined for any other format. */
export function decodePng(png: Buffer): { width: number; height: number; bpp: 3 | 4; colorType: number; pixels: Buffer } | undefined {
  if (!png.subarray(0, 8).equals(SIGNATURE)) return undefined;
  let width = 0;
  let height = 0;
  let colorType = -1;
  const idat: Buffer[] = [];
  for (let at = 8; at < png.length;) {
    const len = png.readUInt32BE(at);
    const type = png.toString('ascii', at + 4, at + 8);
    const data = png.subarray(at + 8, at + 8 + len);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      const depth = data[8];
      colorType = data[9]!;
      if (depth !== 8 || (colorType !== 2 && colorType !== 6) || data[12] !== 0) return undefined;
    } else if (type === 'IDAT') idat.push(data);
    else if (type === 'IEND') break;
    at += 12 + len;
  }
  const bpp = colorType === 6 ? 4 : 3;
  const stride = width * bpp;
  const raw = inflateSync(Buffer.concat(idat));
  const pixels = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const out = pixels.subarray(y * stride, (y + 1) * stride);
    const prev = y > 0 ? pixels.subarray((y - 1) * stride, y * stride) : undefined;
    for (let i = 0; i < stride; i++) {
      const a = i >= bpp ? out[i - bpp]! : 0;
      const b = prev ? prev[i]! : 0;
      const c = prev && i >= bpp ? prev[i - bpp]! : 0;
      const v = line[i]!;
      switch (filter) {
        case 0:
          out[i] = v;
          break;
        case 1:
          out[i] = (v + a) & 0xff;
          break;
        case 2:
          out[i] = (v + b) & 0xff;
          break;
        case 3:
          out[i] = (v + ((a + b) >> 1)) & 0xff;
          break;
        case 4:
          out[i] = (v + paeth(a, b, c)) & 0xff;
          break;
        default:
          return undefined;
      }
    }
  }
  return { width, height, bpp, colorType, pixels };
}

/** `png` cut to `rect` (device pixels, clamped to the image); undefined when the format is not one browsers write. */
export function cropPng(png: Buffer, rect: PixelRect): Buffer | undefined {
  const decoded = decodePng(png);
  if (!decoded) return undefined;
  const { width, height, bpp, colorType, pixels } = decoded;
  const stride = width * bpp;
  const x0 = Math.max(0, Math.min(width, Math.round(rect.x)));
  const y0 = Math.max(0, Math.min(height, Math.round(rect.y)));
  const w = Math.max(1, Math.min(width - x0, Math.round(rect.width)));
  const h = Math.max(1, Math.min(height - y0, Math.round(rect.height)));
  const cut = Buffer.alloc((w * bpp + 1) * h);
  for (let y = 0; y < h; y++) {
    cut[y * (w * bpp + 1)] = 0;
    pixels.copy(cut, y * (w * bpp + 1) + 1, (y0 + y) * stride + x0 * bpp, (y0 + y) * stride + (x0 + w) * bpp);
  }
  return assemble(w, h, colorType, cut);
}

/** A PNG of the rows given with their filter byte already in front (colour type 2: RGB, 6: RGBA). */
function assemble(width: number, height: number, colorType: 2 | 6 | number, filtered: Buffer): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = colorType;
  return Buffer.concat([SIGNATURE, chunk('IHDR', ihdr), chunk('IDAT', deflateSync(filtered)), chunk('IEND', Buffer.alloc(0))]);
}

/** Encode 8-bit RGB pixels (width × height × 3 bytes, row by row) as a PNG. */
export function encodeRgbPng(width: number, height: number, rgb: Uint8Array): Buffer {
  const stride = width * 3;
  const filtered = Buffer.alloc((stride + 1) * height);
  // Filter "Up" per row: a terminal's rows repeat their neighbours, which deflates far better than None.
  for (let y = 0; y < height; y++) {
    const out = y * (stride + 1);
    filtered[out] = y === 0 ? 0 : 2;
    for (let i = 0; i < stride; i++) filtered[out + 1 + i] = (rgb[y * stride + i]! - (y === 0 ? 0 : rgb[(y - 1) * stride + i]!)) & 0xff;
  }
  return assemble(width, height, 2, filtered);
}
