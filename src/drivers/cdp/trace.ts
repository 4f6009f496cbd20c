/**
 * Chromium tracing for a perf session: started on perf_begin with a lean category list, returned as a
 * stream on perf_end and read with IO.read (no event flood over the WebSocket while measuring).
 */
import type { Page } from './browser.js';
import { PerfError } from '../../errors.js';
import type { TraceEvent, TraceResult } from '../measure.js';

/**
 * Lean: what frames (PipelineReporter), main-thread work (devtools.timeline), user timing, page load
 * and input latency need. No `toplevel` (every scheduler task: ~10x the events for nothing we read),
 * no invalidation tracking, no JS sampling (the Profiler domain does that, in attribution mode only).
 */
export const TRACE_CATEGORIES = [
  'devtools.timeline',
  'disabled-by-default-devtools.timeline.frame',
  'blink.user_timing',
  'loading',
  'latencyInfo',
] as const;
/** Added with `phases`: paint and layer detail, and layout/style invalidation reasons. */
export const PHASE_CATEGORIES = [
  'disabled-by-default-devtools.timeline',
  'disabled-by-default-devtools.timeline.layers',
  'disabled-by-default-devtools.timeline.invalidationTracking',
  'blink',
  'cc',
] as const;

/**
 * Added for DevTools' insight engine (a load's RenderBlocking, CLSCulprits, FontDisplay, ForcedReflow…): what the
 * Performance panel and chrome-devtools-mcp record, less screenshots. Invalidation tracking names a shift's unsized
 * image, the stacks and V8's sampler name the function that forced a layout, v8.execute the scripts' evaluation.
 */
export const DEVTOOLS_CATEGORIES = [
  'disabled-by-default-devtools.timeline',
  'disabled-by-default-devtools.timeline.invalidationTracking',
  'disabled-by-default-devtools.timeline.stack',
  'disabled-by-default-v8.cpu_profiler',
  'v8.execute',
  'blink.console',
] as const;

/**
 * Added with DevTools' categories where no Profiler domain samples the page (perf_load's timing window): the scripts'
 * sources, which LegacyJavaScript reads (and DuplicatedJavaScript, with source maps). Not beside Profiler.start:
 * Chromium 156's renderer died at the start of both attribution repeats of Swagger UI's load that recorded them.
 */
export const SOURCE_CATEGORIES = [
  'disabled-by-default-devtools.v8-source-rundown',
  'disabled-by-default-devtools.v8-source-rundown-sources',
] as const;

// 64 MB of trace buffer: a minute of lean categories uses a few MB; phases can use tens.
const TRACE_BUFFER_KB = 64 * 1024;
// 1 MB chunks keep the number of IO.read round trips small without holding huge strings per message;
// bigger ones read no faster (a 4 MB trace: ~20 ms per MB either way, the cost is bytes, not round trips).
const IO_READ_CHUNK_BYTES = 1 << 20;
// Flushing the trace buffers of every process can take a while on a loaded machine.
const TRACE_COMPLETE_TIMEOUT_MS = 30_000;

export class TraceRecorder {
  private mainFrameId = '';

  private constructor(private readonly page: Page) {}

  /**
   * `mainFrameId` may still be in flight: Tracing.start is handled by the browser process, so it need
   * not wait behind a renderer that is slow to answer Page.getFrameTree (a page still laying out).
   */
  static async start(
    page: Page,
    opts: { phases: boolean; devtools: boolean; sources: boolean; mainFrameId: Promise<string> },
  ): Promise<TraceRecorder> {
    const categories = new Set<string>([
      ...TRACE_CATEGORIES,
      ...(opts.phases ? PHASE_CATEGORIES : []),
      ...(opts.devtools ? DEVTOOLS_CATEGORIES : []),
      ...(opts.devtools && opts.sources ? SOURCE_CATEGORIES : []),
    ]);
    await page.send('Tracing.start', {
      transferMode: 'ReturnAsStream',
      streamFormat: 'json',
      traceConfig: {
        recordMode: 'recordUntilFull',
        traceBufferSizeInKb: TRACE_BUFFER_KB,
        includedCategories: [...categories],
        excludedCategories: ['*'],
      },
    });
    const recorder = new TraceRecorder(page);
    try {
      recorder.mainFrameId = await opts.mainFrameId;
    } catch (e) {
      // Nobody will hold this recorder: end tracing here, or the next Tracing.start would be refused.
      await recorder.discard().catch(() => undefined);
      throw e;
    }
    return recorder;
  }

  private async complete(): Promise<{ stream: string | undefined; dataLoss: boolean }> {
    const done = this.page.waitForEvent('Tracing.tracingComplete', () => true, TRACE_COMPLETE_TIMEOUT_MS);
    done.catch(() => undefined);
    await this.page.send('Tracing.end');
    const p = await done;
    return { stream: p.stream, dataLoss: p.dataLossOccurred };
  }

  async stop(): Promise<TraceResult> {
    const { stream, dataLoss } = await this.complete();
    if (!stream) throw new PerfError({ code: 'trace_no_stream', kind: 'environment', message: 'Chromium returned no trace stream' });
    const chunks: string[] = [];
    let bytes = 0;
    try {
      for (;;) {
        const r = await this.page.send('IO.read', { handle: stream, size: IO_READ_CHUNK_BYTES });
        const text = r.base64Encoded ? Buffer.from(r.data, 'base64').toString('utf8') : r.data;
        chunks.push(text);
        bytes += text.length;
        if (r.eof) break;
      }
    } finally {
      // Not awaited: releasing the handle is nothing the caller needs to wait for.
      void this.page.send('IO.close', { handle: stream }).catch(() => undefined);
    }
    const json = chunks.join('');
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch (cause) {
      throw new PerfError({
        code: 'trace_unparsable',
        kind: 'environment',
        message: `the trace Chromium returned is not JSON (${bytes} bytes)`,
        cause,
      });
    }
    const events = (Array.isArray(parsed) ? parsed : ((parsed as { traceEvents?: unknown }).traceEvents ?? [])) as TraceEvent[];
    return { events, dataLoss, bytes, mainFrameId: this.mainFrameId, rendererPid: rendererPidOf(events, this.mainFrameId) };
  }

  /** End tracing and drop the data (a session replaced or abandoned). */
  async discard(): Promise<void> {
    const { stream } = await this.complete();
    if (stream) await this.page.send('IO.close', { handle: stream }).catch(() => undefined);
  }
}

/** The renderer that hosts `frameId`, from the metadata events tracing starts with. */
export function rendererPidOf(events: readonly TraceEvent[], frameId: string): number | undefined {
  for (const e of events) {
    if (e.name !== 'TracingStartedInBrowser' && e.name !== 'TracingSessionIdForWorker') continue;
    const frames = (e.args?.data?.frames ?? []) as Array<{ frame: string; processId?: number }>;
    const f = frames.find((x) => x.frame === frameId);
    if (f?.processId) return f.processId;
  }
  // A renderer that navigated (or committed after start) announces itself with FrameCommittedInBrowser.
  for (const e of events) {
    if (e.name === 'FrameCommittedInBrowser' && e.args?.data?.frame === frameId && e.args.data.processId)
      return e.args.data.processId as number;
  }
  return undefined;
}
