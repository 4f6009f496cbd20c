/**
 * The I/O around the HTML reporter: what it shows beside the run files (the traces' frame timelines,
 * failure screenshots, links to the traces) is found and read here, so reporters/html.ts stays pure.
 * `perf run`, `perf compare`, `perf gate` and `perf report` write through these functions; a new
 * command that judges runs (e.g. a merge of gate shards) calls writeHtmlRunReport / writeHtmlCompareReport.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';
import { ensureDir, writeFileAtomic } from '../files.js';
import { BEGIN_MARK, END_MARK, type TraceEvent } from '../drivers/measure.js';
import { MAX_RUN_FILE_BYTES } from '../perf/compare-runs.js';
import { pageRendererPids, parseTraceFrames } from '../perf/frames.js';
import type { RunFile } from '../perf/run-file.js';
import type { CompareReport, FrameTimeline, HtmlRunContext } from '../../reporters/define.js';
import { reportPathFor } from '../../reporters/define.js';
import { htmlReporter } from '../../reporters/html.js';

// 300 KB: a 1280×800 failure screenshot is 50–200 KB; embedding bigger ones would blow the report's
// size for one picture, so those are linked instead.
const MAX_EMBEDDED_SCREENSHOT_BYTES = 300 * 1024;
// 3 screenshots: a run where every repeat failed the same way needs one or two pictures, not ten.
const MAX_EMBEDDED_SCREENSHOTS = 3;

/**
 * A file a run file names: as written (relative to the folder perf ran in), else the same name beside
 * the run file (the run folder was moved or copied, or perf report runs from elsewhere).
 */
function locate(named: string, runFile: string): string | undefined {
  const beside = join(dirname(runFile), basename(named));
  if (existsSync(beside)) return beside;
  return existsSync(named) ? named : undefined;
}

/** A link from the report to `target`, relative so the pair can be moved together. */
function hrefFrom(reportFile: string, target: string): string {
  return relative(dirname(reportFile), target).split(sep).map(encodeURIComponent).join('/');
}

/** Every frame of the measured window in a saved trace (between perf_begin's and perf_end's marks). */
export function timelineFromTrace(file: string): FrameTimeline['frames'] | undefined {
  try {
    // The same bound as a run file: a trace past it is not one perf run saved.
    if (statSync(file).size > MAX_RUN_FILE_BYTES) return undefined;
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as { traceEvents?: unknown };
    const events = Array.isArray(parsed.traceEvents) ? (parsed.traceEvents as TraceEvent[]) : [];
    const marks = (name: string): number[] => events.filter((ev) => ev.name === name && typeof ev.ts === 'number').map((ev) => ev.ts / 1000);
    const begin = Math.min(...marks(BEGIN_MARK));
    const end = Math.max(...marks(END_MARK));
    if (!Number.isFinite(begin) || !Number.isFinite(end) || end <= begin) return undefined;
    const pids = pageRendererPids({ events, dataLoss: false, rendererPid: undefined, mainFrameId: '', bytes: 0 });
    const stats = parseTraceFrames(events, pids, { startAt: begin, endAt: end }, 0);
    return stats?.frames.map((f) => ({ atMs: f.startAt - begin, ms: f.durationMs, state: f.state }));
  } catch {
    // A trace is evidence, not a result: an unreadable one leaves the timeline to the run file's worst frames.
    return undefined;
  }
}

/** What the HTML report of `run` (read from `runFile`, rendered to `reportFile`) shows beside it. */
export function htmlRunContext(run: RunFile, runFile: string, reportFile: string, cwd = process.cwd()): HtmlRunContext {
  const ctx: HtmlRunContext = { source: relative(cwd, runFile) || runFile };
  const traces: NonNullable<HtmlRunContext['traces']> = [];
  const timelines: FrameTimeline[] = [];
  for (const which of ['median', 'slowest'] as const) {
    const t = run.traces?.[which];
    if (!t) continue;
    const found = locate(t.path, runFile);
    if (!found) continue;
    traces.push({ which, repeat: t.repeat, href: hrefFrom(reportFile, found) });
    if (timelines.some((x) => x.repeat === t.repeat)) continue;
    const frames = timelineFromTrace(found);
    if (frames) timelines.push({ which, repeat: t.repeat, frames });
  }
  if (traces.length) ctx.traces = traces;
  if (timelines.length) ctx.timelines = timelines;
  const screenshots: Record<number, string> = {};
  let embedded = 0;
  for (const r of run.repeats) {
    if (r.status !== 'failed' || !r.failure.screenshot) continue;
    const found = locate(r.failure.screenshot, runFile);
    if (!found) continue;
    const size = statSync(found).size;
    if (/\.png$/i.test(found) && size <= MAX_EMBEDDED_SCREENSHOT_BYTES && embedded < MAX_EMBEDDED_SCREENSHOTS) {
      screenshots[r.index] = `data:image/png;base64,${readFileSync(found).toString('base64')}`;
      embedded++;
    } else {
      screenshots[r.index] = hrefFrom(reportFile, found);
    }
  }
  if (Object.keys(screenshots).length) ctx.screenshots = screenshots;
  return ctx;
}

/** Render and write the run report; returns the path written (default: beside the run file, `.html`). */
export function writeHtmlRunReport(run: RunFile, runFile: string, out = reportPathFor(runFile, htmlReporter)): string {
  ensureDir(dirname(out), 'the HTML report');
  writeFileAtomic(out, htmlReporter.renderRun(run, { html: { run: htmlRunContext(run, runFile, out) } }));
  return out;
}

/** Where a compare report goes by default: beside the candidate, `<candidate>.compare.html`. */
export function compareReportPath(candidateFile: string): string {
  return reportPathFor(candidateFile, { fileExtension: 'compare.html' });
}

/** Render and write the compare (or gate) report of baseline `a` against candidate `b`; returns the path. */
export function writeHtmlCompareReport(result: CompareReport, a: { run: RunFile; file: string }, b: { run: RunFile; file: string }, out = compareReportPath(b.file)): string {
  ensureDir(dirname(out), 'the HTML report');
  const html = htmlReporter.renderCompare(result, { a: a.run, b: b.run }, { html: { a: htmlRunContext(a.run, a.file, out), b: htmlRunContext(b.run, b.file, out) } });
  writeFileAtomic(out, html);
  return out;
}
