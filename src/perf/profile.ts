/**
 * The sampling CPU profile of an attribution session, turned into "blocks": functions ranked by
 * EXCLUSIVE (self) time, the time the sampler found that function itself on top of the stack.
 */
import { isHarnessScript, type CpuProfile, type CpuProfileNode } from '../drivers/measure.js';

/** One sample: when (epoch ms) and which function (index into `functions`) was on top. */
export interface Sample {
  at: number;
  fn: number;
  /** The profile node on top of the stack (its callers are the stack: folded stacks read them). */
  node: number;
  /** The time this sample stands for: the gap to the next sample, ms. */
  ms: number;
}

export interface ProfileFunction {
  name: string;
  url: string;
  /** 1-based, as editors count. */
  line: number;
  /** 1-based too: a minified script holds many functions on one line. */
  column: number;
  /** A VM bucket rather than a script function: (program), (idle), (garbage collector), (root). */
  meta: boolean;
  /** The harness's own in-page probe. */
  harness: boolean;
}

export interface ProfileData {
  functions: ProfileFunction[];
  samples: Sample[];
  /** Self ms of every function over the window (meta included), indexed like `functions`. */
  selfMs: number[];
  /** Self ms of the page's work: everything but (idle), (program), (root) and the harness probe. */
  busyMs: number;
}

/** A ranked block of the report (the shape DESIGN.md gives under "perf_end"). */
export interface Block {
  name: string;
  /** "url:line" (url shortened to its path), or the VM bucket name. */
  url: string;
  selfMs: number;
  /** Of all non-idle self time. */
  share: number;
  /** Painted frames in which this function had self samples (blocksByCount ranks by this). */
  frames?: number;
}

const NOT_SCRIPT = new Set(['(idle)', '(program)', '(root)']);

/**
 * Samples and per-function self time. `offsetMs` maps the profile clock (µs ticks, the trace's clock)
 * to epoch: epoch = ticksUs / 1000 + offsetMs.
 *
 * Native builtins (performance.now, a DOM getter: script id 0, no URL) count toward the script
 * function that called them: that call is the page's decision and the line to change, so a busy loop
 * around performance.now() ranks as the loop. The harness's own scripts (the probe, the step runtime: isHarnessScript) are left out.
 */
export function readProfile(profile: CpuProfile, offsetMs: number, window: { startAt: number; endAt: number }): ProfileData {
  const functions: ProfileFunction[] = [];
  const keyIndex = new Map<string, number>();
  const parent = new Map<number, number>();
  const byId = new Map<number, CpuProfileNode>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const c of node.children ?? []) parent.set(c, node.id);
  }
  const isNative = (n: CpuProfileNode): boolean =>
    !n.callFrame.url && n.callFrame.scriptId === '0' && !n.callFrame.functionName.startsWith('(');
  const nodeFn = new Map<number, number>();
  const fnOf = (n: CpuProfileNode): number => {
    const cached = nodeFn.get(n.id);
    if (cached !== undefined) return cached;
    let target = n;
    // Walk up from a native builtin to the script function that called it (if any).
    for (let p = parent.get(target.id); isNative(target) && p !== undefined; p = parent.get(target.id)) {
      const up = byId.get(p);
      if (!up || up.callFrame.functionName === '(root)') break;
      target = up;
    }
    const cf = target.callFrame;
    const name = cf.functionName || (cf.url || cf.scriptId !== '0' ? '(anonymous)' : '(program)');
    const meta = name.startsWith('(') && !cf.url && cf.scriptId === '0';
    const key = meta ? name : `${name}\u0000${cf.url}\u0000${cf.lineNumber}\u0000${cf.columnNumber}`;
    let idx = keyIndex.get(key);
    if (idx === undefined) {
      idx = functions.length;
      keyIndex.set(key, idx);
      functions.push({ name, url: cf.url, line: cf.lineNumber + 1, column: cf.columnNumber + 1, meta, harness: isHarnessScript(cf.url) });
    }
    nodeFn.set(n.id, idx);
    return idx;
  };
  const selfMs: number[] = [];
  const samples: Sample[] = [];
  const ids = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  let t = profile.startTime;
  const times: number[] = [];
  for (let i = 0; i < ids.length; i++) {
    t += deltas[i] ?? 0;
    times.push(t);
  }
  for (let i = 0; i < ids.length; i++) {
    const node = byId.get(ids[i]!);
    if (!node) continue;
    const fn = fnOf(node);
    // A sample stands for the time until the next one (the last one, until the profile ended).
    const next = i + 1 < times.length ? times[i + 1]! : profile.endTime;
    const ms = Math.max(0, next - times[i]!) / 1000;
    const at = times[i]! / 1000 + offsetMs;
    if (at < window.startAt || at > window.endAt) continue;
    samples.push({ at, fn, node: node.id, ms });
    selfMs[fn] = (selfMs[fn] ?? 0) + ms;
  }
  for (let i = 0; i < functions.length; i++) selfMs[i] ??= 0;
  let busyMs = 0;
  functions.forEach((f, i) => {
    if (isPageWork(f)) busyMs += selfMs[i] ?? 0;
  });
  return { functions, samples, selfMs, busyMs };
}

