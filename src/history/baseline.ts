/**
 * `perf gate --baseline history[:BRANCH]`: the baseline of a scenario is the runs recorded at the candidate's
 * merge-base with BRANCH on this kind of machine; when that commit has none, the newest earlier commit on
 * BRANCH's first-parent line that has some. Several runs at one commit are joined into one baseline (more
 * repeats, more power); runs recorded without a commit (the baseline arm of --against) never qualify.
 */
import { cpus } from 'node:os';
import { summarizeRepeats } from '../perf/repeat-summary.js';
import type { RepeatRecord, RunFile } from '../perf/run-file.js';
import { checkRef, defaultBranch, firstParents, git } from './git.js';
import type { HistoryStore, StoredRun } from './types.js';

// 200 commits back from the merge-base: far past a week of a busy main; older baselines say little about today's code.
const MAX_COMMITS_BACK = 200;
// 5,000 runs of one scenario: the candidates the commit walk picks from, newest first.
const MAX_RUNS_SCANNED = 5_000;

export type HistoryBaseline =
  | {
      status: 'found';
      run: RunFile;
      commit: string;
      /** The merge-base itself, or how many first-parent commits before it. */
      commitsBack: number;
      runIds: number[];
      repeats: number;
      branch: string;
    }
  | { status: 'missing'; why: string };

/** perf/compare/preflight.ts hostKey without the browser (not known before the run starts): the kind of machine. */
export function machineKeyPrefix(): string {
  const c = cpus();
  return `${c[0]?.model.trim() ?? 'unknown'} ×${c.length}, ${process.platform}/${process.arch}, `;
}

/** BRANCH (or origin/BRANCH) and the merge-base of HEAD with it; null fields when git cannot say. */
export function mergeBaseWith(cwd: string, branch: string | undefined): { branch: string | null; mergeBase: string | null } {
  if (branch !== undefined) checkRef(branch, '--baseline history:BRANCH');
  const b = branch ?? defaultBranch(cwd);
  if (!b) return { branch: null, mergeBase: null };
  for (const ref of [b, `origin/${b}`]) {
    const mb = git(cwd, ['merge-base', '--end-of-options', 'HEAD', ref]);
    if (mb) return { branch: b, mergeBase: mb };
  }
  return { branch: b, mergeBase: null };
}

/** Runs joined into one run file: repeats renumbered in order, the summary recomputed as the runner computes it. */
export function joinRuns(files: RunFile[]): RunFile {
  const first = files[0]!;
  if (files.length === 1) return first;
  let next = 0;
  const repeats: RepeatRecord[] = files.flatMap((f) => f.repeats.map((r) => ({ ...r, index: next++ })));
  const counts = (k: 'repeats' | 'measured' | 'refused' | 'failed' | 'warmup'): number => files.reduce((n, f) => n + f.summary[k], 0);
  const { metrics, timingOnly } = summarizeRepeats(repeats);
  return {
    ...first,
    repeats,
    summary: {
      repeats: counts('repeats'),
      measured: counts('measured'),
      refused: counts('refused'),
      failed: counts('failed'),
      warmup: counts('warmup'),
      metrics,
      timingOnly,
    },
  };
}

export async function historyBaseline(
  store: HistoryStore,
  q: { cwd: string; project: string; scenario: string; variant: string | null; branch?: string },
): Promise<HistoryBaseline> {
  const { branch, mergeBase } = mergeBaseWith(q.cwd, q.branch);
  if (!branch || !mergeBase) {
    return {
      status: 'missing',
      why: branch ? `no merge-base of HEAD with ${branch}` : 'no default branch (main, master or origin/HEAD) to take a baseline from',
    };
  }
  const commits = firstParents(q.cwd, mergeBase, MAX_COMMITS_BACK);
  const prefix = machineKeyPrefix();
  const runs = (await store.runs({ project: q.project, scenario: q.scenario, variant: q.variant, limit: MAX_RUNS_SCANNED })).filter(
    (r) => r.complete && r.repeats > 0 && r.git.commit !== null && r.hostKey.startsWith(prefix),
  );
  const byCommit = new Map<string, StoredRun[]>();
  for (const r of runs) byCommit.set(r.git.commit!, [...(byCommit.get(r.git.commit!) ?? []), r]);
  const at = commits.findIndex((c) => byCommit.has(c));
  if (at < 0) {
    return {
      status: 'missing',
      why:
        `no run of this scenario recorded on this kind of machine at the merge-base ${mergeBase.slice(0, 12)} with ${branch} ` +
        `or the ${commits.length - 1} commits before it`,
    };
  }
  const chosen = byCommit.get(commits[at]!)!.sort((a, b) => a.runId - b.runId);
  const run = joinRuns(await Promise.all(chosen.map((r) => store.runFile(r.runId))));
  return {
    status: 'found',
    run,
    commit: commits[at]!,
    commitsBack: at,
    runIds: chosen.map((r) => r.runId),
    repeats: run.summary.measured,
    branch,
  };
}
