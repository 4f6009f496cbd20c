import {
  assertNotBrowserShortcut,
  keyDefinition,
  parseKeyCombo,
  MODIFIERS_ARG,
  abortAction,
  asModifiers,
  describeEl,
  settleAction,
  treeEffect,
  watchNavigation,
  locatorOf,
  resolveTarget,
  scenarioOnly,
} from '../page/index.js';
import { actionOutput } from './act.js';
import { PerfError } from '../errors.js';
import { TARGET_ARGS, defineStep } from './define.js';
import { terminalPressKey } from './terminal.js';

const ARGS = {
  type: 'object',
  properties: {
    key: { type: 'string', description: 'Key (Enter, Escape, Tab, ArrowDown, a…) or combination (Control+a).' },
    // A combination ("Control+a") says the same in the key: MCP lists that one way (scenario files keep both).
    modifiers: scenarioOnly({ ...MODIFIERS_ARG }),
    repeat: { type: 'integer', minimum: 1, maximum: 100, description: 'Times to press it. Default 1.' },
    ref: TARGET_ARGS.ref,
    // Keys go to the focused element (fill and tap leave it there) or to a ref, live when it is find's q ref: MCP
    // lists ref alone, which keeps the default tool list within its bound (issue 58); scenario files keep target.
    target: scenarioOnly({ ...TARGET_ARGS.target }),
  },
  required: ['key'],
  additionalProperties: false,
} as const;

export const pressKey = defineStep({
  name: 'press_key',
  description: 'Press a key on the focused element, or on ref after focusing it.',
  details:
    'In a scenario, target works like ref. Modifiers are always released, even if delivery fails. ' +
    'The value is given for a field; the effect holds treeChanged.',
  args: ARGS,
  readOnly: false,
  actsOnTarget: true,
  shorthand: (key) => ({ key }),
  terminal: (ctx, args) => terminalPressKey(ctx, args),
  async run(ctx, args) {
    const combo = parseKeyCombo(args.key);
    const modifiers = [...new Set([...asModifiers(args.modifiers), ...combo.modifiers])];
    // Unknown keys and browser shortcuts fail before anything is focused or pressed.
    const def = keyDefinition(combo.key);
    assertNotBrowserShortcut(def.key.length === 1 ? def.key : combo.key, modifiers);
    let reresolved: string | false = false;
    if (args.ref !== undefined || args.target !== undefined) {
      const { r } = await resolveTarget(ctx, locatorOf('press_key', args));
      if (r.reresolved) reresolved = r.ref;
      const f = await ctx.page.call('focus', [r.ref]);
      if (f.status !== 'ok') throw new PerfError({ code: 'stale_ref', kind: 'usage', message: f.detail, suggestion: 'run snap again' });
      if (!f.focused)
        throw new PerfError({
          code: 'not_focusable',
          kind: 'failed',
          message: `${describeEl(r)} cannot take focus, so it cannot receive keys`,
          suggestion: 'press the key on a control (or without ref/target on the focused element)',
        });
    }
    await ctx.page.call('beginActive', []);
    const nav = watchNavigation(ctx);
    try {
      await ctx.page.input.pressKey(combo.key, modifiers, args.repeat ?? 1);
    } catch (e) {
      await abortAction(ctx);
      await nav.finish();
      throw e;
    }
    const settle = await settleAction(ctx);
    const navigation = await nav.finish();
    const key = [...modifiers.map((m) => m[0]!.toUpperCase() + m.slice(1)), combo.key].join('+');
    if (navigation || settle.navigated) {
      return actionOutput(ctx, args, {
        data: { key, navigated: navigation?.url ?? true },
        effect: { treeChanged: { changed: true } },
        reresolved,
      });
    }
    const active = await ctx.page.call('activeInfo', []);
    return actionOutput(ctx, args, {
      data: { key, focused: active.active, ...(active.value !== undefined ? { value: active.value } : {}) },
      effect: treeEffect(settle),
      reresolved,
    });
  },
});
