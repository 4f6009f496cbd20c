/**
 * wait_for: poll the page's visible text until a text appears and/or another one is gone. Running
 * out of time is an answer ({matched: false}), not a failure: the caller decides what it means.
 */
import { PerfError } from '../errors.js';
import { defineStep } from './define.js';

// 50 ms between checks: well under a human-noticeable delay, and each check is one cheap round trip.
const POLL_MS = 50;

interface TextCheck {
  hasText: boolean;
  hasGone: boolean;
}

/**
 * Page-side check, serialised with toString(). Visible text = innerText (skips display:none and
 * visibility:hidden) of the document, of open shadow roots and of same-origin iframes, whitespace
 * collapsed.
 */
function checkText(text: string | null, gone: string | null): TextCheck {
  const parts: string[] = [document.body?.innerText ?? ''];
  const walk = (root: Document | ShadowRoot): void => {
    for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) {
        for (const child of el.shadowRoot.children) if (child instanceof HTMLElement) parts.push(child.innerText);
        walk(el.shadowRoot);
      }
      if (el instanceof HTMLIFrameElement) {
        try {
          const doc = el.contentDocument;
          if (doc?.body) {
            parts.push(doc.body.innerText);
            walk(doc);
          }
        } catch {
          // Cross-origin frame: not ours to read.
        }
      }
    }
  };
  walk(document);
  const all = parts.join('\n').replace(/\s+/g, ' ');
  const norm = (s: string): string => s.replace(/\s+/g, ' ').trim();
  return { hasText: text === null || all.includes(norm(text)), hasGone: gone !== null && all.includes(norm(gone)) };
}

export const waitFor = defineStep({
  name: 'wait_for',
  family: 'wait',
  description:
    "Wait until a text is visible on the page (text) and/or a text is no longer visible (textGone), polling the page's visible text including open shadow roots and same-origin iframes. " +
    'A timeout is a normal answer {matched: false, waitedMs}, not a failure.',
  args: {
    type: 'object',
    properties: {
      text: { type: 'string', minLength: 1, description: 'Wait until this text is visible: a case-sensitive substring of the visible text, whitespace collapsed.' },
      textGone: { type: 'string', minLength: 1, description: 'Wait until this text is no longer visible (case-sensitive substring, whitespace collapsed).' },
    },
  } as const,
  readOnly: true,
  shorthand: (text) => ({ text }),
  async run(ctx, args) {
    if (args.text === undefined && args.textGone === undefined) {
      throw new PerfError({ code: 'invalid_arguments', message: 'wait_for: give text, textGone or both', suggestion: 'e.g. wait_for: { text: "Saved" }' });
    }
    const expr = `(${checkText.toString()})(${JSON.stringify(args.text ?? null)}, ${JSON.stringify(args.textGone ?? null)})`;
    const started = Date.now();
    for (;;) {
      // A navigation in progress destroys the execution context: that check counts as "not yet".
      const check = await ctx.page.evaluate<TextCheck>(expr, { timeoutMs: Math.max(POLL_MS, ctx.deadline - Date.now()) }).catch(() => undefined);
      const waitedMs = Date.now() - started;
      if (check && check.hasText && !check.hasGone) return { data: { matched: true, waitedMs } };
      if (Date.now() + POLL_MS > ctx.deadline || ctx.signal.aborted) {
        return {
          data: {
            matched: false,
            waitedMs,
            // Which condition is still unmet, for a caller deciding what to do next.
            ...(check && args.text !== undefined ? { textVisible: check.hasText } : {}),
            ...(check && args.textGone !== undefined ? { textGoneStillVisible: check.hasGone } : {}),
          },
        };
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  },
});
