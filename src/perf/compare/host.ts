/**
 * The host stage of a comparison: a difference that followed the machine, not the build, is named and made
 * inconclusive (perf/host-busy.ts): per repeat, when the worse arm ran on a busier host and its quiet repeats do not
 * show the change; and for a stored baseline, when the machine was saturated through both runs, or when the change is
 * no larger than the host's own slowdown between the two recordings. Interleaved runs skip the stored-baseline checks:
 * their rounds share the moment. Pure: run files, rows and a re-judging function in, rows out.
 */
import type { AttributionLine } from '../attribution.js';
import type { CompareResult, CompareRow } from '../compare.js';
import { hostInconclusive, judgeHostBusy, judgeSaturatedHost, judgeStoredDrift, rejudged, type HostBusy } from '../host-busy.js';
import { resolveMetric } from '../metrics.js';
import type { RunFile } from '../run-file.js';
import { hostKey } from './preflight.js';
import { interleaved, measuredRepeats } from './samples.js';
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
  const saturated = judgeSaturatedHost(a, b, marked.result, { hostDependent, warnPct });
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

// Code places (a function's self time, a layout or style recalc it forced); long tasks and steps are where time went,
// not what made it: a slower machine lengthens them all.
const CODE_KINDS = new Set(['function', 'forcedLayout', 'forcedStyle']);
// The main thread's own work, which a CPU profile places; a load's milestones and a step's wall time also wait on the
// network and the server, which no profile places.
const MAIN_THREAD = /^(counters|longFrames|interactions|frames)\./;

/** A main-thread millisecond total (not a per-frame form): the rows a CPU profile can place in the code. */
export function placeableMs(metric: string): boolean {
  const def = resolveMetric(metric);
  return MAIN_THREAD.test(metric) && def?.def.kind === 'ms' && !def.perFrame;
}

/**
 * What the code places that surely grew add up to, as a % of the row's baseline median (the largest sum over one kind
 * of place, so a function's time and a layout it forced are not counted twice); null without a CPU profile.
 */
export function placedPct(row: CompareRow): number | null {
  const at = row.attribution;
  if (!at || at.missing !== undefined || at.repeats.a === 0 || at.repeats.b === 0 || !(row.a.median > 0)) return null;
  return (100 * sureGrowthMs(at.lines)) / row.a.median;
}

/** What the code places that surely grew add up to, ms per repeat: the largest sum over one kind of place. */
export function sureGrowthMs(lines: readonly AttributionLine[]): number {
  const byKind = new Map<string, number>();
  for (const l of lines) if (sure(l)) byKind.set(l.kind, (byKind.get(l.kind) ?? 0) + l.deltaMs);
  return Math.max(0, ...byKind.values());
}

const sure = (l: AttributionLine): boolean => CODE_KINDS.has(l.kind) && l.deltaMs > 0 && l.ci !== null && l.ci.lowMs > 0;

/**
 * The converse of judgeUnplaced against a stored baseline: a main-thread ms row that reads unchanged or better while
 * code places surely grew by warn or more of its baseline is held, inconclusive, never a pass. Drift between two
 * recordings moves the whole row, and a machine faster for the candidate hides a slower handler; a function's own
 * time growing from nothing is the build's. Measured: a Tabulator grid with an 8 ms scroll handler passed a stored
 * gate at look 1, script time +7.7 % (interval −35…+29 %) and task time −18.7 %, while trackScroll grew about 46 ms
 * a repeat with an interval clear of zero. Interleaved runs never come here.
 */
