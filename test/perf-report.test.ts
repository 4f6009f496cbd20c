/**
 * The pure parts of perf measurement, on synthetic inputs: frames from PipelineReporter events,
 * counter deltas across a navigation, step attribution, the CPU profile's self time, phases, the
 * insight ranking and the report bound. No browser.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Protocol } from 'devtools-protocol';
import { framesFromRaf, parseTraceFrames } from '../src/perf/frames.js';
import { INSIGHTS, runInsights } from '../src/perf/insights.js';
import { blocksBySelf, readProfile } from '../src/perf/profile.js';
import { buildReport, stepAt } from '../src/perf/report.js';
import type { Analysis, StepSpan } from '../src/perf/analysis.js';
import { BEGIN_MARK, END_MARK, type RawSession, type TraceEvent } from '../src/drivers/measure.js';
import { counterDeltas } from '../src/perf/report.js';
import { phasesFromTrace } from '../src/perf/trace-layouts.js';

const PID = 7;
const VSYNC_US = 16_667;
type State = 'STATE_PRESENTED_ALL' | 'STATE_PRESENTED_PARTIAL' | 'STATE_DROPPED' | 'STATE_NO_UPDATE_DESIRED';

function reporter(seq: number, state: State, extra: Record<string, unknown> = {}): TraceEvent {
  return {
    name: 'PipelineReporter',
    cat: 'cc',
    ph: 'b',
    pid: PID,
    tid: 2,
    ts: seq * VSYNC_US,
    args: { frame_reporter: { state, frame_sequence: seq, layer_tree_host_id: 1, ...extra } },
  };
}
const all = { startAt: -Infinity, endAt: Infinity };

/** An analysis holding only `frames` (and the raw session): what the frame insights read. */
function framesOnly(raw: RawSession, frames: Analysis['frames']): Analysis {
  return {
    raw,
    metrics: {},
    frames,
    painted: frames?.painted ?? 0,
    interactions: [],
    longFrames: [],
    profile: undefined,
    blocksBySelf: [],
    layouts: undefined,
    coverage: { frames: 'read' },
    missingReasons: {},
    frameOf: () => -1,
  };
}

test('frames: a painted frame lasts until the next painted one across dropped vsyncs; idle vsyncs are not frames', () => {
  const events = [
    reporter(1, 'STATE_PRESENTED_ALL'),
    reporter(2, 'STATE_PRESENTED_ALL'),
    reporter(3, 'STATE_DROPPED'),
    reporter(4, 'STATE_DROPPED'),
    reporter(5, 'STATE_PRESENTED_ALL'),
    reporter(6, 'STATE_NO_UPDATE_DESIRED'),
    reporter(7, 'STATE_NO_UPDATE_DESIRED'),
    reporter(8, 'STATE_PRESENTED_ALL'),
    // Another reporter for vsync 8 that missed: the vsync shows what reached the screen.
    reporter(8, 'STATE_DROPPED'),
  ];
  const f = parseTraceFrames(events, new Set([PID]), all, 0)!;
  assert.equal(f.source, 'trace');
  assert.equal(f.vsyncMs, 16.67);
  assert.equal(f.painted, 4);
  assert.equal(f.dropped, 2);
  assert.equal(f.count, 6);
  assert.equal(f.slots, 8);
  const painted = f.frames.filter((x) => x.state !== 'dropped').map((x) => x.durationMs);
  assert.deepEqual(painted, [16.67, 50.01, 16.67, 16.67]);
  assert.equal(f.overBudget, 1);
});

test('frames: a partial frame whose missing update affects smoothness is over budget; one that does not is not', () => {
  const events = [
    reporter(1, 'STATE_PRESENTED_PARTIAL', { affects_smoothness: true }),
    reporter(2, 'STATE_PRESENTED_PARTIAL'),
    reporter(3, 'STATE_PRESENTED_ALL'),
  ];
  const f = parseTraceFrames(events, new Set([PID]), all, 0)!;
  assert.equal(f.partial, 2);
  assert.equal(f.overBudget, 1);
  assert.equal(f.frames[0]!.overBudget, true);
});

test('frames: only the page renderer and the window count; a renderer with no vsync reads as zero frames', () => {
  const other = { ...reporter(2, 'STATE_PRESENTED_ALL'), pid: 99 };
  const f = parseTraceFrames(
    [reporter(1, 'STATE_PRESENTED_ALL'), other, reporter(50, 'STATE_PRESENTED_ALL')],
    new Set([PID]),
    { startAt: 0, endAt: 100 },
    0,
  )!;
  assert.equal(f.painted, 1);
  const none = parseTraceFrames([other], new Set([PID]), all, 0)!;
  assert.deepEqual([none.painted, none.slots, none.count], [0, 0, 0]);
  assert.equal(parseTraceFrames([other], new Set(), all, 0), undefined);
});

