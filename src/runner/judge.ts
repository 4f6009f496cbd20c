/**
 * "Run a scenario and judge it", the one way every door does it (perf run, perf run --against,
 * MCP perf_run): a single run is judged by its budgets and whether anything was measured; an
 * interleaved compare, sampled to a decision, by its verdict (and the candidate's budgets). The
 * door only renders the outcome and turns `exitCode` into its own form.
 */
import { compareExitCode, type RunsComparison } from '../perf/compare-runs.js';
import { failedBudgets, type RunFile } from '../perf/run-file.js';
import type { Scenario } from '../scenario/load.js';
import type { AgainstOptions, AgainstResult } from './against.js';
import { runScenario, type RunOptions } from './run.js';
import { againstToDecision, type DecisionOptions } from './sequential.js';

export type JudgeRequest =
  | { kind: 'run'; scenario: Scenario; options: RunOptions }
  | {
      kind: 'against';
      baseline: Scenario;
      candidate: Scenario;
      options: AgainstOptions & DecisionOptions;
      /** An inconclusive verdict fails too. */ strict?: boolean;
    };

export type Judged =
  | { kind: 'run'; run: RunFile; path: string; exitCode: 0 | 1 }
  /** `comparison` is undefined when an arm measured nothing. */
  | { kind: 'against'; res: AgainstResult; comparison: RunsComparison | undefined; exitCode: 0 | 1 };

type Of<U, K> = Extract<U, { kind: K }>;

export function runAndJudge(req: Of<JudgeRequest, 'run'>): Promise<Of<Judged, 'run'>>;
export function runAndJudge(req: Of<JudgeRequest, 'against'>): Promise<Of<Judged, 'against'>>;
export function runAndJudge(req: JudgeRequest): Promise<Judged>;
export async function runAndJudge(req: JudgeRequest): Promise<Judged> {
  switch (req.kind) {
    case 'run': {
      const { run, path } = await runScenario(req.scenario, req.options);
      return { kind: 'run', run, path, exitCode: runExitCode(run) };
    }
    case 'against': {
      const { res, comparison } = await againstToDecision(req.baseline, req.candidate, req.options);
      return { kind: 'against', res, comparison, exitCode: againstExitCode(res, comparison, req.strict === true) };
    }
  }
}

/** A single run fails on a failed budget, or when no repeat was measured. */
export function runExitCode(run: RunFile): 0 | 1 {
  if (failedBudgets(run).length) return 1;
  if (run.summary.measured === 0) return 1;
  return 0;
}

/** A compare fails on an error-level regression, a failed candidate budget, nothing measured, or (strict) an inconclusive verdict. */
export function againstExitCode(res: AgainstResult, comparison: RunsComparison | undefined, strict = false): 0 | 1 {
  if (!comparison) return 1;
  if (failedBudgets(res.candidate.run).length) return 1;
  return compareExitCode(comparison, strict);
}
