/**
 * `perf selftest SCENARIO`: an A/A run on this machine — the same scenario twice, interleaved A B B A —
 * to learn the gate's noise before trusting it. Per gated metric: the repeat-to-repeat noise (CV), what
 * the A/A compare said (any regression here is a false alarm), the smallest shift the gate detects at
 * this repeat count, and whether the thresholds in use are above it. Exit 1 when the A/A compare
 * failed: on this machine the gate would fail unchanged code.
 */
import { relative } from 'node:path';
import { PerfError } from '../errors.js';
import { thresholdsFor, DEFAULT_ALPHA, type CompareRow, type MetricSamples } from '../perf/compare.js';
import { compareRuns, metricSamples, perMetricThresholds, type RunsComparison } from '../perf/compare-runs.js';
import { MAD_NORMAL_CONSISTENCY, mad, median, normalQuantile, stddev } from '../perf/stats.js';
import { loadScenario } from '../scenario/load.js';
import { againstProgressPrinter } from './against.js';
import { ALLOW_OUTSIDE_FLAG, defineCommand, info, JSON_FLAG, printJson, printText } from './command.js';
import { checkNameFlag, parseVars } from './run-options.js';
import { flagsOf } from './args.js';
import { RUN_OPTIONS } from '../runner/options.js';
import { runAgainst } from '../runner/against.js';
import { onShutdown } from '../processes.js';

/** Power the detectable shift is computed for: a gate worth trusting catches a +25 % shift ≥ 95 % of the time. */
const POWER = 0.95;
/** Asymptotic relative efficiency of Mann–Whitney vs the t-test on normal data, 3/π (Hodges & Lehmann 1956). */
const MW_EFFICIENCY = 3 / Math.PI;
// 100 repeats per arm: beyond that a scenario run takes too long to be a practical CI gate.
const MAX_REPEATS_ADVISED = 100;

export type Safety = 'deterministic' | 'ok' | 'error-only' | 'blind';

export interface MetricNoise {
  metric: string;
  median: number;
  /** Noise as σ / |median| (robust σ = 1.4826·MAD, the standard deviation when MAD is 0); null at a 0 median. */
  cv: number | null;
  /** Noise in the metric's own unit. */
  sigma: number;
  /** What percentages are of: the median, or the metric's floor when the median is below it (as compare judges). */
  scale: 'median' | 'floor';
  /**
   * Smallest shift detected with POWER at this repeat count, in % of the scale; Infinity when the rank test cannot reach significance at
   * all.
   */
  detectable: number;
  warnPct: number;
  errorPct: number;
  safety: Safety;
  /** Repeats per arm for `detectable` ≤ the warn threshold (null: more than MAX_REPEATS_ADVISED). */
  repeatsForWarn: number | null;
  repeatsForError: number | null;
  aa: Pick<CompareRow, 'verdict' | 'severity' | 'deltaPct' | 'ci'>;
  n: number;
  /** A default primary the noise rule set aside here (too noisy to tell a warn-size change): shown, not gated. */
  demoted?: boolean;
}

export interface SelftestResult {
  scenario: string;
  variant: string | null;
  repeatsPerArm: number;
  /** Gated metrics in the Holm family; the first rejection needs p < α / family. */
  family: number;
  aa: { verdict: RunsComparison['verdict']; falseAlarms: string[] };
  metrics: MetricNoise[];
  recommendation: string[];
  files: { a: string; b: string };
  timing: RunsComparison['timing'];
}

/** log C(2n, n) via lgamma-free summation (n is small). */
function logChoose(n: number, k: number): number {
  let s = 0;
  for (let i = 1; i <= k; i++) s += Math.log(n - k + i) - Math.log(i);
  return s;
}

/** Smallest one-sided exact Mann–Whitney p with n vs n untied repeats: 1 / C(2n, n). */
export function minOneSidedP(n: number): number {
  return Math.min(1, 1 / Math.exp(logChoose(2 * n, n)));
}

/**
 * Shift detectable with probability POWER by the gate's one-sided rank test at level α/family with n
 * repeats per arm and noise σ (Noether 1987, "Sample size determination for some common nonparametric
 * tests", JASA 82:645, via the t-test formula divided by the Mann–Whitney efficiency 3/π):
 *   δ = (z_{1−α/m} + z_{power}) · σ · √(2/n) / √(3/π).
 * A fixed compare at n repeats; a sequential one reaches this at its last look. Infinity when the exact
 * test cannot reach α/family with n repeats at all.
 */