test('counter deltas: a per-document counter that restarts after a navigation is summed, gauges are end minus start', () => {
  const cp = (at: number, layouts: number, heap: number) => ({
    at,
    values: { LayoutCount: layouts, ScriptDuration: at / 1000, JSHeapUsedSize: heap, Nodes: 10 },
  });
  // 5 layouts before the navigation (10 → 15), 3 in the new document (counted from 0).
  const d = counterDeltas([cp(0, 10, 1000), cp(100, 15, 4000), cp(200, 3, 1500)])!;
  assert.equal(d.LayoutCount, 8);
  assert.equal(d.JSHeapUsedSize, 500);
  assert.equal(d.Nodes, 0);
  assert.ok(Math.abs(d.ScriptDuration! - 0.2) < 1e-9);
  assert.equal(counterDeltas([cp(0, 1, 1)]), undefined);
});

test('step attribution: inside a step wins, then the nearest edge, then the last step that started before', () => {
  const spans = [
    { step: 'tap', label: 'a', startedAt: 1000, durationMs: 100, status: 'ok' as const },
    { step: 'tap', label: 'b', startedAt: 1102, durationMs: 100, status: 'ok' as const },
  ];
  assert.equal(stepAt(spans, 1050), 'a');
  assert.equal(stepAt(spans, 1103), 'b');
  // Between a's end (1100) and b's start (1102): nearer to a's end.
  assert.equal(stepAt(spans, 1100.5), 'a');
  assert.equal(stepAt(spans, 1500), 'b');
  assert.equal(stepAt(spans, 500), null);
});

function profile(): Protocol.Profiler.Profile {
  const cf = (functionName: string, url = '', scriptId = '0', lineNumber = 0) => ({
    functionName,
    url,
    scriptId,
    lineNumber,
    columnNumber: 0,
  });
  return {
    nodes: [
      { id: 1, callFrame: cf('(root)'), children: [2, 5, 6] },
      { id: 2, callFrame: cf('loop', 'http://127.0.0.1:1/app.js', '3', 9), children: [3] },
      // A native builtin called from loop: its time is loop's.
      { id: 3, callFrame: cf('now'), children: [] },
      { id: 5, callFrame: cf('(idle)'), children: [] },
      { id: 6, callFrame: cf('handleLoaf', 'rehearse-perf-probe.js', '9'), children: [] },
    ],
    startTime: 0,
    endTime: 1000,
    // 100 µs apart: 4 in loop, 4 in now (→ loop), 1 idle, 1 probe.
    samples: [2, 3, 2, 3, 2, 3, 2, 3, 5, 6],
    timeDeltas: [0, 100, 100, 100, 100, 100, 100, 100, 100, 100],
  };
}

test('profile: self time by function, native builtins charged to their caller, idle and the harness left out', () => {
  const p = readProfile(profile(), 0, all);
  const blocks = blocksBySelf(p);
  assert.deepEqual(blocks, [{ name: 'loop', url: '/app.js:10', selfMs: 0.8, share: 1 }]);
  assert.ok(Math.abs(p.busyMs - 0.8) < 1e-9);
});

test('phases: exclusive main-thread time, a layout forced inside a script counts as layout', () => {
  const x = (name: string, ts: number, dur: number): TraceEvent => ({ name, cat: 'devtools.timeline', ph: 'X', pid: PID, tid: 1, ts, dur });
  const events: TraceEvent[] = [
    { name: BEGIN_MARK, cat: 'blink.user_timing', ph: 'I', pid: PID, tid: 1, ts: 0 },
    x('RunTask', 1000, 10_000),
    x('FunctionCall', 1000, 8000),
    x('Layout', 2000, 3000),
    x('UpdateLayoutTree', 9000, 1000),
    { name: END_MARK, cat: 'blink.user_timing', ph: 'I', pid: PID, tid: 1, ts: 20_000 },
  ];
  const ph = phasesFromTrace({ events, dataLoss: false, rendererPid: PID, mainFrameId: 'f', bytes: 0 }, all, 0)!;
  assert.equal(ph.scriptMs, 5);
  assert.equal(ph.layoutMs, 3);
  assert.equal(ph.styleMs, 1);
  assert.equal(ph.otherMs, 1);
});

