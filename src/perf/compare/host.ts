/**
 * The host stage of a comparison: a difference that followed the machine, not the build, is named and made
 * inconclusive (perf/host-busy.ts): per repeat, when the worse arm ran on a busier host and its quiet repeats do not
 * show the change; and for a stored baseline, when the machine was saturated through both runs, or when the change is
 * no larger than the host's own slowdown between the two recordings. Interleaved runs skip the stored-baseline checks:
 * their rounds share the moment. Pure: run files, rows and a re-judging function in, rows out.
 */
import type { CompareResult } from '../compare.js';
import { judgeHostBusy, judgeSaturatedHost, judgeStoredDrift, type HostBusy } from '../host-busy.js';
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
