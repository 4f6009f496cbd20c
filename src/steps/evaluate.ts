/**
 * evaluate: run one JavaScript expression in the page and return its JSON value. It can do
 * anything the page can, so it is not read-only (and the MCP server denies it unless allowed).
 */
import type { Protocol } from 'devtools-protocol';
import { ProtocolError } from '../drivers/cdp/browser.js';
import { PerfError } from '../errors.js';
import { defineStep } from './define.js';

const OBJECT_GROUP = 'rehearse-evaluate';
// 20 ms: termination lands a few ms after the deadline timer; anything this close counts as "ran out".
const TERMINATION_SLACK_MS = 20;

function throwIfException(d: Protocol.Runtime.ExceptionDetails | undefined): void {
  if (!d) return;
  const text = String(d.exception?.description ?? d.exception?.value ?? d.text);
  const lines = text.split('\n');
  throw new PerfError({
    code: 'evaluate_failed',
    kind: 'failed',
    message: `evaluate: the expression threw: ${lines[0]}`,
    suggestion: lines.length > 1 ? lines.slice(1, 4).map((l) => l.trim()).join(' | ') : 'check the expression in the DevTools console',
  });
}

// 256 KiB of JSON: a generous result for an agent, a quarter of the MCP response cap (1 MiB).
const MAX_VALUE_CHARS = 256 * 1024;

export const evaluate = defineStep({
  name: 'evaluate',
  description:
    'Evaluate one JavaScript expression in the page (top-level await allowed; a returned promise is awaited) and return {value} as JSON. ' +
    'Values that are not JSON (DOM nodes, functions) come back as their type and description. A thrown exception fails the step with evaluate_failed.',
  args: {
    type: 'object',
    properties: {
      expression: { type: 'string', minLength: 1, description: 'A JavaScript expression, e.g. "document.title" or "await fetch(\'/api\').then(r => r.status)".' },
    },
    required: ['expression'],
  } as const,
  readOnly: false,
  shorthand: (expression) => ({ expression }),
  async run(ctx, args) {
    const { page } = ctx;
    try {
      const res = await page
        .send('Runtime.evaluate', {
        expression: args.expression,
        // replMode: top-level await and re-declarable let, as in the DevTools console. It awaits the
        // script itself, not a promise the expression evaluates to: that one is awaited below.
        replMode: true,
        awaitPromise: true,
        userGesture: true,
        objectGroup: OBJECT_GROUP,
        // Terminates a synchronous runaway (while (true) {}) at the deadline, so the page stays usable.
        timeout: Math.max(1, ctx.deadline - Date.now()),
        })
        .catch((e: unknown) => {
          if (!(e instanceof ProtocolError)) throw e;
          // Chromium answers a terminated script with a bare "Internal error".
          const ranOut = Date.now() >= ctx.deadline - TERMINATION_SLACK_MS;
          throw new PerfError({
            code: ranOut ? 'timeout' : 'evaluate_failed',
            kind: 'failed',
            message: ranOut ? `evaluate: the expression was still running after ${ctx.timeoutMs} ms and was stopped` : `evaluate: ${e.message}`,
            suggestion: ranOut ? 'raise timeoutMs, or look for an endless loop' : 'check the expression in the DevTools console',
            cause: e,
          });
        });
      throwIfException(res.exceptionDetails);
      let r = res.result;
      if (r.subtype === 'promise' && r.objectId) {
        const settled = await page.send('Runtime.awaitPromise', { promiseObjectId: r.objectId, returnByValue: false });
        throwIfException(settled.exceptionDetails);
        r = settled.result;
      }
      // A DOM node or a function has no JSON form: say what it is instead.
      if (r.subtype === 'node' || r.type === 'function' || r.type === 'symbol') {
        return { data: { value: null, type: r.subtype ?? r.type, ...(r.description ? { description: r.description } : {}) } };
      }
      if (r.type === 'undefined') return { data: { value: null, type: 'undefined' } };
      let value: unknown = r.unserializableValue ?? r.value;
      if (r.objectId) {
        const byValue = await page.send('Runtime.callFunctionOn', { functionDeclaration: 'function () { return this; }', objectId: r.objectId, returnByValue: true });
        throwIfException(byValue.exceptionDetails);
        value = byValue.result.value;
      }
      const json = JSON.stringify(value) ?? 'null';
      if (json.length > MAX_VALUE_CHARS) {
        return {
          data: { value: json.slice(0, MAX_VALUE_CHARS), type: r.subtype ?? r.type, truncated: `the JSON value is ${json.length} characters; only the first ${MAX_VALUE_CHARS} are returned (as a string)` },
        };
      }
      return { data: { value, type: r.subtype ?? r.type } };
    } finally {
      await page.send('Runtime.releaseObjectGroup', { objectGroup: OBJECT_GROUP }).catch(() => undefined);
    }
  },
});
