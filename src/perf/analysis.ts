/**
 * What the insight rules read off a closed session (Analysis), and the small pieces both the report
 * and the rules use. Its own module so that report.ts (which runs the rules) and insights.ts (the
 * rules) both point down to it instead of at each other.
 */
import type { FrameStats } from './frames.js';
import { round, type Block, type ProfileData } from './profile.js';
import type { RawSession, SourceName } from '../drivers/measure.js';
import type { TraceLayouts } from './trace-layouts.js';

export type Coverage = Record<string, 'read' | 'missing'>;

export interface Interaction {
  id: number;
  /** The event type of the interaction's longest entry (pointerup, click, keydown…). */
  type: string;
  target: string;
  /** The step that caused it (by time), or null when it fell outside every step. */
  step: string | null;
  /** ms since the session began. */
  atMs: number;
  latencyMs: number;
  inputDelayMs: number;
  processingMs: number;
  presentationMs: number;
}

export interface LongFrame {
  atMs: number;
  durationMs: number;
  blockingMs: number;
  scripts: { sourceURL: string; function: string; invoker: string; durationMs: number; forcedLayoutMs: number }[];
}

/** Everything the insight rules read. Times are epoch ms unless named otherwise. */
export interface Analysis {
  raw: RawSession;
  metrics: Record<string, number>;
  frames: FrameStats | undefined;
  /** Painted frames, ≥ 1 (the divisor of every perFrame metric). */
  painted: number;
  interactions: Interaction[];
  longFrames: LongFrame[];
  profile: ProfileData | undefined;
  blocksBySelf: Block[];
  layouts: TraceLayouts | undefined;
  coverage: Coverage;
  missingReasons: Partial<Record<SourceName, string>>;
  /** Index of the frame containing epoch time `at`, or -1. */
  frameOf(at: number): number;
}

export interface LoafScriptRank {
  function: string;
  url: string;
  invoker: string;
  count: number;
  durationMs: number;
  forcedLayoutMs: number;
}

/** LoAF scripts summed by (function, source): what ran in the long frames. */
export function rankLoafScripts(longFrames: readonly LongFrame[]): LoafScriptRank[] {
  const m = new Map<string, LoafScriptRank>();
  for (const lf of longFrames) {
    for (const s of lf.scripts) {
      const key = `${s.function}\u0000${s.sourceURL}`;
      const r = m.get(key) ?? {
        function: s.function || '(anonymous)',
        url: shortUrl(s.sourceURL),
        invoker: s.invoker,
        count: 0,
        durationMs: 0,
        forcedLayoutMs: 0,
      };
      r.count++;
      r.durationMs = round(r.durationMs + s.durationMs, 1);
      r.forcedLayoutMs = round(r.forcedLayoutMs + s.forcedLayoutMs, 1);
      m.set(key, r);
    }
  }
  return [...m.values()].sort((a, b) => b.durationMs - a.durationMs);
}

export function shortUrl(url: string): string {
  try {
    const u = new URL(url);
    return u.protocol.startsWith('http') ? u.pathname : url;
  } catch {
    return url;
  }
}

/**
 * A URL of the page's own origin as its path ("/slow.css"), any other as it is: a reply gives the page's URL once, and
 * a third party's origin is news. On Tabulator's grid the origin was a tenth of perf_load's and perf_insight's bytes.
 */
export function pagePath(url: string, pageUrl: string): string {
  const origin = /^https?:\/\/[^/]+/.exec(pageUrl)?.[0];
  return origin && url.startsWith(`${origin}/`) ? url.slice(origin.length) : url;
}

/**
 * One step run while a perf session was open: perf_end turns these into steps.<label>.ms and attributes interactions to the step that
 * caused them.
 */
export interface StepSpan {
  step: string;
  label: string;
  /** ms since the epoch. */
  startedAt: number;
  durationMs: number;
  status: 'ok' | 'skipped' | 'failed';
}