/** Work the page did: not idle, not the VM's unattributed buckets, not the harness's probe. */
export function isPageWork(f: ProfileFunction): boolean {
  return !NOT_SCRIPT.has(f.name) && !f.harness;
}

/**
 * "path:line" for a script function (origin dropped: it is the app's own), else the bucket name;
 * "path:line:col" with `column` (attribution records: a minified line holds many functions).
 */
export function locationOf(f: Pick<ProfileFunction, 'url' | 'line' | 'column' | 'meta' | 'name'>, column = false): string {
  if (!f.url) return f.meta ? f.name : '(no url)';
  let path = f.url;
  try {
    const u = new URL(f.url);
    path = u.protocol.startsWith('http') ? u.pathname : f.url;
  } catch {
    /* not a URL: keep as is */
  }
  return `${path}:${f.line}${column ? `:${f.column}` : ''}`;
}

/** Functions by self time, script work only (idle and (program) are not the page's functions). */
export function blocksBySelf(p: ProfileData): Block[] {
  const out: Block[] = [];
  p.functions.forEach((f, i) => {
    const ms = p.selfMs[i] ?? 0;
    if (!isPageWork(f) || ms <= 0) return;
    out.push({ name: f.name, url: locationOf(f), selfMs: round(ms), share: round(p.busyMs > 0 ? ms / p.busyMs : 0, 3) });
  });
  return out.sort((a, b) => b.selfMs - a.selfMs || a.name.localeCompare(b.name));
}

/**
 * Functions by the number of frames they ran in (a small function in every frame weighs like a big
 * one in few). `frameOf` maps a sample time to a frame index, or -1 outside every frame.
 */
export function blocksByCount(p: ProfileData, frameOf: (at: number) => number): Block[] {
  const seen = new Map<number, Set<number>>();
  for (const s of p.samples) {
    const f = p.functions[s.fn];
    if (!f || !isPageWork(f)) continue;
    const frame = frameOf(s.at);
    if (frame < 0) continue;
    let set = seen.get(s.fn);
    if (!set) seen.set(s.fn, (set = new Set()));
    set.add(frame);
  }
  const out: Block[] = [];
  for (const [fn, frames] of seen) {
    const f = p.functions[fn]!;
    const ms = p.selfMs[fn] ?? 0;
    out.push({
      name: f.name,
      url: locationOf(f),
      selfMs: round(ms),
      share: round(p.busyMs > 0 ? ms / p.busyMs : 0, 3),
      frames: frames.size,
    });
  }
  return out.sort((a, b) => (b.frames ?? 0) - (a.frames ?? 0) || b.selfMs - a.selfMs);
}

export function round(x: number, digits = 2): number {
  const k = 10 ** digits;
  return Math.round(x * k) / k;
}
