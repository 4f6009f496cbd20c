/**
 * One perf session on a page: what perf_begin switches on and perf_end reads back and switches off.
 * Sources (each independent, each reported in coverage as read or missing):
 *   - counters: Performance.getMetrics deltas (checkpointed on a measured navigation);
 *   - probe: Event Timing / LoAF / layout-shift observers in the page (perf-page.ts), plus a rAF
 *     frame counter only when the trace could not be started;
 *   - trace: Chromium tracing, frame pipeline events (trace.ts, frames.ts): frames and liveness;
 *   - profile: a sampling CPU profile, attribution mode only (Profiler domain).
 * A failing source never fails the session: it is marked missing with the reason.
 */
import { randomBytes } from 'node:crypto';
import type { Protocol } from 'devtools-protocol';
import type { Page } from '../drivers/cdp/browser.js';
import { markInPage, PERF_BINDING, perfProbeFlushSource, perfProbeSource, perfProbeStopSource, type ProbeFrames, type ProbeMessage, type ProbeSupport } from '../drivers/cdp/perf-page.js';
import { PerfError } from '../errors.js';
import { TraceRecorder, type TraceResult } from './trace.js';

export type PerfMode = 'timing' | 'attribution';

export interface PerfBeginOptions {
  mode: PerfMode;
  /** Layout/paint detail in the trace (attribution only). */
  phases: boolean;
}

/** A user-timing mark placed by the `mark` step during the session. */
export interface SessionMark {
  name: string;
  /** Epoch ms. */
  at: number;
}

export type SourceName = 'frames' | 'liveness' | 'interactions' | 'longFrames' | 'counters' | 'layoutShift' | 'profile' | 'trace';

/** Why a source is missing (kept out of the flat coverage map, which only says read / missing). */
export type MissingReasons = Partial<Record<SourceName, string>>;

export interface Checkpoint {
  /** Epoch ms. */
  at: number;
  values: Record<string, number>;
}

/** Everything a closed session read, before it is turned into a report. */
export interface RawSession {
  token: string;
  mode: PerfMode;
  phases: boolean;
  /** Epoch ms. */
  startedAt: number;
  endedAt: number;
  durationMs: number;
  checkpoints: Checkpoint[];
  messages: ProbeMessage[];
  /** rAF counters, one per document the session saw (only when the trace is missing). */
  docFrames: ProbeFrames[];
  /** All interactions (performance.interactionCount), summed over the documents; null if unsupported. */
  interactionCount: number | null;
  support: ProbeSupport | undefined;
  /** Why the in-page probe could not be read, if it could not. */
  probeMissing: string | undefined;
  trace: TraceResult | undefined;
  profile: Protocol.Profiler.Profile | undefined;
  /** Profiler sampling interval actually requested, µs. */
  samplingIntervalUs: number | undefined;
  marks: SessionMark[];
  navigations: number;
  missing: MissingReasons;
  env: SessionEnv;
}

export interface SessionEnv {
  browser: string;
  userAgent: string;
  headless: boolean;
  viewport: { width: number; height: number; dpr: number; mobile: boolean };
  /**
   * CPU throttling rate in effect: the rate this page's target acknowledged (Emulation.setCPUThrottlingRate
   * through Page.send; Chromium has no getter), else 1, the state of a target nobody throttled.
   */
  cpuThrottle: number;
  cpuThrottleSource: 'acknowledged' | 'default';
  url: string;
}

// 100 µs: a 16.7 ms frame gets ~160 samples, enough to rank the functions inside one frame, while
// V8's sampler stays at a few % of CPU (the default 1 ms would give ~16 samples per frame: too coarse).
export const SAMPLING_INTERVAL_US = 100;
// The flush waits two frames at most 200 ms; more than this means the renderer is stuck.
const PROBE_FLUSH_TIMEOUT_MS = 5000;
/** Marks the session places in the page (and so in the trace): they tie the trace clock to epoch time. */
export const BEGIN_MARK = 'rehearse:perf_begin';
export const END_MARK = 'rehearse:perf_end';