export function detectableShift(sigma: number, n: number, alpha: number, family: number): number {
  const level = alpha / Math.max(1, family);
  if (minOneSidedP(n) > level) return Infinity;
  const z = normalQuantile(1 - level) + normalQuantile(POWER);
  return (z * sigma * Math.sqrt(2 / n)) / Math.sqrt(MW_EFFICIENCY);
}

function repeatsFor(limit: number, sigma: number, alpha: number, family: number, scale: number): number | null {
  for (let n = 3; n <= MAX_REPEATS_ADVISED; n++) if ((detectableShift(sigma, n, alpha, family) / scale) * 100 <= limit) return n;
  return null;
}

/** The noise and thresholds analysis of an A/A pair. Pure: run files in, verdicts out. */
export function analyseSelftest(
  comparison: RunsComparison,
  samples: MetricSamples[],
  alpha = DEFAULT_ALPHA,
): Omit<SelftestResult, 'files' | 'scenario' | 'variant'> {
  const gated = samples.filter((s) => s.role === 'primary' && s.a.length > 0 && s.b.length > 0);
  const constant = (s: MetricSamples): boolean => [...s.a, ...s.b].every((v) => v === s.a[0]);
  const family = gated.filter((s) => !constant(s)).length;
  // A primary the noise rule demoted is shown too, with its noise: that it is too noisy here is the finding.
  const demotedNames = new Set((comparison.gate.chosen?.demoted ?? []).map((d) => d.metric));
  const demoted = samples.filter((s) => s.role !== 'primary' && demotedNames.has(s.metric) && s.a.length > 0 && s.b.length > 0);
  const rows = new Map(comparison.rows.map((r) => [r.metric, r]));
  const perMetric = perMetricThresholds(comparison.thresholds.metrics, comparison.thresholds);
  const metrics: MetricNoise[] = [...gated, ...demoted].map((s) => {
    const all = [...s.a, ...s.b];
    const med = median(all);
    const n = Math.min(s.a.length, s.b.length);
    // Within-run noise only: the A/A shift between the runs is reported separately (aa).
    const robust = (xs: number[]): number =>
      xs.length < 2 ? 0 : mad(xs, MAD_NORMAL_CONSISTENCY) || (xs.every((v) => v === xs[0]) ? 0 : stddev(xs));
    const sigma = Math.sqrt((robust(s.a) ** 2 + robust(s.b) ** 2) / 2);
    const t = thresholdsFor(s.metric, {
      thresholds: { warnPct: comparison.thresholds.warnPct, errorPct: comparison.thresholds.errorPct },
      perMetric,
    });
    // compare.ts's scale: the median, or the metric's floor when the median is below it.
    const scale: 'median' | 'floor' = Math.abs(med) >= s.floor && med !== 0 ? 'median' : 'floor';
    const unit = scale === 'median' ? Math.abs(med) : s.floor > 0 ? s.floor : 1;
    const isConstant = constant(s);
    const detectAbs = isConstant ? 0 : detectableShift(sigma, n, alpha, family);
    const detectPct = (detectAbs / unit) * 100;
    const safety: Safety = isConstant ? 'deterministic' : detectPct <= t.warnPct ? 'ok' : detectPct <= t.errorPct ? 'error-only' : 'blind';
    const row = rows.get(s.metric);
    return {
      metric: s.metric,
      median: med,
      cv: med === 0 ? null : sigma / Math.abs(med),
      sigma,
      scale,
      detectable: detectPct,
      warnPct: t.warnPct,
      errorPct: t.errorPct,
      safety,
      repeatsForWarn: isConstant ? 3 : repeatsFor(t.warnPct, sigma, alpha, family, unit),
      repeatsForError: isConstant ? 3 : repeatsFor(t.errorPct, sigma, alpha, family, unit),
      aa: { verdict: row?.verdict ?? 'unchanged', severity: row?.severity ?? 'none', deltaPct: row?.deltaPct ?? null, ci: row?.ci ?? null },
      n,
      ...(demotedNames.has(s.metric) && s.role !== 'primary' ? { demoted: true } : {}),
    };
  });
  const order: Record<Safety, number> = { blind: 0, 'error-only': 1, ok: 2, deterministic: 3 };
  metrics.sort((x, y) => order[x.safety] - order[y.safety] || (y.cv ?? 0) - (x.cv ?? 0) || (x.metric < y.metric ? -1 : 1));

  const falseAlarms = comparison.rows.filter((r) => r.gated && r.verdict === 'regressed').map((r) => `${r.metric} (${r.severity})`);
  const n = Math.min(comparison.baseline.measured, comparison.candidate.measured);
  const recommendation: string[] = [];
  if (falseAlarms.length) {
    recommendation.push(
      `FALSE ALARM: the A/A compare of an unchanged app reported ${falseAlarms.join(', ')}. The noise here ` +
        `is not stable between runs (background load, thermal throttling, a shared CI runner). Quiet the ` +
        `machine or pin the job to dedicated cores before trusting the gate, and rerun the selftest.`,
    );
  }
  recommendation.push(...noiseAdvice(metrics));
  if (!recommendation.length)
    recommendation.push(
      `The thresholds in use are safe here: every gated metric's detectable shift at ${n}` +
        ` repeats per run is below its warn threshold, and the A/A compare raised nothing.`,
    );
  if (!comparison.timing.gated) recommendation.push(`Milliseconds are not gated (${comparison.timing.note}).`);

  return {
    repeatsPerArm: n,
    family,
    aa: { verdict: comparison.verdict, falseAlarms },
    metrics,
    recommendation,
    timing: comparison.timing,
  };
}

