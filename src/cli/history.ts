/**
 * `perf history VERB`: the history store from the command line (add, prune; show and changes are appended to
 * HISTORY_SUBCOMMANDS by their own module), and the `--history` recording that run, --against and gate share.
 */
import { relative } from 'node:path';
import { closest, exitCodeOf, isPerfError, PerfError } from '../errors.js';
import { readRunFile, type RunsComparison } from '../perf/compare-runs.js';
import type { RunFile } from '../perf/run-file.js';
import { DEFAULT_HISTORY } from '../history/schema.js';
import { gitInfo, NO_GIT, projectName } from '../history/git.js';
import type { SqlHistoryStore } from '../history/store.js';
import type { Access } from '../history/sql.js';
import type { GitInfo, VerdictInput } from '../history/types.js';
import type { FlagSpecs, FlagValues } from './args.js';
import { defineCommand, info, JSON_FLAG, printJson, printText, type CommandDefinition } from './command.js';
import { historyChangesCommand, historyShowCommand } from './history-show.js';

export const HISTORY_ENV = 'PERF_HISTORY';

/** The store's modules (better-sqlite3's native addon, pg) load when a history is used: other commands start without them. */
export async function openStore(location: string, cwd = process.cwd(), access: Access = 'create'): Promise<SqlHistoryStore> {
  const { openHistory } = await import('../history/open.js');
  return openHistory(location, cwd, access);
}

/**
 * HEAD's git facts, started before the run when it will be recorded: the git calls overlap the browser's start
 * instead of adding to the end of the run (they are done long before the first measured repeat).
 */
export function gitFor(f: FlagValues, cwd = process.cwd()): Promise<GitInfo> | undefined {
  return historyLocation(f) === undefined ? undefined : gitInfo(cwd);
}

export const HISTORY_FLAG = {
  history: {
    type: 'optional',
    value: '[PATH|URL]',
    // Only a database-looking next argument is the flag's value: `perf run --history s.yaml` keeps s.yaml a positional.
    takes: /^postgres(ql)?:\/\/|\.(sqlite3?|db)$/i,
    description:
      `Record into a history: a SQLite file (default ${DEFAULT_HISTORY}; the value ends in .sqlite/.db, or use --history=PATH) ` +
      `or postgres://user:password@host/db. Default: $${HISTORY_ENV} when set.`,
  },
} as const satisfies FlagSpecs;

/** Where to record: --history's value, else $PERF_HISTORY, else the default file; undefined when neither asks for a history. */
export function historyLocation(f: FlagValues, always = false): string | undefined {
  const env = process.env[HISTORY_ENV]?.trim() || undefined;
  if (typeof f.history === 'string') return f.history;
  if (f.history === true) return env ?? DEFAULT_HISTORY;
  return env ?? (always ? DEFAULT_HISTORY : undefined);
}

export interface ToRecord {
  run: RunFile;
  path: string;
  /** Default: HEAD's git info. The baseline arm of --against runs other code: recorded without a commit. */
  git?: GitInfo;
}

/** The recorded verdict of a comparison, by index into the runs just recorded. */
export interface VerdictToRecord {
  baseline: number | null;
  candidate: number;
  comparison: RunsComparison;
  /** A baseline already in the store (gate --baseline history). */
  baselineRunId?: number;
}

export function verdictMetrics(c: RunsComparison): VerdictInput['metrics'] {
  return c.rows.filter((r) => r.gated).map((r) => ({ metric: r.metric, status: r.verdict, deltaPct: r.deltaPct }));
}

/**
 * Record the run files just written (and their verdicts) into the history; `code` is the command's own exit
 * code. A history that cannot be opened or written loses nothing (the files are on disk): it is said on stderr
 * and the exit code becomes 3 (2 for a location that can hold no file, e.g. under /proc), unless the command
 * already failed on its own (its 1 or 2 says more).
 */
export async function recordAfter(
  location: string | undefined,
  items: ToRecord[],
  code: number,
  opts: { verdicts?: VerdictToRecord[]; store?: SqlHistoryStore; cwd?: string; quiet?: boolean; git?: Promise<GitInfo> } = {},
): Promise<number> {
  if (location === undefined || items.length === 0) return code;
  const cwd = opts.cwd ?? process.cwd();
  let store = opts.store;
  try {
    store ??= await openStore(location, cwd);
    const head = items.some((i) => !i.git) ? await (opts.git ?? gitInfo(cwd)) : NO_GIT;
    const project = projectName(cwd);
    const ids: number[] = [];
    for (const i of items) ids.push((await store.recordRun({ run: i.run, git: i.git ?? head, project })).runId);
    for (const v of opts.verdicts ?? []) {
      await store.recordVerdict({
        baselineRunId: v.baselineRunId ?? (v.baseline === null ? null : ids[v.baseline]!),
        candidateRunId: ids[v.candidate]!,
        verdict: v.comparison.verdict,
        metrics: verdictMetrics(v.comparison),
      });
    }
    if (!opts.quiet) info(`history: recorded ${items.length} run${items.length === 1 ? '' : 's'} in ${store.location}`);
    return code;
  } catch (e) {
    if (!isPerfError(e)) throw e;
    const files = items.map((i) => relative(cwd, i.path) || i.path).join(' ');
    info(`perf: ${e.message}`);
    // Missing SQLite is fixed by installing it: that advice first, then how to keep what was measured.
    if (e.code === 'history_sqlite_missing') info(`  hint: ${e.suggestionAt('run')}`);
    info(`  hint: the run files are kept; record them later with \`perf history add ${files}\``);
    return code === 0 ? exitCodeOf(e.kind === 'usage' ? 'usage' : 'environment') : code;
  } finally {
    if (!opts.store) await store?.close().catch(() => undefined);
  }
}

