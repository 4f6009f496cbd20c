/**
 * perf replay FILE: play an asciicast v2 recording (perf_trace on a terminal writes one) back in this
 * terminal, with its timing: output events in order, input events not (they are what was typed, and
 * the output already holds their echo). The whole file is checked before anything is played, so a
 * broken line is a usage error naming it rather than half a replay.
 */
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { PerfError } from '../errors.js';
import { onShutdown } from '../processes.js';
import { defineCommand, info, JSON_FLAG, printJson } from './command.js';

// asciinema's own default for idle_time_limit-less playback is none; 2 s keeps a recording of a
// window with long pauses (a person reading the screen) watchable without hiding that a pause was there.
const DEFAULT_MAX_IDLE_S = 2;
// Timers oversleep by about a millisecond: an output due sooner than this is written now, which no
// eye can tell from on time (a 60 Hz frame is 16.7 ms).
const MIN_SLEEP_MS = 4;
// How much of a bad line an error quotes: enough to recognise it, not a screenful of escape codes.
const EXCERPT_CHARS = 60;

export interface CastEvent {
  /** Seconds since the recording began. */
  atS: number;
  /**
   * 'o' output (the only one played), 'i' input, 'm' marker, 'r' resize; the format leaves the list
   * open to extension, so another code is kept and skipped, not refused.
   */
  code: string;
  data: string;
}

export interface ParsedCast {
  width: number;
  height: number;
  /** The header's idle_time_limit, when it has one. */
  idleTimeLimitS: number | undefined;
  /** The header's duration, when it has one. */
  durationS: number | undefined;
  /** What a rehearse recording says it left out (header field rehearse.cut). */
  cut: unknown;
  events: CastEvent[];
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The start of a line as written (the CLI edge escapes control characters when it prints it). */
function excerpt(line: string): string {
  const t = line.trim();
  return t.length > EXCERPT_CHARS ? `${t.slice(0, EXCERPT_CHARS)}…` : t;
}

/** An asciicast v2 file's text, checked line by line; PerfError `invalid_cast` (usage) naming `shown`:LINE. */
export function parseCast(text: string, shown: string): ParsedCast {
  const bad = (line: number, what: string): PerfError =>
    new PerfError({
      code: 'invalid_cast',
      message: `replay: ${shown}:${line}: ${what}`,
      suggestion:
        'perf replay plays asciicast v2 files: a JSON header line {"version": 2, "width", "height"}, ' +
        'then one [seconds, "o", "text"] array per line (perf_trace on a terminal writes them)',
    });
  const lines = text.replace(/^\uFEFF/, '').split('\n');
  const parseLine = (i: number): unknown => {
    try {
      return JSON.parse(lines[i]!);
    } catch (e) {
      throw bad(i + 1, `not JSON (${e instanceof Error ? e.message : String(e)}): ${excerpt(lines[i]!)}`);
    }
  };
  if ((lines[0] ?? '').trim() === '') throw bad(1, 'no asciicast header: the first line is empty');
  const header = parseLine(0);
  if (!isRecord(header)) throw bad(1, `the header is not a JSON object: ${excerpt(lines[0]!)}`);
  if (header.version !== 2) {
    throw bad(
      1,
      header.version === undefined
        ? 'the header has no version (want 2)'
        : `asciicast version ${JSON.stringify(header.version)}; perf replay reads version 2`,
    );
  }
  const size = (key: 'width' | 'height'): number => {
    const v = header[key];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1)
      throw bad(1, `the header's ${key} is ${JSON.stringify(v)}, not a whole number of cells`);
    return v;
  };
  const width = size('width');
  const height = size('height');
  const optionalSeconds = (key: 'idle_time_limit' | 'duration'): number | undefined => {
    const v = header[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0)
      throw bad(1, `the header's ${key} is ${JSON.stringify(v)}, not a number of seconds`);
    return v;
  };
  const idleTimeLimitS = optionalSeconds('idle_time_limit');
  const durationS = optionalSeconds('duration');
  const events: CastEvent[] = [];
  let previousS = 0;
  for (let i = 1; i < lines.length; i++) {
    // Blank lines carry nothing (the file's final newline leaves one).
    if (lines[i]!.trim() === '') continue;
    const e = parseLine(i);
    const [atS, code, data] = Array.isArray(e) && e.length === 3 ? (e as unknown[]) : [];
    if (
      typeof atS !== 'number' ||
      !Number.isFinite(atS) ||
      atS < 0 ||
      typeof code !== 'string' ||
      code === '' ||
      typeof data !== 'string'
    ) {
      throw bad(i + 1, `an event is [seconds, "o" | "i" | "m" | "r", "text"], got ${excerpt(lines[i]!)}`);
    }
    if (atS < previousS)
      throw bad(
        i + 1,
        `the event at ${atS} s comes before the previous one at ${previousS} s: times count from the start of the recording`,
      );
    previousS = atS;
    events.push({ atS, code, data });
  }
  return { width, height, idleTimeLimitS, durationS, cut: isRecord(header.rehearse) ? header.rehearse.cut : undefined, events };
}

/** When each output event is due, seconds from the start of playback: gaps capped at maxIdleS, then divided by speed. */
export function schedule(events: readonly CastEvent[], opts: { speed: number; maxIdleS: number }): { atS: number; data: string }[] {
  const out: { atS: number; data: string }[] = [];
  let previousS = 0;
  let playS = 0;
  // Gaps are taken between output events: input and markers change nothing on the screen.
  for (const e of events) {
    if (e.code !== 'o') continue;
    playS += Math.min(e.atS - previousS, opts.maxIdleS);
    previousS = e.atS;
    out.push({ atS: playS / opts.speed, data: e.data });
  }
  return out;
}

