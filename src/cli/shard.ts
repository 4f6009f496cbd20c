/**
 * Gate shards: `perf gate --shard I/N` runs a deterministic share of the gate's scenario/variants and
 * writes `gate-shard-I-of-N.json` beside its run files; `perf merge` reads the N files back into the
 * entries the unsharded gate would have judged. The shard file carries everything the summary needs
 * (each run file, its baseline and the comparison), so the merge job needs neither the shards' run
 * files nor the baselines.
 *
 * Assignment: the gate's runs sorted by `<scenario file>#<variant>` (code-unit order, the paths as the
 * gate names them), then dealt round-robin: the k-th (0-based) goes to shard k mod N + 1. It depends
 * only on the set of runs, never on timing, and shard sizes differ by at most one.
 */
import { readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { errorCodeOf, PerfError, perfErrorKind, type ErrorInfo } from '../errors.js';
import { checkJson, list, nullable, readJsonFile, record, tagged, text, whole, type JsonFileKind, type Schema } from '../json-input.js';
import { COMPARISON_SCHEMA, MAX_RUN_FILE_BYTES, type RunsComparison } from '../perf/compare-runs.js';
import { ERROR_INFO_SCHEMA, MAX_NAME_CHARS, MAX_TEXT_CHARS, RUN_FILE_SCHEMA, type RunFile } from '../perf/run-file.js';
import type { Scenario } from '../scenario/load.js';

// 1,000 shards: past a few hundred CI jobs a gate is not one merge job's to join; the merge lists
// every index it expects, so the bound keeps a forged count (1e9) from allocating a list that size.
export const MAX_SHARDS = 1000;
// 10,000 runs per gate: the examples have 7; a gate of thousands of scenario/variants is past any CI.
const MAX_GATE_RUNS = 10_000;

export interface ShardSpec {
  /** 1-based. */
  index: number;
  count: number;
}

/** `--shard 2/3` → { index: 2, count: 3 }; anything else is a usage error naming the flag. */
export function parseShard(value: string): ShardSpec {
  const m = /^(\d+)\/(\d+)$/.exec(value.trim());
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || !(count >= 1) || !(index >= 1) || index > count) {
    throw new PerfError({
      code: 'invalid_flag',
      message: `gate: --shard must be I/N with 1 <= I <= N, got "${value}"`,
      suggestion: 'e.g. --shard 1/3 on the first of three CI jobs',
    });
  }
  if (count > MAX_SHARDS) {
    const message = `gate: --shard ${value}: a gate splits into at most ${MAX_SHARDS} shards`;
    throw new PerfError({ code: 'invalid_flag', message, suggestion: 'use fewer CI jobs' });
  }
  return { index, count };
}

/** The key a run is sorted by for the deal (see the module comment). */
export function shardKey(scenarioFile: string, variant: string | null): string {
  return `${scenarioFile}#${variant ?? ''}`;
}

/** The gate's runs that belong to `shard`, in the gate's own order. */
export function selectShard<T>(items: readonly T[], key: (item: T) => string, shard: ShardSpec): T[] {
  const ranked = items.map((item, i) => ({ i, k: key(item) })).sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : a.i - b.i));
  const mine = new Set(ranked.filter((_, rank) => rank % shard.count === shard.index - 1).map((r) => r.i));
  return items.filter((_, i) => mine.has(i));
}

export const SHARD_FILE_KIND = 'rehearse-gate-shard';

export function shardFileName(shard: ShardSpec): string {
  return `gate-shard-${shard.index}-of-${shard.count}.json`;
}

const SHARD_FILE_RE = /^gate-shard-(\d+)-of-(\d+)\.json$/;

/** A gate outcome as JSON (gate.ts GateOutcome): errors as their toJSON(). */
export type StoredOutcome =
  | { status: 'compared'; comparison: RunsComparison; baseline: RunFile }
  | { status: 'missing-baseline'; why?: string }
  | { status: 'updated'; previous: RunsComparison | null }
  | { status: 'unmeasured'; reason: string }
  | { status: 'invalid-baseline' | 'error'; error: ErrorInfo };

/** A gate entry as JSON (gate.ts GateEntry); merge.ts revives it. Kept apart so this module needs nothing of gate.ts. */
export interface StoredEntry {
  id: string;
  scenario: string;
  variant: string | null;
  scenarioFile: string;
  baselineFile: string;
  runFile: string | null;
  run: RunFile | null;
  outcome: StoredOutcome;
  baselineFrom?: string;
}

