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
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { PerfError, type ErrorInfo, type PerfErrorKind } from '../errors.js';
import { MAX_RUN_FILE_BYTES } from '../perf/compare-runs.js';
import type { Scenario } from '../scenario/load.js';

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
    throw new PerfError({ code: 'invalid_flag', message: `gate: --shard must be I/N with 1 <= I <= N, got "${value}"`, suggestion: 'e.g. --shard 1/3 on the first of three CI jobs' });
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

/**
 * A gate entry as JSON (gate.ts GateEntry): run files and comparisons as they are, an error as its
 * toJSON(). merge.ts revives it; kept loose here so this module needs nothing of gate.ts.
 */
export type StoredEntry = Record<string, unknown> & { id: string; outcome: Record<string, unknown> & { status: string; error?: ErrorInfo } };

export interface ShardFile {
  kind: typeof SHARD_FILE_KIND;
  schemaVersion: 1;
  shard: ShardSpec;
  /** Every run of the whole gate (all shards), by id, in the gate's order: what merge checks and orders by. */
  plan: string[];
  strict: boolean;
  entries: StoredEntry[];
}

/** The shard file's content; `entries` are GateEntries, whose errors serialize through PerfError.toJSON. */
export function shardFile(shard: ShardSpec, plan: readonly Pick<Scenario, 'name' | 'variant'>[], entries: readonly { id: string; outcome: { status: string } }[], strict: boolean): Record<string, unknown> {
  return { kind: SHARD_FILE_KIND, schemaVersion: 1, shard, plan: plan.map((sc) => `${sc.name}${sc.variant ? `-${sc.variant}` : ''}`), strict, entries };
}

const KINDS: readonly PerfErrorKind[] = ['failed', 'usage', 'environment'];

/** A stored error back as the PerfError it was. */
export function reviveError(info: ErrorInfo | undefined): PerfError {
  const kind = KINDS.find((k) => k === info?.kind) ?? 'environment';
  return new PerfError({ code: String(info?.code ?? 'error'), message: String(info?.message ?? 'unknown error'), kind, ...(info?.suggestion ? { suggestion: info.suggestion } : {}) });
}

function bad(message: string, suggestion = 'pass the folder of every shard of one gate: perf merge shard-1/ shard-2/ …'): PerfError {
  return new PerfError({ code: 'shard_invalid', kind: 'usage', message: `merge: ${message}`, suggestion });
}

function readShardFile(file: string): ShardFile {
  let data: unknown;
  try {
    // A shard holds each of its runs twice (the run and its baseline), each bounded like a run file:
    // four run files' worth bounds a wrong file without refusing a shard of many small runs.
    if (statSync(file).size > 4 * MAX_RUN_FILE_BYTES) throw new Error(`larger than ${4 * MAX_RUN_FILE_BYTES / 2 ** 20} MiB`);
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw bad(`${file}: not a readable shard file (${(e as Error).message})`);
  }
  const d = data as Partial<ShardFile> | null;
  if (!d || d.kind !== SHARD_FILE_KIND || d.schemaVersion !== 1 || !d.shard || !Array.isArray(d.plan) || !Array.isArray(d.entries)) {
    throw bad(`${file}: not a shard file written by \`perf gate --shard\``);
  }
  return d as ShardFile;
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
    const found = readdirSync(p).filter((n) => SHARD_FILE_RE.test(n)).sort();
    if (!found.length) throw bad(`${p}: no gate-shard-I-of-N.json in this folder`, 'perf gate --shard I/N writes it into its --out folder (default build/perf)');
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
    if (s.shard.count !== n) throw bad(`${file} is shard ${s.shard.index}/${s.shard.count}, but ${first.file} is of ${n} shards: shards of different gates`);
    if (JSON.stringify([...s.plan].sort()) !== planKey) throw bad(`${file} (shard ${s.shard.index}/${n}) ran a different scenario set than ${first.file}: shards of different gates`);
    const other = byIndex.get(s.shard.index);
    if (other !== undefined) throw bad(`shard ${s.shard.index}/${n} given twice: ${other} and ${file}`);
    byIndex.set(s.shard.index, file);
  }
  const missing = Array.from({ length: n }, (_, i) => i + 1).filter((i) => !byIndex.has(i));
  if (missing.length) throw bad(`shard${missing.length > 1 ? 's' : ''} ${missing.map((i) => `${i}/${n}`).join(', ')} missing (given: ${[...byIndex.entries()].sort((a, b) => a[0] - b[0]).map(([i, f]) => `${i}/${n} ${basename(f)}`).join(', ')})`);
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
