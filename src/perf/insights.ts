/**
 * Ranked insights: each rule is a defineInsight({...}) literal, all listed in INSIGHTS. A rule reads the
 * session's Analysis and returns a finding (or nothing); findings are ranked by severity, then by
 * estimated savings, and at most MAX_INSIGHTS are reported. The rows behind each finding are kept for
 * perf_insight.
 */
import { FRAME_BUDGET_MS, skippedFrames, type FrameRecord, type FrameStats } from './frames.js';
import { isPageWork, locationOf, round, type ProfileData } from './profile.js';
import { rankLoafScripts, type Analysis } from './analysis.js';
import type { LayoutSpan } from './trace-layouts.js';

export type Severity = 'error' | 'warn' | 'info';

export interface Insight {
  id: string;
  /** Whose rule: DevTools' trace engine (its insight names) or ours (frames, layouts, sources). */
  source: 'devtools' | 'rehearse';
  severity: Severity;
  title: string;
  /** What to fix, when one thing is: a URL, or a function with its place. */
  culprit?: string;
  evidence: { metric: string; value: number; perFrame: number | null; threshold: number };
  estimatedSavingsMs?: number;
  /** Bytes fixing it could save over the wire (DevTools' wasted bytes). */
  estimatedSavingsBytes?: number;
  nextStep: string;
}

/** An insight as one line, ours and DevTools' alike: the id perf_insight takes, then the title. */
export function insightLine(i: Pick<Insight, 'id' | 'title'>): string {
  return `${i.id}: ${i.title}`;
}

/** The rows behind one insight (perf_insight). */
export interface InsightDetail {
  id: string;
  title: string;
  rows: Record<string, unknown>[];
  note?: string;
}

/** What a rule returns when it fires. */
export interface Finding extends Omit<Insight, 'id' | 'source'> {
  rows: Record<string, unknown>[];
  note?: string;
}

export interface InsightRule {
  id: string;
  /** One line: what the rule looks for (documentation, and perf_insight's answer for an unfired rule). */
  description: string;
  evaluate(a: Analysis): Finding | undefined;
}

export function defineInsight(rule: InsightRule): InsightRule {
  return rule;
}

// At most 6 insights per report: more is a list an agent or a reviewer stops reading.
export const MAX_INSIGHTS = 6;
// Rows per insight detail: enough to see a pattern, small enough for an agent's context.
const DETAIL_ROWS = 10;
const SEVERITY_RANK: Record<Severity, number> = { error: 0, warn: 1, info: 2 };

// ─── helpers ───────────────────────────────────────────────────────────────────────────────────────

/** Self ms per page function over [from, to] (epoch ms), best first. */
function functionsIn(p: ProfileData, from: number, to: number, limit: number): { name: string; url: string; selfMs: number }[] {
  const ms = new Map<number, number>();
  for (const s of p.samples) {
    if (s.at < from || s.at > to) continue;
    const f = p.functions[s.fn];
    if (!f || !isPageWork(f)) continue;
    ms.set(s.fn, (ms.get(s.fn) ?? 0) + s.ms);
  }
  return [...ms.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([fn, v]) => ({ name: p.functions[fn]!.name, url: locationOf(p.functions[fn]!), selfMs: round(v) }));
}

/** What ran in a frame: the profile's functions when recorded, else the long animation frames' scripts. */
function blocksOfFrame(a: Analysis, f: FrameRecord): Record<string, unknown>[] {
  const end = f.startAt + f.durationMs;
  if (a.profile) return functionsIn(a.profile, f.startAt, end, 3);
  const rel = (ms: number): number => a.raw.startedAt + ms;
  return a.longFrames
    .filter((l) => rel(l.atMs) < end && rel(l.atMs) + l.durationMs > f.startAt)
    .flatMap((l) => l.scripts)
    .sort((x, y) => y.durationMs - x.durationMs)
    .slice(0, 3)
    .map((s) => ({ function: s.function || '(anonymous)', url: s.sourceURL, durationMs: s.durationMs }));
}

function at(a: Analysis, epoch: number): number {
  return round(epoch - a.raw.startedAt, 1);
}

// ─── rules ─────────────────────────────────────────────────────────────────────────────────────────