export interface ShardFile {
  kind: typeof SHARD_FILE_KIND;
  schemaVersion: 1;
  shard: ShardSpec;
  /** Every run of the whole gate (all shards), by id, in the gate's order: what merge checks and orders by. */
  plan: string[];
  strict: boolean;
  entries: StoredEntry[];
}

const name = (description: string): Schema => text(description, MAX_NAME_CHARS);
const shardNumber = (description: string): Schema => whole(description, 1, MAX_SHARDS);

const status = (value: string): Schema => ({ const: value, description: `status ${value}` });

const OUTCOME_SCHEMA = tagged('How the gate judged the run.', 'status', [
  record('Compared with its baseline.', { status: status('compared'), comparison: COMPARISON_SCHEMA, baseline: RUN_FILE_SCHEMA }, [
    'status',
    'comparison',
    'baseline',
  ]),
  record(
    'No baseline.',
    { status: status('missing-baseline'), why: text('--baseline history: why the history had none.', MAX_TEXT_CHARS) },
    ['status'],
  ),
  record('Baseline written.', { status: status('updated'), previous: nullable(COMPARISON_SCHEMA, 'The old compare.') }, [
    'status',
    'previous',
  ]),
  record('Nothing measured.', { status: status('unmeasured'), reason: text('Why.', MAX_TEXT_CHARS) }, ['status', 'reason']),
  record('An unusable baseline.', { status: status('invalid-baseline'), error: ERROR_INFO_SCHEMA }, ['status', 'error']),
  record('The run could not be judged.', { status: status('error'), error: ERROR_INFO_SCHEMA }, ['status', 'error']),
]);

const STORED_ENTRY_SCHEMA = record(
  'One run of the gate, as the shard judged it.',
  {
    id: name('<scenario>[-<variant>].'),
    scenario: name('Scenario.'),
    variant: nullable(name('Variant.'), 'Variant, or null.'),
    scenarioFile: name('Scenario file.'),
    baselineFile: name('Baseline file.'),
    runFile: nullable(name('Run file.'), 'Run file, or null.'),
    run: nullable(RUN_FILE_SCHEMA, 'The run, or null when it did not run.'),
    outcome: OUTCOME_SCHEMA,
    baselineFrom: text('--baseline history: the commit the baseline came from, and its repeats.', MAX_TEXT_CHARS),
  },
  ['id', 'scenario', 'variant', 'scenarioFile', 'baselineFile', 'runFile', 'run', 'outcome'],
);

/** gate-shard-I-of-N.json, as `perf gate --shard I/N` writes it. */
export const SHARD_FILE_SCHEMA = record(
  'A gate shard.',
  {
    kind: { const: SHARD_FILE_KIND, description: 'What this file is.' },
    schemaVersion: { const: 1, description: 'The shard file format version.' },
    shard: record('Which shard.', { index: shardNumber('1-based, ≤ count.'), count: shardNumber('How many.') }, ['index', 'count']),
    plan: list('Every run of the whole gate, by id, in its order.', name('A run id.'), MAX_GATE_RUNS),
    strict: { type: 'boolean', description: 'The shard ran with --strict.' },
    entries: list('The runs this shard judged.', STORED_ENTRY_SCHEMA, MAX_GATE_RUNS),
  },
  ['kind', 'schemaVersion', 'shard', 'plan', 'strict', 'entries'],
);

/** The shard file's content; `entries` are GateEntries, whose errors serialize through PerfError.toJSON. */
export function shardFile(
  shard: ShardSpec,
  plan: readonly Pick<Scenario, 'name' | 'variant'>[],
  entries: readonly { id: string; outcome: { status: string } }[],
  strict: boolean,
): Record<string, unknown> {
  return {
    kind: SHARD_FILE_KIND,
    schemaVersion: 1,
    shard,
    plan: plan.map((sc) => `${sc.name}${sc.variant ? `-${sc.variant}` : ''}`),
    strict,
    entries,
  };
}

/** A stored error back as the PerfError it was; a kind this perf does not know is internal. */
export function reviveError(info: ErrorInfo): PerfError {
  const kind = perfErrorKind(info.kind);
  return new PerfError({
    code: errorCodeOf(info.code),
    message: info.message,
    kind,
    ...(info.suggestion ? { suggestion: info.suggestion } : {}),
  });
}

const MERGE_SUGGESTION = 'pass the folder of every shard of one gate: perf merge shard-1/ shard-2/ …';

function bad(message: string, suggestion = MERGE_SUGGESTION): PerfError {
  return new PerfError({ code: 'shard_invalid', kind: 'usage', message: `merge: ${message}`, suggestion });
}

