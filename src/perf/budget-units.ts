/**
 * How a budget is written: its operators, and the units its limit may be written in, as Lighthouse CI's
 * assertions read them: `load.lcpMs <= 2.5s`, `load.transferBytes.script <= 300KB`. The limit is stored
 * in the metric's own unit (ms, bytes), so judging stays one comparison of two numbers; the unit is kept
 * only to show the value as it was written. Which unit fits which metric comes from the metric's `kind`
 * in the registry (src/perf/metrics.ts).
 *
 * KB and MB are binary (1024, 1024²), as Lighthouse reads the `resourceSizes` of a budget.json (in
 * kibibytes: https://github.com/GoogleChrome/budget.json) and as our reporters print bytes
 * (reporters/format.ts formatBytes); KiB and MiB are accepted as exact spellings of the same.
 */
import type { MetricKind } from './metrics.js';

/**
 * A budget's comparisons, longest first so that a pattern built from them reads `<=` before `<`. `==` is for counts
 * (`load.requests == 5`, `insights.RenderBlocking.count == 0`): a median of times or bytes rarely equals anything.
 */
export const BUDGET_OPS = ['<=', '>=', '==', '<', '>'] as const;
export type BudgetOp = (typeof BUDGET_OPS)[number];

/** The ops as a regular-expression alternation (the scenario schema's pattern and the parser share it). */
export const BUDGET_OPS_PATTERN = BUDGET_OPS.join('|');

/** Does `value` keep the budget `op limit`. */
export function keepsBudget(value: number, op: BudgetOp, limit: number): boolean {
  switch (op) {
    case '<':
      return value < limit;
    case '<=':
      return value <= limit;
    case '>':
      return value > limit;
    case '>=':
      return value >= limit;
    case '==':
      return value === limit;
  }
}

interface UnitDef {
  kind: MetricKind;
  /** Metric units (ms or bytes) in one of this unit. */
  factor: number;
  /** Decimals a value is shown with: enough to tell a median from a limit near it (1 ms, 0.1 KiB, ~1 KiB). */
  digits: number;
}

// 15: the decimal digits a double always round-trips (IEEE 754 binary64), so rounding to them only removes conversion noise.
const SIGNIFICANT_DIGITS = 15;
const KIB = 1024;
const MIB = 1024 * 1024;

export const BUDGET_UNITS = {
  ms: { kind: 'ms', factor: 1, digits: 1 },
  s: { kind: 'ms', factor: 1000, digits: 3 },
  B: { kind: 'bytes', factor: 1, digits: 0 },
  KB: { kind: 'bytes', factor: KIB, digits: 1 },
  KiB: { kind: 'bytes', factor: KIB, digits: 1 },
  MB: { kind: 'bytes', factor: MIB, digits: 3 },
  MiB: { kind: 'bytes', factor: MIB, digits: 3 },
} as const satisfies Record<string, UnitDef>;

export type BudgetUnit = keyof typeof BUDGET_UNITS;

export const BUDGET_UNIT_NAMES = Object.keys(BUDGET_UNITS) as BudgetUnit[];

export function isBudgetUnit(s: string): s is BudgetUnit {
  return Object.hasOwn(BUDGET_UNITS, s);
}

/** The units a metric of this kind may be budgeted in (none for counts and scores). */
export function unitsForKind(kind: MetricKind): BudgetUnit[] {
  return BUDGET_UNIT_NAMES.filter((u) => BUDGET_UNITS[u].kind === kind);
}

/**
 * `n` written in `unit`, in the metric's own unit. Rounded to 15 significant digits (all a double holds
 * exactly in decimal): a decimal written in seconds is not exact in binary (1.1 × 1000 =
 * 1100.0000000000002), and `durationMs <= 1.1s` must pass at exactly 1100 ms.
 */
export function toMetricUnit(n: number, unit: BudgetUnit): number {
  return Number((n * BUDGET_UNITS[unit].factor).toPrecision(SIGNIFICANT_DIGITS));
}

/** A value in the metric's own unit shown in `unit`, e.g. 421888 bytes in KB → "412.0 KB". */
export function inBudgetUnit(value: number, unit: BudgetUnit): string {
  const u = BUDGET_UNITS[unit];
  const s = (value / u.factor).toFixed(u.digits);
  return `${/^-0(\.0+)?$/.test(s) ? s.slice(1) : s} ${unit}`;
}

/** A limit shown as written: the stored limit back in its unit, without trailing zeros ("300 KB", "2.5 s"). */
export function limitInBudgetUnit(limit: number, unit: BudgetUnit): string {
  return `${Number((limit / BUDGET_UNITS[unit].factor).toPrecision(SIGNIFICANT_DIGITS))} ${unit}`;
}
