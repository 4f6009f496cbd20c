/**
 * The reporter list: `--reporter NAME` picks from here, `--help` lists it. A new reporter is its own
 * file plus one entry in REPORTERS.
 */
import { closest, PerfError } from '../src/errors.js';
import type { Reporter } from './define.js';
import { htmlReporter } from './html.js';
import { jsonReporter } from './json.js';
import { junitReporter } from './junit.js';
import { markdownReporter } from './markdown.js';
import { tableReporter } from './table.js';

export type { CompareContext, CompareReport, FrameTimeline, HtmlContext, HtmlRunContext, RenderOptions, Reporter } from './define.js';
export type { ScreenshotShown } from './define.js';
export { defineReporter, reportPathFor } from './define.js';
export { appendToGithubStepSummary } from './markdown.js';

export const REPORTERS = [tableReporter, jsonReporter, markdownReporter, junitReporter, htmlReporter] as const;

export type ReporterName = (typeof REPORTERS)[number]['name'];

export const REPORTER_NAMES: readonly ReporterName[] = REPORTERS.map((r) => r.name);

/** The reporter called `name`; a usage error (exit 2) naming the closest valid names otherwise. */
export function getReporter(name: string): Reporter {
  const found = REPORTERS.find((r) => r.name === name);
  if (found) return found;
  const candidates = closest(name, REPORTER_NAMES);
  throw new PerfError({
    kind: 'usage',
    code: 'unknown_reporter',
    message: `unknown reporter "${name}"${candidates.length ? `; did you mean ${candidates.map((c) => `"${c}"`).join(' or ')}?` : ''}`,
    suggestion: `use --reporter with one of: ${REPORTER_NAMES.join(', ')}`,
    candidates,
  });
}
