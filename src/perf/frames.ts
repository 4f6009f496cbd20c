/**
 * Frames of a session: from the trace's frame pipeline events when read, else from the in-page rAF
 * counter (coarser: it sees vsync-quantised callback intervals, not what the compositor presented).
 */
import { BEGIN_MARK, END_MARK, type ProbeFrames, type TraceEvent, type TraceResult } from '../drivers/measure.js';

/** One frame of the window. */
export interface FrameRecord {
  /** Start of the frame interval, epoch ms (trace ticks are mapped with the session's clock offset). */
  startAt: number;
  durationMs: number;
  state: FrameState;
  /** Counted in frames.overBudget (a partial frame can be, while lasting one vsync). */
  overBudget?: boolean;
}

export type FrameState =
  /** New content reached the screen. */
  | 'presented'
  /** Some of the frame's updates made it (e.g. compositor-only scroll without the main thread's update). */
  | 'partial'
  /** The frame was produced but thrown away, or its deadline missed. */
  | 'dropped';

export interface FrameStats {
  source: 'trace' | 'raf';
  frames: FrameRecord[];
  /** All frames the pipeline began (presented + partial + dropped). */
  count: number;
  painted: number;
  dropped: number;
  /** Painted frames that went out without the main thread's update. */
  partial: number;
  overBudget: number;
  /** Display interval, ms. */
  vsyncMs: number;
  /** Vsyncs the page's compositor handled, idle included (0: the page was not rendering at all). */
  slots: number;
}

// 60 Hz: the frame budget DESIGN.md names (16.7 ms).
export const FRAME_BUDGET_MS = 16.7;
// Tolerance for timer jitter: a 17.0 ms interval on a 60 Hz display is an on-time frame, not over budget.
const BUDGET_JITTER_MS = 0.6;

export function isOverBudget(ms: number): boolean {
  return ms > FRAME_BUDGET_MS + BUDGET_JITTER_MS;
}

/** The frames a rAF interval of `ms` skipped: an interval of N vsyncs means N - 1 were never presented. */
export function skippedFrames(ms: number): number {
  return Math.max(0, Math.round(ms / FRAME_BUDGET_MS) - 1);
}

/** Frames from the rAF counters of the session's documents. */
export function framesFromRaf(docs: readonly ProbeFrames[]): FrameStats | undefined {
  if (docs.length === 0) return undefined;
  const frames: FrameRecord[] = [];
  let count = 0;
  let dropped = 0;
  for (const d of docs) {
    count += d.count;
    let t = d.firstAt;
    for (const ms of d.intervalsMs) {
      t += ms;
      dropped += skippedFrames(ms);
      frames.push({ startAt: t - ms, durationMs: ms, state: 'presented' });
    }
  }
  for (const f of frames) if (isOverBudget(f.durationMs)) f.overBudget = true;
  return {
    source: 'raf',
    frames,
    count: count + dropped,
    painted: count,
    dropped,
    partial: 0,
    overBudget: frames.filter((f) => f.overBudget).length,
    vsyncMs: FRAME_BUDGET_MS,
    slots: count,
  };
}

/**
 * Frames from the trace inside [startAt, endAt] (epoch ms); `offsetMs` maps trace ticks to epoch
 * (epoch = ts / 1000 + offsetMs).
 */
export function framesFromTrace(trace: TraceResult, window: { startAt: number; endAt: number }, offsetMs: number): FrameStats | undefined {
  return parseTraceFrames(trace.events, pageRendererPids(trace), window, offsetMs);
}

/** Our marks are run by the page's renderer: their pids are the page's (two if a navigation moved it). */
export function pageRendererPids(trace: TraceResult): Set<number> {
  const pids = new Set<number>();
  if (trace.rendererPid !== undefined) pids.add(trace.rendererPid);
  for (const e of trace.events) if (e.cat === 'blink.user_timing' && (e.name === BEGIN_MARK || e.name === END_MARK)) pids.add(e.pid);
  return pids;
}

type SlotState = 'presented' | 'partial' | 'dropped' | 'idle';
const STATE_OF: Record<string, SlotState> = {
  STATE_PRESENTED_ALL: 'presented',
  STATE_PRESENTED_PARTIAL: 'partial',
  STATE_DROPPED: 'dropped',
  STATE_NO_UPDATE_DESIRED: 'idle',
};
// When one vsync has several reporters (a compositor update and a main-thread one), the best outcome
// is what the screen showed.
const RANK: Record<SlotState, number> = { presented: 3, partial: 2, dropped: 1, idle: 0 };