function rawSession(over: Partial<RawSession> = {}): RawSession {
  return {
    token: 'ps-12345678',
    mode: 'timing',
    phases: false,
    startedAt: 1000,
    endedAt: 2000,
    durationMs: 1000,
    checkpoints: [],
    messages: [],
    docFrames: [],
    interactionCount: null,
    support: { event: true, loaf: true, shift: true },
    probeMissing: undefined,
    trace: undefined,
    profile: undefined,
    samplingIntervalUs: undefined,
    marks: [],
    navigations: 0,
    missing: {},
    env: {
      browser: 'Chrome/1',
      userAgent: 'HeadlessChrome',
      headless: true,
      viewport: { width: 800, height: 600, dpr: 1, mobile: false },
      cpuThrottle: 1,
      cpuThrottleSource: 'default',
      url: 'http://x/',
    },
    ...over,
  };
}

test('report without a trace: the rAF counter is the frame source; missing sources are listed and raise sourcesMissing', () => {
  const raw = rawSession({
    missing: { trace: 'Tracing.start failed: busy' },
    docFrames: [{ count: 30, firstAt: 1000, lastAt: 1500, intervalsMs: new Array(29).fill(16.7) }],
    checkpoints: [
      { at: 1000, values: { LayoutCount: 0, RecalcStyleCount: 0 } },
      { at: 2000, values: { LayoutCount: 15, RecalcStyleCount: 30 } },
    ],
  });
  const { report } = buildReport(raw, []);
  assert.equal(report.refused, false);
  assert.equal(report.summary.frames && (report.summary.frames as { source: string }).source, 'raf');
  assert.equal(report.metrics['frames.painted'], 30);
  assert.equal(report.metrics['counters.styleRecalcs.perFrame'], 1);
  assert.equal(report.coverage.trace, 'missing');
  assert.equal(report.coverage.frames, 'missing');
  assert.equal(report.coverage.counters, 'read');
  const sm = report.insights.find((i) => i.id === 'sourcesMissing');
  assert.ok(sm);
  assert.equal(sm.severity, 'warn');
  assert.match(sm.title, /frames/);
});

test('insights: at most 6, errors before warnings, then by estimated savings; each rule is a defineInsight literal', () => {
  assert.deepEqual(
    INSIGHTS.map((r) => r.id),
    ['framesOverBudget', 'framesDropped', 'blockSelfMs', 'forcedLayout', 'longInteraction', 'sourcesMissing'],
  );
  const frames = Array.from({ length: 20 }, (_, i) => ({
    startAt: i * 50,
    durationMs: i < 10 ? 50 : 16.67,
    state: 'presented' as const,
    ...(i < 10 ? { overBudget: true } : {}),
  }));
  const a: Analysis = {
    raw: rawSession(),
    metrics: { 'counters.layouts': 120 },
    frames: { source: 'trace', frames, count: 24, painted: 20, dropped: 4, partial: 0, overBudget: 10, vsyncMs: 16.67, slots: 24 },
    painted: 20,
    interactions: [
      { id: 1, type: 'click', target: 'button', step: 's', atMs: 1, latencyMs: 250, inputDelayMs: 1, processingMs: 240, presentationMs: 9 },
    ],
    longFrames: [],
    profile: undefined,
    blocksBySelf: [],
    layouts: undefined,
    coverage: { frames: 'read', profile: 'missing' },
    missingReasons: { profile: 'x' },
    frameOf: () => -1,
  };
  const { insights, details } = runInsights(a);
  assert.deepEqual(
    insights.map((i) => [i.id, i.severity]),
    [
      ['framesOverBudget', 'error'],
      ['forcedLayout', 'error'],
      ['framesDropped', 'warn'],
      ['longInteraction', 'warn'],
      ['sourcesMissing', 'info'],
    ],
  );
  // Within a severity by savings: 10 frames × (50 − 16.7) ms beats no forced-layout estimate; 4 dropped
  // vsyncs (66.7 ms) beat an interaction 50 ms over 200.
  assert.equal(insights[0]!.estimatedSavingsMs, 333);
  assert.equal(insights[2]!.estimatedSavingsMs, 66.7);
  assert.equal(insights[3]!.estimatedSavingsMs, 50);
  assert.deepEqual(insights[1]!.evidence, { metric: 'counters.layouts', value: 120, perFrame: 6, threshold: 2 });
  assert.equal(details.get('longInteraction')!.rows.length, 1);
});