// 10% of painted frames over budget: one visible hitch every ~10 frames (6 per second at 60 Hz).
const OVER_BUDGET_WARN_PER_FRAME = 0.1;
// A quarter of frames late is jank anyone sees.
const OVER_BUDGET_ERROR_PER_FRAME = 0.25;
// Fewer than 3 late frames is noise (a GC, a first paint), not a pattern.
const MIN_OVER_BUDGET = 3;

export const framesOverBudget = defineInsight({
  id: 'framesOverBudget',
  description: `painted frames that took longer than the ${FRAME_BUDGET_MS} ms budget (or went out without the page's update)`,
  evaluate(a) {
    const f = a.frames;
    if (!f || f.overBudget < MIN_OVER_BUDGET) return undefined;
    const perFrame = f.overBudget / a.painted;
    if (perFrame < OVER_BUDGET_WARN_PER_FRAME) return undefined;
    const over = f.frames.filter((x) => x.overBudget);
    // A frame that went out partial missed at least one vsync of the page's update.
    const savings = over.reduce((s, x) => s + (x.durationMs > FRAME_BUDGET_MS ? x.durationMs - FRAME_BUDGET_MS : f.vsyncMs), 0);
    const worst = [...over].sort((x, y) => y.durationMs - x.durationMs || x.startAt - y.startAt).slice(0, DETAIL_ROWS);
    const top = a.blocksBySelf[0];
    return {
      severity: perFrame >= OVER_BUDGET_ERROR_PER_FRAME ? 'error' : 'warn',
      title:
        `${f.overBudget} of ${f.painted} painted frames over the ${FRAME_BUDGET_MS}` +
        ` ms budget${top ? `; most self time in ${top.name} (${top.url})` : ''}`,
      evidence: { metric: 'frames.overBudget', value: f.overBudget, perFrame: round(perFrame, 3), threshold: OVER_BUDGET_WARN_PER_FRAME },
      estimatedSavingsMs: round(savings, 1),
      nextStep: a.profile
        ? "perf_insight { id: 'framesOverBudget' } lists the worst frames and the functions that ran in them"
        : a.raw.missing.profile
          ? `perf_insight { id: 'framesOverBudget' } lists the worst frames; no function is named (${a.raw.missing.profile})`
          : "measure again with perf_begin { mode: 'attribution' } to see which functions ran in the late frames",
      rows: worst.map((x) => ({ atMs: at(a, x.startAt), ms: x.durationMs, state: x.state, blocks: blocksOfFrame(a, x) })),
    };
  },
});

// 5% dropped: the point where frame-rate loss starts to show in a scroll or animation.
const DROPPED_WARN_PER_FRAME = 0.05;
// A fifth of frames dropped is a visibly halting animation.
const DROPPED_ERROR_PER_FRAME = 0.2;
// Two or more: a single dropped frame happens on any busy machine.
const MIN_DROPPED = 2;

export const framesDropped = defineInsight({
  id: 'framesDropped',
  description: 'frames the compositor began but never presented',
  evaluate(a) {
    const f = a.frames;
    if (!f || f.dropped < MIN_DROPPED) return undefined;
    const perFrame = f.dropped / Math.max(1, f.count);
    if (perFrame < DROPPED_WARN_PER_FRAME) return undefined;
    const runs = stalls(a, f);
    return {
      severity: perFrame >= DROPPED_ERROR_PER_FRAME ? 'error' : 'warn',
      title: `${f.dropped} of ${f.count} frames dropped (longest stall ${runs[0]?.ms ?? 0} ms)`,
      evidence: {
        metric: 'frames.dropped',
        value: f.dropped,
        perFrame: round(f.dropped / a.painted, 3),
        threshold: DROPPED_WARN_PER_FRAME,
      },
      estimatedSavingsMs: round(f.dropped * f.vsyncMs, 1),
      nextStep: "perf_insight { id: 'framesDropped' } lists the stalls by time; perf_trace { out: 'trace.json' } to see them in Perfetto",
      rows: runs.slice(0, DETAIL_ROWS),
    };
  },
});

/**
 * Runs of consecutive dropped frames, longest first: where the page stalled. The trace records each dropped frame; the
 * rAF counter (WebDriver, Firefox) records none, only the long interval they left: an interval of N vsyncs is a run of
 * N - 1 (without this, every stall there read as 0 ms).
 */
