/**
 * wait_for: poll the page's visible text until a text appears and/or another one is gone. Running
 * out of time is an answer ({matched: false}), not a failure: the caller decides what it means.
 */
import { PerfError } from '../errors.js';
import { defineStep } from './define.js';
import { terminalWaitFor } from './terminal.js';
import { scenarioOnly } from '../page/index.js';

// 50 ms between checks: well under a human-noticeable delay, and each check is one cheap round trip.
const POLL_MS = 50;

export const waitFor = defineStep({
  name: 'wait_for',
  description: 'Wait until text shows and/or textGone goes; a timeout fails naming the unmet condition.',
  details:
    "Polls the page's visible text, including open shadow roots and same-origin iframes. A timeout fails " +
    'in a scenario (setup or steps) as in MCP: a setup that never reached its state must not be measured.',
  args: {
    type: 'object',
    properties: {
      text: { type: 'string', minLength: 1, description: 'Visible substring to wait for (case-sensitive, whitespace collapsed).' },
      textGone: { type: 'string', minLength: 1, description: 'Substring to wait to vanish (case-sensitive).' },
      idleMs: scenarioOnly({
        type: 'integer',
        minimum: 1,
        maximum: 60_000,
        description: 'Terminal only: until the program wrote nothing for this long, ms (after text/textGone when given).',
      } as const),
    },
  } as const,
  readOnly: true,
  shorthand: (text) => ({ text }),
  terminal: (ctx, args) => terminalWaitFor(ctx, args),
  async run(ctx, args) {
    if (args.idleMs !== undefined)
      throw new PerfError({
        code: 'invalid_arguments',
        message: 'wait_for: idleMs is for terminal programs (app.terminal); a page has no output stream',
        suggestion: 'use text, textGone, or wait_for_network_idle',
      });
    if (args.text === undefined && args.textGone === undefined) {
      throw new PerfError({
        code: 'invalid_arguments',
        message: 'wait_for: give text, textGone or both',
        suggestion: 'e.g. wait_for: { text: "Saved" }',
      });
    }
    const started = Date.now();
    for (;;) {
      // A navigation in progress destroys the execution context: that check counts as "not yet".
      const check = await ctx.page
        .call('visibleText', [args.text ?? null, args.textGone ?? null], { timeoutMs: Math.max(POLL_MS, ctx.deadline - Date.now()) })
        .catch(() => undefined);
      const waitedMs = Date.now() - started;
      if (check && check.hasText && !check.hasGone) return { data: { matched: true, waitedMs } };
      if (Date.now() + POLL_MS > ctx.deadline || ctx.signal.aborted) {
        // Which condition is still unmet, read from the last check (none: the page never answered).
        const unmet = [
          args.text !== undefined && !(check?.hasText ?? false) ? `"${args.text}" is not visible` : null,
          args.textGone !== undefined && (check?.hasGone ?? true) ? `"${args.textGone}" is still visible` : null,
        ].filter((x): x is string => x !== null);
        throw new PerfError({
          code: 'wait_timeout',
          kind: 'failed',
          message: `wait_for: after ${waitedMs} ms ${unmet.join(' and ') || 'the page did not answer'}`,
          suggestion: 'the text is a case-sensitive substring of the visible text; check it with snap { grep }, or raise timeoutMs',
        });
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  },
});
