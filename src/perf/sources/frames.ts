/**
 * Frames: painted, dropped, partial and over-budget frames and their durations, from the trace's
 * PipelineReporter events, else the in-page requestAnimationFrame counter (WebDriver, or no trace).
 * It also sets the frame picture every other source reads (painted frames, liveness, frame lookup) and
 * the refusal of a window that rendered nothing.
 */
import type { RawSession } from '../../drivers/measure.js';
import { FRAME_BUDGET_MS, framesFromRaf, framesFromTrace, pageRendererPids, type FrameRecord, type FrameStats } from '../frames.js';
import * as M from '../metrics.js';
import { round } from '../profile.js';
import { quantile } from '../stats.js';
import { defineSource, type Emit, type FramePicture, type SourceInput } from './source.js';

/** The frames part of a report's summary. */
export interface FramesSummary {
  source: FrameStats['source'];
  count: number;
  painted: number;
  dropped: number;
  partial: number;
  overBudget: number;
  vsyncMs: number;
  frameMs: { p50: number; p90: number; p99: number; worst: number } | null;
  worst: { atMs: number; ms: number }[];
}

export interface FramesFindings {
  /** null when no frame source could be read. */
  summary: FramesSummary | null;
  /** Presented frames left out of the worst-frames list. */
  worstOmitted: number;
}

// A reader scans the five slowest frames; the report bound may cut further.
const TOP_WORST_FRAMES = 5;

/** Whether the session saw the page render: the rAF counter (liveness) must advance by more than 1. */
export function livenessOf(raw: RawSession): number | undefined {
  if (raw.docFrames.length === 0) return undefined;
  return raw.docFrames.reduce((n, d) => n + d.count, 0);
}

/** What painted in the window, and why a frame source is missing. */
export function framePicture({ raw, window, offsetMs }: SourceInput): FramePicture {
  const missing: FramePicture['missing'] = {};
  const driverSaid = raw.missing.frames;
  let stats: FrameStats | undefined;
  if (raw.terminal) {
    // A terminal's frames are its screen updates (bursts of output), counted by the driver.
  } else if (raw.trace && offsetMs !== undefined) {
    stats = framesFromTrace(raw.trace, window, offsetMs);
    if (!stats) missing.frames = 'the trace does not show which renderer hosts the page (its marks are missing)';
  } else if (raw.trace) {
    missing.frames = 'could not align the trace clock with the page (no begin mark in the trace)';
  } else missing.frames = driverSaid ?? raw.missing.trace ?? 'no trace';
  if (!missing.frames && driverSaid) missing.frames = driverSaid;
  if (!stats) stats = framesFromRaf(raw.docFrames);
  // The frame counter: painted frames from the trace, else the in-page rAF counter (trace missing).
  const liveness = raw.terminal ? raw.terminal.frames : stats?.source === 'trace' ? stats.painted : livenessOf(raw);
  const livenessMissing =
    raw.missing.liveness ?? (liveness === undefined ? 'neither the trace nor the in-page frame counter could be read' : undefined);
  if (livenessMissing) missing.liveness = livenessMissing;
  const painted = Math.max(1, raw.terminal ? raw.terminal.frames : (stats?.painted ?? 1));
  return { stats, liveness, painted, frameOf: frameFinder(stats?.frames ?? []), missing };
}

function frameFinder(frameList: readonly FrameRecord[]): (at: number) => number {
  return (at) => {
    // Frames are in time order; binary search the last one starting at or before `at`.
    let lo = 0;
    let hi = frameList.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (frameList[mid]!.startAt <= at) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    if (found < 0) return -1;
    const f = frameList[found]!;
    return at <= f.startAt + f.durationMs ? found : -1;
  };
}

/** Why the window is refused (liveness first: a page that rendered nothing would read as fast), or undefined. */
export function refusalOf(input: SourceInput, picture: FramePicture): string | undefined {
  const { raw } = input;
  const seen = picture.liveness;
  const windowMs = Math.round(raw.durationMs);
  if (raw.terminal)
    return seen === 0
      ? `the program wrote nothing to the screen during the ${windowMs} ms session; a zero report would read as fast`
      : undefined;
  // A measured load that painted content did render, even when one frame showed all of it (a warm, static page).
  if (raw.load && raw.load.fcpMs !== null) return undefined;
  if (seen === undefined)
    return 'no frame source could be read (neither the trace nor the in-page frame counter), so nothing says the page rendered';
  if (seen > 1) return undefined;
  if (seen === 1 && paintedAfterInput(input, picture)) return undefined;
  const counter = picture.stats?.source === 'trace' ? 'painted-frame' : 'requestAnimationFrame';
  const why = whyNothing(picture.stats, seen, raw.pageShown);
  const what = `its ${counter} counter advanced by ${seen} during the ${windowMs} ms session (${why})`;
  return `the page rendered nothing: ${what}; a zero report would read as fast`;
}

/**
 * One painted frame is a render when the page says it was live: it stayed visible, an input reached it, and a frame
 * was still being made when it came. A click that renders once (a list grows, a line of text is rewritten) shows one
 * frame in a short window; a window of pure waiting can show one too (a late frame of the load), but with no input.
 * A frame begun up to one vsync before the input still carries its update: Chromium runs the frame's main-thread part
 * after the input queued before it (measured: a click's one painted frame began 0.1 to 2.5 ms before its pointerdown,
 * in 3 of 40 windows on a busy host).
 */
