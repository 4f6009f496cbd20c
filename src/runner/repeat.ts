/**
 * One repeat, on whatever browser (RepeatBrowser) the driver opened: clean restart onto the app page,
 * setup, then perf_begin → steps → perf_end. A failed step fails only its repeat.
 */
import { join } from 'node:path';
import { ensurePrivateDir, SECRET_FILE_MODE, writeFileAtomic } from '../files.js';
import type { SessionHost } from '../engine/host.js';
import { runStep, toErrorInfo, type StepErrorInfo, type StepResult } from '../engine/run-step.js';
import { PerfError } from '../errors.js';
import {
  BEGIN_TIMEOUT_MS,
  END_TIMEOUT_MS,
  BLANK_TIMEOUT_MS,
  beginMeasure,
  endMeasure,
  loadOptions,
  measureLoad,
  withinMs,
} from '../perf/measure.js';
import { repeatAttribution } from '../perf/attribution.js';
import { serializeCast, serializeTrace, type ClosedSession, type TerminalCast } from '../perf/state.js';
import type { Insight } from '../perf/insights.js';
import {
  MAX_WATERFALL_REQUESTS,
  type PerfReportRecord,
  type RepeatBase,
  type RepeatRecord,
  type RepeatStepRecord,
} from '../perf/run-file.js';
import type { LoadRequest } from '../drivers/measure.js';
import type { Scenario, StepCall } from '../scenario/load.js';
import { redactChunks, redactText } from '../scenario/redact.js';
import { HostSampler } from './host-speed.js';
import type { RepeatBrowser, RepeatContext } from './repeat-browser.js';

export async function runRepeatOn(browser: RepeatBrowser, host: SessionHost, sc: Scenario, rc: RepeatContext): Promise<RepeatRecord> {
  const t0 = performance.now();
  const hostSampler = new HostSampler(browser.ownsProcesses);
  const steps: RepeatStepRecord[] = [];
  const phasesMs: NonNullable<RepeatRecord['phasesMs']> = {};
  let lap = t0;
  const mark = (phase: keyof typeof phasesMs): void => {
    const now = performance.now();
    phasesMs[phase] = now - lap;
    lap = now;
  };
  const common = { index: rc.index, mode: rc.mode, warmup: rc.warmup, steps, phasesMs };
  const failed = failer(browser, rc, { t0, hostSampler, common });

  // 1. Clean restart, emulation, the app page (a blank page when the app's opening is measured cold).
  const load = sc.measure === 'load';
  try {
    await openAppPage(browser, host, load && sc.cache === 'cold' ? { ...rc, url: BLANK } : rc, mark);
    mark('open');
  } catch (e) {
    return failed('restart', toErrorInfo(e));
  }

  const run = async (phase: 'setup' | 'steps', call: StepCall, i: number): Promise<StepResult> => {
    rc.onStep(phase, String(call.args.label ?? `${i}-${call.name}`));
    const r = await runStep(host, call.name, call.args, { index: i, validated: true, ...(rc.signal ? { signal: rc.signal } : {}) });
    steps.push({
      phase,
      step: r.step,
      label: r.label,
      status: r.status,
      durationMs: r.durationMs,
      ...(r.status !== 'ok' ? { error: r.error } : {}),
      ...(r.status === 'ok' && r.warnings?.length ? { warnings: r.warnings } : {}),
    });
    return r;
  };

  // 2. Setup: not measured.
  for (let i = 0; i < sc.setup.length; i++) {
    const call = sc.setup[i]!;
    const r = await run('setup', call, i);
    if (r.status === 'failed') return failed('setup', r.error, call, r.label);
  }

  // A warm load: the app opened once (the cache is filled, setup ran); the measured load starts from a blank page.
  if (load && sc.cache === 'warm') {
    const left = await host
      .page()
      .then((p) => p.navigation.navigate(BLANK, BLANK_TIMEOUT_MS))
      .then(() => undefined, toErrorInfo);
    if (left) return failed('setup', left);
  }

  // 3. The measured window. Nothing of ours may run in the background during it.
  await browser.settle();
  mark('setup');
  // Just before the window, after the settle: the host as the measured steps will find it. Its cost is
  // its own phase (`host`), so what it adds to a repeat is on record.
  hostSampler.calibrate();
  mark('host');
  try {
    await beginWindow(host, rc, load);
  } catch (e) {
    return failed('measure', toErrorInfo(e));
  }
  mark('begin');
  if (load) {
    const opened = await openMeasuredLoad(host, sc, rc);
    if (opened) return failed('measure', opened);
  }
  for (let i = 0; i < sc.steps.length; i++) {
    const call = sc.steps[i]!;
    const r = await run('steps', call, i);
    if (r.status === 'failed') {
      // Close the session so the next repeat starts without a half-open profiler or trace.
      await withinMs('perf_end', END_TIMEOUT_MS, endMeasure(host)).catch(() => undefined);
      return failed('steps', r.error, call, r.label);
    }
  }
  mark('steps');
  const end = await withinMs('perf_end', END_TIMEOUT_MS, endMeasure(host)).then(
    (v) => ({ ok: v }),
    (e: unknown) => ({ error: toErrorInfo(e) }),
  );
  mark('end');
  browser.windowEnded(rc);
  if ('error' in end) return failed('measure', end.error);
  const { closed } = end.ok;
  const hostRecord = hostSampler.finish();
  if (rc.traceDir) saveRepeatTrace(closed, rc.traceDir, rc.index, sc.secrets);
  return measuredRecord(rc, end.ok, { ...common, ...(hostRecord ? { host: hostRecord } : {}), wallMs: performance.now() - t0 });
}

