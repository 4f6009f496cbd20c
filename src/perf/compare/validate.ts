/**
 * Before any stage: read and validate a run file (RUN_FILE_SCHEMA, plus what a schema cannot say per metric), and a
 * compare result read back from a file (COMPARISON_SCHEMA). Every problem is a usage error naming the file.
 */
import { PerfError } from '../../errors.js';
import { checkJson, invalidJson, jsonPath, readJsonFile, type JsonFileKind } from '../../json-input.js';
import { RUN_FILE_SCHEMA, RUN_FILE_SCHEMA_VERSION, type RunFile } from '../run-file.js';
import { resolveMetric, type ResolvedMetric } from '../metrics.js';
import { COMPARISON_SCHEMA } from './schema.js';
import type { RunsComparison } from './types.js';

// 64 MiB: a repeat takes ~15 KB in a run file, so this is thousands of repeats; beyond it the file is
// not one we wrote, and reading it whole would cost memory for nothing.
export const MAX_RUN_FILE_BYTES = 64 * 2 ** 20;

export const RUN_FILE_KIND: JsonFileKind = {
  what: 'rehearse run file',
  noun: 'run file',
  invalidCode: 'run_file_invalid',
  unreadableCode: 'run_file_unreadable',
  tooLargeCode: 'run_file_too_large',
  maxBytes: MAX_RUN_FILE_BYTES,
  suggestion: 'pass files written by `perf run` (build/perf/<scenario>[-<variant>]-<label>.json)',
};

/** Read and validate a run file; every problem is a usage error (exit 2) naming the file, never quoting it. */
export function readRunFile(file: string): RunFile {
  return validateRunFile(readJsonFile(file, RUN_FILE_KIND), file);
}

/** Check parsed JSON against RUN_FILE_SCHEMA; throws PerfError usage naming the file and the JSON path. */
export function validateRunFile(data: unknown, file: string): RunFile {
  const version = typeof data === 'object' && data !== null && 'schemaVersion' in data ? data.schemaVersion : RUN_FILE_SCHEMA_VERSION;
  if (version !== RUN_FILE_SCHEMA_VERSION) {
    throw new PerfError({
      kind: 'usage',
      code: 'run_file_schema',
      message:
        `${file}: run file schemaVersion ${Number.isSafeInteger(version) ? String(version) : 'is not a whole number'}; ` +
        `this perf reads schemaVersion ${RUN_FILE_SCHEMA_VERSION}`,
      suggestion: 'rerun `perf run` (or `perf gate --update` for a baseline) with this version of perf',
    });
  }
  const run = checkJson<RunFile>(RUN_FILE_SCHEMA, data, file, RUN_FILE_KIND);
  checkEventCounts(run, file);
  return run;
}

/** A count of events (frames, long frames): compare tests it as a Poisson count, per repeat. */
function isEventCount(r: ResolvedMetric): boolean {
  return r.def.kind === 'count' && r.def.hostDependent && !r.perFrame;
}

/** What the schema cannot say per metric: counts of events are whole numbers ≥ 0. */
function checkEventCounts(run: RunFile, file: string): void {
  run.repeats.forEach((r, i) => {
    const metrics = r.status === 'failed' ? undefined : r.report?.metrics;
    for (const [name, v] of Object.entries(metrics ?? {})) {
      const m = v === null ? undefined : resolveMetric(name);
      if (!m || !isEventCount(m) || (Number.isSafeInteger(v) && v >= 0)) continue;
      const path = jsonPath(`/repeats/${i}/report/metrics/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`);
      throw invalidJson(RUN_FILE_KIND, file, `${path} must be a whole number of ${m.def.unit}, at least 0`);
    }
  });
}

export const COMPARE_FILE_KIND: JsonFileKind = {
  ...RUN_FILE_KIND,
  what: 'compare result of `perf compare --json`',
  noun: 'compare result',
  invalidCode: 'compare_file_invalid',
  suggestion: 'pass the JSON `perf compare A.json B.json --json` printed, or the two run files',
};

/** Check parsed JSON against COMPARISON_SCHEMA (a compare result read back from a file). */
export function validateComparison(data: unknown, file: string, kind: JsonFileKind = COMPARE_FILE_KIND): RunsComparison {
  return checkJson<RunsComparison>(COMPARISON_SCHEMA, data, file, kind);
}