function stalls(a: Analysis, f: FrameStats): { atMs: number; frames: number; ms: number }[] {
  const runs: { atMs: number; frames: number; ms: number }[] = [];
  if (f.source === 'raf') {
    for (const x of f.frames) {
      const skipped = skippedFrames(x.durationMs);
      if (skipped > 0) runs.push({ atMs: at(a, x.startAt), frames: skipped, ms: round(skipped * f.vsyncMs, 1) });
    }
  } else {
    let run: { atMs: number; frames: number; ms: number } | undefined;
    for (const x of f.frames) {
      if (x.state === 'dropped') {
        if (!run) runs.push((run = { atMs: at(a, x.startAt), frames: 0, ms: 0 }));
        run.frames++;
        run.ms = round(run.ms + x.durationMs, 1);
      } else run = undefined;
    }
  }
  return runs.sort((x, y) => y.ms - x.ms);
}

// One function holding 30% of self time is a single place to fix.
const BLOCK_SHARE = 0.3;
// ...and at least 1 ms per painted frame, so a function dominating an idle session does not fire.
const BLOCK_MS_PER_FRAME = 1;
// Half the frame budget in one function, every frame: that function alone makes frames late.
const BLOCK_ERROR_MS_PER_FRAME = FRAME_BUDGET_MS / 2;

// The five frames where the function weighed most show where it runs (every frame, or one burst); the rest are the
// trace's (perf_trace), and an agent reading every insight of a window pays for each row.
const BLOCK_FRAME_ROWS = 5;

export const blockSelfMs = defineInsight({
  id: 'blockSelfMs',
  description:
    `one function with >= ${BLOCK_SHARE * 100}% of the page's self time and ` +
    `>= ${BLOCK_MS_PER_FRAME} ms per painted frame (attribution mode)`,
  evaluate(a) {
    const p = a.profile;
    if (!p) return undefined;
    const heavy = a.blocksBySelf.filter((b) => b.share >= BLOCK_SHARE && b.selfMs / a.painted >= BLOCK_MS_PER_FRAME);
    const top = heavy[0];
    if (!top) return undefined;
    const perFrame = top.selfMs / a.painted;
    // The frames where the top function weighed most.
    const fnIndex = p.functions.findIndex((f) => f.name === top.name && locationOf(f) === top.url);
    const byFrame = new Map<number, number>();
    for (const s of p.samples) {
      if (s.fn !== fnIndex) continue;
      const fr = a.frameOf(s.at);
      if (fr >= 0) byFrame.set(fr, (byFrame.get(fr) ?? 0) + s.ms);
    }
    const frames = a.frames?.frames ?? [];
    const rows: Record<string, unknown>[] = heavy.map((b) => ({
      function: b.name,
      url: b.url,
      selfMs: b.selfMs,
      share: b.share,
      msPerFrame: round(b.selfMs / a.painted),
    }));
    // Each frame row is the top function's (the first row names it): its self ms in that frame.
    for (const [fr, ms] of [...byFrame.entries()].sort((x, y) => y[1] - x[1]).slice(0, BLOCK_FRAME_ROWS)) {
      const f = frames[fr]!;
      rows.push({ frameAtMs: at(a, f.startAt), frameMs: f.durationMs, state: f.state, selfMs: round(ms) });
    }
    const others = heavy.slice(1).map((b) => `${b.name} ${Math.round(b.share * 100)}%`);
    return {
      severity: perFrame >= BLOCK_ERROR_MS_PER_FRAME ? 'error' : 'warn',
      title:
        `${top.name} (${top.url}) holds ${Math.round(top.share * 100)}% of self time, ${round(perFrame, 1)}` +
        ` ms per painted frame${others.length ? `; also ${others.join(', ')}` : ''}`,
      evidence: { metric: 'blocksBySelf[0].selfMs', value: top.selfMs, perFrame: round(perFrame, 3), threshold: BLOCK_SHARE },
      estimatedSavingsMs: top.selfMs,
      nextStep:
        `perf_insight { id: 'blockSelfMs' } shows the frames where ${top.name} weighed ` +
        `most; attribution ms are inflated, confirm a fix with a timing-mode run`,
      rows,
      note: 'self ms from the sampling profiler (native builtins counted toward their caller)',
    };
  },
});