/**
 * Open the repeat's measured window. DevTools' categories and the forced GCs of memory.* on the attribution repeats
 * only: a timing repeat stays lean (a CDP run with timing repeats always has attribution ones, but a bisect's 'only'
 * midpoints, which follow ms alone).
 */
async function beginWindow(host: SessionHost, rc: RepeatContext, load: boolean): Promise<void> {
  const attribution = rc.mode === 'attribution';
  await withinMs(
    'perf_begin',
    BEGIN_TIMEOUT_MS,
    (host.surface() === 'terminal' ? host.terminal() : host.page().then((page) => page.perf)).then((on) =>
      beginMeasure(host, on, { mode: rc.mode, phases: false, devtools: load && attribution, memory: attribution }),
    ),
  );
}

type Phase = 'restart' | 'setup' | 'steps' | 'measure';

/** The record of a repeat that failed in `phase`, with a screenshot of the page where there is one. */
function failer(
  browser: RepeatBrowser,
  rc: RepeatContext,
  at: { t0: number; hostSampler: HostSampler; common: Omit<RepeatBase, 'wallMs'> },
): (phase: Phase, error: StepErrorInfo, step?: StepCall, label?: string) => Promise<RepeatRecord> {
  return async (phase, error, step, label) => {
    const screenshot = phase === 'restart' ? undefined : await failureScreenshot(browser, rc);
    const hostRecord = at.hostSampler.finish();
    const where = { phase, ...(step ? { step: step.name } : {}), ...(label ? { label } : {}) };
    const failure = { ...where, error, ...(screenshot ? { screenshot } : {}) };
    return { ...at.common, ...(hostRecord ? { host: hostRecord } : {}), wallMs: performance.now() - at.t0, status: 'failed', failure };
  };
}

const BLANK = 'about:blank';

/** The app's opening as the window's start (`measure: load`): the error that fails the repeat, or undefined. */
async function openMeasuredLoad(host: SessionHost, sc: Scenario, rc: RepeatContext): Promise<StepErrorInfo | undefined> {
  const close = (): Promise<unknown> => withinMs('perf_end', END_TIMEOUT_MS, endMeasure(host)).catch(() => undefined);
  try {
    const page = await host.page();
    const load = await measureLoad(host, page.perf, rc.url, loadOptions(sc.cache, sc.loadQuietMs));
    if (load.status >= 400) {
      throw new PerfError({ code: 'app_http_error', kind: 'failed', message: `the app answered HTTP ${load.status} for ${rc.url}` });
    }
    return undefined;
  } catch (e) {
    // Close the session so the next repeat starts without a half-open profiler or trace.
    await close();
    return toErrorInfo(e);
  }
}

/** Restart clean onto the app page (throws to fail the repeat's restart). */
async function openAppPage(browser: RepeatBrowser, host: SessionHost, rc: RepeatContext, mark: (phase: 'restart') => void): Promise<void> {
  await browser.open(rc, mark);
  // An app answering its start page with an error page is not the app under test: say so instead
  // of measuring the error page (Navigation Timing's responseStatus, Chromium 109+; 0 when unknown).
  const status =
    host.surface() === 'terminal'
      ? 0
      : await (await host.page()).evaluate<number>("performance.getEntriesByType('navigation')[0]?.responseStatus ?? 0").catch(() => 0);
  if (status >= 400) {
    throw new PerfError({
      code: 'app_http_error',
      kind: 'failed',
      message: `the app answered HTTP ${status} for ${rc.url}`,
    });
  }
}