const COUNTER_METRICS = ['LayoutCount', 'RecalcStyleCount', 'LayoutDuration', 'RecalcStyleDuration', 'ScriptDuration', 'TaskDuration'] as const;
const GAUGE_METRICS = ['JSHeapUsedSize', 'Nodes'] as const;

export class PerfSession {
  readonly messages: ProbeMessage[] = [];
  readonly docFrames: ProbeFrames[] = [];
  readonly marks: SessionMark[] = [];
  readonly checkpoints: Checkpoint[] = [];
  readonly missing: MissingReasons = {};
  private readonly offs: (() => void)[] = [];
  private probeScriptId: string | undefined;
  private trace: TraceRecorder | undefined;
  private profiling = false;
  private performanceEnabled = false;
  private navigations = 0;
  private pendingCheckpoint: Promise<void> | undefined;
  private closed = false;
  private probeMissing: string | undefined;
  private interactionCount: number | null = null;
  private t0: number;
  /** Epoch ms when the measured window opened: everything switched on, perf_begin about to return. */
  startedAt: number;

  private constructor(
    readonly page: Page,
    readonly token: string,
    readonly opts: PerfBeginOptions,
  ) {
    this.startedAt = Date.now();
    this.t0 = performance.now();
  }

  get mode(): PerfMode {
    return this.opts.mode;
  }

  /** Switch every source on. On failure, what was already switched on is switched off again. */
  static async begin(page: Page, opts: PerfBeginOptions): Promise<PerfSession> {
    checkBeginOptions(opts);
    const s = new PerfSession(page, `ps-${randomBytes(4).toString('hex')}`, opts);
    try {
      await s.start();
    } catch (e) {
      await s.dispose();
      throw e;
    }
    return s;
  }

  private async start(): Promise<void> {
    const page = this.page;
    this.offs.push(
      page.on('Runtime.bindingCalled', (p) => {
        if (p.name === PERF_BINDING) this.onProbeMessage(p.payload);
      }),
    );
    // The frame tree tells which frameStartedLoading is the main document's (a measured navigation).
    const { frameTree } = await page.send('Page.getFrameTree');
    const mainFrameId = frameTree.frame.id;
    this.offs.push(
      page.on('Page.frameStartedLoading', (p) => {
        if (p.frameId !== mainFrameId || this.closed) return;
        this.navigations++;
        // Per-document counters restart with the new document: read the old one's while it lives.
        this.pendingCheckpoint = this.checkpoint().catch(() => undefined);
      }),
      // Without Runtime.enable (which would stream every console call while measuring) a binding
      // reaches only the documents that exist when it is added: add it again to each new one.
      page.on('Page.frameNavigated', (p) => {
        if (p.frame.parentId || p.frame.id !== mainFrameId || this.closed) return;
        page.send('Runtime.addBinding', { name: PERF_BINDING }).catch(() => undefined);
      }),
    );
    await Promise.all([
      page.send('Performance.enable', { timeDomain: 'timeTicks' }).then(
        () => {
          this.performanceEnabled = true;
        },
        (e: unknown) => {
          this.missing.counters = `Performance.enable failed: ${(e as Error).message}`;
        },
      ),
      page.send('Runtime.addBinding', { name: PERF_BINDING }),
    ]);
    if (this.opts.mode === 'attribution') {
      try {
        await page.send('Profiler.enable');
        await page.send('Profiler.setSamplingInterval', { interval: SAMPLING_INTERVAL_US });
      } catch (e) {
        this.missing.profile = `Profiler.enable failed: ${(e as Error).message}`;
      }
    }
    try {
      this.trace = await TraceRecorder.start(page, { phases: this.opts.phases });
    } catch (e) {
      this.missing.trace = `Tracing.start failed: ${(e as Error).message}`;
    }
    if (this.performanceEnabled) await this.checkpoint();
    const since = Date.now();
    const source = perfProbeSource(this.token, since, this.trace === undefined);
    const [added] = await Promise.all([page.send('Page.addScriptToEvaluateOnNewDocument', { source }), page.evaluate(source)]);
    this.probeScriptId = added.identifier;
    try {
      this.addMark({ name: BEGIN_MARK, at: await markInPage(page, BEGIN_MARK) });
    } catch {
      /* without it the clock falls back to Performance.getMetrics' Timestamp */
    }
    // Started last so its samples cover the measured steps, not our own set-up.
    if (this.opts.mode === 'attribution' && !this.missing.profile) {
      try {
        await page.send('Profiler.start');
        this.profiling = true;
      } catch (e) {
        this.missing.profile = `Profiler.start failed: ${(e as Error).message}`;
      }
    }
    // The window is the measured steps: our own set-up above is not in it.
    this.startedAt = Date.now();
    this.t0 = performance.now();
  }

