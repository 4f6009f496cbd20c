/**
 * Soft navigations (Chromium's soft-navigation and interaction-contentful-paint entries, 139+): an SPA
 * route change a step caused, with its own time to next paint and its own largest contentful paint,
 * attributed to the step that ran when its interaction began.
 */
import type { ProbeMessage } from '../../drivers/measure.js';
import type { StepSpan } from '../analysis.js';
import * as M from '../metrics.js';
import { round } from '../profile.js';
import { stepAt } from './interactions.js';
import { defineSource, probeReason, type Emit } from './source.js';
import { SOFT_NAVIGATION_FLAG } from '../../drivers/runtime/perf-probe.js';

const NO_SOFT_NAVS = `this browser reports no soft navigations (Chromium 139+ does with ${SOFT_NAVIGATION_FLAG})`;
// Ten: a flow of more route changes than this is read from the run file's metrics, not the report.
const TOP_SOFT_NAVS = 10;

export interface SoftNavigation {
  url: string;
  /** The step whose interaction started it. */
  step: string | null;
  /** ms from the window's start. */
  atMs: number;
  /** Interaction → the next paint of the new route, ms; null when the browser gave no paint time. */
  nextPaintMs: number | null;
  /** Interaction → the route's largest contentful paint, ms; null when none was attributed to it. */
  lcpMs: number | null;
}

type Msg<K extends ProbeMessage['kind']> = Extract<ProbeMessage, { kind: K }>;

export function softNavigations(messages: readonly ProbeMessage[], spans: readonly StepSpan[], windowStart: number): SoftNavigation[] {
  const lcpAt = new Map<number, number>();
  for (const m of messages) if (m.kind === 'softLcp') lcpAt.set(m.id, Math.max(lcpAt.get(m.id) ?? 0, (m as Msg<'softLcp'>).at));
  const seen = new Set<number>();
  const out: SoftNavigation[] = [];
  for (const m of messages) {
    if (m.kind !== 'softNav' || seen.has(m.id)) continue;
    seen.add(m.id);
    const lcp = lcpAt.get(m.id);
    out.push({
      url: m.url,
      step: stepAt(spans, m.startAt),
      atMs: round(m.startAt - windowStart, 1),
      nextPaintMs: m.paintAt ? round(m.paintAt - m.startAt, 1) : null,
      lcpMs: lcp ? round(lcp - m.startAt, 1) : null,
    });
  }
  return out.sort((a, b) => a.atMs - b.atMs);
}

export const softNavsSource = defineSource<{ list: SoftNavigation[]; total: number }>({
  name: 'softNavs',
  emits: [M.softNavsCount, M.softNavsNextPaintMs, M.softNavsLcpMs],
  // Answered only where the probe said whether the browser reports them (reports before it did not).
  cover: ({ raw }) =>
    raw.support?.softNav === undefined ? {} : { softNavs: probeReason(raw) ?? (raw.support.softNav ? null : NO_SOFT_NAVS) },
  measure({ raw, spans, read }) {
    if (!read('softNavs')) return { emits: [], findings: { list: [], total: 0 } };
    const list = softNavigations(raw.messages, spans, raw.startedAt);
    const emits: Emit[] = [{ def: M.softNavsCount, value: list.length }];
    const paints = list.flatMap((s) => (s.nextPaintMs === null ? [] : [s.nextPaintMs]));
    const lcps = list.flatMap((s) => (s.lcpMs === null ? [] : [s.lcpMs]));
    if (paints.length) emits.push({ def: M.softNavsNextPaintMs, value: Math.max(...paints) });
    if (lcps.length) emits.push({ def: M.softNavsLcpMs, value: Math.max(...lcps) });
    return { emits, findings: { list: list.slice(0, TOP_SOFT_NAVS), total: list.length } };
  },
});
