/**
 * A closed session's raw data → the bounded report perf_end returns (and perf run stores per repeat):
 * flat metrics, coverage, env, summary, counters, interactions, ranked insights, `omitted`.
 */
import {
  BEGIN_MARK,
  END_MARK,
  PERF_PROBE_URL,
  type Checkpoint,
  type PerfMode,
  type ProbeMessage,
  type RawSession,
  type SessionEnv,
  type SourceName,
} from '../drivers/measure.js';
import { quantile } from './stats.js';
import { FRAME_BUDGET_MS, framesFromRaf, framesFromTrace, type FrameRecord, type FrameStats } from './frames.js';
import { blocksByCount, blocksBySelf, readProfile, round, type Block, type ProfileData } from './profile.js';
import { layoutsFromTrace, phasesFromTrace } from './trace-layouts.js';
import { runInsights, type Insight, type InsightDetail } from './insights.js';
import * as M from './metrics.js';
import { rankLoafScripts, type Analysis, type Coverage, type Interaction, type LongFrame, type StepSpan } from './analysis.js';

export interface PerfReport {
  sessionToken: string;
  refused: boolean;
  reason?: string;
  mode: PerfMode;
  metrics: Record<string, number>;
  coverage: Coverage;
  /** Why each missing source is missing. */
  missingReasons: Partial<Record<SourceName, string>>;
  env: SessionEnv & { samplingIntervalUs?: number };
  summary: Record<string, unknown>;
  counters: Record<string, number>;
  interactions: Interaction[];
  insights: Insight[];
  omitted: Record<string, number>;
  warnings?: string[];
}

// 6 KB per report, so an agent's context and a run file stay small.
export const REPORT_MAX_BYTES = 6 * 1024;
// Ranked list lengths before the size bound trims further: a top 10 of blocks is what a reader scans.
const TOP_BLOCKS = 10;
const TOP_INTERACTIONS = 10;
const TOP_WORST_FRAMES = 5;
const TOP_LOAF_SCRIPTS = 5;
const TOP_STEPS = 20;

/** Whether the session saw the page render: the rAF counter (liveness) must advance by more than 1. */
export function livenessOf(raw: RawSession): number | undefined {
  if (raw.docFrames.length === 0) return undefined;
  return raw.docFrames.reduce((n, d) => n + d.count, 0);
}

/**
 * Trace clock → epoch: the user-timing mark perf_begin placed is in both (epoch from the page, ts in
 * the trace); else the Performance.getMetrics Timestamp (ticks, s) against the checkpoint's epoch.
 */
export function clockOffsetMs(raw: RawSession): number | undefined {
  const begin = raw.marks.find((m) => m.name === BEGIN_MARK);
  if (begin && raw.trace) {
    const ev = raw.trace.events.find((e) => e.name === BEGIN_MARK && e.cat.includes('user_timing'));
    if (ev) return begin.at - ev.ts / 1000;
  }
  const cp = raw.checkpoints[0];
  const ts = cp?.values.Timestamp;
  if (cp && ts) return cp.at - ts * 1000;
  return undefined;
}

