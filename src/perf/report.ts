/**
 * A closed session's raw data → the bounded report perf_end returns (and perf run stores per repeat):
 * flat metrics, coverage, env, summary, counters, interactions, ranked insights, `omitted`. The metrics
 * and what stands behind them come from the metric sources (src/perf/sources), folded in their order.
 */
import type { PerfMode, RawSession, SessionEnv, SourceName } from '../drivers/measure.js';
import { PerfError } from '../errors.js';
import { FRAME_BUDGET_MS } from './frames.js';
import { round } from './profile.js';
import { runInsights, type Insight, type InsightDetail } from './insights.js';
import * as M from './metrics.js';
import type { Analysis, Coverage, Interaction, StepSpan } from './analysis.js';
import { COVERAGE_ORDER, SOURCES, type Findings } from './sources/index.js';
import type { LoadSummary } from './sources/load.js';
import { framePicture, refusalOf } from './sources/frames.js';
import {
  clockOffsetMs,
  type Emit,
  type FramePicture,
  type SourceContext,
  type SourceDefinition,
  type SourceInput,
} from './sources/source.js';

export { clockOffsetMs } from './sources/source.js';
export { livenessOf } from './sources/frames.js';
export { stepAt } from './sources/interactions.js';
export { counterDeltas } from './sources/counters.js';

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
  /** The page load measured in the window (`measure: load`, perf_load). */
  load?: LoadSummary;
  /** DevTools' insight engine on the load's trace (its insights are in `insights`, under DevTools' names): its time. */
  devtools?: { ms: number; insights: number; error?: string; failed?: string[] };
}

// 6 KB per report, so an agent's context and a run file stay small.
export const REPORT_MAX_BYTES = 6 * 1024;
// Ranked list lengths before the size bound trims further: a top 10 of blocks is what a reader scans.
const TOP_BLOCKS = 10;
const TOP_INTERACTIONS = 10;
const TOP_LOAF_SCRIPTS = 5;
const TOP_STEPS = 20;
// Marks the size bound never cuts: a scenario places a handful (a mark per phase), each worth ~40 bytes.
const MARKS_KEPT = 10;

type Reasons = Partial<Record<SourceName, string>>;

export function buildReport(raw: RawSession, spans: readonly StepSpan[]): { report: PerfReport; details: Map<string, InsightDetail> } {
  const input: SourceInput = { raw, spans, window: { startAt: raw.startedAt, endAt: raw.endedAt }, offsetMs: clockOffsetMs(raw) };
  const frames = framePicture(input);
  const { coverage, missingReasons } = coverageOf(input, frames);
  const env = { ...raw.env, ...(raw.samplingIntervalUs ? { samplingIntervalUs: raw.samplingIntervalUs } : {}) };
  const refusal = refusalOf(input, frames);
  if (refusal) return { report: refusedReport(raw, refusal, frames, { coverage, missingReasons, env }), details: new Map() };

  const ctx: SourceContext = { ...input, frames, read: (s) => coverage[s] === 'read' };
  const { metrics, findings: f, warnings } = foldSources(ctx);
  const analysis: Analysis = {
    raw,
    metrics,
    frames: frames.stats,
    painted: frames.painted,
    interactions: f.interactions,
    longFrames: f.longFrames.list,
    profile: f.profile.profile,
    blocksBySelf: f.profile.bySelf,
    layouts: f.trace.layouts,
    coverage,
    missingReasons,
    frameOf: frames.frameOf,
  };
  const { insights, details, omitted: insightsOmitted } = runInsights(analysis);
  const report: PerfReport = {
    sessionToken: raw.token,
    refused: false,
    mode: raw.mode,
    metrics,
    coverage,
    missingReasons,
    env,
    summary: summaryOf(f, frames),
    counters: f.counters,
    interactions: f.interactions
      .slice()
      .sort((a, b) => b.latencyMs - a.latencyMs)
      .slice(0, TOP_INTERACTIONS),
    insights,
    omitted: omittedOf(f, insightsOmitted),
    ...(warnings.length ? { warnings } : {}),
    ...(f.load ? { load: f.load } : {}),
  };
  boundReport(report);
  return { report, details };
}

/** Coverage in COVERAGE_ORDER: each entry some source answers for, read or missing (and why). */
function coverageOf(input: SourceInput, frames: FramePicture): { coverage: Coverage; missingReasons: Reasons } {
  const answers: Partial<Record<SourceName, string | null>> = {};
  for (const source of Object.values(SOURCES)) Object.assign(answers, source.cover(input, frames));
  const coverage: Coverage = {};
  const missingReasons: Reasons = {};
  for (const s of COVERAGE_ORDER) {
    const reason = answers[s];
    if (reason === undefined) continue;
    coverage[s] = reason ? 'missing' : 'read';
    if (reason) missingReasons[s] = reason;
  }
  return { coverage, missingReasons };
}

