/**
 * Node side of the snapshot: calls the page runtime and remembers the refs it minted, so a later
 * step can relocate a ref whose document was replaced (reload) or refuse it safely.
 */
import type { RuntimeSnapshot, SnapshotOptions } from '../drivers/runtime/api.js';
import { PerfError } from '../errors.js';
import type { PageContext } from './context.js';
import { refusePageSwitchedRef, rememberRefs } from './targets.js';

// ~16 KB: a screenful of structure for an agent, a few thousand tokens; larger pages are narrowed
// with within/depth/grep/interactiveOnly rather than dumped.
export const DEFAULT_SNAPSHOT_BYTES = 16_384;

export async function takeSnapshot(ctx: PageContext, opts: Partial<SnapshotOptions>): Promise<RuntimeSnapshot> {
  if (typeof opts.within === 'string') refusePageSwitchedRef(ctx, { ref: opts.within });
  const full: SnapshotOptions = { maxBytes: DEFAULT_SNAPSHOT_BYTES, ...opts };
  const r = await ctx.page.call('snapshot', [full]);
  if (r.status === 'error') {
    const res = r.resolve;
    const detail = 'detail' in res ? res.detail : res.status;
    throw new PerfError({
      code: res.status === 'stale' || res.status === 'unknown_ref' ? 'stale_ref' : 'invalid_arguments',
      kind: 'usage',
      message: `snap: ${opts.within ? `within ${opts.within}: ` : ''}${detail}`,
      suggestion: 'run snap without within to get current refs',
    });
  }
  rememberRefs(ctx, r.refs, r.route, r.docId);
  return r.diff?.baseline ? interactiveBaseline(ctx, full, r.diff) : r;
}

const BASELINE_NOTE = '(no earlier snapshot of this page: its interactive elements; the next diff compares against the whole page)';

/**
 * A diff with no earlier snapshot of the page: the whole page becomes the baseline (kept in the page), but what
 * the caller reads first is what it can act on, as interactiveOnly shows it: an agent's first `tap {snapshot:
 * "diff"}` would otherwise receive the whole page (17 KB where interactiveOnly is 8 KB on a real app).
 */
async function interactiveBaseline(
  ctx: PageContext,
  full: SnapshotOptions,
  diff: NonNullable<RuntimeSnapshot['diff']>,
): Promise<RuntimeSnapshot> {
  const maxBytes = full.maxBytes - Buffer.byteLength(BASELINE_NOTE) - 1;
  const r = await ctx.page.call('snapshot', [{ ...full, diff: false, interactiveOnly: true, maxBytes }]);
  if (r.status === 'error') throw new PerfError({ code: 'invalid_arguments', kind: 'usage', message: 'snap: the interactive view failed' });
  rememberRefs(ctx, r.refs, r.route, r.docId);
  const text = `${BASELINE_NOTE}\n${r.text}`;
  return { ...r, text, bytes: Buffer.byteLength(text), diff };
}

/** The post-action snapshot requested with `snapshot: full | diff` (none → undefined). */
export async function snapshotAfter(ctx: PageContext, mode: 'full' | 'diff' | 'none' | undefined): Promise<string | undefined> {
  if (!mode || mode === 'none') return undefined;
  const s = await takeSnapshot(ctx, { diff: mode === 'diff' });
  return s.text;
}
