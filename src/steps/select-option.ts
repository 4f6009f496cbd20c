import {
  type AriaOption,
  type AriaOptions as Aria,
  type Stale,
  GATE_ARGS,
  abortAction,
  describeEl,
  gateOptions,
  settleAction,
  treeEffect,
  gateElement,
  locatorOf,
  remaining,
  resolveTarget,
} from '../page/index.js';
import { actionOutput } from './act.js';
import { PerfError } from '../errors.js';
import { TARGET_ARGS, defineStep, type CommonArgs, type FromSchema, type StepContext, type StepOutput } from './define.js';

const ARGS = {
  type: 'object',
  properties: {
    ...TARGET_ARGS,
    option: {
      anyOf: [
        { type: 'string', description: 'One option.' },
        {
          type: 'array',
          items: { type: 'string', description: 'An option.' },
          minItems: 1,
          description: 'Several options (multi-select).',
        },
      ],
      description: 'Option(s) to select: by visible label, then value, then label ignoring case.',
    },
    ...GATE_ARGS,
  },
  required: ['option'],
  additionalProperties: false,
} as const;

const stale = (s: Stale): PerfError => new PerfError({ code: 'stale_ref', kind: 'usage', message: s.detail, suggestion: 'run snap again' });

function pick(options: AriaOption[], want: string): AriaOption | undefined {
  const w = want.replace(/\s+/g, ' ').trim();
  return options.find((o) => o.name === w) ?? options.find((o) => o.name.toLowerCase() === w.toLowerCase());
}

// How often to look for the options of a combobox that is opening.
const OPEN_POLL_MS = 30;

async function ariaOptionsWhenOpen(ctx: StepContext, ref: string): Promise<Extract<Aria, { status: 'ok' }>> {
  for (;;) {
    const a = await ctx.page.call('ariaOptions', [ref]);
    if (a.status !== 'ok') throw stale(a);
    if (a.options.length || remaining(ctx) === 0) return a;
    await new Promise((r) => setTimeout(r, OPEN_POLL_MS));
  }
}

export const selectOption = defineStep({
  name: 'select_option',
  description:
    'Select option(s) in a native <select> or an ARIA listbox/combobox, as ' +
    'a user would. The effect selected {verified, value} is read back.',
  details: 'A <select> is set with input and change events; a listbox or combobox is opened and the option clicked.',
  args: ARGS,
  readOnly: false,
  actsOnTarget: true,
  async run(ctx, args) {
    const wanted = Array.isArray(args.option) ? args.option : [args.option];
    const { r } = await resolveTarget(ctx, locatorOf('select_option', args));
    if (r.role === 'combobox' || r.role === 'listbox') {
      const probe = await ctx.page.call('selectNative', [r.ref, []]);
      if (probe.status !== 'not_select') return selectNative(ctx, args, r, wanted);
    }
    // ARIA: a listbox, a combobox that controls one, or an option itself.
    return selectAria(ctx, args, r, wanted);
  },
});

type Args = FromSchema<typeof ARGS> & CommonArgs;
type Resolved = Awaited<ReturnType<typeof resolveTarget>>['r'];

/** A native <select>: the gate, then the pick through the runtime (its popup is not in the DOM). */
async function selectNative(ctx: StepContext, args: Args, r: Resolved, wanted: string[]): Promise<StepOutput> {
  const g = await gateElement(ctx, r, gateOptions(args), 'selected');
  const n = await ctx.page.call('selectNative', [g.ref, wanted]);
  if (n.status !== 'ok') {
    await abortAction(ctx);
    switch (n.status) {
      case 'stale':
        throw stale(n);
      case 'missing':
        throw new PerfError({
          code: 'option_not_found',
          kind: 'failed',
          message:
            `${describeEl(r)} has no option ${n.missing.map((m) => JSON.stringify(m)).join(', ')}` + `; options: ${n.available.join(', ')}`,
          candidates: n.available.slice(0, 20),
        });
      case 'single':
        throw new PerfError({ code: 'invalid_arguments', message: `${describeEl(r)} takes one option, got ${wanted.length}` });
      case 'disabled_option':
        throw new PerfError({
          code: 'not_actionable',
          kind: 'failed',
          message: `ref=${g.ref} is not actionable: enabled: option "${n.option}" is disabled`,
        });
      default:
        throw new PerfError({ code: 'internal_error', message: `unexpected select result ${n.status}` });
    }
  }
  const settle = await settleAction(ctx);
  const value = settle.selected ?? [];
  return actionOutput(ctx, args, {
    data: { element: describeEl(r), selected: n.labels.map((label, i) => ({ label, value: n.values[i] })) },
    effect: {
      selected: { verified: sameSet(value, n.labels), value: value.length === 1 ? value[0]! : value },
      ...treeEffect(settle),
    },
    reresolved: r.reresolved && r.ref,
  });
}