export function buildReport(raw: RawSession, spans: readonly StepSpan[]): { report: PerfReport; details: Map<string, InsightDetail> } {
  const missing = { ...raw.missing };
  const window = { startAt: raw.startedAt, endAt: raw.endedAt };
  const offsetMs = clockOffsetMs(raw);
  let frames: FrameStats | undefined;
  if (raw.terminal) {
    // A terminal's frames are its screen updates (bursts of output), counted by the driver.
  } else if (raw.trace && offsetMs !== undefined) {
    frames = framesFromTrace(raw.trace, window, offsetMs);
    if (!frames) missing.frames = 'the trace does not show which renderer hosts the page (its marks are missing)';
  } else if (raw.trace) {
    missing.frames = 'could not align the trace clock with the page (no begin mark in the trace)';
  } else missing.frames ??= missing.trace ?? 'no trace';
  if (!frames) frames = framesFromRaf(raw.docFrames);
  // The frame counter: painted frames from the trace, else the in-page rAF counter (trace missing).
  const liveness = raw.terminal ? raw.terminal.frames : frames?.source === 'trace' ? frames.painted : livenessOf(raw);
  if (liveness === undefined) missing.liveness ??= 'neither the trace nor the in-page frame counter could be read';
  const support = raw.support;
  if (raw.probeMissing) {
    missing.interactions ??= raw.probeMissing;
    missing.longFrames ??= raw.probeMissing;
    missing.layoutShift ??= raw.probeMissing;
  }
  if (!support?.event) missing.interactions ??= 'this browser has no Event Timing (PerformanceObserver type "event")';
  if (!support?.loaf) missing.longFrames ??= 'this browser has no Long Animation Frames API';
  if (!support?.shift) missing.layoutShift ??= 'this browser has no Layout Instability API';
  const deltas = counterDeltas(raw.checkpoints);
  if (!deltas) missing.counters ??= 'Performance.getMetrics was not read at both ends';
  if (raw.mode === 'attribution' && !raw.profile) missing.profile ??= 'no CPU profile was recorded';

  // The process source is one only a driver that tried it (WebDriver) reports: CDP has its counters.
  const triedProcess = raw.process !== undefined || missing.process !== undefined;
  const sources: SourceName[] = [
    'frames',
    'liveness',
    'interactions',
    'longFrames',
    'counters',
    'layoutShift',
    'trace',
    ...(raw.mode === 'attribution' ? (['profile'] as const) : []),
    ...(triedProcess ? (['process'] as const) : []),
    ...(raw.terminal ? (['terminal'] as const) : []),
  ];
  const coverage: Coverage = {};
  const missingReasons: Partial<Record<SourceName, string>> = {};
  for (const s of sources) {
    coverage[s] = missing[s] ? 'missing' : 'read';
    if (missing[s]) missingReasons[s] = missing[s];
  }
  const env = { ...raw.env, ...(raw.samplingIntervalUs ? { samplingIntervalUs: raw.samplingIntervalUs } : {}) };
  const durationMs = round(raw.durationMs);

  // Liveness first: a page that rendered nothing would produce a report that reads as fast.
  const framesSeen = liveness;
  const refusal = raw.terminal
    ? framesSeen === 0
      ? `the program wrote nothing to the screen during the ${Math.round(raw.durationMs)} ms session; a zero report would read as fast`
      : undefined
    : framesSeen === undefined
      ? 'no frame source could be read (neither the trace nor the in-page frame counter), so nothing says the page rendered'
      : framesSeen <= 1
        ? `the page rendered nothing: its ${frames?.source === 'trace' ? 'painted-frame' : 'requestAnimationFrame'} counter advanced by ${framesSeen} during the ${Math.round(raw.durationMs)} ms session (${whyNothing(frames)}); a zero report would read as fast`
        : undefined;
  if (refusal) {
    const report: PerfReport = {
      sessionToken: raw.token,
      refused: true,
      reason: refusal,
      mode: raw.mode,
      metrics: {},
      coverage,
      missingReasons,
      env,
      summary: {
        durationMs,
        budgetMs: FRAME_BUDGET_MS,
        livenessFrames: framesSeen ?? null,
        frameSource: frames?.source ?? null,
        vsyncs: frames?.slots ?? null,
      },
      counters: {},
      interactions: [],
      insights: [],
      omitted: {},
    };
    return { report, details: new Map() };
  }

  const painted = Math.max(1, raw.terminal ? raw.terminal.frames : (frames?.painted ?? 1));
  const metrics: Record<string, number> = {};
  // Only declared metrics are written (src/perf/metrics.ts); a per-frame form follows its declaration.
  const put = (def: M.MetricDefinition, value: number, digits?: number): void => {
    metrics[def.name] = round(value, digits);
    if (def.perFrame) metrics[def.name + M.PER_FRAME_SUFFIX] = round(value / painted, 4);
  };
  put(M.durationMs, raw.durationMs);

  // Frames.
  const presented = frames ? frames.frames.filter((f) => f.state !== 'dropped') : [];
  const frameMs = presented.map((f) => f.durationMs);
  if (frames) {
    put(M.framesCount, frames.count);
    put(M.framesPainted, frames.painted);
    put(M.framesDropped, frames.dropped);
    // Only the trace sees a partial frame; the rAF counter cannot tell one apart, so it writes none.
    if (frames.source === 'trace') put(M.framesPartial, frames.partial);
    put(M.framesOverBudget, frames.overBudget);
    if (frameMs.length) {
      put(M.frameMsP50, quantile(frameMs, 0.5));
      put(M.frameMsP90, quantile(frameMs, 0.9));
      put(M.frameMsP99, quantile(frameMs, 0.99));
      put(M.frameMsWorst, Math.max(...frameMs));
    }
  }
  if (raw.terminal) {
    put(M.framesCount, raw.terminal.frames);
    put(M.terminalBytesOut, raw.terminal.bytesOut);
    const l = raw.terminal.latenciesMs;
    if (l.length) {
      put(M.terminalLatencyP50, quantile(l, 0.5));
      put(M.terminalLatencyP90, quantile(l, 0.9));
      put(M.terminalLatencyWorst, Math.max(...l));
    }
  }
  if (raw.process) {
    put(M.webProcessCpuMs, raw.process.cpuMs);
    put(M.webProcessMaxRssBytes, raw.process.maxRssBytes);
  }
  const frameList: FrameRecord[] = frames?.frames ?? [];
  const frameOf = (at: number): number => {
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

  // Interactions.
  const interactions = groupInteractions(raw.messages, spans, raw.startedAt);
  if (coverage.interactions === 'read') {
    // Event Timing reports only interactions of 16 ms or more; performance.interactionCount counts all.
    // The fast ones enter the percentiles at 16 ms, their upper bound, so p50/p90 never read too fast.
    const total = Math.max(interactions.length, raw.interactionCount ?? 0);
    put(M.interactionsCount, total);
    const lat = [...interactions.map((i) => i.latencyMs), ...new Array<number>(total - interactions.length).fill(EVENT_TIMING_FLOOR_MS)];
    if (lat.length) {
      put(M.latencyP50, quantile(lat, 0.5));
      put(M.latencyP90, quantile(lat, 0.9));
      put(M.latencyWorst, Math.max(...lat));
    }
  }

  // Long animation frames.
  const longFrames = loafsOf(raw.messages, raw.startedAt);
  if (coverage.longFrames === 'read') {
    put(M.longFramesCount, longFrames.length);
    put(
      M.longFramesBlockingMs,
      longFrames.reduce((s, l) => s + l.blockingMs, 0),
    );
  }

  // Counters.
  const counters: Record<string, number> = {};
  if (deltas) {
    const c: [M.MetricDefinition, string, number][] = [
      [M.layouts, 'layouts', deltas.LayoutCount ?? 0],
      [M.styleRecalcs, 'styleRecalcs', deltas.RecalcStyleCount ?? 0],
      [M.scriptMs, 'scriptMs', (deltas.ScriptDuration ?? 0) * 1000],
      [M.layoutMs, 'layoutMs', (deltas.LayoutDuration ?? 0) * 1000],
      [M.styleMs, 'styleMs', (deltas.RecalcStyleDuration ?? 0) * 1000],
      [M.taskMs, 'taskMs', (deltas.TaskDuration ?? 0) * 1000],
      [M.threadCpuMs, 'threadCpuMs', (deltas.ThreadTime ?? 0) * 1000],
      [M.processCpuMs, 'processCpuMs', (deltas.ProcessTime ?? 0) * 1000],
      [M.heapDeltaBytes, 'heapDeltaBytes', deltas.JSHeapUsedSize ?? 0],
      [M.domNodesDelta, 'domNodesDelta', deltas.Nodes ?? 0],
    ];
    for (const [def, key, v] of c) {
      counters[key] = round(v);
      put(def, v);
    }
  }

  // Layout shift.
  if (coverage.layoutShift === 'read') {
    put(
      M.layoutShiftScore,
      raw.messages.reduce((s, m) => s + (m.kind === 'shift' ? m.value : 0), 0),
      4,
    );
  }

  // Steps.
  const stepRows: { label: string; step: string; ms: number; status: string }[] = [];
  for (const s of spans) {
    // A mark is a marker, not work: it shows in summary.marks.
    if (s.step === 'mark') continue;
    const key = M.stepMetricName(s.label);
    // A label used twice (a repeated step) sums: the metric is the time spent in that step.
    metrics[key] = round((metrics[key] ?? 0) + s.durationMs);
    stepRows.push({ label: s.label, step: s.step, ms: round(s.durationMs), status: s.status });
  }

  // CPU profile.
  let profile: ProfileData | undefined;
  let bySelf: Block[] = [];
  let byCount: Block[] = [];
  if (raw.profile && offsetMs !== undefined) {
    profile = readProfile(raw.profile, offsetMs, window);
    bySelf = blocksBySelf(profile);
    byCount = blocksByCount(profile, frameOf);
  } else if (raw.profile) {
    // No trace clock: use the profile's own window (it was started and stopped inside the session).
    profile = readProfile(raw.profile, 0, { startAt: -Infinity, endAt: Infinity });
    bySelf = blocksBySelf(profile);
  }

  const layouts = raw.trace && offsetMs !== undefined ? layoutsFromTrace(raw.trace, window, offsetMs) : undefined;

  const analysis: Analysis = {
    raw,
    metrics,
    frames,
    painted,
    interactions,
    longFrames,
    profile,
    blocksBySelf: bySelf,
    layouts,
    coverage,
    missingReasons,
    frameOf,
  };
  const { insights, details, omitted: insightsOmitted } = runInsights(analysis);

  const worstFrames = [...presented]
    .sort((a, b) => b.durationMs - a.durationMs)
    .slice(0, TOP_WORST_FRAMES)
    .map((f) => ({ atMs: round(f.startAt - raw.startedAt, 1), ms: round(f.durationMs, 1) }));
  const loafScripts = rankLoafScripts(longFrames);
  const omitted: Record<string, number> = {
    blocksBySelf: Math.max(0, bySelf.length - TOP_BLOCKS),
    blocksByCount: Math.max(0, byCount.length - TOP_BLOCKS),
    interactions: Math.max(0, interactions.length - TOP_INTERACTIONS),
    worstFrames: Math.max(0, presented.length - TOP_WORST_FRAMES),
    longFrameScripts: Math.max(0, loafScripts.length - TOP_LOAF_SCRIPTS),
    steps: Math.max(0, stepRows.length - TOP_STEPS),
    marks: 0,
    insights: insightsOmitted,
  };
  const summary: Record<string, unknown> = {
    durationMs,
    budgetMs: FRAME_BUDGET_MS,
    frames: frames
      ? {
          source: frames.source,
          count: frames.count,
          painted: frames.painted,
          dropped: frames.dropped,
          partial: frames.partial,
          overBudget: frames.overBudget,
          vsyncMs: frames.vsyncMs,
          frameMs: frameMs.length
            ? {
                p50: metrics['frames.frameMs.p50'],
                p90: metrics['frames.frameMs.p90'],
                p99: metrics['frames.frameMs.p99'],
                worst: metrics['frames.frameMs.worst'],
              }
            : null,
          worst: worstFrames,
        }
      : null,
    livenessFrames: liveness ?? null,
    blocksBySelf: bySelf.slice(0, TOP_BLOCKS),
    blocksByCount: byCount.slice(0, TOP_BLOCKS),
    longFrames: {
      count: longFrames.length,
      blockingMs: round(longFrames.reduce((s, l) => s + l.blockingMs, 0)),
      scripts: loafScripts.slice(0, TOP_LOAF_SCRIPTS),
    },
    layoutShift: metrics['layoutShift.score'] ?? null,
    steps: stepRows.slice(0, TOP_STEPS),
    marks: raw.marks
      .filter((m) => m.name !== BEGIN_MARK && m.name !== END_MARK)
      .map((m) => ({ name: m.name, atMs: round(m.at - raw.startedAt, 1) })),
    navigations: raw.navigations,
    trace: raw.trace ? { events: raw.trace.events.length, bytes: raw.trace.bytes, dataLoss: raw.trace.dataLoss } : null,
  };
  if (raw.phases && raw.trace && offsetMs !== undefined) {
    const phases = phasesFromTrace(raw.trace, window, offsetMs);
    if (phases)
      summary.phases = { ...phases, perFrame: Object.fromEntries(Object.entries(phases).map(([k, v]) => [k, round(v / painted, 3)])) };
  }
  const warnings: string[] = [];
  if (raw.trace?.dataLoss) warnings.push('the trace buffer overflowed: some trace events were lost (frames may be undercounted)');
  if (raw.mode === 'attribution')
    warnings.push('attribution mode: the CPU profiler inflates milliseconds; use them to rank, compare timing-mode milliseconds');
  const report: PerfReport = {
    sessionToken: raw.token,
    refused: false,
    mode: raw.mode,
    metrics,
    coverage,
    missingReasons,
    env,
    summary,
    counters,
    interactions: interactions
      .slice()
      .sort((a, b) => b.latencyMs - a.latencyMs)
      .slice(0, TOP_INTERACTIONS),
    insights,
    omitted,
    ...(warnings.length ? { warnings } : {}),
  };
  bound(report);
  return { report, details };
}

function whyNothing(frames: FrameStats | undefined): string {
  if (frames?.source !== 'trace') return 'a hidden, frozen or background page runs no animation frames';
  return frames.slots <= 1
    ? 'no vsync reached it: a hidden, frozen or background page'
    : `${frames.slots} vsyncs reached it but nothing changed on screen`;
}

/**
 * Event Timing entries → one row per interaction (pointerdown, pointerup and click of one tap share an
 * interactionId), attributed to a step by time. As web-vitals' INP attribution does: the latency is
 * the longest entry's duration, input delay is the first entry's, processing spans from the first
 * handler's start to the last one's end, presentation is what remains until the next paint.
 */
function groupInteractions(messages: readonly ProbeMessage[], spans: readonly StepSpan[], startedAt: number): Interaction[] {
  type Entry = Extract<ProbeMessage, { kind: 'interaction' }>;
  const byId = new Map<string, Entry[]>();
  for (const m of messages) {
    if (m.kind !== 'interaction') continue;
    const key = `${m.doc}:${m.id}`;
    const list = byId.get(key);
    if (list) list.push(m);
    else byId.set(key, [m]);
  }
  const out: Interaction[] = [];
  for (const entries of byId.values()) {
    entries.sort((a, b) => a.startAt - b.startAt);
    const first = entries[0]!;
    const latency = Math.max(...entries.map((e) => e.durationMs));
    const procStart = Math.min(...entries.map((e) => e.startAt + e.inputDelayMs));
    const procEnd = Math.max(...entries.map((e) => e.startAt + e.inputDelayMs + e.processingMs));
    const main = entries.reduce((m, e) => (e.processingMs > m.processingMs ? e : m));
    out.push({
      id: first.id,
      type: main.name,
      target: entries.find((e) => e.target)?.target ?? '',
      step: stepAt(spans, first.startAt),
      atMs: round(first.startAt - startedAt, 1),
      latencyMs: latency,
      inputDelayMs: round(first.inputDelayMs, 1),
      processingMs: round(procEnd - procStart, 1),
      presentationMs: round(Math.max(0, first.startAt + latency - procEnd), 1),
    });
  }
  return out.sort((a, b) => a.atMs - b.atMs);
}

/** Event Timing's smallest durationThreshold: faster interactions produce no entry. */
const EVENT_TIMING_FLOOR_MS = 16;

// Event Timing rounds startTime to the ms and the step's clock is Node's: a small slack both ways.
const STEP_SLACK_MS = 5;

/** The step running at `at`, else the last one that started before it (an effect that outlived its step). */
export function stepAt(spans: readonly StepSpan[], at: number): string | null {
  const inside = spans.find((s) => at >= s.startedAt && at <= s.startedAt + s.durationMs);
  if (inside) return inside.label;
  // Within the slack of a step's edges: the nearest edge wins (steps run back to back).
  let near: { label: string; d: number } | undefined;
  for (const s of spans) {
    const d = at < s.startedAt ? s.startedAt - at : at - (s.startedAt + s.durationMs);
    if (d <= STEP_SLACK_MS && (!near || d < near.d)) near = { label: s.label, d };
  }
  if (near) return near.label;
  let best: StepSpan | undefined;
  for (const s of spans) if (s.startedAt <= at && (!best || s.startedAt > best.startedAt)) best = s;
  return best?.label ?? null;
}

function loafsOf(messages: readonly ProbeMessage[], startedAt: number): LongFrame[] {
  const out: LongFrame[] = [];
  for (const m of messages) {
    if (m.kind !== 'loaf') continue;
    out.push({
      atMs: round(m.startAt - startedAt, 1),
      durationMs: round(m.durationMs, 1),
      blockingMs: round(m.blockingMs, 1),
      // The harness's own probe is not the page's work.
      scripts: m.scripts
        .filter((s) => s.sourceURL !== PERF_PROBE_URL)
        .map((s) => ({
          sourceURL: s.sourceURL,
          function: s.sourceFunctionName,
          invoker: s.invoker,
          durationMs: round(s.durationMs, 1),
          forcedLayoutMs: round(s.forcedStyleAndLayoutMs, 1),
        })),
    });
  }
  return out;
}

/**
 * Keep the report within REPORT_MAX_BYTES: shorten ranked lists (least useful first), one entry at a
 * time, counting each cut in `omitted`. Metrics, coverage and insights are never cut.
 */
function bound(report: PerfReport): void {
  const size = (): number => Buffer.byteLength(JSON.stringify(report));
  const s = report.summary as Record<string, any>;
  const lists: { key: string; get: () => unknown[] | undefined }[] = [
    { key: 'steps', get: () => s.steps },
    { key: 'marks', get: () => s.marks },
    { key: 'blocksByCount', get: () => s.blocksByCount },
    { key: 'longFrameScripts', get: () => s.longFrames?.scripts },
    { key: 'worstFrames', get: () => s.frames?.worst },
    { key: 'interactions', get: () => report.interactions },
    { key: 'blocksBySelf', get: () => s.blocksBySelf },
  ];
  for (const l of lists) {
    // Floors keep the head of the most useful lists even when trimming.
    const floor = l.key === 'blocksBySelf' || l.key === 'interactions' ? 3 : 0;
    while (size() > REPORT_MAX_BYTES) {
      const arr = l.get();
      if (!arr || arr.length <= floor) break;
      arr.pop();
      report.omitted[l.key] = (report.omitted[l.key] ?? 0) + 1;
    }
  }
}

// Cumulative Performance.getMetrics counters (summed across documents) and gauges (last minus first).
const COUNTER_METRICS = [
  'LayoutCount',
  'RecalcStyleCount',
  'LayoutDuration',
  'RecalcStyleDuration',
  'ScriptDuration',
  'TaskDuration',
  'ThreadTime',
  'ProcessTime',
] as const;
const GAUGE_METRICS = ['JSHeapUsedSize', 'Nodes'] as const;

/** Counter deltas over the checkpoints: a value that went down restarted with a new document. */
export function counterDeltas(checkpoints: readonly Checkpoint[]): Record<string, number> | undefined {
  const first = checkpoints[0];
  const last = checkpoints[checkpoints.length - 1];
  if (!first || !last || checkpoints.length < 2) return undefined;
  const out: Record<string, number> = {};
  for (const name of COUNTER_METRICS) {
    let sum = 0;
    for (let i = 1; i < checkpoints.length; i++) {
      const a = checkpoints[i - 1]!.values[name] ?? 0;
      const b = checkpoints[i]!.values[name] ?? 0;
      sum += b >= a ? b - a : b;
    }
    out[name] = sum;
  }
  for (const name of GAUGE_METRICS) out[name] = (last.values[name] ?? 0) - (first.values[name] ?? 0);
  return out;
}
