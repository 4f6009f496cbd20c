/**
 * perf_trace: write the last closed perf session's trace as Chrome Trace Event JSON
 * ({traceEvents: [...]}, opens in Perfetto and DevTools), inside the working folder.
 */
import { mkdir, realpath, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PerfError } from '../errors.js';
import { lastSession, serializeTrace } from '../perf/state.js';
import { defineStep } from './define.js';

// Serialising and writing a trace of tens of MB takes a few seconds on a slow disk.
const TRACE_WRITE_TIMEOUT_MS = 30_000;

/** `out` resolved inside `cwd`, or a usage error: a step must not write outside the working folder. */
export async function insideCwd(cwd: string, out: string, step: string): Promise<string> {
  const root = await realpath(cwd);
  const target = path.resolve(root, out);
  const isOutside = (p: string): boolean => {
    const rel = path.relative(root, p);
    return rel.startsWith('..') || path.isAbsolute(rel);
  };
  if (isOutside(target) || target === root) {
    throw new PerfError({ code: 'path_outside_cwd', message: `${step}: ${out} is outside the working folder ${root}`, suggestion: 'give a relative path such as build/perf/trace.json' });
  }
  // A symlinked folder could still lead outside: check where the nearest existing ancestor really is.
  let existing = path.dirname(target);
  for (;;) {
    try {
      existing = await realpath(existing);
      break;
    } catch {
      existing = path.dirname(existing);
    }
  }
  if (isOutside(existing)) {
    throw new PerfError({ code: 'path_outside_cwd', message: `${step}: ${out} leads outside the working folder ${root} (through a symlink)`, suggestion: 'write to a plain folder inside the working folder' });
  }
  await mkdir(path.dirname(target), { recursive: true });
  return target;
}

export const perfTrace = defineStep({
  name: 'perf_trace',
  family: 'perf',
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
    const file = await insideCwd(ctx.host.cwd, args.out, 'perf_trace');
    const body = serializeTrace(last, last.trace);
    try {
      await writeFile(file, body, { flag: args.overwrite ? 'w' : 'wx' });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') {
        throw new PerfError({ code: 'file_exists', message: `perf_trace: ${args.out} already exists`, suggestion: 'pass overwrite: true to replace it, or choose another out', cause: e });
      }
      throw new PerfError({ code: 'write_failed', kind: 'environment', message: `perf_trace: could not write ${args.out}: ${(e as Error).message}`, cause: e });
    }
    return {
      data: { path: file, events: last.trace.events.length, bytes: Buffer.byteLength(body), dataLoss: last.trace.dataLoss, token: last.token },
      ...(last.trace.dataLoss ? { warnings: ['the trace buffer overflowed during the session: some events were lost'] } : {}),
    };
  },
});
