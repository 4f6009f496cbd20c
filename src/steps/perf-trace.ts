/**
 * perf_trace: write the last closed perf session's trace as Chrome Trace Event JSON
 * ({traceEvents: [...]}, opens in Perfetto and DevTools), inside the working folder.
 */
import { PerfError } from '../errors.js';
import { confinedPath, writeFileNoFollow } from '../files.js';
import { lastSession, serializeTrace } from '../perf/state.js';
import { defineStep } from './define.js';

// Serialising and writing a trace of tens of MB takes a few seconds on a slow disk.
const TRACE_WRITE_TIMEOUT_MS = 30_000;

export const perfTrace = defineStep({
  name: 'perf_trace',
  description: "Write the last closed perf session's Chromium trace as JSON to out, for ui.perfetto.dev or DevTools. Returns {path, events, bytes, dataLoss}.",
  details:
    'Chrome Trace Event JSON ({traceEvents: [...]}), openable in ui.perfetto.dev or the DevTools Performance panel; out is a path inside the working folder. Refuses to replace an existing file unless overwrite is true. Also returns token; dataLoss true means the trace buffer overflowed and events were lost.',
  args: {
    type: 'object',
    properties: {
      out: { type: 'string', minLength: 1, description: 'File to write, relative to (and inside) the working folder.' },
      token: { type: 'string', description: 'sessionToken from perf_end; only the last closed session. Default: that one.' },
      overwrite: { type: 'boolean', description: 'Replace an existing file. Default false: error.' },
    },
    required: ['out'],
    additionalProperties: false,
  } as const,
  needs: ['trace'],
  readOnly: true,
  defaultTimeoutMs: TRACE_WRITE_TIMEOUT_MS,
  shorthand: (out) => ({ out }),
  async run(ctx, args) {
    const last = lastSession(ctx.host, 'perf_trace', args.token);
    if (!last.trace) {
      throw new PerfError({
        code: 'no_trace',
        kind: 'environment',
        message: `perf_trace: session ${last.token} has no trace (${last.report.missingReasons.trace ?? 'tracing was not recorded'})`,
        suggestion: "read perf_end's report instead, or measure again",
      });
    }
    const file = await confinedPath(ctx.host.cwd, args.out, 'perf_trace');
    const body = serializeTrace(last, last.trace);
    writeFileNoFollow(file, body, { overwrite: args.overwrite === true, who: 'perf_trace', shown: args.out });
    return {
      data: { path: file, events: last.trace.events.length, bytes: Buffer.byteLength(body), dataLoss: last.trace.dataLoss, token: last.token },
      ...(last.trace.dataLoss ? { warnings: ['the trace buffer overflowed during the session: some events were lost'] } : {}),
    };
  },
});
