/**
 * perf_trace: write the last closed perf session's trace, inside the working folder: on a page the
 * Chrome Trace Event JSON ({traceEvents: [...]}, opens in Perfetto and DevTools); on a terminal the
 * window's asciicast v2 recording (plays in `perf replay` and asciinema).
 */
import { PerfError } from '../errors.js';
import { confinedPath, SECRET_FILE_MODE, writeFileNoFollow } from '../files.js';
import { lastSession, serializeCast, serializeTrace } from '../perf/state.js';
import { defineStep, type StepHost } from './define.js';

// Serialising and writing a trace of tens of MB takes a few seconds on a slow disk.
const TRACE_WRITE_TIMEOUT_MS = 30_000;

/** `body` to `out` (relative to and inside the working folder); its absolute path. A secret (0600), as perf run's traces. */
async function writeInside(host: StepHost, out: string, body: string, overwrite: boolean | undefined): Promise<string> {
  const file = await confinedPath(host.cwd, out, 'perf_trace');
  writeFileNoFollow(file, body, { overwrite: overwrite === true, who: 'perf_trace', shown: out, mode: SECRET_FILE_MODE });
  return file;
}

export const perfTrace = defineStep({
  name: 'perf_trace',
  description:
    "Write the last closed perf session's Chromium trace as JSON to out, for ui.perfetto.dev or DevTools; " +
    'on a terminal, an asciicast v2 recording (perf replay FILE). Returns {path, events, bytes, dataLoss}.',
  details:
    'Chrome Trace Event JSON ({traceEvents: [...]}), openable in ui.perfetto.dev or the DevTools Performance panel; on a ' +
    'terminal program, the window as asciicast v2 (the screen when it opened, then every output and input with its time; `perf ' +
    'replay FILE` or `asciinema play` plays it). out is a path inside the working folder, <sessionToken>.json (.cast on a ' +
    'terminal) by default. Refuses to replace an existing file unless overwrite is true. Also returns token; dataLoss true ' +
    'means the trace buffer overflowed and events were lost; on a terminal, ' +
    'cut says where the recording stopped at its byte cap.',
  args: {
    type: 'object',
    properties: {
      out: {
        type: 'string',
        minLength: 1,
        description: 'File to write, relative to (and inside) the working folder. Default <token>.json (.cast on a terminal).',
      },
      token: { type: 'string', description: 'sessionToken from perf_end (only the last closed session, the default).' },
      overwrite: { type: 'boolean', description: 'Replace an existing file. Default false: error.' },
    },
    additionalProperties: false,
  } as const,
  needs: ['trace'],
  readOnly: true,
  writesFiles: true,
  defaultTimeoutMs: TRACE_WRITE_TIMEOUT_MS,
  shorthand: (out) => ({ out }),
  terminal: async (ctx, args) => {
    const last = lastSession(ctx.host, 'perf_trace', args.token);
    if (!last.cast) {
      throw new PerfError({
        code: 'no_trace',
        kind: 'environment',
        message: `perf_trace: session ${last.token} has no terminal recording (it was not measured on this terminal program)`,
        suggestion: 'measure again: perf_begin, the steps, perf_end; then perf_trace',
      });
    }
    const body = serializeCast(last, last.cast);
    const file = await writeInside(ctx.host, args.out ?? `${last.token}.cast`, body, args.overwrite);
    const cut = last.cast.cut;
    return {
      data: { path: file, events: last.cast.events.length, bytes: Buffer.byteLength(body), token: last.token, ...(cut ? { cut } : {}) },
      ...(cut
        ? {
            warnings: [
              `the recording reached its ${Math.round(cut.maxBytes / 1024 / 1024)} MB cap ` +
                `at ${cut.atS} s: the ${cut.droppedEvents} events after were left out`,
            ],
          }
        : {}),
    };
  },
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
    const body = serializeTrace(last, last.trace);
    const file = await writeInside(ctx.host, args.out ?? `${last.token}.json`, body, args.overwrite);
    return {
      data: {
        path: file,
        events: last.trace.events.length,
        bytes: Buffer.byteLength(body),
        dataLoss: last.trace.dataLoss,
        token: last.token,
      },
      ...(last.trace.dataLoss ? { warnings: ['the trace buffer overflowed during the session: some events were lost'] } : {}),
    };
  },
});