const historyAddCommand = defineCommand({
  name: 'add',
  summary: 'Import run files into the history (idempotent: a file already recorded is skipped)',
  usage: 'history add FILE… [--commit SHA] [--branch NAME] [--history PATH|URL]',
  details: 'Without --commit, the files are recorded with the git facts of HEAD (commit, branch, merge-base).',
  flags: {
    commit: { type: 'string', value: 'SHA', description: 'The commit the runs measured (default: HEAD).' },
    branch: { type: 'string', value: 'NAME', description: "The branch they were measured on (default: HEAD's)." },
    ...HISTORY_FLAG,
    ...JSON_FLAG,
  },
  async run(f, positionals) {
    if (!positionals.length)
      throw new PerfError({
        code: 'missing_argument',
        message: 'history add: which run files?',
        suggestion: 'perf history add build/perf/*.json',
      });
    // Every file is read and validated before anything is written: a bad one stops the import whole (exit 2).
    const runs = positionals.map((file) => ({ file, run: readRunFile(file) }));
    const cwd = process.cwd();
    const git = await gitInfo(cwd, {
      ...(typeof f.commit === 'string' ? { commit: f.commit } : {}),
      ...(typeof f.branch === 'string' ? { branch: f.branch } : {}),
    });
    const store = await openStore(historyLocation(f, true)!, cwd);
    try {
      const project = projectName(cwd);
      const results: { file: string; runId: number; created: boolean }[] = [];
      for (const { file, run } of runs) results.push({ file, ...(await store.recordRun({ run, git, project })) });
      if (f.json) printJson({ history: store.location, commit: git.commit, results });
      else {
        for (const r of results) printText(`${r.created ? 'added  ' : 'skipped'} ${r.file} (run ${r.runId})\n`);
        const added = results.filter((r) => r.created).length;
        info(`history: ${added} added, ${results.length - added} already recorded, in ${store.location}`);
      }
      return 0;
    } finally {
      await store.close();
    }
  },
});

function wholeFlag(f: FlagValues, key: string, flag: string): number | undefined {
  const v = f[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0)
    throw new PerfError({ code: 'invalid_flag', message: `history prune: --${flag} takes a whole number >= 0, got ${String(v)}` });
  return v;
}

const historyPruneCommand = defineCommand({
  name: 'prune',
  summary: 'Delete old runs from the history: older than N days, and/or past the newest N of each scenario and variant',
  usage: 'history prune [--keep-days N] [--keep-runs N] [--history PATH|URL]',
  flags: {
    keepDays: { type: 'number', value: 'N', description: 'Delete runs started more than N days ago.' },
    keepRuns: { type: 'number', value: 'N', description: 'Keep the newest N runs of each scenario and variant; delete the rest.' },
    ...HISTORY_FLAG,
    ...JSON_FLAG,
  },
  async run(f) {
    const keepDays = wholeFlag(f, 'keepDays', 'keep-days');
    const keepRuns = wholeFlag(f, 'keepRuns', 'keep-runs');
    if (keepDays === undefined && keepRuns === undefined)
      throw new PerfError({
        code: 'missing_argument',
        message: 'history prune: what to keep? give --keep-days N, --keep-runs N or both',
        suggestion: 'perf history prune --keep-days 90 --keep-runs 200',
      });
    // Pruning needs a history: a missing file is said, not created to delete nothing from.
    const store = await openStore(historyLocation(f, true)!, process.cwd(), 'write');
    try {
      const r = await store.prune({ ...(keepDays !== undefined ? { keepDays } : {}), ...(keepRuns !== undefined ? { keepRuns } : {}) });
      if (f.json) printJson({ history: store.location, ...r });
      else printText(`pruned ${r.runsDeleted} runs (${r.samplesDeleted} samples) from ${store.location}\n`);
      return 0;
    } finally {
      await store.close();
    }
  },
});

/** The verbs of `perf history`, in help order: show and changes (the trends module) append theirs here. */
export const HISTORY_SUBCOMMANDS: CommandDefinition[] = [historyAddCommand, historyPruneCommand, historyShowCommand, historyChangesCommand];

export const historyCommand = defineCommand({
  name: 'history',
  summary: 'The history of recorded runs: add run files, show a series, find where it changed, prune old runs',
  usage: 'history VERB [flags]',
  details:
    'Runs are recorded by `perf run`, `perf run --against` and `perf gate` with --history (or $PERF_HISTORY): a SQLite file ' +
    `(default ${DEFAULT_HISTORY}) or a PostgreSQL server. \`perf gate --baseline history\` takes its baselines from it.`,
  subcommands: HISTORY_SUBCOMMANDS,
  flags: {},
  async run(_f, positionals) {
    const names = HISTORY_SUBCOMMANDS.map((s) => s.name);
    const verb = positionals[0];
    const near = verb === undefined ? [] : closest(verb, names);
    throw new PerfError({
      code: verb === undefined ? 'missing_argument' : 'unknown_command',
      message:
        verb === undefined
          ? `history: which verb? ${names.join(', ')}`
          : `history: unknown verb "${verb}"${near.length ? `; did you mean ${near.map((n) => `"${n}"`).join(' or ')}?` : ''}`,
      suggestion: `perf history ${names[0]} --help`,
      ...(near.length ? { candidates: near } : {}),
    });
  },
});
