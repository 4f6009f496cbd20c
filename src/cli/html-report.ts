/**
 * The I/O around the HTML reporter: what it shows beside the run files (the traces' frame timelines,
 * failure screenshots, links to the traces) is found and read here, so reporters/html.ts stays pure.
 * `perf run`, `perf compare`, `perf gate` and `perf report` write through these functions; a new
 * command that judges runs (e.g. a merge of gate shards) calls writeHtmlRunReport / writeHtmlCompareReport.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, sep } from 'node:path';
import { ensureDir, writeFileAtomic } from '../files.js';
import { BEGIN_MARK, END_MARK, type TraceEvent } from '../drivers/measure.js';
import { MAX_RUN_FILE_BYTES } from '../perf/compare-runs.js';
import { pageRendererPids, parseTraceFrames } from '../perf/frames.js';
import type { RunFile } from '../perf/run-file.js';
import type { CompareReport, FrameTimeline, HtmlRunContext, ScreenshotShown } from '../../reporters/define.js';
import { reportPathFor } from '../../reporters/define.js';
import { htmlReporter } from '../../reporters/html.js';

// 300 KB: a 1280×800 failure screenshot is 50–200 KB; embedding bigger ones would blow the report's
// size for one picture, so those are linked instead.
const MAX_EMBEDDED_SCREENSHOT_BYTES = 300 * 1024;
// 3 screenshots: a run where every repeat failed the same way needs one or two pictures, not ten.
const MAX_EMBEDDED_SCREENSHOTS = 3;
// The run file's own cap: a screenshot or trace past it is not one perf saved beside a run file.
const MAX_BESIDE_BYTES = MAX_RUN_FILE_BYTES;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

type Beside = { status: 'opened'; path: string; fd: number; sizeBytes: number } | { status: 'refused'; why: string };

function isInside(folder: string, p: string): boolean {
  const rel = relative(folder, p);
  return rel === '' || !(rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel));
}

/** `p` opened if its folder's real path is inside `folder` and it is itself a regular file, not a link. */
function openInside(p: string, folder: string): Beside {
  let parent: string;
  try {
    parent = realpathSync(dirname(p));
  } catch {
    return { status: 'refused', why: 'is in a folder that cannot be resolved' };
  }
  if (!isInside(folder, parent)) return { status: 'refused', why: "is outside the run file's folder" };
  let fd: number;
  try {
    // O_NOFOLLOW: a symlink (to /proc/self/environ, a secrets file) is refused, not followed;
    // O_NONBLOCK: a FIFO cannot hold the open.
    fd = openSync(p, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return { status: 'refused', why: code === 'ELOOP' ? 'is a symbolic link' : `cannot be opened (${code ?? 'error'})` };
  }
  const st = fstatSync(fd);
  const tooLarge = `is larger than ${MAX_BESIDE_BYTES / 2 ** 20} MiB`;
  const why = !st.isFile() ? 'is not a regular file' : st.size > MAX_BESIDE_BYTES ? tooLarge : undefined;
  if (why === undefined) return { status: 'opened', path: p, fd, sizeBytes: st.size };
  closeSync(fd);
  return { status: 'refused', why };
}

/**
 * A file a run file names (a failure screenshot, a trace), opened only when it is a regular file inside
 * the run file's folder: the same name beside the run file (the run folder was moved or copied), else
 * the name as written (relative to the folder perf ran in). A run folder someone sent cannot make the
 * report read, embed or link anything else. The caller closes the descriptor.
 */
function openBeside(named: string, runFile: string): Beside {
  let folder: string;
  try {
    folder = realpathSync(dirname(runFile));
  } catch {
    return { status: 'refused', why: "was not looked for: the run file's folder cannot be resolved" };
  }
  let refused: Beside | undefined;
  for (const candidate of [join(dirname(runFile), basename(named)), named]) {
    if (!lstatSync(candidate, { throwIfNoEntry: false })) continue;
    const opened = openInside(candidate, folder);
    if (opened.status === 'opened') return opened;
    refused ??= opened;
  }
  return refused ?? { status: 'refused', why: "was not found in the run file's folder" };
}

/** `sizeBytes` from the start of `fd`. */
function readAll(fd: number, sizeBytes: number): Buffer {
  const buf = Buffer.alloc(sizeBytes);
  let at = 0;
  while (at < sizeBytes) {
    const n = readSync(fd, buf, at, sizeBytes - at, at);
    if (n === 0) break;
    at += n;
  }
  return buf.subarray(0, at);
}

/** A link from the report to `target`, relative so the pair can be moved together. */
function hrefFrom(reportFile: string, target: string): string {
  return relative(dirname(reportFile), target).split(sep).map(encodeURIComponent).join('/');
}

/** Every frame of the measured window in a saved trace (between perf_begin's and perf_end's marks). */
export function timelineFromTrace(text: string): FrameTimeline['frames'] | undefined {
  try {
    const parsed = JSON.parse(text) as { traceEvents?: unknown };
    const events = Array.isArray(parsed.traceEvents) ? (parsed.traceEvents as TraceEvent[]) : [];
    const marks = (name: string): number[] =>
      events.filter((ev) => ev.name === name && typeof ev.ts === 'number').map((ev) => ev.ts / 1000);
    const begin = marks(BEGIN_MARK).reduce((m, x) => Math.min(m, x), Infinity);
    const end = marks(END_MARK).reduce((m, x) => Math.max(m, x), -Infinity);
    if (!Number.isFinite(begin) || !Number.isFinite(end) || end <= begin) return undefined;
    const pids = pageRendererPids({ events, dataLoss: false, rendererPid: undefined, mainFrameId: '', bytes: 0 });
    const stats = parseTraceFrames(events, pids, { startAt: begin, endAt: end }, 0);
    return stats?.frames.map((f) => ({ atMs: f.startAt - begin, ms: f.durationMs, state: f.state }));
  } catch {
    // A trace is evidence, not a result: an unreadable one leaves the timeline to the run file's worst frames.
    return undefined;
  }
}

/** A failed repeat's screenshot: embedded, linked, or not shown and why (a regular PNG file in the run folder only). */
function screenshotOf(named: string, runFile: string, reportFile: string, mayEmbed: boolean): ScreenshotShown {
  const found = openBeside(named, runFile);
  if (found.status === 'refused') return { status: 'not-shown', why: `${named} ${found.why}` };
  try {
    const head = Buffer.alloc(PNG_SIGNATURE.length);
    const isPng = readSync(found.fd, head, 0, head.length, 0) === head.length && head.equals(PNG_SIGNATURE);
    if (!isPng) return { status: 'not-shown', why: `${named} is not a PNG file` };
    if (mayEmbed && found.sizeBytes <= MAX_EMBEDDED_SCREENSHOT_BYTES) {
      return { status: 'embedded', dataUrl: `data:image/png;base64,${readAll(found.fd, found.sizeBytes).toString('base64')}` };
    }
    return { status: 'linked', href: hrefFrom(reportFile, found.path) };
  } finally {
    closeSync(found.fd);
  }
}

/** The saved traces beside the run file: links, and the frame timeline each holds. */
function tracesOf(run: RunFile, runFile: string, reportFile: string): Pick<HtmlRunContext, 'traces' | 'timelines'> {
  const traces: NonNullable<HtmlRunContext['traces']> = [];
  const timelines: FrameTimeline[] = [];
  for (const which of ['median', 'slowest'] as const) {
    const t = run.traces?.[which];
    if (!t) continue;
    const found = openBeside(t.path, runFile);
    if (found.status === 'refused') continue;
    try {
      traces.push({ which, repeat: t.repeat, href: hrefFrom(reportFile, found.path) });
      if (timelines.some((x) => x.repeat === t.repeat)) continue;
      const frames = timelineFromTrace(readAll(found.fd, found.sizeBytes).toString('utf8'));
      if (frames) timelines.push({ which, repeat: t.repeat, frames });
    } finally {
      closeSync(found.fd);
    }
  }
  return { ...(traces.length ? { traces } : {}), ...(timelines.length ? { timelines } : {}) };
}

/** What the HTML report of `run` (read from `runFile`, rendered to `reportFile`) shows beside it. */
export function htmlRunContext(run: RunFile, runFile: string, reportFile: string, cwd = process.cwd()): HtmlRunContext {
  const ctx: HtmlRunContext = { source: relative(cwd, runFile) || runFile, ...tracesOf(run, runFile, reportFile) };
  const screenshots: Record<number, ScreenshotShown> = {};
  let embedded = 0;
  for (const r of run.repeats) {
    if (r.status !== 'failed' || !r.failure.screenshot) continue;
    const shot = screenshotOf(r.failure.screenshot, runFile, reportFile, embedded < MAX_EMBEDDED_SCREENSHOTS);
    if (shot.status === 'embedded') embedded++;
    screenshots[r.index] = shot;
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
export function writeHtmlCompareReport(
  result: CompareReport,
  a: { run: RunFile; file: string },
  b: { run: RunFile; file: string },
  out = compareReportPath(b.file),
): string {
  ensureDir(dirname(out), 'the HTML report');
  const html = htmlReporter.renderCompare(
    result,
    { a: a.run, b: b.run },
    { html: { a: htmlRunContext(a.run, a.file, out), b: htmlRunContext(b.run, b.file, out) } },
  );
  writeFileAtomic(out, html);
  return out;
}