// A frame needs one layout; more than 2 per painted frame means script reads geometry after writing
// styles (forced synchronous layout) again and again.
const LAYOUTS_PER_FRAME = 2;
// Layout thrash is a frame-time killer: 5 per frame on a real page costs most of the budget.
const LAYOUTS_ERROR_PER_FRAME = 5;
// Under 10 layouts in a whole session is not a pattern.
const MIN_LAYOUTS = 10;

/** Self ms per page function in the forced-layout spans: the function that read geometry. */
function forcingFunctions(p: ProfileData, spans: readonly LayoutSpan[]): { name: string; url: string; ms: number; layouts: number }[] {
  const ms = new Map<number, number>();
  const count = new Map<number, Set<number>>();
  const samples = p.samples;
  let i = 0;
  spans.forEach((sp, k) => {
    while (i < samples.length && samples[i]!.at < sp.at) i++;
    for (let j = i; j < samples.length && samples[j]!.at <= sp.at + sp.ms; j++) {
      const s = samples[j]!;
      const f = p.functions[s.fn];
      if (!f || !isPageWork(f) || f.meta) continue;
      ms.set(s.fn, (ms.get(s.fn) ?? 0) + s.ms);
      let set = count.get(s.fn);
      if (!set) count.set(s.fn, (set = new Set()));
      set.add(k);
    }
  });
  return [...ms.entries()]
    .sort((x, y) => y[1] - x[1])
    .map(([fn, v]) => ({
      name: p.functions[fn]!.name,
      url: locationOf(p.functions[fn]!),
      ms: round(v),
      layouts: count.get(fn)?.size ?? 0,
    }));
}

export const forcedLayout = defineInsight({
  id: 'forcedLayout',
  description:
    `more than ${LAYOUTS_PER_FRAME} layouts per painted frame (forced synchronous ` +
    `layout), naming the script that forced them when known`,
  evaluate(a) {
    const layouts = a.metrics['counters.layouts'] ?? a.layouts?.layouts;
    if (layouts === undefined || layouts < MIN_LAYOUTS) return undefined;
    const perFrame = layouts / a.painted;
    if (perFrame <= LAYOUTS_PER_FRAME) return undefined;
    const rows: Record<string, unknown>[] = [];
    let culprit: string | undefined;
    if (a.profile && a.layouts && a.layouts.forcedSpans.length) {
      const fns = forcingFunctions(a.profile, a.layouts.forcedSpans);
      const first = fns[0];
      if (first) culprit = `${first.name} (${first.url})`;
      for (const f of fns.slice(0, DETAIL_ROWS))
        rows.push({ source: 'profile', function: f.name, url: f.url, forcedLayoutMs: f.ms, layouts: f.layouts });
    }
    const loafForcers = rankLoafScripts(a.longFrames).filter((s) => s.forcedLayoutMs > 0);
    if (!culprit && loafForcers[0]) culprit = `${loafForcers[0].function} (${loafForcers[0].url}, the script entry point)`;
    for (const s of loafForcers.slice(0, DETAIL_ROWS))
      rows.push({
        source: 'longAnimationFrame',
        function: s.function,
        url: s.url,
        invoker: s.invoker,
        forcedLayoutMs: s.forcedLayoutMs,
        frames: s.count,
      });
    const forced = a.layouts ? `${a.layouts.forced} of ${a.layouts.layouts} layouts forced from script` : undefined;
    return {
      severity: perFrame > LAYOUTS_ERROR_PER_FRAME ? 'error' : 'warn',
      title: `${round(perFrame, 1)} layouts per painted frame${forced ? ` (${forced})` : ''}${culprit ? `, forced by ${culprit}` : ''}`,
      evidence: { metric: 'counters.layouts', value: layouts, perFrame: round(perFrame, 3), threshold: LAYOUTS_PER_FRAME },
      ...(culprit ? { culprit } : {}),
      ...(a.layouts?.forcedMs ? { estimatedSavingsMs: a.layouts.forcedMs } : {}),
      nextStep: culprit
        ? `in ${culprit.split(' (')[0]}, read geometry (offsetHeight, getBoundingClientRect) before writing ` +
          `styles, or batch the writes; perf_insight { id: 'forcedLayout' } lists the forcing functions`
        : "measure again with perf_begin { mode: 'attribution' } to name the function that forces the layouts",
      rows,
      ...(a.layouts ? { note: `trace: ${a.layouts.layouts} layouts, ${a.layouts.forced} forced (${a.layouts.forcedMs} ms)` } : {}),
    };
  },
});