  private onProbeMessage(payload: string): void {
    let msg: ProbeMessage;
    try {
      msg = JSON.parse(payload) as ProbeMessage;
    } catch {
      return;
    }
    if (msg.token !== this.token || this.closed) return;
    if (msg.kind === 'docEnd') {
      if (msg.frames) this.docFrames.push(msg.frames);
      if (msg.interactionCount !== null) this.interactionCount = (this.interactionCount ?? 0) + msg.interactionCount;
    } else this.messages.push(msg);
  }

  private async checkpoint(): Promise<void> {
    const { metrics } = await this.page.send('Performance.getMetrics');
    const values: Record<string, number> = {};
    for (const m of metrics) values[m.name] = m.value;
    this.checkpoints.push({ at: Date.now(), values });
  }

  addMark(mark: SessionMark): void {
    this.marks.push(mark);
  }

  /** Read every source, switch everything off, return what was read. */
  async end(): Promise<RawSession> {
    const page = this.page;
    // The window closes now: what follows is reading, not the page's work.
    const endedAt = Date.now();
    const durationMs = performance.now() - this.t0;
    // The profile first: what follows (flush, metrics, trace I/O) is our work, not the page's.
    let profile: Protocol.Profiler.Profile | undefined;
    if (this.profiling) {
      try {
        profile = (await page.send('Profiler.stop')).profile;
      } catch (e) {
        this.missing.profile = `Profiler.stop failed: ${(e as Error).message}`;
      }
      this.profiling = false;
    }
    let support: ProbeSupport | undefined;
    try {
      const flushed = await page.evaluate<{ doc: string; end: Record<string, unknown>; support: ProbeSupport; queued: string[] } | null>(perfProbeFlushSource(this.token), { timeoutMs: PROBE_FLUSH_TIMEOUT_MS });
      if (flushed) {
        for (const q of flushed.queued) this.onProbeMessage(q);
        this.onProbeMessage(JSON.stringify({ ...flushed.end, token: this.token, doc: flushed.doc }));
        support = flushed.support;
      } else {
        this.probeMissing = 'the in-page probe is gone (the document changed and the new one did not run it)';
      }
    } catch (e) {
      this.probeMissing = `could not read the in-page probe: ${(e as Error).message}`;
    }
    try {
      // In the trace too: the renderer that hosts the page at the end (a navigation may have moved it).
      this.addMark({ name: END_MARK, at: await markInPage(page, END_MARK) });
    } catch {
      /* the begin mark alone still aligns the clocks */
    }
    await this.pendingCheckpoint;
    if (this.performanceEnabled) {
      try {
        await this.checkpoint();
      } catch (e) {
        this.missing.counters = `Performance.getMetrics failed: ${(e as Error).message}`;
      }
    }
    let trace: TraceResult | undefined;
    if (this.trace) {
      try {
        trace = await this.trace.stop();
      } catch (e) {
        this.missing.trace = `reading the trace failed: ${(e as Error).message}`;
      }
      this.trace = undefined;
    }
    const env = await readEnv(page).catch(() => undefined);
    this.closed = true;
    await this.dispose();
    return {
      token: this.token,
      mode: this.opts.mode,
      phases: this.opts.phases,
      startedAt: this.startedAt,
      endedAt,
      durationMs,
      checkpoints: this.checkpoints,
      messages: this.messages,
      docFrames: this.docFrames,
      interactionCount: this.interactionCount,
      support,
      probeMissing: this.probeMissing,
      trace,
      profile,
      samplingIntervalUs: this.opts.mode === 'attribution' ? SAMPLING_INTERVAL_US : undefined,
      marks: this.marks,
      navigations: this.navigations,
      missing: this.missing,
      env: env ?? { browser: 'unknown', userAgent: '', headless: true, viewport: { width: 0, height: 0, dpr: 1, mobile: false }, cpuThrottle: page.emulation.cpuThrottlingRate ?? 1, cpuThrottleSource: page.emulation.cpuThrottlingRate === undefined ? 'default' : 'acknowledged', url: '' },
    };
  }

