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
  description:
    "Write the last closed perf session's Chromium trace as Chrome Trace Event JSON ({traceEvents: [...]}; open it in ui.perfetto.dev or the DevTools Performance panel) to `out`, a path inside the working folder. Refuses to replace an existing file unless overwrite is true. Returns {path, events, bytes, dataLoss, token}; dataLoss true means the trace buffer overflowed and events were lost.",
  args: {
    type: 'object',
    properties: {
      out: { type: 'string', minLength: 1, description: 'File to write, relative to the working folder (must stay inside it), e.g. build/perf/trace.json.' },
      token: { type: 'string', description: 'sessionToken of the session (from perf_end); refused when it is not the last closed one. Default: the last closed session.' },
      overwrite: { type: 'boolean', description: 'Replace the file if it exists. Default false: an existing file is an error.' },
    },
    required: ['out'],
    additionalProperties: false,
  } as const,
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
