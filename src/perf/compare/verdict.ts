/**
 * The verdict stage of a comparison: the words a reader gets with the verdict (what decided it or what is undecided,
 * how the timing repeats were used, how a sequential comparison sampled) and the exit code it maps to. Pure: the
 * judged rows and the records of the earlier stages in, lines out.
 */
import type { CompareResult } from '../compare.js';
import type { ComparisonFlame } from '../attribution.js';
import { busySummary, type HostBusy } from '../host-busy.js';
import type { PrimaryChoiceRecord, SequentialRecord } from '../run-file.js';
import type { InsightChange } from './insight-changes.js';
import { choiceWords } from './primaries.js';
import type { RunIdentity, RunsComparison, SampleContext, ThresholdsUsed } from './types.js';

/** Which repeats the ms metrics were judged on, and the note that says so. */
export function timingOf(gated: boolean, timingA: number, timingB: number): { gated: boolean; note: string } {
  return {
    gated,
    note: gated
      ? `ms metrics judged on timing-mode repeats only (${timingA} vs ${timingB}); attribution-mode ms are shown`
      : timingA === 0 && timingB === 0
        ? 'no timing-mode repeats in either run (timing: false): ms metrics are secondary (the profiler inflates ' +
          'them); drop timing: false to gate on milliseconds'
        : `only the ${timingA ? 'baseline' : 'candidate'} has timing-mode repeats: ms metrics are secondary; ` +
          `record both with the same timing setting (a stored baseline from before timing repeats were the default: ` +
          `perf gate --update)`,
  };
}

export function sequentialNote(seq: SequentialRecord, look: number, a: RunIdentity, b: RunIdentity): string {
  const why = {
    decided: 'the verdict was decided (an error-level regression confirmed, or every primary metric settled)',
    'max-repeat': 'maxRepeat reached',
    budget: 'the time budget ran out',
    interrupted: 'interrupted',
  }[seq.stopped];
  const how = seq.storedBaseline
    ? `the candidate was sampled against a stored baseline of ${a.measured} repeats: slow drift between the ` +
      `two recordings (another day, another load) is not cancelled as in interleaved A B B A (perf run --against)`
    : 'both arms interleaved A B B A, so slow drift of the machine cancels';
  return (
    `sequential: look ${look}, ${b.measured} candidate repeats, stopped because ${why}; α ${seq.alpha} ` +
    `spent over the looks (Lan–DeMets ${seq.spending}-type); ${how}`
  );
}

/** One line: what decided the verdict, or what is undecided and what would decide it; then what the noise rule moved. */
export function gateSummary(r: CompareResult, look: number, chosen: SampleContext['chosen'], stored = false): string {
  const moved = chosen.demoted.length || chosen.promoted.length ? choiceWords(chosen) : chosen.by === 'registry' ? chosen.note : '';
  return decidedBy(r, look, stored) + (moved ? `; ${moved}` : '');
}

/** Why a stored comparison may stay undecided where an interleaved one would not, and what decides it. */
const STORED_UNDECIDED =
  'the stored baseline is another moment of the machine (its drift is not cancelled): perf run --against interleaves both builds';

function decidedBy(r: CompareResult, look: number, stored: boolean): string {
  const primary = r.rows.filter((x) => x.gated);
  const lookNote = look > 1 ? ` at look ${look}` : '';
  switch (r.verdict) {
    case 'fail':
    case 'warn': {
      const regs = primary.filter((x) => x.verdict === 'regressed' || (x.verdict === 'missing' && x.severity === 'error'));
      return `${regs.map((x) => `${x.metric} ${x.verdict === 'missing' ? 'missing (not measured)' : x.severity}`).join(', ')}${lookNote}`;
    }
    case 'inconclusive': {
      if (!primary.length)
        return 'no primary metric could be judged, so nothing decided a pass: gate.metrics in the scenario names what gates here';
      const und = primary.filter((x) => x.verdict === 'inconclusive');
      const need = Math.max(...und.map((x) => x.needRepeats ?? Infinity));
      return (
        `undecided${lookNote}: ${und.map((x) => x.metric).join(', ')} past warn but within noise; ` +
        `${Number.isFinite(need) ? `about ${need} repeats per run would decide` : 'more repeats than practical would be needed'}` +
        (stored ? `; ${STORED_UNDECIDED}` : '')
      );
    }
    case 'pass':
      return `${primary.length} primary metric${primary.length === 1 ? '' : 's'} within thresholds${lookNote}`;
  }
}

