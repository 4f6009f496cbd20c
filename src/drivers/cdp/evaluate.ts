/**
 * The evaluate step's CDP half: run a user's expression as the DevTools console does (top-level
 * await, a returned promise awaited), stop a runaway at the deadline, and bring the result back as
 * JSON or, when it has no JSON form, as its type and description.
 */
import type { Protocol } from 'devtools-protocol';
import { ProtocolError, type Page } from './browser.js';
import { PerfError } from '../../errors.js';
import type { EvaluateOutcome } from '../page-driver.js';

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
    suggestion:
      lines.length > 1
        ? lines
            .slice(1, 4)
            .map((l) => l.trim())
            .join(' | ')
        : 'check the expression in the DevTools console',
  });
}

/**
 * Evaluate `expression`; PerfError `evaluate_failed` when it throws, `timeout` when it still ran at
 * `deadline` (epoch ms; `timeoutMs` is named in the message).
 */
export async function evaluateExpression(
  page: Page,
  expression: string,
  opts: { deadline: number; timeoutMs: number },
): Promise<EvaluateOutcome> {
  try {
    const res = await page
      .send('Runtime.evaluate', {
        expression,
        // replMode: top-level await and re-declarable let, as in the DevTools console. It awaits the
        // script itself, not a promise the expression evaluates to: that one is awaited below.
        replMode: true,
        awaitPromise: true,
        userGesture: true,
        objectGroup: OBJECT_GROUP,
        // Terminates a synchronous runaway (while (true) {}) at the deadline, so the page stays usable.
        timeout: Math.max(1, opts.deadline - Date.now()),
      })
      .catch((e: unknown) => {
        if (!(e instanceof ProtocolError)) throw e;
        // Chromium answers a terminated script with a bare "Internal error".
        const ranOut = Date.now() >= opts.deadline - TERMINATION_SLACK_MS;
        throw new PerfError({
          code: ranOut ? 'timeout' : 'evaluate_failed',
          kind: 'failed',
          message: ranOut
            ? `evaluate: the expression was still running after ${opts.timeoutMs} ms and was stopped`
            : `evaluate: ${e.message}`,
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
    if (r.subtype === 'node' || r.type === 'function' || r.type === 'symbol')
      return { kind: 'opaque', type: r.subtype ?? r.type, ...(r.description ? { description: r.description } : {}) };
    if (r.type === 'undefined') return { kind: 'undefined' };
    let value: unknown = r.unserializableValue ?? r.value;
    if (r.objectId) {
      const byValue = await page.send('Runtime.callFunctionOn', {
        functionDeclaration: 'function () { return this; }',
        objectId: r.objectId,
        returnByValue: true,
      });
      throwIfException(byValue.exceptionDetails);
      value = byValue.result.value;
    }
    return { kind: 'value', value, type: r.subtype ?? r.type };
  } finally {
    await page.send('Runtime.releaseObjectGroup', { objectGroup: OBJECT_GROUP }).catch(() => undefined);
  }
}