test('a driver without a CPU profiler: late frames are not sent to attribution mode, and its ms are not called inflated', () => {
  const frames = Array.from({ length: 20 }, (_, i) => ({
    startAt: i * 50,
    durationMs: i < 10 ? 50 : 16.67,
    state: 'presented' as const,
    ...(i < 10 ? { overBudget: true } : {}),
  }));
  const analysis = (raw: RawSession): Analysis =>
    framesOnly(raw, { source: 'raf', frames, count: 20, painted: 20, dropped: 0, partial: 0, overBudget: 10, vsyncMs: 16.67, slots: 20 });
  const next = (raw: RawSession): string | undefined =>
    runInsights(analysis(raw)).insights.find((i) => i.id === 'framesOverBudget')?.nextStep;
  // Chromium in timing mode: a profile is one perf_begin away.
  assert.match(next(rawSession())!, /mode: 'attribution'/);
  // Firefox, WebDriver, a terminal: none is, in either mode.
  const none = { missing: { profile: 'the CPU profile is not available over WebDriver' } };
  for (const mode of ['timing', 'attribution'] as const) {
    const n = next(rawSession({ ...none, mode }))!;
    assert.doesNotMatch(n, /attribution/, n);
    assert.match(n, /no function is named \(the CPU profile is not available over WebDriver\)/);
  }
  const inflated = (raw: RawSession): boolean => (buildReport(raw, []).report.warnings ?? []).some((w) => /inflates/.test(w));
  assert.equal(inflated(rawSession({ ...OVER_BOUND_FRAMES, ...none, mode: 'attribution' })), false);
  assert.equal(inflated(rawSession({ ...OVER_BOUND_FRAMES, mode: 'attribution', profile: profile() })), true);
});
test('framesDropped from the rAF counter (Firefox, WebDriver): the stalls are the long intervals, not 0 ms', () => {
  // A page at 60 Hz with two stalls: a 100 ms interval (6 vsyncs, 5 skipped) and a 50 ms one (3 vsyncs, 2 skipped).
  const intervals = [...new Array<number>(10).fill(16.7), 100.2, ...new Array<number>(10).fill(16.7), 50.1];
  const frames = framesFromRaf([{ count: intervals.length + 1, firstAt: 1000, lastAt: 1500, intervalsMs: intervals }])!;
  assert.equal(frames.dropped, 7);
  const a = framesOnly(rawSession(), frames);
  const { insights, details } = runInsights(a);
  const dropped = insights.find((i) => i.id === 'framesDropped');
  assert.equal(dropped?.title, '7 of 30 frames dropped (longest stall 83.5 ms)');
  assert.deepEqual(
    details.get('framesDropped')!.rows.map((r) => [r.frames, r.ms]),
    [
      [5, 83.5],
      [2, 33.4],
    ],
  );
});

const OVER_BOUND_FRAMES = { docFrames: [{ count: 30, firstAt: 1000, lastAt: 1500, intervalsMs: new Array(29).fill(16.7) }] };

/** 200 steps with long labels: their ranked list alone is far over the 6 KB bound. */
function longSteps(): StepSpan[] {
  return Array.from({ length: 200 }, (_, i) => ({
    step: 'tap',
    label: `a rather long step label number ${i}`,
    startedAt: 1000 + i,
    durationMs: 1,
    status: 'ok' as const,
  }));
}
const OVER_BOUND = {
  docFrames: [{ count: 30, firstAt: 1000, lastAt: 1500, intervalsMs: new Array(29).fill(16.7) }],
  missing: { trace: 'none' },
};

test('report bound: long ranked lists are cut to stay within 6 KB, each cut counted in omitted', () => {
  const spans = longSteps();
  const raw = rawSession(OVER_BOUND);
  const { report } = buildReport(raw, spans);
  const json = JSON.stringify(report);
  // Every step keeps its metric (metrics are never cut); the ranked step list is.
  assert.equal(Object.keys(report.metrics).filter((k) => k.startsWith('steps.')).length, 200);
  const kept = (report.summary.steps as unknown[]).length;
  assert.equal(kept + report.omitted.steps!, 200);
  assert.ok(kept < 20);
  assert.ok(Buffer.byteLength(json) > 6 * 1024, 'metrics alone exceed the bound here: lists were cut as far as they go');
});

test("report bound: the user's marks are cut last, and the first 10 never", () => {
  const spans = longSteps();
  const marks = Array.from({ length: 30 }, (_, i) => ({ name: `phase-${i}`, at: 1000 + i }));
  const raw = rawSession({
    ...OVER_BOUND,
    marks,
  });
  const { report } = buildReport(raw, spans);
  // Over the bound even with every list cut: the steps went first, the marks down to their floor.
  assert.ok(report.omitted.steps! > 0);
  assert.deepEqual(
    (report.summary.marks as { name: string }[]).map((m) => m.name),
    marks.slice(0, 10).map((m) => m.name),
  );
  assert.equal(report.omitted.marks, 20);
});