interface Slot {
  seq: number;
  ts: number;
  state: SlotState;
  /** The frame carried (or missed) a main-thread update that affects smoothness. */
  smooth: boolean;
}

/**
 * One slot per vsync the page's compositor handled (cc PipelineReporter events, one or more per
 * frame_sequence): presented, partial (went out without the main thread's update), dropped, or idle
 * (nothing to draw). A painted frame lasts until the next painted one when the slots between were
 * dropped. Over budget: painted frames that stayed longer than the budget, and partial frames whose
 * missing main-thread update affects smoothness (the page's work overran the frame).
 */
export function parseTraceFrames(
  events: readonly TraceEvent[],
  pids: ReadonlySet<number>,
  window: { startAt: number; endAt: number },
  offsetMs: number,
): FrameStats | undefined {
  // Without the page's renderer we cannot tell its frames from another page's.
  if (pids.size === 0) return undefined;
  const byTree = new Map<number, Map<number, Slot>>();
  for (const e of events) {
    if (e.name !== 'PipelineReporter' || e.ph !== 'b' || !pids.has(e.pid)) continue;
    const r = (e.args?.frame_reporter ?? e.args?.chrome_frame_reporter) as
      { state?: string; frame_sequence?: number; layer_tree_host_id?: number; affects_smoothness?: boolean } | undefined;
    const state = r?.state ? STATE_OF[r.state] : undefined;
    if (!r || !state || r.frame_sequence === undefined) continue;
    const at = e.ts / 1000 + offsetMs;
    if (at < window.startAt || at > window.endAt) continue;
    const tree = r.layer_tree_host_id ?? 0;
    let slots = byTree.get(tree);
    if (!slots) byTree.set(tree, (slots = new Map()));
    const prev = slots.get(r.frame_sequence);
    if (!prev) slots.set(r.frame_sequence, { seq: r.frame_sequence, ts: e.ts, state, smooth: r.affects_smoothness === true });
    else {
      if (RANK[state] > RANK[prev.state]) prev.state = state;
      prev.ts = Math.min(prev.ts, e.ts);
      prev.smooth ||= r.affects_smoothness === true;
    }
  }
  // The page's own layer tree is the busiest one in its renderer (another same-site page may share it).
  let slots: Slot[] | undefined;
  for (const m of byTree.values()) if (!slots || m.size > slots.length) slots = [...m.values()];
  // A renderer that got no vsync at all (frozen, hidden, background): zero frames, read.
  if (!slots || slots.length === 0)
    return { source: 'trace', frames: [], count: 0, painted: 0, dropped: 0, partial: 0, overBudget: 0, vsyncMs: FRAME_BUDGET_MS, slots: 0 };
  slots.sort((a, b) => a.seq - b.seq);
  const vsyncMs = vsyncOf(slots);
  const frames: FrameRecord[] = [];
  let painted = 0;
  let dropped = 0;
  let partial = 0;
  let overBudget = 0;
  for (let i = 0; i < slots.length; i++) {
    const s = slots[i]!;
    const startAt = s.ts / 1000 + offsetMs;
    if (s.state === 'idle') continue;
    if (s.state === 'dropped') {
      dropped++;
      frames.push({ startAt, durationMs: vsyncMs, state: 'dropped' });
      continue;
    }
    painted++;
    if (s.state === 'partial') partial++;
    let k = 1;
    while (slots[i + k]?.state === 'dropped') k++;
    const durationMs = Math.round(k * vsyncMs * 100) / 100;
    const over = isOverBudget(durationMs) || (s.state === 'partial' && s.smooth);
    if (over) overBudget++;
    frames.push({ startAt, durationMs, state: s.state, ...(over ? { overBudget: true } : {}) });
  }
  return { source: 'trace', frames, count: painted + dropped, painted, dropped, partial, overBudget, vsyncMs, slots: slots.length };
}

/** The display interval: the median gap between consecutive frame sequences. */
function vsyncOf(slots: readonly Slot[]): number {
  const gaps: number[] = [];
  for (let i = 1; i < slots.length; i++) {
    const a = slots[i - 1]!;
    const b = slots[i]!;
    if (b.seq > a.seq) gaps.push((b.ts - a.ts) / 1000 / (b.seq - a.seq));
  }
  if (gaps.length === 0) return FRAME_BUDGET_MS;
  gaps.sort((x, y) => x - y);
  return Math.round(gaps[gaps.length >> 1]! * 100) / 100;
}