// 200 ms: the Interaction to Next Paint "needs improvement" boundary (web.dev/inp).
const INTERACTION_WARN_MS = 200;
// 500 ms: INP "poor".
const INTERACTION_ERROR_MS = 500;

export const longInteraction = defineInsight({
  id: 'longInteraction',
  description: `an interaction (Event Timing) slower than ${INTERACTION_WARN_MS} ms from input to the next paint`,
  evaluate(a) {
    const slow = a.interactions.filter((i) => i.latencyMs > INTERACTION_WARN_MS).sort((x, y) => y.latencyMs - x.latencyMs);
    const worst = slow[0];
    if (!worst) return undefined;
    const part = (
      [
        ['input delay', worst.inputDelayMs],
        ['processing', worst.processingMs],
        ['presentation', worst.presentationMs],
      ] as const
    ).reduce((m, x) => (x[1] > m[1] ? x : m));
    return {
      severity: worst.latencyMs > INTERACTION_ERROR_MS ? 'error' : 'warn',
      title:
        `${worst.type} on ${worst.target || 'the page'}${worst.step ? ` (step ${worst.step})` : ''}` +
        ` took ${worst.latencyMs} ms to the next paint, mostly ${part[0]} (${part[1]} ms)`,
      evidence: { metric: 'interactions.latencyMs.worst', value: worst.latencyMs, perFrame: null, threshold: INTERACTION_WARN_MS },
      estimatedSavingsMs: round(worst.latencyMs - INTERACTION_WARN_MS, 1),
      nextStep:
        part[0] === 'processing'
          ? "the event handlers are slow: perf_insight { id: 'longInteraction' } for the breakdown, attribution mode to name the functions"
          : part[0] === 'input delay'
            ? 'the main thread was busy when the input came: look for long tasks before it (longFrames, blocksBySelf)'
            : 'rendering after the handlers is slow: look at layout and style counters per frame',
      rows: slow.slice(0, DETAIL_ROWS).map((i) => ({ ...i })),
    };
  },
});

export const sourcesMissing = defineInsight({
  id: 'sourcesMissing',
  description: 'a measurement source could not be read: the report is partial',
  evaluate(a) {
    const missing = Object.entries(a.coverage)
      .filter(([, v]) => v === 'missing')
      .map(([k]) => k);
    if (missing.length === 0) return undefined;
    // Without frames the per-frame metrics have no meaning: that is worth more than a note.
    const severe = missing.includes('frames') || missing.includes('liveness');
    return {
      severity: severe ? 'warn' : 'info',
      title: `not measured: ${missing.join(', ')}`,
      evidence: { metric: 'coverage.missing', value: missing.length, perFrame: null, threshold: 0 },
      nextStep: "perf_insight { id: 'sourcesMissing' } says why each source is missing",
      rows: missing.map((source) => ({ source, reason: a.missingReasons[source as keyof typeof a.missingReasons] ?? 'unknown' })),
    };
  },
});

/** Every built-in rule. */
export const INSIGHTS: readonly InsightRule[] = [
  framesOverBudget,
  framesDropped,
  blockSelfMs,
  forcedLayout,
  longInteraction,
  sourcesMissing,
];

export function runInsights(a: Analysis): { insights: Insight[]; details: Map<string, InsightDetail>; omitted: number } {
  const found: (Insight & { rows: Record<string, unknown>[]; note?: string })[] = [];
  for (const rule of INSIGHTS) {
    const f = rule.evaluate(a);
    if (f) found.push({ id: rule.id, source: 'rehearse', ...f });
  }
  found.sort((x, y) => SEVERITY_RANK[x.severity] - SEVERITY_RANK[y.severity] || (y.estimatedSavingsMs ?? 0) - (x.estimatedSavingsMs ?? 0));
  const details = new Map<string, InsightDetail>();
  const insights: Insight[] = [];
  for (const f of found.slice(0, MAX_INSIGHTS)) {
    const { rows, note, ...insight } = f;
    insights.push(insight);
    details.set(f.id, { id: f.id, title: f.title, rows, ...(note ? { note } : {}) });
  }
  return { insights, details, omitted: Math.max(0, found.length - MAX_INSIGHTS) };
}
