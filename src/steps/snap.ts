import { DEFAULT_SNAPSHOT_BYTES, takeSnapshot } from '../page/index.js';
import { defineStep } from './define.js';

const ARGS = {
  type: 'object',
  properties: {
    depth: { type: 'integer', minimum: 0, description: 'Show nodes down to this depth only (0 = top level); deeper parts are counted, e.g. "(+12 below)".' },
    within: { type: 'string', pattern: '^[eq][0-9]+$', description: 'A ref (e5, q2): snapshot only this element and what it contains.' },
    interactiveOnly: { type: 'boolean', description: 'Only elements you can act on (buttons, links, fields, options…) and the containers around them: the smallest view of what can be done.' },
    grep: { type: 'string', description: 'Regular expression (case-insensitive) matched against names, values and text; matching nodes are kept with their ancestors. An invalid regex is matched literally (grepLiteral: true).' },
    diff: { type: 'boolean', description: 'Only the lines that changed since the last whole snapshot of this page, as -/+ lines under "@@ in <parent>" headers, with a "(K of N lines changed)" footer.' },
    maxBytes: { type: 'integer', minimum: 512, description: `Cap on the snapshot text in bytes (default ${DEFAULT_SNAPSHOT_BYTES}); past it the last line says how much was left out and how to narrow.` },
  },
  additionalProperties: false,
} as const;

export const snap = defineStep({
  name: 'snap',
  description:
    'Snapshot of the page as YAML-like text, one line per node: role, "accessible name", states ([checked] [disabled] [expanded] [selected] [focused] [offscreen] [occluded]), [ref=eN] on every element you can act on, typeable: true and value: "…" on fields. Generic wrappers are collapsed; long offscreen lists are summarised. Open shadow roots and same-origin iframes are included. Refs stay valid for later calls on the same page. Bounded (~16 KB by default).',
  args: ARGS,
  readOnly: true,
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
