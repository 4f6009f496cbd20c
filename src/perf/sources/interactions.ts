/**
 * Interactions (Event Timing, Chromium's in-page probe): one row per interaction, attributed to the step
 * that caused it, and the latency percentiles.
 */
import type { ProbeMessage } from '../../drivers/measure.js';
import type { Interaction, StepSpan } from '../analysis.js';
import * as M from '../metrics.js';
import { round } from '../profile.js';
import { quantile } from '../stats.js';
import { defineSource, probeReason, type Emit } from './source.js';

/** Event Timing's smallest durationThreshold: faster interactions produce no entry. */
const EVENT_TIMING_FLOOR_MS = 16;

// Event Timing rounds startTime to the ms and the step's clock is Node's: a small slack both ways.
const STEP_SLACK_MS = 5;
// Event Timing rounds a duration to 8 ms: entries whose ends lie within that were painted in one frame.
const DURATION_GRANULARITY_MS = 8;

export const interactionsSource = defineSource<Interaction[]>({
  name: 'interactions',
  emits: [M.interactionsCount, M.latencyP50, M.latencyP90, M.latencyWorst, M.processingMs],
  cover: ({ raw }) => ({
    interactions:
      raw.missing.interactions ??
      probeReason(raw) ??
      (raw.support?.event ? null : 'this browser has no Event Timing (PerformanceObserver type "event")'),
  }),
  measure({ raw, spans, read }) {
    const interactions = groupInteractions(raw.messages, spans, raw.startedAt);
    const emits: Emit[] = [];
    if (read('interactions')) {
      // Event Timing reports only interactions of 16 ms or more; performance.interactionCount counts all.
      // The fast ones enter the percentiles at 16 ms, their upper bound, so p50/p90 never read too fast.
      const total = Math.max(interactions.length, raw.interactionCount ?? 0);
      emits.push({ def: M.interactionsCount, value: total });
      const fast = new Array<number>(total - interactions.length).fill(EVENT_TIMING_FLOOR_MS);
      const lat = [...interactions.map((i) => i.latencyMs), ...fast];
      if (lat.length) {
        emits.push(
          { def: M.latencyP50, value: quantile(lat, 0.5) },
          { def: M.latencyP90, value: quantile(lat, 0.9) },
          { def: M.latencyWorst, value: Math.max(...lat) },
          {
            def: M.processingMs,
            value: round(
              interactions.reduce((t, i) => t + i.processingMs, 0),
              1,
            ),
          },
        );
      }
    }
    return { emits, findings: interactions };
  },
});

/**
 * Event Timing entries → one row per interaction (pointerdown, pointerup and click of one tap share an
 * interactionId), attributed to a step by time. As web-vitals' INP attribution does: the latency is
 * the longest entry's duration, input delay is the first entry's, processing spans from the first
 * handler's start to the last one's end, presentation is what remains until the next paint.
 */
export function groupInteractions(messages: readonly ProbeMessage[], spans: readonly StepSpan[], startedAt: number): Interaction[] {
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
    const longest = entries.reduce((m, e) => (e.durationMs > m.durationMs ? e : m));
    const latency = longest.durationMs;
    // The breakdown covers the entries painted in the longest one's frame, as web-vitals' INP attribution does: on a
    // loaded host a tap's press and release may land frames apart, and the press's own frame is not the latency.
    const paintAt = longest.startAt + latency;
    const inFrame = entries.filter((e) => Math.abs(e.startAt + e.durationMs - paintAt) <= DURATION_GRANULARITY_MS);
    const lead = inFrame[0]!;
    const procStart = Math.min(...inFrame.map((e) => e.startAt + e.inputDelayMs));
    const procEnd = Math.max(...inFrame.map((e) => e.startAt + e.inputDelayMs + e.processingMs));
    const main = entries.reduce((m, e) => (e.processingMs > m.processingMs ? e : m));
    out.push({
      id: first.id,
      type: main.name,
      target: entries.find((e) => e.target)?.target ?? '',
      step: stepAt(spans, first.startAt),
      atMs: round(first.startAt - startedAt, 1),
      latencyMs: latency,
      inputDelayMs: round(lead.inputDelayMs, 1),
      processingMs: round(procEnd - procStart, 1),
      presentationMs: round(Math.max(0, paintAt - procEnd), 1),
    });
  }
  return out.sort((a, b) => a.atMs - b.atMs);
}

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
