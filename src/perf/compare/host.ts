/**
 * The host stage of a comparison: a difference that followed the machine, not the build, is named and made
 * inconclusive (perf/host-busy.ts): per repeat, when the worse arm ran on a busier host and its quiet repeats do not
 * show the change; and for a stored baseline, when the machine was saturated through both runs, or when the change is
 * no larger than the host's own slowdown between the two recordings. Interleaved runs skip the stored-baseline checks:
 * their rounds share the moment. Pure: run files, rows and a re-judging function in, rows out.
 */
import type { CompareResult } from '../compare.js';
import type { CompareRow } from '../compare.js';
import { hostInconclusive, judgeHostBusy, judgeSaturatedHost, judgeStoredDrift, rejudged, type HostBusy } from '../host-busy.js';
import { resolveMetric } from '../metrics.js';
import type { RunFile } from '../run-file.js';
import { hostKey } from './preflight.js';
import { interleaved } from './samples.js';
import type { RunsComparison } from './types.js';

/** The registry's word (an unknown name counts as host-dependent): the app's own layouts cannot follow the host. */
const hostDependent = (metric: string): boolean => resolveMetric(metric)?.def.hostDependent ?? true;

/** The rows once the host has had its say, and what it said (absent when it explains nothing). */
export function judgeHost(
  a: RunFile,
  b: RunFile,
  rows: CompareResult,
  judge: {
    rejudge: (a: RunFile, b: RunFile) => CompareResult;
    thresholds: (metric: string) => { warnPct: number; errorPct: number };
  },
): { result: CompareResult; busy?: HostBusy } {
  const warnPct = (metric: string): number => judge.thresholds(metric).warnPct;
  const marked = judgeHostBusy(a, b, rows, { rejudge: judge.rejudge, warnPct, hostDependent });
  if (marked.busy || interleaved(a, b)) return marked;
  // A stored baseline on a machine saturated through both runs, or slower through one: the marks above see nothing
  // relative to tell.
  const saturated = judgeSaturatedHost(a, b, marked.result, hostDependent);
  return saturated.busy ? saturated : judgeStoredDrift(a, b, saturated.result, { hostDependent, thresholds: judge.thresholds });
}

/** RunsComparison.host: one kind of machine or not (and what that means for the verdict), and whether it was busy. */
export function hostRecord(sameHost: boolean, a: RunFile, b: RunFile, busy: HostBusy | undefined): RunsComparison['host'] {
  const host = sameHost
    ? { same: true }
    : {
        same: false,
        note:
          `baseline from another host (${hostKey(a.env)}; this run: ${hostKey(b.env)}): milliseconds and ` +
          `frame pacing are shown, not gated; the app's own work (layouts, style recalcs) is. To gate them ` +
          `too, record the baseline on this machine (perf gate --update) or compare interleaved (perf run --against)`,
      };
  return busy ? { ...host, busy: { repeats: busy.repeats, of: busy.of, note: busy.note } } : host;
}

/**
 * 0.5: at least half of a stored-baseline ms regression must sit in places of the page's own code that grew by a sure
 * margin. Measured here on Swagger UI (a core spinning, gate --update then gate, 2026-12-07): a +60 ms click handler put
 * 100 % of interaction processing's change in its function, while an unchanged build that read +43 % long-frame blocking
 * at a slower moment of the machine spread it thinly (its top two functions 6 % and 5 %).
 */
export const MIN_PLACED_SHARE = 0.5;
// Code places (a function's self time, a layout or style recalc it forced); long tasks and steps are where time went,
// not what made it: a slower machine lengthens them all.
// The main thread's own work, which a CPU profile places; a load's milestones and a step's wall time also wait on the
// network and the server, which no profile places.
const MAIN_THREAD = /^(counters|longFrames|interactions|frames)\./;
const CODE_KINDS = new Set(['function', 'forcedLayout', 'forcedStyle']);

/** The share of a row's ms change its code places that surely grew explain (0..1); null without a CPU profile. */
export function placedShare(row: CompareRow): number | null {
  const at = row.attribution;
  if (!at || at.missing !== undefined || at.repeats.a === 0 || at.repeats.b === 0) return null;
  const byKind = new Map<string, number>();
  for (const l of at.lines)
    if (CODE_KINDS.has(l.kind) && l.share !== null && l.share > 0 && l.ci !== null && l.ci.lowMs > 0)
      byKind.set(l.kind, (byKind.get(l.kind) ?? 0) + l.share);
  return Math.min(1, Math.max(0, ...byKind.values()));
}

/**
 * A stored baseline's millisecond regression that no place in the code explains (issue 56 item 2): a change of the build
 * shows where it is, a function or a forced layout that grew; a slower moment of the machine lengthens everything a
 * little, so its growth is spread thin. Such a row, where both runs have a CPU profile, is inconclusive, saying how
 * much was placed, never a fail: `perf run --against` compares the two builds at one moment. Interleaved runs never come
 * here; a row without a profile (Firefox, WebDriver, a terminal) is judged as it was.
 */
export function judgeUnplaced(
  a: RunFile,
  b: RunFile,
  result: CompareResult,
  busy: HostBusy | undefined,
): { result: CompareResult; busy?: HostBusy } {
  if (interleaved(a, b)) return { result, ...(busy ? { busy } : {}) };
  const unplaced = (r: CompareRow): boolean => {
    if (!r.gated || r.verdict !== 'regressed' || !MAIN_THREAD.test(r.metric) || resolveMetric(r.metric)?.def.kind !== 'ms') return false;
    const share = placedShare(r);
    return share !== null && share < MIN_PLACED_SHARE;
  };
  const metrics = result.rows.filter(unplaced).map((r) => r.metric);
  if (!metrics.length) return { result, ...(busy ? { busy } : {}) };
  const pct = (v: number | null): string => `${Math.round(100 * (v ?? 0))}%`;
  const headline = 'spread across the code, as a slower moment of the machine spreads it';
  const rows = result.rows.map((r) =>
    unplaced(r)
      ? hostInconclusive(
          r,
          `stored baseline: only ${pct(placedShare(r))} of the change sits in code that surely grew (a change of the ` +
            `build shows where it is, at least ${pct(MIN_PLACED_SHARE)}); perf run --against compares both builds at one moment`,
        )
      : r,
  );
  const note =
    `${metrics.join(', ')}: the change is ${headline}, not in a place of the code; ` +
    'compare the builds interleaved (perf run --against), or record the baseline again (perf gate --update)';
  const of = busy?.of ?? 0;
  const merged: HostBusy = busy
    ? { ...busy, metrics: [...busy.metrics, ...metrics], note: `${busy.note}; ${note}` }
    : { repeats: of, of, metrics, note, headline };
  return { result: rejudged(result, rows, metrics), busy: merged };
}
