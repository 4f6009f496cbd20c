/** bdf-fonts ships its glyph tables as plain ES modules without types; we import two of them. */
interface BdfGlyph {
  /** Advance width in pixels. */
  DWIDTH: number;
  /** Bounding box height in pixels, and its offsets from the origin (baseline). */
  BBh: number;
  BBox: number;
  BBoy: number;
  /** One number per pixel row, its leftmost pixel the highest of BITS bits. */
  BITMAP: number[];
  BITS: number;
}
declare module 'bdf-fonts/fonts/Terminus/16.js' {
  const glyphs: BdfGlyph[];
  export default glyphs;
}
declare module 'bdf-fonts/fonts/Terminus/16-b.js' {
  const glyphs: BdfGlyph[];
  export default glyphs;
}