/** The primary family a comparison chose, as a sequential record keeps it (without the note). */
export function primaryChoiceOf(c: Pick<RunsComparison, 'gate'>): PrimaryChoiceRecord | undefined {
  const x = c.gate.chosen;
  if (!x) return undefined;
  const copy = (moved: PrimaryChoiceRecord['demoted']): PrimaryChoiceRecord['demoted'] => moved.map((d) => ({ ...d }));
  return { by: x.by, look: x.look, metrics: [...x.metrics], demoted: copy(x.demoted), promoted: copy(x.promoted) };
}

/**
 * DESIGN.md exit codes: 1 when an error-level regression failed the compare; an inconclusive compare
 * exits 0 unless `strict` (--strict), then 1.
 */
export function compareExitCode(c: Pick<CompareResult, 'verdict'>, strict = false): 0 | 1 {
  switch (c.verdict) {
    case 'fail':
      return 1;
    case 'inconclusive':
      return strict ? 1 : 0;
    case 'warn':
    case 'pass':
      return 0;
  }
}

/** What the earlier stages produced, for the comparison's record. */
export interface Judged {
  /** Preflight: thresholds in use and what a reader must know. */
  thresholds: ThresholdsUsed;
  warnings: string[];
  baseline: RunIdentity;
  candidate: RunIdentity;
  /** Samples and primaries: how the roles were decided. */
  context: SampleContext;
  /** Rows after the host stage, and what the host explained. */
  result: CompareResult;
  busy: HostBusy | undefined;
  host: RunsComparison['host'];
  /** Rows after the attribution stage, and the flame stacks. */
  attributed: { rows: CompareResult['rows']; flame: ComparisonFlame };
  insights: InsightChange[];
  /** stored: the baseline was recorded apart from the candidate (not interleaved A B B A). */
  design: { alpha: number; look: number; sequential: SequentialRecord | undefined; stored: boolean };
}

/** DESIGN.md's compare JSON from the stages' records: the verdict, and which metrics decided it and how. */
export function comparisonOf(j: Judged): RunsComparison {
  const { result, context, busy } = j;
  const { alpha, look, sequential, stored } = j.design;
  const summary = (r: CompareResult): string => gateSummary(r, look, context.chosen, stored);
  // DESIGN.md's compare JSON names its first keys in this order; what this version adds follows them.
  return {
    verdict: result.verdict,
    thresholds: j.thresholds,
    frames: { painted: context.painted },
    rows: j.attributed.rows,
    unchanged: result.unchanged,
    timing: timingOf(context.timingGated, j.baseline.timingRepeats, j.candidate.timingRepeats),
    warnings: j.warnings,
    decided: result.decided,
    rejected: result.rejected,
    ...(result.blind !== undefined ? { blind: result.blind } : {}),
    host: j.host,
    gate: {
      primary: context.primary,
      setAside: result.rows.flatMap((r) => (r.setAside !== undefined ? [{ metric: r.metric, why: r.setAside, deltaPct: r.deltaPct }] : [])),
      notJudged: context.notJudged,
      chosen: context.chosen,
      alpha,
      look,
      sequential: sequential ? { ...sequential, note: sequentialNote(sequential, look, j.baseline, j.candidate) } : null,
      summary: busy ? busySummary(busy, result, summary) : summary(result),
    },
    baseline: j.baseline,
    candidate: j.candidate,
    attribution: { flame: j.attributed.flame },
    insights: j.insights,
  };
}