/** The record of a repeat whose window closed: measured, or refused with the reason. */
function measuredRecord(
  rc: RepeatContext,
  end: Awaited<ReturnType<typeof endMeasure>>,
  measured: Omit<Extract<RepeatRecord, { status: 'measured' }>, 'status' | 'report'>,
): RepeatRecord {
  const { report, closed, raw } = end;
  // Where the main thread went, for compare to name the cause of a change: in the run file only, not in
  // perf_end's reply (bounded to 6 KB).
  const attribution = rc.mode === 'attribution' && !report.refused ? repeatAttribution(raw) : undefined;
  const insights = withRows(report.insights, closed.details);
  // The waterfall (the HTML report draws the median repeat's) is in the run file only: perf_end's reply has the top requests.
  const load = report.load && raw.load ? { ...report.load, requests: waterfall(raw.load.requests) } : undefined;
  const record: PerfReportRecord = { ...report, insights, ...(attribution ? { attribution } : {}), ...(load ? { load } : {}) };
  const reason = report.reason ?? 'the page rendered nothing during the measured window';
  if (report.refused) return { ...measured, status: 'refused', reason, report: record };
  return { ...measured, status: 'measured', report: record };
}

/** The first requests by start time, as many as a run file keeps. */
function waterfall(requests: readonly LoadRequest[]): LoadRequest[] {
  return [...requests].sort((a, b) => a.startMs - b.startMs).slice(0, MAX_WATERFALL_REQUESTS);
}

/**
 * Keep this repeat's trace (a page's Chrome trace, a terminal's asciicast recording) on disk until
 * the run knows which repeats are the median and the slowest.
 */
function saveRepeatTrace(closed: ClosedSession, dir: string, index: number, secrets: Scenario['secrets']): void {
  try {
    if (!closed.trace && !closed.cast) return;
    // A trace holds the page's URLs and requests, a recording every byte the terminal showed: secrets, in a
    // 0700 folder that is no link. Atomic: a full disk leaves no truncated trace behind.
    ensurePrivateDir(dir, 'perf run');
    const secret = { who: 'perf run', mode: SECRET_FILE_MODE };
    if (closed.trace) writeFileAtomic(join(dir, `repeat${index}.json`), redactText(serializeTrace(closed, closed.trace), secrets), secret);
    else if (closed.cast)
      writeFileAtomic(join(dir, `repeat${index}.cast`), serializeCast(closed, redactCast(closed.cast, secrets)), secret);
  } catch {
    // A trace is evidence, not a result: a repeat without one is still measured.
  }
}

// Ten rows: the worst frames or functions an insight ranks first; the rest is perf_insight's, in a session.
const INSIGHT_ROWS_MAX = 10;

/** Each insight with the first rows behind it, so a report shows them without a session. */
function withRows(
  insights: readonly Insight[],
  details: ClosedSession['details'],
): (Insight & { rows?: Record<string, unknown>[]; rowsTotal?: number })[] {
  return insights.map((i) => {
    const rows = details.get(i.id)?.rows ?? [];
    return rows.length
      ? { ...i, rows: rows.slice(0, INSIGHT_ROWS_MAX), ...(rows.length > INSIGHT_ROWS_MAX ? { rowsTotal: rows.length } : {}) }
      : i;
  });
}

/** A recording with the secrets out of what was typed and of what the program echoed, each as one stream. */
function redactCast(cast: TerminalCast, secrets: Scenario['secrets']): TerminalCast {
  if (secrets.length === 0) return cast;
  const events = cast.events.map((e) => [...e] as typeof e);
  for (const code of ['i', 'o'] as const) {
    const mine = events.filter((e) => e[1] === code);
    redactChunks(
      mine.map((e) => e[2]),
      secrets,
    ).forEach((text, i) => {
      mine[i]![2] = text;
    });
  }
  return { ...cast, events };
}

async function failureScreenshot(browser: RepeatBrowser, rc: RepeatContext): Promise<string | undefined> {
  try {
    const png = await browser.screenshot();
    if (!png) return undefined;
    const file = join(rc.outDir, `${rc.base}-repeat${rc.index}-failure.png`);
    writeFileAtomic(file, png);
    return file;
  } catch {
    return undefined;
  }
}