// What a program switches on and a replay cut short leaves on: mouse reports, bracketed paste,
// application keys, a hidden cursor, colours. Set back so the shell after us works as before.
const RESTORE_MODES = '\x1b[0m\x1b[?25h\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?1015l\x1b[?1004l\x1b[?2004l\x1b[?1l\x1b>';
// Entering or leaving the alternate screen (1049, and the older 1047 and 47).
const ALT_SCREEN = /\x1b\[\?(?:1049|1047|47)([hl])/g;

/** Write each output on time; resolves early if stdout goes away (a closed pipe). */
async function play(timeline: readonly { atS: number; data: string }[], out: NodeJS.WriteStream): Promise<void> {
  const tty = out.isTTY === true;
  let alternate = false;
  let closed = false;
  const onError = (): void => {
    closed = true;
  };
  out.on('error', onError);
  const restore = (): void => {
    if (tty) out.write(RESTORE_MODES + (alternate ? '\x1b[?1049l' : ''));
  };
  const offShutdown = onShutdown(restore);
  try {
    const start = performance.now();
    for (const { atS, data } of timeline) {
      const waitMs = start + atS * 1000 - performance.now();
      if (waitMs >= MIN_SLEEP_MS) await sleep(waitMs);
      if (closed) return;
      for (const m of data.matchAll(ALT_SCREEN)) alternate = m[1] === 'h';
      // once() rejects when the stream errs instead of draining: onError has marked it closed then.
      if (!out.write(data)) await once(out, 'drain').catch(() => undefined);
    }
  } finally {
    offShutdown();
    if (!closed) restore();
    out.off('error', onError);
  }
}

function positiveNumber(value: unknown, flag: string, fallback: number, allowZero: boolean): number {
  if (value === undefined) return fallback;
  const n = value as number;
  if (!(n > 0 || (allowZero && n === 0))) {
    throw new PerfError({
      code: 'invalid_flag',
      message: `replay: --${flag} takes a number ${allowZero ? '≥ 0' : '> 0'}, got ${n}`,
      suggestion: flag === 'speed' ? 'e.g. --speed 2 plays twice as fast' : 'e.g. --max-idle-s 1 shortens every pause to at most a second',
    });
  }
  return n;
}

export const replayCommand = defineCommand({
  name: 'replay',
  summary: 'Play a terminal recording (asciicast v2, as perf_trace writes on a terminal) back in this terminal',
  usage: 'replay FILE.cast [--speed N] [--max-idle-s S] [--json]',
  details: [
    "Writes the recording's output to stdout with its timing: the first event repaints the screen as it was when",
    'the measured window opened, the rest is what the program wrote. Input events are not replayed (their echo is in',
    "the output). Pauses longer than --max-idle-s are shortened to it (default: the file's idle_time_limit, else 2 s),",
    'then every time is divided by --speed. Modes the program left on (mouse reports, alternate screen, hidden',
    'cursor) are switched off at the end, and on Ctrl-C.',
    '--json prints a summary instead of playing: events, durationS, bytes of output, the playing time.',
    'Exit 2 when the file is not asciicast v2 (naming the line).',
  ].join('\n'),
  flags: {
    speed: { type: 'number', value: 'N', description: 'Play N times as fast (default 1).' },
    maxIdleS: {
      type: 'number',
      value: 'S',
      description: "Shorten every pause to at most S seconds (default the file's idle_time_limit, else 2).",
    },
    ...JSON_FLAG,
  },
  async run(f, positionals) {
    if (positionals.length !== 1) {
      throw new PerfError({
        code: 'missing_argument',
        message: `replay: expected one recording file, got ${positionals.length}`,
        suggestion: 'perf replay ps-1a2b3c4d.cast (perf_trace on a terminal program writes it)',
      });
    }
    const file = positionals[0]!;
    const speed = positiveNumber(f.speed, 'speed', 1, false);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      throw new PerfError({
        code: 'unreadable_file',
        message: `replay: cannot read ${file}: ${e instanceof Error ? e.message : String(e)}`,
        suggestion: 'give the path of a .cast file',
      });
    }
    const cast = parseCast(text, file);
    const maxIdleS = positiveNumber(f.maxIdleS, 'max-idle-s', cast.idleTimeLimitS ?? DEFAULT_MAX_IDLE_S, true);
    const timeline = schedule(cast.events, { speed, maxIdleS });
    const last = cast.events[cast.events.length - 1];
    if (f.json) {
      const outputs = cast.events.filter((e) => e.code === 'o');
      printJson({
        file,
        width: cast.width,
        height: cast.height,
        events: cast.events.length,
        outputEvents: outputs.length,
        inputEvents: cast.events.filter((e) => e.code === 'i').length,
        durationS: cast.durationS ?? last?.atS ?? 0,
        bytes: outputs.reduce((n, e) => n + Buffer.byteLength(e.data), 0),
        playS: Math.round((timeline[timeline.length - 1]?.atS ?? 0) * 1000) / 1000,
        ...(cast.cut !== undefined ? { cut: cast.cut } : {}),
      });
      return 0;
    }
    const out = process.stdout;
    if (out.isTTY && (out.columns < cast.width || out.rows < cast.height)) {
      info(
        `perf: recorded on ${cast.width}x${cast.height}, this terminal is ${out.columns}` +
          `x${out.rows}: lines will wrap; enlarge it for a faithful replay`,
      );
    }
    if (cast.cut !== undefined) info('perf: this recording was cut at its size cap: it ends early');
    await play(timeline, out);
    return 0;
  },
});