/** Every source's metrics, written in source order, and what each found. */
function foldSources(ctx: SourceContext): { metrics: Record<string, number>; findings: Findings; warnings: string[] } {
  const metrics: Record<string, number> = {};
  const warnings: string[] = [];
  const found: Partial<Findings> = {};
  // Only declared metrics are written (src/perf/metrics.ts); a per-frame form follows its declaration.
  const put = (source: string, declared: readonly M.MetricDefinition[], e: Emit): void => {
    if (!declared.includes(e.def)) {
      throw new PerfError({
        code: 'internal_error',
        kind: 'internal',
        message: `metric source "${source}" wrote ${e.def.name}, which it does not declare in its emits`,
      });
    }
    const name = e.name ?? e.def.name;
    metrics[name] = round(e.value, e.digits);
    if (e.def.perFrame) metrics[name + M.PER_FRAME_SUFFIX] = round(e.value / ctx.frames.painted, 4);
  };
  const run = <K extends keyof Findings>(key: K): void => {
    const source: SourceDefinition<Findings[K]> = SOURCES[key];
    const out = source.measure(ctx);
    for (const e of out.emits) put(source.name, source.emits, e);
    warnings.push(...(out.warnings ?? []));
    found[key] = out.findings;
  };
  for (const key of Object.keys(SOURCES).filter(isSourceKey)) run(key);
  if (!isComplete(found)) throw new PerfError({ code: 'internal_error', kind: 'internal', message: 'a metric source did not run' });
  return { metrics, findings: found, warnings };
}

function isSourceKey(key: string): key is keyof Findings {
  return key in SOURCES;
}

function isComplete(found: Partial<Findings>): found is Findings {
  return Object.keys(SOURCES).every((k) => k in found);
}

function summaryOf(f: Findings, frames: FramePicture): Record<string, unknown> {
  const summary: Record<string, unknown> = {
    durationMs: f.window.durationMs,
    budgetMs: FRAME_BUDGET_MS,
    frames: f.frames.summary,
    livenessFrames: frames.liveness ?? null,
    blocksBySelf: f.profile.bySelf.slice(0, TOP_BLOCKS),
    blocksByCount: f.profile.byCount.slice(0, TOP_BLOCKS),
    longFrames: {
      count: f.longFrames.list.length,
      blockingMs: f.longFrames.blockingMs,
      scripts: f.longFrames.scripts.slice(0, TOP_LOAF_SCRIPTS),
    },
    layoutShift: f.layoutShift.score,
    ...(f.softNavs.total ? { softNavigations: f.softNavs.list } : {}),
    steps: f.steps.slice(0, TOP_STEPS),
    marks: f.window.marks,
    navigations: f.window.navigations,
    trace: f.trace.summary,
  };
  if (f.trace.phases) summary.phases = f.trace.phases;
  return summary;
}

function omittedOf(f: Findings, insights: number): Record<string, number> {
  return {
    blocksBySelf: Math.max(0, f.profile.bySelf.length - TOP_BLOCKS),
    blocksByCount: Math.max(0, f.profile.byCount.length - TOP_BLOCKS),
    interactions: Math.max(0, f.interactions.length - TOP_INTERACTIONS),
    worstFrames: f.frames.worstOmitted,
    longFrameScripts: Math.max(0, f.longFrames.scripts.length - TOP_LOAF_SCRIPTS),
    steps: Math.max(0, f.steps.length - TOP_STEPS),
    ...(f.softNavs.total > f.softNavs.list.length ? { softNavigations: f.softNavs.total - f.softNavs.list.length } : {}),
    marks: 0,
    insights,
  };
}

/** A window that showed nothing rendered: no metrics (a zero report would read as fast), the reason and coverage. */
function refusedReport(
  raw: RawSession,
  reason: string,
  frames: FramePicture,
  seen: Pick<PerfReport, 'coverage' | 'missingReasons' | 'env'>,
): PerfReport {
  return {
    sessionToken: raw.token,
    refused: true,
    reason,
    mode: raw.mode,
    metrics: {},
    ...seen,
    summary: {
      durationMs: round(raw.durationMs),
      budgetMs: FRAME_BUDGET_MS,
      livenessFrames: frames.liveness ?? null,
      frameSource: frames.stats?.source ?? null,
      vsyncs: frames.stats?.slots ?? null,
    },
    counters: {},
    interactions: [],
    insights: [],
    omitted: {},
  };
}

/**
 * Keep the report within REPORT_MAX_BYTES: shorten ranked lists (least useful first), one entry at a
 * time, counting each cut in `omitted`. Metrics, coverage and insights are never cut.
 */
export function boundReport(report: PerfReport): void {
  const size = (): number => Buffer.byteLength(JSON.stringify(report));
  const s = report.summary as Record<string, any>;
  const lists: { key: string; get: () => unknown[] | undefined }[] = [
    { key: 'steps', get: () => s.steps },
    { key: 'blocksByCount', get: () => s.blocksByCount },
    { key: 'longFrameScripts', get: () => s.longFrames?.scripts },
    { key: 'worstFrames', get: () => s.frames?.worst },
    { key: 'interactions', get: () => report.interactions },
    { key: 'blocksBySelf', get: () => s.blocksBySelf },
    // The user placed each mark and reads the report for it: cut last, and never the first few.
    { key: 'marks', get: () => s.marks },
  ];
  for (const l of lists) {
    // Floors keep the head of the most useful lists even when trimming.
    const floor = l.key === 'blocksBySelf' || l.key === 'interactions' ? 3 : l.key === 'marks' ? MARKS_KEPT : 0;
    while (size() > REPORT_MAX_BYTES) {
      const arr = l.get();
      if (!arr || arr.length <= floor) break;
      arr.pop();
      report.omitted[l.key] = (report.omitted[l.key] ?? 0) + 1;
    }
  }
}