/** What to change when a gated metric's detectable shift is above its thresholds at this repeat count. */
function noiseAdvice(metrics: MetricNoise[]): string[] {
  const recommendation: string[] = [];
  const blind = metrics.filter((m) => m.safety === 'blind');
  const errorOnly = metrics.filter((m) => m.safety === 'error-only');
  const fixable = blind.filter((m) => m.repeatsForError !== null);
  const hopeless = blind.filter((m) => m.repeatsForError === null);
  if (fixable.length) {
    const need = Math.max(...fixable.map((m) => m.repeatsForError!));
    recommendation.push(
      `The gate cannot reliably see an error-level regression in ${fixable.map((m) => m.metric).join(', ')}` +
        ` at this repeat count: use --repeat ${need} (or repeat: ${need} in the scenario), ` +
        `or raise those metrics' error thresholds above their detectable shift.`,
    );
  }
  if (hopeless.length) {
    recommendation.push(
      `Too noisy to gate here even with ${MAX_REPEATS_ADVISED} repeats: ${hopeless.map((m) => m.metric).join(', ')}. Reduce ` +
        `the noise (a quieter machine, cpuThrottle, longer steps) or set their error threshold above the detectable shift shown.`,
    );
  }
  if (errorOnly.length) {
    const need = Math.max(...errorOnly.map((m) => m.repeatsForWarn ?? Infinity));
    recommendation.push(
      `Warn-level changes in ${errorOnly.map((m) => m.metric).join(', ')} are within ` +
        `this machine's noise at this repeat count; error-level regressions are caught.` +
        (Number.isFinite(need) ? ` For warnings there too, use --repeat ${need}.` : ''),
    );
  }
  return recommendation;
}

function fmtNum(v: number): string {
  if (!Number.isFinite(v)) return '∞';
  const a = Math.abs(v);
  return a >= 100 ? v.toFixed(0) : a >= 10 ? v.toFixed(1) : a >= 0.01 || a === 0 ? v.toFixed(2) : v.toPrecision(2);
}

