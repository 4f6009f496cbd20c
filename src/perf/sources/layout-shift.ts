/** Layout shift (Layout Instability API, Chromium's in-page probe): the CLS-style sum over the window. */
import * as M from '../metrics.js';
import { round } from '../profile.js';
import { defineSource, probeReason } from './source.js';

// A score is a fraction of the viewport: four digits keep a single small shift visible.
const SCORE_DIGITS = 4;

export const layoutShiftSource = defineSource<{ score: number | null }>({
  name: 'layoutShift',
  emits: [M.layoutShiftScore],
  cover: ({ raw }) => ({
    layoutShift: raw.missing.layoutShift ?? probeReason(raw) ?? (raw.support?.shift ? null : 'this browser has no Layout Instability API'),
  }),
  measure({ raw, read }) {
    if (!read('layoutShift')) return { emits: [], findings: { score: null } };
    const score = raw.messages.reduce((s, m) => s + (m.kind === 'shift' ? m.value : 0), 0);
    return { emits: [{ def: M.layoutShiftScore, value: score, digits: SCORE_DIGITS }], findings: { score: round(score, SCORE_DIGITS) } };
  },
});
