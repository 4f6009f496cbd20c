/**
 * perf_load: measure one page load of the current app in a window of its own: perf_begin (timing mode),
 * a fresh navigation to the URL with the load probe at the document's start, the page quiet, perf_end.
 * The same window `measure: load` opens in a scenario's repeat, for an agent or a `perf start` session.
 */
import { PerfError } from '../errors.js';
import {
  BEGIN_TIMEOUT_MS,
  BLANK_TIMEOUT_MS,
  END_TIMEOUT_MS,
  LOAD_QUIET_MAX_MS,
  LOAD_QUIET_MIN_MS,
  LOAD_QUIET_MS,
  LOAD_TIMEOUT_MS,
  beginMeasure,
  endMeasure,
  loadOptions,
  measureLoad,
  withinMs,
} from '../perf/measure.js';
import { pagePath } from '../perf/analysis.js';
import { warmEngine } from '../perf/devtools-insights.js';
import { REQUESTS_DETAIL } from '../perf/load.js';
import type { PerfReport } from '../perf/report.js';
import { openSession, type PerfHost } from '../perf/state.js';
import { defineStep, type StepContext, type StepOutput } from './define.js';
import { insightLines } from './insight-lines.js';
import { resolveNavigationUrl } from './navigate.js';

// 6 KB like perf_end's report (REPORT_MAX_BYTES): an agent reads the reply whole every time.
export const PERF_LOAD_REPLY_MAX_BYTES = 6 * 1024;
// What the MCP reply adds around data and warnings ({"step":"perf_load","status":"ok","durationMs":…}).
const ENVELOPE_BYTES = 100;
// 160 characters of a URL or an element name: origin, path and the start of a query; a data: URL or a
// minified class list says nothing more past that, and five requests stay well inside the reply's bound.
const TEXT_CHARS = 160;
// Warnings of the load are a handful of sentences; three is every one the load source writes.
const MAX_WARNINGS = 3;

export const perfLoad = defineStep({
  name: 'perf_load',
  description: 'Measure a page load: load.* metrics, LCP element, largest requests, insights.',
  details:
    'In its own timing-mode window: about:blank, then url with the load probe at the document start, until the page is ' +
    'quiet (load event, then quietMs (default 1 s) without a request, long task, shift or LCP candidate; at most 30 s). cache: warm ' +
    '(default) or cold. Refused while a perf session is open; perf_insight and perf_trace read the window afterwards.',
  args: {
    type: 'object',
    properties: {
      url: { type: 'string', description: 'App path or http(s) URL; default: this page.' },
      cache: { type: 'string', enum: ['warm', 'cold'], description: 'warm (default), or cold: HTTP cache cleared.' },
      quietMs: {
        type: 'integer',
        minimum: LOAD_QUIET_MIN_MS,
        maximum: LOAD_QUIET_MAX_MS,
        description: `Quiet ms after the load event to end the load. Default ${LOAD_QUIET_MS}.`,
      },
    },
    additionalProperties: false,
  } as const,
  readOnly: false,
  // Each part has its own bound: begin, the way to about:blank, the load up to its deadline, end.
  defaultTimeoutMs: BEGIN_TIMEOUT_MS + BLANK_TIMEOUT_MS + LOAD_TIMEOUT_MS + END_TIMEOUT_MS,
  async run(ctx, args) {
    refuseOpenSession(ctx.host);
    const url = await loadUrl(ctx, args.url);
    const cache = args.cache ?? 'warm';
    // The engine loads while the page goes to about:blank; beginMeasure waits for it before the window opens.
    void warmEngine();
    await ctx.page.navigation.navigate('about:blank', BLANK_TIMEOUT_MS);
    await withinMs(
      'perf_load begin',
      BEGIN_TIMEOUT_MS,
      beginMeasure(ctx.host, ctx.page.perf, { mode: 'timing', phases: false, devtools: true }),
    );
    let status: number;
    try {
      ({ status } = await measureLoad(ctx.host, ctx.page.perf, url, loadOptions(cache, args.quietMs)));
    } catch (e) {
      // Close the window so the page is left without a half-open trace, then say why the load failed.
      await withinMs('perf_load end', END_TIMEOUT_MS, endMeasure(ctx.host)).catch(() => undefined);
      throw e;
    }
    const { report } = await withinMs('perf_load end', END_TIMEOUT_MS, endMeasure(ctx.host));
    return loadReply(report, { url, cache, status });
  },
});

/** A window already open would be discarded (or, in a scenario's steps, be the repeat's own): refused instead. */
function refuseOpenSession(host: PerfHost): void {
  const open = openSession(host);
  if (!open) return;
  throw new PerfError({
    code: 'session_already_open',
    message: `perf_load opens a measured window of its own, and perf session ${open.token} is still open`,
  });
}