  /**
   * Switch off whatever this session switched on (also used when a perf_begin replaces an open
   * session, and when begin fails half way). Best effort: the page may be gone.
   */
  async dispose(): Promise<void> {
    this.closed = true;
    for (const off of this.offs.splice(0)) off();
    const page = this.page;
    if (page.crashReason || page.isClosed) return;
    const quiet = (p: Promise<unknown>): Promise<unknown> => p.catch(() => undefined);
    const tasks: Promise<unknown>[] = [];
    if (this.profiling) tasks.push(quiet(page.send('Profiler.stop')));
    this.profiling = false;
    if (this.opts.mode === 'attribution') tasks.push(quiet(page.send('Profiler.disable')));
    if (this.trace) tasks.push(quiet(this.trace.discard()));
    this.trace = undefined;
    if (this.performanceEnabled) tasks.push(quiet(page.send('Performance.disable')));
    this.performanceEnabled = false;
    if (this.probeScriptId) tasks.push(quiet(page.send('Page.removeScriptToEvaluateOnNewDocument', { identifier: this.probeScriptId })));
    this.probeScriptId = undefined;
    tasks.push(quiet(page.evaluate(perfProbeStopSource(this.token))), quiet(page.send('Runtime.removeBinding', { name: PERF_BINDING })));
    await Promise.all(tasks);
  }
}

/** Refuse option combinations before anything is switched on (or an open session is replaced). */
export function checkBeginOptions(opts: PerfBeginOptions): void {
  if (opts.phases && opts.mode === 'timing') {
    throw new PerfError({
      code: 'phases_need_attribution',
      message: 'perf_begin: phases (layout/paint detail) needs mode attribution; timing mode keeps its milliseconds comparable by recording nothing extra',
      suggestion: 'use perf_begin { mode: attribution, phases: true }, or drop phases',
    });
  }
}

/** Counter deltas over the checkpoints: a value that went down restarted with a new document. */
export function counterDeltas(checkpoints: readonly Checkpoint[]): Record<string, number> | undefined {
  const first = checkpoints[0];
  const last = checkpoints[checkpoints.length - 1];
  if (!first || !last || checkpoints.length < 2) return undefined;
  const out: Record<string, number> = {};
  for (const name of COUNTER_METRICS) {
    let sum = 0;
    for (let i = 1; i < checkpoints.length; i++) {
      const a = checkpoints[i - 1]!.values[name] ?? 0;
      const b = checkpoints[i]!.values[name] ?? 0;
      sum += b >= a ? b - a : b;
    }
    out[name] = sum;
  }
  for (const name of GAUGE_METRICS) out[name] = (last.values[name] ?? 0) - (first.values[name] ?? 0);
  return out;
}

async function readEnv(page: Page): Promise<SessionEnv> {
  const v = page.browser.version;
  const view = await page.evaluate<{ width: number; height: number; dpr: number; mobile: boolean; url: string }>(
    `({ width: innerWidth, height: innerHeight, dpr: devicePixelRatio, mobile: matchMedia('(pointer: coarse)').matches && 'ontouchstart' in window, url: location.href })`,
  );
  return {
    browser: v.product,
    userAgent: v.userAgent,
    headless: /Headless/i.test(v.product) || /HeadlessChrome/.test(v.userAgent),
    viewport: { width: view.width, height: view.height, dpr: view.dpr, mobile: view.mobile },
    cpuThrottle: page.emulation.cpuThrottlingRate ?? 1,
    cpuThrottleSource: page.emulation.cpuThrottlingRate === undefined ? 'default' : 'acknowledged',
    url: view.url,
  };
}
