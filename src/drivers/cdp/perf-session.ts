/**
 * One perf session on a page: what perf_begin switches on and perf_end reads back and switches off.
 * Sources (each independent, each reported in coverage as read or missing):
 *   - counters: Performance.getMetrics deltas (checkpointed on a measured navigation);
 *   - probe: Event Timing / LoAF / layout-shift observers in the page (perf-page.ts), plus a rAF
 *     frame counter only when the trace could not be started;
 *   - trace: Chromium tracing, frame pipeline events (trace.ts, frames.ts): frames and liveness;
 *   - profile: a sampling CPU profile, attribution mode only (Profiler domain);
 *   - memory: the heap and DOM counters after a forced GC, before the window opens and after it closed.
 * A failing source never fails the session: it is marked missing with the reason.
 */
import { randomBytes } from 'node:crypto';
import type { Page } from './browser.js';
import {
  markSource,
  PERF_BINDING,
  nextFrameSource,
  perfProbeFlushSource,
  perfProbeSource,
  perfProbeStopSource,
  type ProbeFlush,
  ProbeReadings,
} from '../runtime/perf-probe.js';
import { TraceRecorder } from './trace.js';
import { collectGarbage } from './heap.js';
import {
  BEGIN_MARK,
  END_MARK,
  type Checkpoint,
  type CpuProfile,
  type MemoryReading,
  type MissingReasons,
  checkBeginOptions,
  type PerfBeginOptions,
  type PerfMode,
  type PerfRecorder,
  type ProbeSupport,
  type RawSession,
  type SessionEnv,
  type SessionMark,
} from '../measure.js';

