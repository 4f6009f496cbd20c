/**
 * Output activity of a terminal program: bytes, frames and the time of the last byte, from the
 * arrival times of pty reads. A terminal has no vsync to count, so a frame is what a user would see
 * as one screen update: a burst of output ending in a quiet gap.
 */

/**
 * 8 ms: half the 16.7 ms interval of a 60 Hz animation, so two frames of a program animating at
 * 60 fps are always two bursts; yet far above the spacing of the several pty reads one large redraw
 * arrives in (a read takes at most 4 KiB, back to back, well under a millisecond apart).
 */
export const FRAME_GAP_MS = 8;

export interface OutputCounters {
  bytesOut: number;
  frames: number;
  /** Bytes written to the program (keys, pastes, mouse reports). */
  bytesIn: number;
}

export class OutputMeter {
  bytesOut = 0;
  bytesIn = 0;
  frames = 0;
  /** performance.now() of the last output read; -Infinity before any. */
  lastOutputAtMs = -Infinity;
  /** performance.now() of the last input write; -Infinity before any. */
  lastInputAtMs = -Infinity;

  constructor(readonly frameGapMs = FRAME_GAP_MS) {}

  /** A read of `bytes` arrived at `atMs`: a new frame when it follows a quiet gap. */
  output(bytes: number, atMs: number): void {
    if (atMs - this.lastOutputAtMs >= this.frameGapMs) this.frames++;
    this.bytesOut += bytes;
    this.lastOutputAtMs = atMs;
  }

  input(bytes: number, atMs: number): void {
    this.bytesIn += bytes;
    this.lastInputAtMs = atMs;
  }

  counters(): OutputCounters {
    return { bytesOut: this.bytesOut, frames: this.frames, bytesIn: this.bytesIn };
  }
}

/** Counters over a window: the later reading minus the earlier. */
export function countersBetween(before: OutputCounters, after: OutputCounters): OutputCounters {
  return { bytesOut: after.bytesOut - before.bytesOut, frames: after.frames - before.frames, bytesIn: after.bytesIn - before.bytesIn };
}

/**
 * A bounded tail of raw output since the last read (the `console` step's source): past `maxBytes`
 * the oldest text is dropped and counted.
 */
export class OutputLog {
  private chunks: string[] = [];
  private chars = 0;
  private droppedChars = 0;

  constructor(readonly maxChars: number) {}

  push(text: string): void {
    this.chunks.push(text);
    this.chars += text.length;
    while (this.chars > this.maxChars && this.chunks.length > 1) {
      const old = this.chunks.shift()!;
      this.chars -= old.length;
      this.droppedChars += old.length;
    }
    if (this.chars > this.maxChars) {
      const only = this.chunks[0]!;
      const cut = only.length - this.maxChars;
      this.chunks[0] = only.slice(cut);
      this.chars -= cut;
      this.droppedChars += cut;
    }
  }

  /** The output since the last take, and how many characters before it were dropped. */
  take(): { text: string; droppedChars: number } {
    const out = { text: this.chunks.join(''), droppedChars: this.droppedChars };
    this.chunks = [];
    this.chars = 0;
    this.droppedChars = 0;
    return out;
  }
}
