/**
 * perf report FILE.json…: the HTML report of run files you already have. One run file → its run report;
 * two run files (baseline, candidate) → the compare report `perf compare` would judge; one compare JSON
 * (`perf compare --json`) → its compare report, with the two run files it names.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, join, basename, relative } from 'node:path';
import { PerfError } from '../errors.js';
import { invalidJson, readJsonFile, type JsonFileKind } from '../json-input.js';
import { compareRunFiles, readRunFile, RUN_FILE_KIND, validateComparison, validateRunFile } from '../perf/compare-runs.js';
import type { RunsComparison } from '../perf/compare-runs.js';
import type { RunFile } from '../perf/run-file.js';
import { defineCommand, info, JSON_FLAG, printJson } from './command.js';
import { compareReportPath, writeHtmlCompareReport, writeHtmlRunReport } from './html-report.js';

type Input = { kind: 'run'; run: RunFile } | { kind: 'compare'; comparison: RunsComparison };

const REPORT_INPUT_KIND: JsonFileKind = { ...RUN_FILE_KIND, what: 'rehearse run file nor a compare result', prefix: 'report: ' };

/**
 * A JSON file as a run file or a compare result, validated against its schema before anything reads
 * it; a usage error naming the file, the JSON path and what was expected otherwise.
 */
function readInput(file: string): Input {
  if (!existsSync(file)) {
    throw new PerfError({ code: 'file_not_found', message: `report: ${file}: no such file`, suggestion: RUN_FILE_KIND.suggestion });
  }
  const data = readJsonFile(file, REPORT_INPUT_KIND);
  const has = (key: string): boolean => typeof data === 'object' && data !== null && !Array.isArray(data) && key in data;
  if (has('schemaVersion') || has('repeats')) return { kind: 'run', run: validateRunFile(data, file) };
  if (has('verdict') || has('rows')) return { kind: 'compare', comparison: validateComparison(data, file) };
  throw invalidJson(
    REPORT_INPUT_KIND,
    file,
    'expected the JSON `perf run` writes (schemaVersion, scenario, repeats…) ' +
      'or `perf compare --json` prints (verdict, rows, baseline, candidate)',
  );
}

/** The run file a compare JSON names, found as written or beside the compare file. */
function runOfComparison(compareFile: string, named: string | null, role: 'baseline' | 'candidate'): { run: RunFile; file: string } {
  const candidates = named ? [named, join(dirname(compareFile), basename(named))] : [];
  const found = candidates.find((f) => existsSync(f));
  if (!found) {
    throw new PerfError({
      code: 'run_file_not_found',
      message:
        `report: ${compareFile}: the ${role} run file ${named ? `"${named}" was not found` : 'is not named in it'}` +
        `; a compare report draws the repeats from both run files`,
      suggestion: 'pass the two run files instead: perf report BASELINE.json CANDIDATE.json',
    });
  }
  return { run: readRunFile(found), file: found };
}

export const reportCommand = defineCommand({
  name: 'report',
  summary: 'Render run files as one self-contained HTML report (charts, opens offline): a run, or a compare of two',
  usage: 'report RUN.json | BASELINE.json CANDIDATE.json | COMPARE.json [--out FILE.html] [--force]',
  details: [
    'One run file: its run report (repeats per metric, frame timeline, insights, budgets, failures, env), beside it as <run>.html.',
    'Two run files: the compare report of the candidate (second) against the baseline (first), as `perf compare` judges them,',
    'beside the candidate as <candidate>.compare.html. A compare JSON (`perf compare --json > c.json`): its report, with the',
    'run files it names. Exit 0 whatever the verdict (this renders; `perf compare` judges); 2 for a missing or invalid file.',
  ].join('\n'),
  flags: {
    out: { type: 'string', value: 'FILE.html', description: 'Where to write the report (default beside the run file).' },
    force: { type: 'boolean', description: 'Two run files of different scenarios or variants: compare anyway.' },
    ...JSON_FLAG,
  },
  async run(f, positionals) {
    if (positionals.length < 1 || positionals.length > 2) {
      throw new PerfError({
        code: 'missing_argument',
        message: `report: expected one run file, two run files (baseline, candidate) or one compare JSON, got ${positionals.length} files`,
        suggestion: 'perf report build/perf/list-run.json   or   perf report BASELINE.json CANDIDATE.json',
      });
    }
    const out = f.out as string | undefined;
    if (out !== undefined && !/\.html?$/i.test(out))
      throw new PerfError({ code: 'invalid_flag', message: `report: --out ${out}: expected a file name ending in .html` });
    let written: string;
    let kind: 'run' | 'compare';
    let verdict: string | undefined;
    if (positionals.length === 2) {
      const [fileA, fileB] = positionals as [string, string];
      for (const file of positionals)
        if (!existsSync(file))
          throw new PerfError({
            code: 'file_not_found',
            message: `report: ${file}: no such file`,
            suggestion: 'pass run files written by `perf run`',
          });
      const { comparison, a, b } = compareRunFiles(fileA, fileB, { force: f.force === true });
      written = writeHtmlCompareReport(comparison, { run: a, file: fileA }, { run: b, file: fileB }, out ?? compareReportPath(fileB));
      kind = 'compare';
      verdict = comparison.verdict;
    } else {
      const file = positionals[0]!;
      const input = readInput(file);
      if (input.kind === 'run') {
        written = out === undefined ? writeHtmlRunReport(input.run, file) : writeHtmlRunReport(input.run, file, out);
        kind = 'run';
      } else {
        const a = runOfComparison(file, input.comparison.baseline.file, 'baseline');
        const b = runOfComparison(file, input.comparison.candidate.file, 'candidate');
        written = writeHtmlCompareReport(input.comparison, a, b, out ?? file.replace(/(\.json)?$/, '.html'));
        kind = 'compare';
        verdict = input.comparison.verdict;
      }
    }
    const bytes = statSync(written).size;
    if (f.json) printJson({ kind, path: written, bytes, ...(verdict ? { verdict } : {}) });
    else info(`${kind} report: ${relative(process.cwd(), written) || written} (${(bytes / 1024).toFixed(0)} KB)`);
    return 0;
  },
});
