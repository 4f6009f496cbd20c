/**
 * tauri_invoke: call a Tauri app's command through its IPC (`window.__TAURI_INTERNALS__.invoke`, the
 * entry point `@tauri-apps/api`'s invoke() uses), as the app's own frontend would. For desktop apps
 * only; a page without Tauri's IPC is refused with the reason.
 */
import { PerfError } from '../errors.js';
import { defineStep } from './define.js';
import { MAX_VALUE_CHARS } from './evaluate.js';

type InvokeOutcome = { kind: 'missing' } | { kind: 'rejected'; error: string } | { kind: 'value'; value: unknown };

function invokeSource(command: string, args: Record<string, unknown>): string {
  return `(async () => {
    const ipc = window.__TAURI_INTERNALS__;
    if (!ipc || typeof ipc.invoke !== 'function') return { kind: 'missing' };
    try {
      const value = await ipc.invoke(${JSON.stringify(command)}, ${JSON.stringify(args)});
      return { kind: 'value', value: value === undefined ? null : value };
    } catch (e) {
      return { kind: 'rejected', error: typeof e === 'string' ? e : (e && e.message) || JSON.stringify(e) };
    }
  })()`;
}

export const tauriInvoke = defineStep({
  name: 'tauri_invoke',
  description: "Call a Tauri app's command over its IPC; returns {value}.",
  details:
    'Desktop apps only (app.desktop). Like invoke(command, args) in @tauri-apps/api; ' +
    'a rejected command fails with tauri_invoke_failed and its message.',
  args: {
    type: 'object',
    properties: {
      command: { type: 'string', minLength: 1, description: 'Command name.' },
      args: { type: 'object', description: 'Its arguments (camelCase keys).' },
    },
    required: ['command'],
  } as const,
  readOnly: false,
  desktopOnly: true,
  shorthand: (command) => ({ command }),
  async run(ctx, args) {
    const out = await ctx.page.evaluate<InvokeOutcome>(invokeSource(args.command, (args.args ?? {}) as Record<string, unknown>), {
      timeoutMs: ctx.timeoutMs,
    });
    switch (out.kind) {
      case 'missing':
        throw new PerfError({
          code: 'tauri_missing',
          kind: 'failed',
          message: "this page has no Tauri IPC (window.__TAURI_INTERNALS__.invoke): it is not a Tauri app's window",
          suggestion: 'tauri_invoke drives a Tauri app: start it with app.desktop, driver tauri',
        });
      case 'rejected':
        throw new PerfError({
          code: 'tauri_invoke_failed',
          kind: 'failed',
          message: `command ${args.command} failed: ${out.error.slice(0, 500)}`,
        });
      case 'value': {
        const json = JSON.stringify(out.value) ?? 'null';
        if (json.length > MAX_VALUE_CHARS)
          return {
            data: {
              value: json.slice(0, MAX_VALUE_CHARS),
              truncated: `the JSON value is ${json.length} characters; only the first ${MAX_VALUE_CHARS} are returned (as a string)`,
            },
          };
        return { data: { value: out.value } };
      }
    }
  },
});