/** The options of an ARIA listbox or combobox (opened the way a user does), or an option itself. */
async function ariaChoices(
  ctx: StepContext,
  args: Args,
  r: Resolved,
): Promise<{ containerRef: string; options: AriaOption[]; multi: boolean }> {
  if (r.role === 'option') return { containerRef: r.ref, options: [{ ref: r.ref, name: r.name, selected: false }], multi: false };
  let a = await ctx.page.call('ariaOptions', [r.ref]);
  if (a.status !== 'ok') throw stale(a);
  if (r.role === 'combobox' && (a.options.length === 0 || a.expanded === 'false')) {
    // Open it the way a user does, then wait for its options to show up.
    const g = await gateElement(ctx, r, gateOptions(args));
    await ctx.page.input.click(g.x, g.y);
    a = await ariaOptionsWhenOpen(ctx, r.ref);
  }
  if (a.options.length === 0)
    throw new PerfError({
      code: 'option_not_found',
      kind: 'failed',
      message: `${describeEl(r)} shows no options${r.role === 'combobox' ? ' (it did not open a listbox)' : ''}`,
      suggestion: 'tap it to open it and snap to see its options',
    });
  const containerRef = r.role === 'listbox' && a.listbox ? a.listbox : r.ref;
  return { containerRef, options: a.options, multi: a.multi === true };
}

async function selectAria(ctx: StepContext, args: Args, r: Resolved, wanted: string[]): Promise<StepOutput> {
  const { containerRef, options, multi } = await ariaChoices(ctx, args, r);
  const picks = wanted.map((w) => {
    const o = r.role === 'option' ? options[0] : pick(options, w);
    if (!o)
      throw new PerfError({
        code: 'option_not_found',
        kind: 'failed',
        message: `${describeEl(r)} has no option ${JSON.stringify(w)}; options: ${options.map((x) => JSON.stringify(x.name)).join(', ')}`,
        candidates: options.map((x) => x.name).slice(0, 20),
      });
    return o;
  });
  if (picks.length > 1 && !multi)
    throw new PerfError({ code: 'invalid_arguments', message: `${describeEl(r)} is single-select; got ${picks.length} options` });
  let started = false;
  try {
    for (const [i, o] of picks.entries()) {
      const g = await gateElement(ctx, o, gateOptions(args));
      if (!started) {
        await ctx.page.call('begin', [containerRef, 'selected']);
        started = true;
      }
      // Extra picks in a multi-select listbox add to the selection, as Control+click does.
      await ctx.page.input.click(g.x, g.y, i > 0 ? { modifiers: ['control'] } : {});
    }
  } catch (e) {
    if (started) await abortAction(ctx);
    throw e;
  }
  const settle = await settleAction(ctx);
  const value = settle.selected ?? [];
  const names = picks.map((p) => p.name);
  return actionOutput(ctx, args, {
    data: { element: describeEl(r), selected: names.map((label) => ({ label })) },
    effect: {
      selected: { verified: names.every((n) => value.includes(n)), value: value.length === 1 ? value[0]! : value },
      ...treeEffect(settle),
    },
    reresolved: r.reresolved && r.ref,
  });
}

function sameSet(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}