export function renderSelftest(r: SelftestResult): string {
  const head =
    `perf selftest ${r.scenario}${r.variant ? ` (${r.variant})` : ''}: A/A ${r.aa.verdict.toUpperCase()}` +
    ` with ${r.repeatsPerArm} measured repeats per run${r.timing.gated ? ' (ms from the timing-mode ones)' : ''}` +
    `, ${r.family} noisy gated metric(s) in the Holm family`;
  const cols = ['metric', 'median', 'noise (CV)', 'A/A delta', 'A/A', 'detectable shift', 'warn/error', 'status'];
  const rows = r.metrics.map((m) => [
    m.metric,
    fmtNum(m.median),
    m.cv === null ? `σ ${fmtNum(m.sigma)}` : `${fmtNum(m.cv * 100)}%`,
    m.aa.deltaPct === null ? 'n/a' : `${m.aa.deltaPct > 0 ? '+' : ''}${fmtNum(m.aa.deltaPct)}%`,
    m.aa.verdict === 'regressed' ? `REGRESSED (${m.aa.severity})` : m.aa.verdict,
    m.safety === 'deterministic' ? 'any change' : `${fmtNum(m.detectable)}%${m.scale === 'floor' ? ' of floor' : ''}`,
    `+${m.warnPct}% / +${m.errorPct}%`,
    m.demoted ? `${m.safety}, not gated (too noisy)` : m.safety,
  ]);
  const widths = cols.map((c, i) => Math.max(c.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]): string =>
    '  ' +
    cells
      .map((c, i) => (i === 0 || i === cells.length - 1 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [
    head,
    line(cols),
    ...rows.map(line),
    '',
    ...r.recommendation.map((s) => `• ${s}`),
    '',
    `run files: ${r.files.a}, ${r.files.b}`,
    '',
  ].join('\n');
}

export const selftestCommand = defineCommand({
  name: 'selftest',
  summary: "A/A run on this machine: the noise per metric and whether the gate's thresholds are safe here",
  usage: 'selftest SCENARIO.yaml [--variant NAME] [--repeat N] [--warmup N] [--timing] [--out DIR]',
  details: [
    'Runs the scenario twice, interleaved A B B A, and compares the two runs as the gate would. Prints per gated',
    'metric the noise (robust CV), the A/A verdict, the smallest shift the gate detects at this repeat count',
    '(95% power, Holm over the gated metrics) and whether the warn/error thresholds are above it.',
    'Status: deterministic (any change caught) · ok (a warn-size change is caught) · error-only · blind (even an',
    'error-size regression is likely missed). Exit 1 when the A/A compare itself failed (a false alarm here).',
  ].join('\n'),
  flags: {
    variant: { type: 'string', value: 'NAME', description: 'Variant to test (required when the scenario declares variants).' },
    ...flagsOf(RUN_OPTIONS, 'repeat', 'warmup', 'timing', 'out'),
    var: { type: 'multi', value: 'NAME=VALUE', description: 'Set a scenario var. Repeatable.' },
    quiet: { type: 'boolean', description: 'No progress lines.' },
    ...ALLOW_OUTSIDE_FLAG,
    ...JSON_FLAG,
  },
  async run(f, positionals) {
    if (positionals.length !== 1)
      throw new PerfError({
        code: 'missing_argument',
        message: 'selftest: which scenario? e.g. perf selftest scenarios/list-scroll.yaml --variant desktop',
      });
    for (const [k, min] of [
      ['repeat', 3],
      ['warmup', 0],
    ] as const) {
      const v = f[k] as number | undefined;
      if (v !== undefined && (!Number.isInteger(v) || v < min))
        throw new PerfError({ code: 'invalid_flag', message: `selftest: --${k} must be a whole number >= ${min}, got ${v}` });
    }
    checkNameFlag('selftest', 'variant', f.variant as string | undefined);
    const sc = loadScenario(positionals[0]!, {
      ...(f.variant !== undefined ? { variant: f.variant as string } : {}),
      vars: parseVars(f.var as string[] | undefined),
      allowOutside: f.allowOutside === true,
    });
    const ctl = new AbortController();
    const off = onShutdown(() => ctl.abort());
    let res;
    try {
      res = await runAgainst(sc, sc, {
        labels: { baseline: 'selftest-a', candidate: 'selftest-b' },
        outDir: (f.out as string | undefined) ?? 'build/perf',
        ...(f.repeat !== undefined ? { repeat: f.repeat as number } : {}),
        ...(f.warmup !== undefined ? { warmup: f.warmup as number } : {}),
        ...(f.timing !== undefined ? { timing: f.timing as boolean } : {}),
        signal: ctl.signal,
        onProgress: againstProgressPrinter(f.quiet === true || f.json === true),
      });
    } finally {
      off();
    }
    if (res.baseline.run.interrupted) {
      info('interrupted: no selftest verdict from a partial run');
      return 130;
    }
    const rel = (p: string): string => relative(process.cwd(), p) || p;
    const comparison = compareRuns(res.baseline.run, res.candidate.run, { files: { a: res.baseline.path, b: res.candidate.path } });
    const { samples } = metricSamples(res.baseline.run, res.candidate.run);
    const result: SelftestResult = {
      scenario: sc.name,
      variant: sc.variant,
      ...analyseSelftest(comparison, samples),
      files: { a: rel(res.baseline.path), b: rel(res.candidate.path) },
    };
    if (f.json) printJson(result);
    else printText(renderSelftest(result));
    return comparison.verdict === 'fail' ? 1 : 0;
  },
});
