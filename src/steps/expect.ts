import { locatorOf, remaining } from '../page/index.js';
import { PerfError } from '../errors.js';
import { TARGET_ARGS, defineStep } from './define.js';
import { terminalExpect } from './terminal.js';
import { scenarioOnly } from '../page/index.js';

const ARGS = {
  type: 'object',
  properties: {
    ...TARGET_ARGS,
    visible: { type: 'boolean', description: 'Has a non-empty box (false: hidden or absent).' },
    // The same as visible: false; MCP lists that one way.
    hidden: scenarioOnly({ type: 'boolean', description: 'No element matches, or it is not visible.' } as const),
    text: { type: 'string', description: "Its text (a field's value) equals this, whitespace collapsed." },
    textContains: { type: 'string', description: 'Its text contains this, ignoring case.' },
    value: { type: 'string', description: "The control's value equals this (<select>: value or label)." },
    checked: { type: 'boolean', description: 'A checkbox, radio or switch is checked (or not: false).' },
    count: { type: 'integer', minimum: 0, description: 'Exactly this many elements match (not strict).' },
    url: { type: 'string', description: 'Page URL equals this URL, or path (+ query) on this origin.' },
    cursor: scenarioOnly({
      type: 'object',
      properties: {
        row: { type: 'integer', minimum: 0, description: 'Row from 0.' },
        col: { type: 'integer', minimum: 0, description: 'Column from 0.' },
      },
      required: ['row', 'col'],
      additionalProperties: false,
      description: 'Terminal only: the cursor is at this cell.',
    } as const),
  },
  additionalProperties: false,
} as const;

const ASSERTIONS = ['visible', 'hidden', 'text', 'textContains', 'value', 'checked', 'count', 'url'] as const;

export const expect = defineStep({
  name: 'expect',
  description: 'Assert ref/target or the page, polling until all given assertions hold; failures show expected vs actual.',
  details:
    'Assertions: visible, hidden, text, textContains, value, checked, count (of ref/target), url; several in one ' +
    'step must all hold. Polls until timeoutMs (default 5000). A failure is an assertion failure (exit 1).',
  args: ARGS,
  readOnly: true,
  shorthand: (text) => ({ target: { text }, visible: true }),
  terminal: (ctx, args) => terminalExpect(ctx, args),
  async run(ctx, args) {
    if (args.cursor !== undefined)
      throw new PerfError({
        code: 'invalid_arguments',
        message: 'expect: cursor is for terminal programs (app.terminal)',
        suggestion: 'on a page, check focus with a target',
      });
    const given = ASSERTIONS.filter((k) => args[k] !== undefined);
    if (given.length === 0)
      throw new PerfError({ code: 'invalid_arguments', message: `expect: give at least one assertion: ${ASSERTIONS.join(', ')}` });
    const hasLocator = args.ref !== undefined || args.target !== undefined;
    const needsLocator = given.filter((k) => k !== 'url');
    if (needsLocator.length && !hasLocator)
      throw new PerfError({
        code: 'invalid_arguments',
        message: `expect: ${needsLocator.join(', ')} need ref or target (the element to check)`,
      });
    const spec: Record<string, unknown> = {};
    for (const k of given) spec[k] = args[k];
    if (hasLocator) spec.locator = locatorOf('expect', args);
    const t0 = Date.now();
    const wait = remaining(ctx);
    const r = await ctx.page.call('expect', [spec, wait], { awaitPromise: true, timeoutMs: wait + 2000 });
    if (r.invalid) throw new PerfError({ code: 'invalid_target', kind: 'usage', message: `expect: ${r.invalid}` });
    if (!r.pass) {
      const parts = r.failures.map(
        (f) =>
          `${f.check}: expected ${JSON.stringify(f.expected)}, got ` +
          `${typeof f.actual === 'string' && /^(no element|element|visible:)/.test(f.actual) ? f.actual : JSON.stringify(f.actual)}`,
      );
      throw new PerfError({
        code: 'expect_failed',
        kind: 'failed',
        message: `expect failed after ${Date.now() - t0} ms: ${parts.join('; ')}`,
        suggestion: 'snap to see the page as it is; raise timeoutMs if the state arrives later',
      });
    }
    return { data: { passed: true, assertions: given, waitedMs: r.waitedMs } };
  },
});
