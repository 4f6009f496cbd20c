/** Long animation frames (Chromium's in-page probe): count, blocking time, and the scripts that ran in them. */
import { PERF_PROBE_URL, type ProbeMessage } from '../../drivers/measure.js';
import { rankLoafScripts, type LongFrame, type LoafScriptRank } from '../analysis.js';
import * as M from '../metrics.js';
import { round } from '../profile.js';
import { defineSource, probeReason } from './source.js';

export interface LongFramesFindings {
  list: LongFrame[];
  /** Blocking time summed over the list, rounded as the summary shows it. */
  blockingMs: number;
  /** Scripts ranked across the long frames, the harness's own probe left out. */
  scripts: LoafScriptRank[];
}

export const longFramesSource = defineSource<LongFramesFindings>({
  name: 'longFrames',
  emits: [M.longFramesCount, M.longFramesBlockingMs],
  cover: ({ raw }) => ({
    longFrames: raw.missing.longFrames ?? probeReason(raw) ?? (raw.support?.loaf ? null : 'this browser has no Long Animation Frames API'),
  }),
  measure({ raw, read }) {
    const list = loafsOf(raw.messages, raw.startedAt);
    const blockingMs = list.reduce((s, l) => s + l.blockingMs, 0);
    const emits = read('longFrames')
      ? [
          { def: M.longFramesCount, value: list.length },
          { def: M.longFramesBlockingMs, value: blockingMs },
        ]
      : [];
    return { emits, findings: { list, blockingMs: round(blockingMs), scripts: rankLoafScripts(list) } };
  },
});

function loafsOf(messages: readonly ProbeMessage[], startedAt: number): LongFrame[] {
  const out: LongFrame[] = [];
  for (const m of messages) {
    if (m.kind !== 'loaf') continue;
    out.push({
      atMs: round(m.startAt - startedAt, 1),
      durationMs: round(m.durationMs, 1),
      blockingMs: round(m.blockingMs, 1),
      // The harness's own probe is not the page's work.
      scripts: m.scripts
        .filter((s) => s.sourceURL !== PERF_PROBE_URL)
        .map((s) => ({
          sourceURL: s.sourceURL,
          function: s.sourceFunctionName,
          invoker: s.invoker,
          durationMs: round(s.durationMs, 1),
          forcedLayoutMs: round(s.forcedStyleAndLayoutMs, 1),
        })),
    });
  }
  return out;
}