function paintedAfterInput({ raw, offsetMs, window }: SourceInput, picture: FramePicture): boolean {
  if (raw.pageShown !== true) return false;
  const inputAt = firstInputAt(raw, window, offsetMs);
  if (inputAt === undefined) return false;
  const trace = picture.stats?.source === 'trace' ? picture.stats : undefined;
  const begins = trace
    ? trace.frames.filter((f) => f.state !== 'dropped').map((f) => f.startAt)
    : raw.docFrames.filter((d) => d.count > 0).map((d) => d.lastAt);
  const vsyncMs = trace?.vsyncMs ?? FRAME_BUDGET_MS;
  return begins.some((at) => at + vsyncMs >= inputAt);
}

// Discrete input a user gives: a pointer press or release, a click, a key, text typed. Not mouseover/mousemove
// (the pointer moving to a target paints nothing the step asked for) nor scroll (which paints frame after frame).
const INPUT_EVENTS: ReadonlySet<string> = new Set([
  'pointerdown',
  'pointerup',
  'mousedown',
  'mouseup',
  'click',
  'dblclick',
  'contextmenu',
  'keydown',
  'keyup',
  'keypress',
  'beforeinput',
  'input',
  'touchstart',
  'touchend',
]);

/**
 * When the first input of the window reached the page (epoch ms): its Event Timing entry, which the page reports for
 * an interaction of 16 ms or more, else the trace's dispatch of it (every input, a quick one too).
 */
function firstInputAt(raw: RawSession, window: SourceInput['window'], offsetMs: number | undefined): number | undefined {
  let first: number | undefined;
  const see = (at: number): void => {
    if (at >= window.startAt && at <= window.endAt && (first === undefined || at < first)) first = at;
  };
  for (const m of raw.messages) if (m.kind === 'interaction') see(m.startAt);
  if (raw.trace && offsetMs !== undefined) {
    const pids = pageRendererPids(raw.trace);
    for (const e of raw.trace.events) {
      const type = e.name === 'EventDispatch' ? (e.args?.data as { type?: string } | undefined)?.type : undefined;
      if (type && INPUT_EVENTS.has(type) && pids.has(e.pid)) see(e.ts / 1000 + offsetMs);
    }
  }
  return first;
}

function whyNothing(frames: FrameStats | undefined, seen: number, shown: boolean | undefined): string {
  const hidden = 'the page was hidden or frozen during the window';
  if (frames?.source !== 'trace')
    return shown === false ? `${hidden}: it runs no animation frames` : 'a hidden, frozen or background page runs no animation frames';
  if (frames.slots <= 1) return `no vsync reached it: ${shown === false ? hidden : 'a hidden, frozen or background page'}`;
  const reached = `${frames.slots} vsyncs reached it`;
  if (seen === 0) return `${reached} but nothing changed on screen${shown === false ? `; ${hidden}` : ''}`;
  return shown === false
    ? `${reached} and one frame changed, but ${hidden}`
    : `${reached} and one frame changed, but not after an input: what a window of waiting shows`;
}

export const framesSource = defineSource<FramesFindings>({
  name: 'frames',
  emits: [
    M.framesCount,
    M.framesPainted,
    M.framesDropped,
    M.framesPartial,
    M.framesOverBudget,
    M.frameMsP50,
    M.frameMsP90,
    M.frameMsP99,
    M.frameMsWorst,
  ],
  cover: (_input, frames) => ({ frames: frames.missing.frames ?? null, liveness: frames.missing.liveness ?? null }),
  measure({ raw, frames: { stats } }) {
    if (!stats) return { emits: [], findings: { summary: null, worstOmitted: 0 } };
    const presented = stats.frames.filter((f) => f.state !== 'dropped');
    const frameMs = presented.map((f) => f.durationMs);
    const emits: Emit[] = [
      { def: M.framesCount, value: stats.count },
      { def: M.framesPainted, value: stats.painted },
      { def: M.framesDropped, value: stats.dropped },
      // Only the trace sees a partial frame; the rAF counter cannot tell one apart, so it writes none.
      ...(stats.source === 'trace' ? [{ def: M.framesPartial, value: stats.partial }] : []),
      { def: M.framesOverBudget, value: stats.overBudget },
    ];
    let frameMsSummary: FramesSummary['frameMs'] = null;
    if (frameMs.length) {
      const [p50, p90, p99, worst] = [quantile(frameMs, 0.5), quantile(frameMs, 0.9), quantile(frameMs, 0.99), Math.max(...frameMs)];
      emits.push(
        { def: M.frameMsP50, value: p50 },
        { def: M.frameMsP90, value: p90 },
        { def: M.frameMsP99, value: p99 },
        { def: M.frameMsWorst, value: worst },
      );
      frameMsSummary = { p50: round(p50), p90: round(p90), p99: round(p99), worst: round(worst) };
    }
    const worst = [...presented]
      .sort((a, b) => b.durationMs - a.durationMs)
      .slice(0, TOP_WORST_FRAMES)
      .map((f) => ({ atMs: round(f.startAt - raw.startedAt, 1), ms: round(f.durationMs, 1) }));
    const { source, count, painted, dropped, partial, overBudget, vsyncMs } = stats;
    const summary = { source, count, painted, dropped, partial, overBudget, vsyncMs, frameMs: frameMsSummary, worst };
    return { emits, findings: { summary, worstOmitted: Math.max(0, presented.length - TOP_WORST_FRAMES) } };
  },
});

export { FRAME_BUDGET_MS };
