/** The one-line listing of a report's insights that perf_load and perf_end reply with. */
import { insightLine } from '../perf/insights.js';
import type { PerfReport } from '../perf/report.js';

/**
 * Our rule and DevTools' insight that name the same thing in a window: the listing keeps one line, under the DevTools
 * name (the vocabulary of the Performance panel, whose numbers it shows), ending with ours, whose rows perf_insight
 * still gives. The report keeps both (a budget or a compare may name either).
 */
const TWINS: Readonly<Record<string, string>> = { longInteraction: 'INPBreakdown', forcedLayout: 'ForcedReflow' };

/** One line per insight, a twin of ours folded into the DevTools line (with the element our Event Timing names). */
export function insightLines(report: Pick<PerfReport, 'insights'> & Partial<Pick<PerfReport, 'interactions'>>): string[] {
  const fired = new Set(report.insights.map((i) => i.id));
  const folded = (id: string): boolean => TWINS[id] !== undefined && fired.has(TWINS[id]);
  return report.insights.flatMap((i) => {
    if (folded(i.id)) return [];
    const ours = Object.keys(TWINS).find((o) => TWINS[o] === i.id && fired.has(o));
    if (!ours) return [insightLine(i)];
    // The engine names the event type (pointerdown); the element and the step are ours (the slowest interaction).
    const worst = ours === 'longInteraction' ? report.interactions?.[0] : undefined;
    const on = worst ? ` on ${worst.target}${worst.step ? ` (step ${worst.step})` : ''}` : '';
    return [`${insightLine(i)}${on}; also ${ours}`];
  });
}
