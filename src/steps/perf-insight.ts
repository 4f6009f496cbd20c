/**
 * perf_insight: the rows behind one insight of the last closed perf session (worst frames and what
 * ran in them, the function and the frames where it weighed most, an interaction's breakdown…).
 */
import { closest, PerfError } from '../errors.js';
import { DEVTOOLS_INSIGHTS } from '../perf/devtools-insights.js';
import { INSIGHTS } from '../perf/insights.js';
import { REQUESTS_DETAIL } from '../perf/load.js';
import { lastSession } from '../perf/state.js';
import { defineStep } from './define.js';

/** Our frame rules, then DevTools' insights of a load (its engine's names): one vocabulary. */
const KNOWN: { id: string; description: string }[] = [
  ...INSIGHTS,
  ...DEVTOOLS_INSIGHTS.map((id) => ({ id, description: `DevTools' ${id} insight of a measured load` })),
  { id: REQUESTS_DETAIL, description: "a measured load's requests with their status, cache, initiator, priority and party" },
];

export const perfInsight = defineStep({
  name: 'perf_insight',
  description: 'The rows behind an insight perf_end or perf_load listed, e.g. the worst frames and their functions.',
  details:
    'For framesOverBudget the worst frames and the functions that ran in them, for blockSelfMs the frames where the ' +
    'function weighed most, for forcedLayout the functions that forced layouts, for longInteraction each slow interaction ' +
    "broken down into input delay, processing and presentation; after a load, DevTools' (RenderBlocking, CLSCulprits…) " +
    'with their URLs. Returns {token, id, title, rows, note?}.',
  args: {
    type: 'object',
    properties: {
      id: {
        type: 'string',
        minLength: 1,
        description: 'Id as listed, e.g. framesOverBudget, RenderBlocking.',
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
    const fired = [...last.details.keys()];
    if (last.report.refused) {
      throw new PerfError({
        code: 'session_refused',
        message: `perf_insight: session ${last.token} was refused (${last.report.reason ?? 'nothing rendered'}), so it has no insights`,
        suggestion: 'measure an interaction that renders frames, then read its insights',
      });
    }
    const detail = last.details.get(args.id);
    if (!detail) {
      const rule = KNOWN.find((r) => r.id === args.id);
      if (rule) {
        throw new PerfError({
          code: 'insight_not_fired',
          message:
            `perf_insight: insight "${args.id}" (${rule.description}) did not fire in session ${last.token}` +
            `${fired.length ? `; it has ${fired.join(', ')}` : '; no insight fired'}`,
          suggestion: fired.length ? `read one of: ${fired.join(', ')}` : "read perf_end's metrics and summary instead",
          candidates: fired,
        });
      }
      const near = closest(
        args.id,
        KNOWN.map((r) => r.id),
      );
      throw new PerfError({
        code: 'unknown_insight',
        message:
          `perf_insight: unknown insight id "${args.id}"` +
          `${near.length ? `; did you mean ${near.map((n) => `"${n}"`).join(' or ')}?` : ''}`,
        suggestion: fired.length
          ? `session ${last.token} has: ${fired.join(', ')}`
          : `insight ids are: ${KNOWN.map((r) => r.id).join(', ')}`,
        candidates: near.length ? near : fired,
      });
    }
    const insight = last.report.insights.find((i) => i.id === args.id);
    return {
      data: {
        token: last.token,
        id: detail.id,
        title: detail.title,
        ...(insight ? { severity: insight.severity, evidence: insight.evidence } : {}),
        rows: detail.rows,
        ...(detail.note ? { note: detail.note } : {}),
      },
    };
  },
});
