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
  return r;
}

/** The post-action snapshot requested with `snapshot: full | diff` (none → undefined). */
export async function snapshotAfter(ctx: PageContext, mode: 'full' | 'diff' | 'none' | undefined): Promise<string | undefined> {
  if (!mode || mode === 'none') return undefined;
  const s = await takeSnapshot(ctx, { diff: mode === 'diff' });
  return s.text;
}
