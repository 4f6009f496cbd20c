/**
 * perf_insight: the rows behind one insight of the last closed perf session (worst frames and what
 * ran in them, the function and the frames where it weighed most, an interaction's breakdown…).
 */
import { closest, PerfError } from '../errors.js';
import { DEVTOOLS_INSIGHTS } from '../perf/devtools-insights.js';
import { INSIGHTS, type InsightDetail } from '../perf/insights.js';
import { REQUESTS_DETAIL } from '../perf/load.js';
import { lastSession, type ClosedSession } from '../perf/state.js';
import { defineStep } from './define.js';

/** Our frame rules, then DevTools' insights of a load (its engine's names): one vocabulary. */
const KNOWN: { id: string; description: string }[] = [
  ...INSIGHTS,
  ...DEVTOOLS_INSIGHTS.map((id) => ({ id, description: `DevTools' ${id} insight of a measured load` })),
  { id: REQUESTS_DETAIL, description: "a measured load's requests with their status, cache, initiator, priority and party" },
];

// One reply for several ids: an agent reading every insight a load listed pays for one envelope, not ten. 6 KB as
// perf_end's full report and perf_load's reply; each insight's rows are within 2 KB (DETAIL_MAX_BYTES), so three fit
// always, and those that do not are named in `left` to ask for again.
export const INSIGHTS_REPLY_MAX_BYTES = 6 * 1024;
// What the MCP reply adds around data ({"step":"perf_insight","status":"ok","durationMs":…}).
const ENVELOPE_BYTES = 100;

export const perfInsight = defineStep({
  name: 'perf_insight',
  description: 'The rows behind insights perf_end or perf_load listed.',
  details:
    'For framesOverBudget the worst frames and the functions that ran in them, for blockSelfMs the frames where the ' +
    'function weighed most, for forcedLayout the functions that forced layouts, for longInteraction each slow interaction ' +
    "broken down into input delay, processing and presentation; after a load, DevTools' (RenderBlocking, CLSCulprits…) " +
    'with their URLs. One id returns {token, id, title, rows, note?}; several, comma-separated, return {token, insights: ' +
    '[{id, rows, note?}], left?} within 6 KB (left: the ids that did not fit, to ask for again).',
  args: {
    type: 'object',
    properties: {
      id: {
        type: 'string',
        minLength: 1,
        description: 'Id(s) as listed, comma-separated, e.g. RenderBlocking,CLSCulprits.',
      },
      token: { type: 'string', description: 'sessionToken from perf_end; default: the last closed session.' },
    },
    required: ['id'],
    additionalProperties: false,
  } as const,
  readOnly: true,
  instant: true,
  shorthand: (id) => ({ id }),
  async run(ctx, args) {
    const last = lastSession(ctx.host, 'perf_insight', args.token);
    if (last.report.refused) {
      throw new PerfError({
        code: 'session_refused',
        message: `perf_insight: session ${last.token} was refused (${last.report.reason ?? 'nothing rendered'}), so it has no insights`,
        suggestion: 'measure an interaction that renders frames, then read its insights',
      });
    }
    const ids = [...new Set(args.id.split(',').map((x) => x.trim()))].filter(Boolean);
    const details = ids.map((id) => detailOf(last, id));
    if (details.length === 1) {
      const [d] = details as [InsightDetail];
      return { data: { token: last.token, id: d.id, title: d.title, rows: d.rows, ...(d.note ? { note: d.note } : {}) } };
    }
    const insights: Record<string, unknown>[] = [];
    const data: Record<string, unknown> = { token: last.token, insights };
    for (const [i, d] of details.entries()) {
      insights.push({ id: d.id, rows: d.rows, ...(d.note ? { note: d.note } : {}) });
      if (Buffer.byteLength(JSON.stringify(data)) <= INSIGHTS_REPLY_MAX_BYTES - ENVELOPE_BYTES) continue;
      insights.pop();
      data.left = details.slice(i).map((x) => x.id);
      break;
    }
    return { data };
  },
});

/** The rows of one insight of the session, or the error that names what to ask for instead. */
function detailOf(last: ClosedSession, id: string): InsightDetail {
  const detail = last.details.get(id);
  if (detail) return detail;
  const fired = [...last.details.keys()];
  const rule = KNOWN.find((r) => r.id === id);
  if (rule) {
    throw new PerfError({
      code: 'insight_not_fired',
      message:
        `perf_insight: insight "${id}" (${rule.description}) did not fire in session ${last.token}` +
        `${fired.length ? `; it has ${fired.join(', ')}` : '; no insight fired'}`,
      suggestion: fired.length ? `read one of: ${fired.join(', ')}` : "read perf_end's metrics and summary instead",
      candidates: fired,
    });
  }
  const near = closest(
    id,
    KNOWN.map((r) => r.id),
  );
  throw new PerfError({
    code: 'unknown_insight',
    message: `perf_insight: unknown insight id "${id}"${near.length ? `; did you mean ${near.map((n) => `"${n}"`).join(' or ')}?` : ''}`,
    suggestion: fired.length ? `session ${last.token} has: ${fired.join(', ')}` : `insight ids are: ${KNOWN.map((r) => r.id).join(', ')}`,
    candidates: near.length ? near : fired,
  });
}