export function holdPlaced(
  a: RunFile,
  b: RunFile,
  result: CompareResult,
  busy: HostBusy | undefined,
  judge: { places: readonly AttributionLine[]; thresholds: (metric: string) => { warnPct: number; errorPct: number } },
): { result: CompareResult; busy?: HostBusy } {
  const kept = { result, ...(busy ? { busy } : {}) };
  const grewMs = sureGrowthMs(judge.places);
  if (interleaved(a, b) || grewMs <= 0) return kept;
  const top = [...judge.places].filter(sure).sort((x, y) => y.deltaMs - x.deltaMs)[0]!;
  const metrics: string[] = [];
  const rows = result.rows.map((r): CompareRow => {
    const open = r.gated && (r.verdict === 'unchanged' || r.verdict === 'improved') && placeableMs(r.metric) && r.a.median > 0;
    const pct = open ? (100 * grewMs) / r.a.median : 0;
    if (!open || pct < judge.thresholds(r.metric).warnPct) return r;
    metrics.push(r.metric);
    const where = `${top.name}${top.url ? ` ${top.url}` : ''} +${top.deltaMs.toFixed(1)} ms`;
    return hostInconclusive(
      r,
      `stored baseline: code places surely grew +${grewMs.toFixed(0)} ms a repeat (+${pct.toFixed(0)}% of the row; ${where}) ` +
        'while the row moved with the host between the recordings: a change it may hide',
    );
  });
  if (!metrics.length) return kept;
  const headline = 'code places grew while the host moved the totals';
  const note =
    `${metrics.join(', ')}: ${headline}; compare the builds interleaved (perf run --against), or record the baseline ` +
    'again at a quieter moment (perf gate --update)';
  const merged: HostBusy = busy
    ? { ...busy, metrics: [...busy.metrics, ...metrics], note: `${busy.note}; ${note}` }
    : { repeats: 0, of: hostRecorded(a, b), metrics, note, headline };
  return { result: rejudged(result, rows, metrics), busy: merged };
}

/** Measured repeats with a host record, both arms: no repeat was slow, the code's places said it. */
const hostRecorded = (a: RunFile, b: RunFile): number =>
  [...measuredRepeats(a.repeats), ...measuredRepeats(b.repeats)].filter((r) => r.host !== undefined).length;

/**
 * A stored baseline's main-thread millisecond regression must show where it is (issue 56 item 2): a change of the build
 * grows a place of the code, a function or a forced layout, by a sure margin; a slower moment of the machine lengthens
 * everything a little. So the row is judged on what its code places that surely grew add up to: below warn it is
 * inconclusive, saying so, never a fail; below error a fail becomes a warn. Measured here on Swagger UI and Tabulator (a
 * core spinning, gate --update then gate, 2026-12-07): an unchanged build read long-frame blocking +43 % (129 → 184 ms)
 * with the host's readings alike, its places summing to 6.5 ms (5 %); the +60 ms click handler placed 119 ms of
 * interaction processing's change in its function, the 8 ms scroll handler 46 ms of a 413 ms thread CPU (+11 %) while
 * the whole row read +27 %. `perf run --against` compares both builds at one moment. Interleaved runs never come here;
 * a row without a profile (Firefox, WebDriver, a terminal) is judged as it was.
 */
export function judgeUnplaced(
  a: RunFile,
  b: RunFile,
  result: CompareResult,
  busy: HostBusy | undefined,
  thresholds: (metric: string) => { warnPct: number; errorPct: number },
): { result: CompareResult; busy?: HostBusy } {
  const kept = { result, ...(busy ? { busy } : {}) };
  if (interleaved(a, b)) return kept;
  const judged = (r: CompareRow): boolean => r.gated && r.verdict === 'regressed' && placeableMs(r.metric);
  const metrics: string[] = [];
  const pct = (v: number): string => `+${v.toFixed(0)}%`;
  const rows = result.rows.map((r): CompareRow => {
    const placed = judged(r) ? placedPct(r) : null;
    if (placed === null) return r;
    const { warnPct, errorPct } = thresholds(r.metric);
    const said = `stored baseline: the code places that surely grew add up to ${pct(placed)} of the ${pct(r.deltaPct ?? 0)}`;
    if (placed < warnPct) {
      metrics.push(r.metric);
      return hostInconclusive(r, `${said}, below warn: the rest is spread across the code, as a slower moment spreads it`);
    }
    if (r.severity !== 'error' || placed >= errorPct) return r;
    return { ...r, severity: 'warn', reason: `${said}: a warn, not an error. Was: ${r.reason}` };
  });
  if (rows.every((r, i) => r === result.rows[i])) return kept;
  const rejudgedResult = rejudged(result, rows, metrics);
  if (!metrics.length) return { result: rejudgedResult, ...(busy ? { busy } : {}) };
  const headline = 'spread across the code, as a slower moment of the machine spreads it';
  const note =
    `${metrics.join(', ')}: the change is ${headline}, not in a place of the code; ` +
    'compare the builds interleaved (perf run --against), or record the baseline again (perf gate --update)';
  const merged: HostBusy = busy
    ? { ...busy, metrics: [...busy.metrics, ...metrics], note: `${busy.note}; ${note}` }
    : { repeats: 0, of: hostRecorded(a, b), metrics, note, headline };
  return { result: rejudgedResult, busy: merged };
}