// 100 µs: a 16.7 ms frame gets ~160 samples, enough to rank the functions inside one frame, while
// V8's sampler stays at a few % of CPU (the default 1 ms would give ~16 samples per frame: too coarse).
export const SAMPLING_INTERVAL_US = 100;
// The flush waits two frames at most 200 ms; more than this means the renderer is stuck.
const PROBE_FLUSH_TIMEOUT_MS = 5000;
// The wait for the next frames is capped at 250 ms in the page; eight times that means the renderer is stuck.
const NEXT_FRAME_TIMEOUT_MS = 2000;
export class PerfSession implements PerfRecorder {
  private readonly probe: ProbeReadings;
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
  private memoryStart: { reading: MemoryReading; gcMs: number } | undefined;
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
    this.probe = new ProbeReadings(token);
  }

  get mode(): PerfMode {
    return this.opts.mode;
  }

  /** DevTools' categories: asked for (a load), or with phases (the window's detail was asked for: INP, forced reflow). */
  private get devtools(): boolean {
    return this.opts.devtools === true || this.opts.phases;
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
    const attribution = this.opts.mode === 'attribution';
    // First, before anything is switched on: the collection is then in no counter, trace or profile. One collection:
    // the start's V8 figure (all that memory.heapGrowthAfterGcBytes reads of it) is the same after one or two.
    if (this.opts.memory !== false)
      this.memoryStart = await readMemory(page, 1).catch((e: unknown) => {
        this.missing.memory = `reading the heap after GC failed: ${(e as Error).message}`;
        return undefined;
      });
    this.offs.push(
      page.on('Runtime.bindingCalled', (p) => {
        if (p.name === PERF_BINDING) this.onProbeMessage(p.payload);
      }),
    );
    // The switches below are independent of each other: sent together they cost one round trip, not
    // one each. Every one is settled before anything throws, so dispose() sees all that got switched on.
    // The frame tree tells which frameStartedLoading is the main document's (a measured navigation).
    const mainFrameId = page.send('Page.getFrameTree').then(({ frameTree }) => {
      this.watchNavigations(frameTree.frame.id);
      return frameTree.frame.id;
    });
    const switches = await Promise.allSettled([
      mainFrameId,
      page.send('Runtime.addBinding', { name: PERF_BINDING }),
      page.send('Performance.enable', { timeDomain: 'timeTicks' }).then(
        () => {
          this.performanceEnabled = true;
        },
        (e: unknown) => {
          this.missing.counters = `Performance.enable failed: ${(e as Error).message}`;
        },
      ),
      attribution
        ? (async () => {
            try {
              await page.send('Profiler.enable');
              await page.send('Profiler.setSamplingInterval', { interval: SAMPLING_INTERVAL_US });
            } catch (e) {
              this.missing.profile = `Profiler.enable failed: ${(e as Error).message}`;
            }
          })()
        : undefined,
      TraceRecorder.start(page, { phases: this.opts.phases, devtools: this.devtools, sources: !attribution, mainFrameId }).then(
        (trace) => {
          this.trace = trace;
        },
        (e: unknown) => {
          this.missing.trace = `Tracing.start failed: ${(e as Error).message}`;
        },
      ),
    ]);
    throwFirstRejection(switches);
    // The renderer runs one session's commands in the order they are sent, so these go out together
    // (one round trip) and still run in the order that matters: the baseline checkpoint, the probe, the
    // begin mark (in the trace: Tracing.start was acknowledged above), then the profiler, last so its
    // samples cover the measured steps, not our own set-up.
    const checkpointed = this.performanceEnabled ? this.checkpoint() : undefined;
    const since = Date.now();
    const source = perfProbeSource(this.token, since, this.trace === undefined);
    const added = page.send('Page.addScriptToEvaluateOnNewDocument', { source });
    const installed = page.evaluate(source);
    const marked = markInPage(page, BEGIN_MARK);
    const profilerStarted = attribution && !this.missing.profile ? page.send('Profiler.start') : undefined;
    const [checkpoint, script, probe, mark, profiler] = await Promise.allSettled([checkpointed, added, installed, marked, profilerStarted]);
    if (script.status === 'fulfilled') this.probeScriptId = script.value.identifier;
    if (profilerStarted) {
      if (profiler.status === 'fulfilled') this.profiling = true;
      else this.missing.profile = `Profiler.start failed: ${(profiler.reason as Error).message}`;
    }
    throwFirstRejection([checkpoint, script, probe]);
    // Without the mark the clock falls back to Performance.getMetrics' Timestamp.
    if (mark.status === 'fulfilled') this.addMark({ name: BEGIN_MARK, at: mark.value });
    // The window is the measured steps: our own set-up above is not in it.
    this.startedAt = Date.now();
    this.t0 = performance.now();
  }

  private watchNavigations(mainFrameId: string): void {
    const page = this.page;
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
  }

  private onProbeMessage(payload: string): void {
    if (!this.closed) this.probe.take(payload);
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
    // The frame that shows the last input's result belongs to the window (a stuck page is read as it is).
    await page.evaluate(nextFrameSource(), { timeoutMs: NEXT_FRAME_TIMEOUT_MS }).catch(() => undefined);
    // The window closes now: what follows is reading, not the page's work.
    const endedAt = Date.now();
    const durationMs = performance.now() - this.t0;
    // The renderer runs one session's commands in the order sent, so these go out together and still
    // run in order. The profile stops first: what follows (mark, flush, metrics) is our work, not the page's.
    const stopped = this.profiling ? page.send('Profiler.stop') : undefined;
    // In the trace too: the renderer that hosts the page at the end (a navigation may have moved it).
    const marked = markInPage(page, END_MARK);
    const flushed = page.evaluate<ProbeFlush | null>(perfProbeFlushSource(this.token), { timeoutMs: PROBE_FLUSH_TIMEOUT_MS });
    let support: ProbeSupport | undefined;
    // Taken in as soon as it arrives: what the binding delivers later stays after it, as before.
    const probed = flushed.then(
      (flush) => {
        if (flush) {
          if (!this.closed) this.probe.takeFlush(flush);
          support = flush.support;
        } else {
          this.probeMissing = 'the in-page probe is gone (the document changed and the new one did not run it)';
        }
      },
      (e: unknown) => {
        this.probeMissing = `could not read the in-page probe: ${(e as Error).message}`;
      },
    );
    // After the flush, as before (its two frames count), and after a navigation's checkpoint still in
    // flight, so checkpoints stay in time order.
    const counted = probed.then(() => this.pendingCheckpoint).then(() => (this.performanceEnabled ? this.checkpoint() : undefined));
    // After the final checkpoint, as before: its page-side reads stay out of the counters.
    const envRead = counted.catch(() => undefined).then(() => readEnv(page));
    // Not before the flush's two frames either: a frame that began inside the window is written to the
    // trace only once presented, so an earlier Tracing.end would lose the window's last frames.
    const recorder = this.trace;
    this.trace = undefined;
    const traced = recorder ? Promise.all([marked.catch(() => undefined), probed]).then(() => recorder.stop()) : undefined;
    const [profiled, mark, checkpoint, env, trace] = await Promise.allSettled([stopped, marked, counted, envRead, traced, probed]);
    let profile: CpuProfile | undefined;
    if (stopped) {
      if (profiled.status === 'fulfilled') profile = profiled.value?.profile;
      else this.missing.profile = `Profiler.stop failed: ${(profiled.reason as Error).message}`;
      this.profiling = false;
    }
    // Without the end mark the begin mark alone still aligns the clocks.
    if (mark.status === 'fulfilled') this.addMark({ name: END_MARK, at: mark.value });
    if (checkpoint.status === 'rejected') this.missing.counters = `Performance.getMetrics failed: ${(checkpoint.reason as Error).message}`;
    if (trace.status === 'rejected') this.missing.trace = `reading the trace failed: ${(trace.reason as Error).message}`;
    // Last, once the profile, the counters and the trace are read: the collection is in none of them.
    const memory = await this.readEndMemory();
    this.closed = true;
    await this.dispose();
    return {
      token: this.token,
      mode: this.opts.mode,
      phases: this.opts.phases,
      ...(this.devtools ? { devtools: true } : {}),
      startedAt: this.startedAt,
      endedAt,
      durationMs,
      checkpoints: this.checkpoints,
      messages: this.probe.messages,
      docFrames: this.probe.docFrames,
      interactionCount: this.probe.interactionCount,
      ...(this.probe.shown !== undefined ? { pageShown: this.probe.shown } : {}),
      support,
      probeMissing: this.probeMissing,
      trace: trace.status === 'fulfilled' ? trace.value : undefined,
      profile,
      samplingIntervalUs: this.opts.mode === 'attribution' ? SAMPLING_INTERVAL_US : undefined,
      marks: this.marks,
      navigations: this.navigations,
      missing: this.missing,
      ...(memory ? { memory } : {}),
      env:
        env.status === 'fulfilled'
          ? env.value
          : {
              browser: 'unknown',
              userAgent: '',
              headless: true,
              viewport: { width: 0, height: 0, dpr: 1, mobile: false },
              cpuThrottle: page.emulation.cpuThrottlingRate ?? 1,
              cpuThrottleSource: page.emulation.cpuThrottlingRate === undefined ? 'default' : 'acknowledged',
              url: '',
            },
    };
  }

  private async readEndMemory(): Promise<RawSession['memory']> {
    const start = this.memoryStart;
    if (!start) return undefined;
    try {
      const end = await readMemory(this.page, 2);
      return { start: start.reading, end: end.reading, gcMs: start.gcMs + end.gcMs };
    } catch (e) {
      this.missing.memory = `reading the heap after GC failed: ${(e as Error).message}`;
      return undefined;
    }
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

/** Rethrow the first failure, in the order given (once every promise has settled). */
function throwFirstRejection(results: readonly PromiseSettledResult<unknown>[]): void {
  for (const r of results) if (r.status === 'rejected') throw r.reason;
}

async function readEnv(page: Page): Promise<SessionEnv> {
  const v = page.browser.version;
  const view = await page.evaluate<{ width: number; height: number; dpr: number; mobile: boolean; url: string }>(
    `({ width: innerWidth, height: innerHeight, dpr: devicePixelRatio, mobile: matchMedia('(pointer: ` +
      `coarse)').matches && 'ontouchstart' in window, url: location.href })`,
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

/**
 * A full garbage collection, then the JS heap and the DOM counters: what stays alive, not what garbage
 * happened to be uncollected. HeapProfiler.collectGarbage needs no HeapProfiler.enable (Chromium 156).
 */
async function readMemory(page: Page, collections: 1 | 2): Promise<{ reading: MemoryReading; gcMs: number }> {
  const t0 = performance.now();
  await collectGarbage(page);
  // A second collection: after one, Blink's heap still holds what the first freed only on V8's side (the leaks
  // fixture's fixed page, Chromium 156: one GC read 360–647 KB over 4 reads, two read 351–352 KB in 12 of 12). V8's
  // figure is the same after either; the second costs what the first did (~10–20 ms there).
  if (collections === 2) await collectGarbage(page);
  const [heap, dom] = await Promise.all([page.send('Runtime.getHeapUsage'), page.send('Memory.getDOMCounters')]);
  // Chromium 156 adds embedderHeapUsedSize, newer than the protocol types here.
  const blink = (heap as { embedderHeapUsedSize?: unknown }).embedderHeapUsedSize;
  return {
    reading: {
      heapUsedBytes: heap.usedSize,
      ...(typeof blink === 'number' ? { blinkHeapUsedBytes: blink } : {}),
      documents: dom.documents,
      nodes: dom.nodes,
      jsEventListeners: dom.jsEventListeners,
    },
    gcMs: performance.now() - t0,
  };
}

/** A user-timing mark in the page; its epoch time. */
export function markInPage(page: Page, name: string): Promise<number> {
  return page.evaluate<number>(markSource(name));
}
