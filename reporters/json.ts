/**
 * The machine-readable reporter. A run renders as the run file minus `repeats[]`: the summary,
 * budgets and environment a dashboard ingests, without the per-repeat reports that make run files
 * large. The full run file stays beside it for anyone who needs the repeats.
 */
import type { RunFile } from '../src/perf/run-file.js';
import { defineReporter } from './define.js';
import type { CompareReport } from './define.js';
import { jsonText } from '../src/printable.js';

function renderRun(run: RunFile): string {
  const { repeats: _repeats, ...summary } = run;
  return `${jsonText(summary, 2)}\n`;
}

/** The compare result as is; NaN medians of an empty arm become null, as JSON has no NaN. */
function renderCompare(result: CompareReport): string {
  return `${jsonText(result, 2)}\n`;
}

export const jsonReporter = defineReporter({
  name: 'json',
  description: 'JSON: the run file without per-repeat records, or the compare result',
  // Not ".json": written beside the run file, it would overwrite it.
  fileExtension: 'summary.json',
  format: 'json',
  renderRun,
  renderCompare,
});
