/**
 * The window itself: its wall time, the user's marks in it and the navigations it saw. Every driver has
 * one, so it answers for no coverage entry.
 */
import { BEGIN_MARK, END_MARK } from '../../drivers/measure.js';
import * as M from '../metrics.js';
import { round } from '../profile.js';
import { defineSource } from './source.js';

export interface WindowFindings {
  durationMs: number;
  marks: { name: string; atMs: number }[];
  navigations: number;
}

export const windowSource = defineSource<WindowFindings>({
  name: 'window',
  emits: [M.durationMs],
  cover: () => ({}),
  measure: ({ raw }) => {
    // A mark's time is the page's clock (timeOrigin + now), not this process's: measured from the window's begin mark,
    // also the page's, so a skew between the two clocks (seen on loaded hosts) cannot put a mark before the window.
    const zero = raw.marks.find((m) => m.name === BEGIN_MARK)?.at ?? raw.startedAt;
    return {
      emits: [{ def: M.durationMs, value: raw.durationMs }],
      findings: {
        durationMs: round(raw.durationMs),
        marks: raw.marks
          .filter((m) => m.name !== BEGIN_MARK && m.name !== END_MARK)
          .map((m) => ({ name: m.name, atMs: round(m.at - zero, 1) })),
        navigations: raw.navigations,
      },
    };
  },
});
