/**
 * uPlot's script and stylesheet, inlined into every HTML report so the file opens offline from disk.
 * Read from the installed `uplot` package (a runtime dependency), resolved from this module, so it works
 * from dist/ and from an installed copy alike. These are part of this tool, not run data: reading them
 * keeps the reporter deterministic (same data in, same string out), as an import would.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { PerfError } from '../src/errors.js';

export interface ChartAssets {
  js: string;
  css: string;
  version: string;
}

let cached: ChartAssets | undefined;

/** The minified IIFE build (defines the global `uPlot`) and its CSS; read once per process. */
export function chartAssets(): ChartAssets {
  if (cached) return cached;
  const require = createRequire(import.meta.url);
  try {
    const js = readFileSync(require.resolve('uplot/dist/uPlot.iife.min.js'), 'utf8');
    const css = readFileSync(require.resolve('uplot/dist/uPlot.min.css'), 'utf8');
    const version = (JSON.parse(readFileSync(require.resolve('uplot/package.json'), 'utf8')) as { version: string }).version;
    // A closing script tag inside the inlined code would end the element early; uPlot has none, keep it so.
    cached = { js: js.replace(/<\/(script)/gi, '<\\/$1'), css: css.replace(/<\/(style)/gi, '<\\/$1'), version };
    return cached;
  } catch (e) {
    throw new PerfError({
      kind: 'environment',
      code: 'chart_library_missing',
      message: `the HTML report needs the uplot package, which could not be read: ${(e as Error).message}`,
      suggestion: "reinstall rehearse's dependencies (npm ci)",
      cause: e,
    });
  }
}