/** The URL asked for (a path against the app), or the page's own: a page that is not the app's has none. */
async function loadUrl(ctx: StepContext, given: string | undefined): Promise<string> {
  const current = await ctx.page.evaluate<string>('location.href').catch(() => undefined);
  if (given !== undefined) return resolveNavigationUrl(given, ctx.host.appUrl(), current);
  if (current && /^https?:\/\//i.test(current)) return current;
  const app = ctx.host.appUrl();
  if (app) return app;
  throw new PerfError({
    code: 'no_base_url',
    message: `perf_load: the page is at ${current ?? 'an unknown address'}, not an http(s) page of the app`,
    suggestion: 'pass url, an app path or an http(s) URL',
  });
}

const cut = (s: string): string => (s.length > TEXT_CHARS ? `${s.slice(0, TEXT_CHARS - 1)}…` : s);

/** What the reply reads of the report. */
export type LoadReport = Pick<
  PerfReport,
  'sessionToken' | 'refused' | 'reason' | 'metrics' | 'warnings' | 'load' | 'insights' | 'devtools'
>;

/**
 * The top rows' render-blocking flag, where DevTools' engine did not run on the load. When it ran, its RenderBlocking
 * line names every request that held the first paint with what it cost (the same browser status, read from the trace),
 * so the flag would say it again, and mark the document, which the page's Resource Timing always calls blocking.
 * Without a trace (WebDriver, Firefox) or when the engine failed, the flag is all the reply has: kept.
 */
function topRows(report: LoadReport, pageUrl: string): Record<string, unknown>[] {
  const engineRan = report.devtools !== undefined && report.devtools.error === undefined;
  return (report.load?.top ?? []).map(({ renderBlocking, ...r }) => ({
    ...r,
    url: cut(pagePath(r.url, pageUrl)),
    // Only where it is (true): a false on every other row is bytes without news.
    ...(renderBlocking && !engineRan ? { renderBlocking } : {}),
  }));
}

/** The reply: the load metrics, milestones, LCP element and largest requests, within PERF_LOAD_REPLY_MAX_BYTES. */
export function loadReply(report: LoadReport, asked: { url: string; cache: 'warm' | 'cold'; status: number }): StepOutput {
  const { url, cache, status } = asked;
  const load = report.load;
  // A type of request the page made none of says nothing (load.transferBytes.fetch 0): left out; the run file keeps it.
  const metrics = Object.fromEntries(
    Object.entries(report.metrics).filter(([m, v]) => m.startsWith('load.') && !(m.startsWith('load.transferBytes.') && v === 0)),
  );
  const warnings = (report.warnings ?? []).slice(0, MAX_WARNINGS).map(cut);
  if (report.refused) warnings.unshift(cut(report.reason ?? 'refused'));
  if (status >= 400) warnings.unshift(`the app answered HTTP ${status}: this is the load of an error page`);
  const data: Record<string, unknown> = {
    sessionToken: report.sessionToken,
    url: cut(load?.url ?? url),
    cache,
    // The document's HTTP status; 0 when the browser does not say.
    status,
    ...(report.refused ? { refused: true } : {}),
    // The milestones are in metrics (load.ttfbMs, load.fcpMs…): not said twice. No LCP element: no key.
    ...(load
      ? {
          ended: load.ended,
          ...(load.lcpElement === null ? {} : { lcpElement: cut(load.lcpElement) }),
          ...(load.lcpUrl === null ? {} : { lcpUrl: cut(pagePath(load.lcpUrl, load.url)) }),
        }
      : {}),
    metrics,
    requestsTotal: load?.requestsTotal ?? 0,
    // Where each request's status, cache, initiator, priority and party are: not here, so this reply stays small.
    ...(load && !report.refused ? { requests: `perf_insight { id: '${REQUESTS_DETAIL}' }` } : {}),
    top: topRows(report, load?.url ?? url),
    // One line per fired insight, ours and DevTools' engine's (by their DevTools names), each starting with the id
    // perf_insight takes: that one has the rows. A twin of ours is folded into the DevTools line, as perf_end does.
    insights: insightLines(report),
    // What DevTools' engine cost on this trace, after the load (off the measured figures): as perf_end says it.
    ...(report.devtools ? { devtoolsMs: Math.round(report.devtools.ms) } : {}),
  };
  if (report.devtools?.error) warnings.push(cut(report.devtools.error));
  const top = data.top as unknown[];
  const insights = data.insights as unknown[];
  const over = (): boolean => Buffer.byteLength(JSON.stringify({ data, warnings })) > PERF_LOAD_REPLY_MAX_BYTES - ENVELOPE_BYTES;
  // Bounded by construction (every text is cut); the loops are the guarantee should a new field grow.
  while (top.length && over()) top.pop();
  while (insights.length && over()) insights.pop();
  return { data, ...(warnings.length ? { warnings } : {}) };
}