const SHARD_KIND: JsonFileKind = {
  what: 'shard file written by `perf gate --shard`',
  noun: 'shard file',
  prefix: 'merge: ',
  invalidCode: 'shard_invalid',
  unreadableCode: 'shard_invalid',
  tooLargeCode: 'shard_invalid',
  // A shard holds each of its runs twice (the run and its baseline), each bounded like a run file:
  // four run files' worth bounds a wrong file without refusing a shard of many small runs.
  maxBytes: 4 * MAX_RUN_FILE_BYTES,
  suggestion: MERGE_SUGGESTION,
};

/** Read and validate one shard file: every field merge and the reporters read, before anything reads it. */
function readShardFile(file: string): ShardFile {
  const s = checkJson<ShardFile>(SHARD_FILE_SCHEMA, readJsonFile(file, SHARD_KIND), file, SHARD_KIND);
  if (s.shard.index > s.shard.count) throw bad(`${file}: shard.index ${s.shard.index} is past shard.count ${s.shard.count}`);
  return s;
}

/** The shard files named: a file as is, a folder's gate-shard-*-of-*.json. A folder without one is an error naming it. */
export function findShardFiles(paths: readonly string[]): string[] {
  const out: string[] = [];
  for (const p of paths) {
    let isDir: boolean;
    try {
      isDir = statSync(p).isDirectory();
    } catch {
      throw bad(`${p}: no such file or folder`);
    }
    if (!isDir) {
      out.push(p);
      continue;
    }
    const found = readdirSync(p)
      .filter((n) => SHARD_FILE_RE.test(n))
      .sort();
    if (!found.length)
      throw bad(
        `${p}: no gate-shard-I-of-N.json in this folder`,
        'perf gate --shard I/N writes it into its --out folder (default build/perf)',
      );
    out.push(...found.map((n) => join(p, n)));
  }
  return out;
}

/**
 * Join shard files into the gate's entries, in the unsharded gate's order. Every shard 1…N of one gate
 * exactly once, or a usage error naming the missing, duplicated or foreign shard.
 */
export function mergeShards(files: readonly string[]): { entries: StoredEntry[]; strict: boolean; count: number } {
  if (!files.length) throw bad('no shard files given');
  const shards = files.map((file) => ({ file, s: readShardFile(file) }));
  const first = shards[0]!;
  const n = first.s.shard.count;
  const planKey = JSON.stringify([...first.s.plan].sort());
  const byIndex = new Map<number, string>();
  for (const { file, s } of shards) {
    if (s.shard.count !== n)
      throw bad(`${file} is shard ${s.shard.index}/${s.shard.count}, but ${first.file} is of ${n} shards: shards of different gates`);
    if (JSON.stringify([...s.plan].sort()) !== planKey)
      throw bad(`${file} (shard ${s.shard.index}/${n}) ran a different scenario set than ${first.file}: shards of different gates`);
    const other = byIndex.get(s.shard.index);
    if (other !== undefined) throw bad(`shard ${s.shard.index}/${n} given twice: ${other} and ${file}`);
    byIndex.set(s.shard.index, file);
  }
  const missing = Array.from({ length: n }, (_, i) => i + 1).filter((i) => !byIndex.has(i));
  if (missing.length)
    throw bad(
      `shard${missing.length > 1 ? 's' : ''} ${missing.map((i) => `${i}/${n}`).join(', ')} missing (given: ${[...byIndex.entries()]
        .sort((a, b) => a[0] - b[0])
        .map(([i, f]) => `${i}/${n} ${basename(f)}`)
        .join(', ')})`,
    );
  const order = new Map(first.s.plan.map((id, i) => [id, i]));
  const seen = new Map<string, string>();
  const entries: StoredEntry[] = [];
  for (const { file, s } of shards) {
    for (const e of s.entries) {
      if (!order.has(e.id)) throw bad(`${file}: run ${e.id} is not in the gate's plan`);
      const twice = seen.get(e.id);
      if (twice !== undefined) throw bad(`run ${e.id} is in two shards: ${twice} and ${file}`);
      seen.set(e.id, file);
      entries.push(e);
    }
  }
  const unrun = first.s.plan.filter((id) => !seen.has(id));
  // A shard interrupted before its end writes no shard file, so this is a file edited or cut short.
  if (unrun.length) throw bad(`no shard holds the run of ${unrun.join(', ')}`);
  entries.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  return { entries, strict: shards.some(({ s }) => s.strict), count: n };
}
