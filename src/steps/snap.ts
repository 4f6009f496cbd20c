import { DEFAULT_SNAPSHOT_BYTES, takeSnapshot } from '../page/index.js';
import { defineStep } from './define.js';
import { terminalSnap } from './terminal.js';

const ARGS = {
  type: 'object',
  properties: {
    depth: { type: 'integer', minimum: 0, description: 'Levels shown (0 = top); deeper nodes are counted.' },
    within: { type: 'string', pattern: '^[eqt][0-9]+$', description: 'Ref (e5, q2, t3): only this subtree.' },
    interactiveOnly: { type: 'boolean', description: 'Only what you can act on: "eN role name" lines.' },
    grep: { type: 'string', description: 'Case-insensitive regex on names, values, text: matches and their ancestors.' },
    diff: { type: 'boolean', description: "Only lines changed since this page's last whole snap." },
    maxBytes: {
      type: 'integer',
      minimum: 512,
      description: `Byte cap (default ${DEFAULT_SNAPSHOT_BYTES}); a last line says what was cut.`,
    },
  },
  additionalProperties: false,
} as const;

export const snap = defineStep({
  name: 'snap',
  description: 'The page as text, a line per node (role, name, states), [ref=eN] on what you can act on (valid on this page).',
  details:
    'YAML-like. States: [checked] [disabled] [expanded] [selected] [focused] [offscreen] [occluded]; fields ' +
    'show typeable: true and value: "…". Generic wrappers are collapsed; long offscreen lists are summarised. ' +
    'Open shadow roots and same-origin iframes are included. Bounded (~16 KB by default).',
  args: ARGS,
  readOnly: true,
  terminal: (ctx, args) => terminalSnap(ctx, args),
  async run(ctx, args) {
    const s = await takeSnapshot(ctx, {
      ...(args.depth !== undefined ? { depth: args.depth } : {}),
      ...(args.within !== undefined ? { within: args.within } : {}),
      ...(args.interactiveOnly ? { interactiveOnly: true } : {}),
      ...(args.grep !== undefined ? { grep: args.grep } : {}),
      ...(args.diff ? { diff: true } : {}),
      ...(args.maxBytes !== undefined ? { maxBytes: args.maxBytes } : {}),
    });
    return {
      data: {
        snapshot: s.text,
        url: s.url,
        title: s.title,
        lines: s.lines,
        bytes: s.bytes,
        truncated: s.truncated,
        ...(s.grepLiteral ? { grepLiteral: true } : {}),
        ...(s.diff ? { diff: s.diff } : {}),
      },
    };
  },
});
