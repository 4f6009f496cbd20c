/**
 * DevTools' own insight engine (@paulirish/trace_engine, the Performance panel's trace engine, pinned) on a load's
 * trace: the fired insights under their DevTools names (RenderBlocking, CLSCulprits, FontDisplay…), each one line for
 * a report and a few rows for perf_insight. The only module that imports the library: an upgrade is read here.
 * Runs after the window closed (perf_end), so its time is in no measured figure.
 */
import type * as Trace from '@paulirish/trace_engine';
import { isHarnessScript, type TraceEvent } from '../drivers/measure.js';
import { pagePath } from './analysis.js';
import { insightLine, type Insight, type InsightDetail } from './insights.js';
import { round } from './profile.js';

type Models = Trace.Insights.Types.InsightModels;
type Name = keyof Models;
type Model = NonNullable<Models[Name]>;
type Request = Trace.Types.Events.SyntheticNetworkRequest;
type Row = Record<string, unknown>;
/** What a row extractor may read beyond its model: the parsed trace's requests, and DevTools' initiator of one. */
interface RowContext {
  /** The page's URL: its own origin's URLs are shown as paths (pagePath). */
  pageUrl: string;
  requests: readonly Request[];
  initiatorOf: (r: Request) => Request | undefined;
}

// Rows per insight: the URLs an agent acts on; the rest is DevTools' (open the trace).
const MAX_ROWS = 5;
// A URL's origin, path and start of a query; a data: URL says nothing more past that.
const URL_CHARS = 120;
// perf_insight's bound per insight (issue 59): one reply holds up to three in 6 KB.
export const DETAIL_MAX_BYTES = 2048;
// DevTools' descriptions run to 400 characters with markdown links; the first sentence says what to fix, and an
// agent reading several insights in one reply pays for every further sentence (the same words on every trace).
const NOTE_CHARS = 200;
// Trace timestamps are µs; every figure we report is ms.
const US_PER_MS = 1000;
// A fetch answered longer before the LCP request than this is not what the script waited for to insert the image:
// the then-callback that reads a JSON and sets a src runs within a few tasks of the answer (15 ms on the planted page).
const FOUND_AFTER_FETCH_MAX_MS = 1000;
// The request types a script reads a URL from (Fetch API, XMLHttpRequest), as the trace names them.
const FETCH_TYPES = new Set(['fetch', 'xmlhttprequest']);

/**
 * The engine is written for Chrome and Node 22, whose iterators have the ES2025 helpers (`map.values().find(…)`); Node
 * 20's do not, and ThirdParties, LegacyJavaScript and DuplicatedJavaScript threw on it. Added where missing, as the
 * standard defines them (eager where the engine only consumes), so Node 22 keeps its own.
 */
function polyfillIteratorHelpers(): void {
  const proto: object = Object.getPrototypeOf(Object.getPrototypeOf([][Symbol.iterator]()));
  const all = (it: Iterator<unknown>): unknown[] => Array.from({ [Symbol.iterator]: () => it });
  const helpers: Record<string, (this: Iterator<unknown>, ...a: never[]) => unknown> = {
    toArray() {
      return all(this);
    },
    map(f: (v: unknown, i: number) => unknown) {
      return all(this).map(f).values();
    },
    filter(f: (v: unknown, i: number) => boolean) {
      return all(this).filter(f).values();
    },
    flatMap(f: (v: unknown, i: number) => Iterable<unknown>) {
      return all(this)
        .flatMap((v, i) => [...f(v, i)])
        .values();
    },
    reduce(f: (acc: unknown, v: unknown, i: number) => unknown, ...init: unknown[]) {
      return init.length ? all(this).reduce(f, init[0]) : all(this).reduce(f);
    },
    find(f: (v: unknown, i: number) => boolean) {
      return all(this).find(f);
    },
    some(f: (v: unknown, i: number) => boolean) {
      return all(this).some(f);
    },
    every(f: (v: unknown, i: number) => boolean) {
      return all(this).every(f);
    },
    forEach(f: (v: unknown, i: number) => void) {
      all(this).forEach(f);
    },
  };
  for (const [name, fn] of Object.entries(helpers)) {
    if (!(name in proto)) Object.defineProperty(proto, name, { value: fn, writable: true, configurable: true });
  }
}
const cut = (s: string, n = URL_CHARS): string => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
const urlOf = (r: Request | undefined): string => cut(r?.args.data.url ?? '');
/** An engine string in English: its formatted text, or its message id (the English text) with its values put in. */
function text(s: { i18nId: string; values: Record<string, string | number> | undefined; formattedDefault?: string }): string {
  if (s.formattedDefault) return s.formattedDefault;
  return s.i18nId.replace(/\{(\w+)\}/g, (all, k: string) => String(s.values?.[k] ?? all));
}
const ms = (us: number): number => round(us / US_PER_MS, 1);

/** DevTools' initiator chain of a request, root first (its "Initiators" list): the requests that led to it. */
function initiatorChain(ctx: RowContext, r: Request): Request[] {
  const chain: Request[] = [];
  for (let cur = ctx.initiatorOf(r); cur && !chain.includes(cur); cur = ctx.initiatorOf(cur)) chain.unshift(cur);
  return chain;
}

/**
 * The fetch or XHR whose answer came last before the LCP request was sent, within FOUND_AFTER_FETCH_MAX_MS: where a
 * script learned the image's URL. The trace cannot say it: the image's request has no initiator stack (the image
 * loader starts it after the script set src), so DevTools' chain stops at it; this is the request that ended just
 * before, said with its gap so a reader can judge.
 */
function fetchBefore(ctx: RowContext, lcp: Request): Row | undefined {
  const fetches = ctx.requests.filter((r) => {
    const end = r.args.data.syntheticData.finishTime;
    return FETCH_TYPES.has(r.args.data.initiator?.fetchType ?? '') && end <= lcp.ts && lcp.ts - end <= FOUND_AFTER_FETCH_MAX_MS * US_PER_MS;
  });
  const last = fetches.sort((a, b) => a.args.data.syntheticData.finishTime - b.args.data.syntheticData.finishTime).at(-1);
  return (
    last && {
      foundAfter: urlOf(last),
      type: last.args.data.initiator?.fetchType,
      endedMsBefore: ms(lcp.ts - last.args.data.syntheticData.finishTime),
    }
  );
}

/**
 * LCPDiscovery's rows: the image with how long after the document's first byte it was requested (DevTools'
 * discovery delay) and its initiator chain; each check; and, when it was not discoverable in the HTML, the fetch
 * it was found after.
 */
function lcpDiscoveryRows(m: NonNullable<Models['LCPDiscovery']>, ctx: RowContext): Row[] {
  const r = m.lcpRequest;
  if (!r) return [{ url: null }];
  const chain = initiatorChain(ctx, r).map(urlOf);
  const head: Row = {
    url: urlOf(r),
    ...(m.earliestDiscoveryTimeTs !== undefined ? { discoveryDelayMs: ms(r.ts - m.earliestDiscoveryTimeTs) } : {}),
    ...(chain.length ? { initiators: chain } : {}),
  };
  const checks = Object.entries(m.checklist ?? {}).map(([check, c]) => ({ check, ok: c.value }));
  const late = m.checklist?.requestDiscoverable.value === false ? fetchBefore(ctx, r) : undefined;
  return [head, ...checks, ...(late ? [late] : [])];
}

/** The rows behind each insight, by DevTools name: what it names (URLs, culprits, phases). */
const ROWS: { [N in Name]?: (m: NonNullable<Models[N]>, ctx: RowContext) => Row[] } = {
  RenderBlocking: (m) =>
    m.renderBlockingRequests.map((r) => ({
      url: urlOf(r),
      ms: ms(r.dur),
      wastedMs: round(m.requestIdToWastedMs?.get(r.args.data.requestId) ?? 0, 1),
    })),
  FontDisplay: (m) => m.fonts.map((f) => ({ url: urlOf(f.request), display: f.display, wastedMs: round(f.wastedTime, 1) })),
  Cache: (m) => m.requests.map((r) => ({ url: urlOf(r.request), ttlS: r.ttl, wastedBytes: Math.round(r.wastedBytes) })),
  ImageDelivery: (m) =>
    m.optimizableImages.map((i) => ({
      url: urlOf(i.request),
      byteSavings: Math.round(i.byteSavings),
      fixes: i.optimizations.map((o) => o.type),
    })),
  CLSCulprits: (m) => {
    const worst = m.worstCluster;
    const culprits = worst ? (m.topCulpritsByCluster.get(worst) ?? []) : [];
    const rows: Row[] = culprits.map((c) => ({ culprit: cut(text(c.description)), ...('url' in c ? { url: cut(c.url) } : {}) }));
    return [...(worst ? [{ worstClusterScore: round(worst.clusterCumulativeScore, 4), shifts: worst.events.length }] : []), ...rows];
  },
  LCPBreakdown: (m) => [
    { lcpMs: m.lcpMs === undefined ? null : round(m.lcpMs, 1), url: m.lcpRequest ? urlOf(m.lcpRequest) : null },
    ...Object.entries(m.subparts ?? {}).map(([phase, p]) => ({ phase, ms: ms(p.range) })),
  ],
  LCPDiscovery: lcpDiscoveryRows,
  DocumentLatency: (m) =>
    m.data
      ? [
          { serverResponseMs: round(m.data.serverResponseTime, 1), redirectMs: round(m.data.redirectDuration, 1) },
          ...Object.entries(m.data.checklist ?? {}).map(([check, c]) => ({ check, ok: c.value })),
        ]
      : [],
  ThirdParties: (m) =>
    m.entitySummaries
      .filter((e) => e.entity !== m.firstPartyEntity)
      .map((e) => {
        // The entity's first script (else any request) among its events: the file to look at, as the culprit.
        const urls = e.relatedEvents.flatMap((ev) => {
          const url: unknown = ev.args?.data && 'url' in ev.args.data ? ev.args.data.url : undefined;
          return typeof url === 'string' && url ? [url] : [];
        });
        const url = urls.find((u) => /\.m?js(\?|$)/.test(u)) ?? urls[0];
        return {
          entity: e.entity.name,
          ...(url ? { url: cut(url) } : {}),
          transferBytes: e.transferSize,
          mainThreadMs: round(e.mainThreadTime, 1),
        };
      }),
  // The longest first, so the line names it: on Tabulator's grid the engine's first was 0.3 ms, a later one 29.1.
  ForcedReflow: (m) =>
    m.aggregatedBottomUpData
      .map((b) => ({
        function: b.bottomUpData?.functionName || '(anonymous)',
        url: cut(b.bottomUpData?.url ?? ''),
        // The engine's times are µs, as the trace's: 157641 read as ms was a 2.6-minute reflow.
        ms: ms(b.totalTime),
      }))
      .sort((a, b) => b.ms - a.ms),
  NetworkDependencyTree: (m) => {
    // The chains depth first, as DevTools draws the tree: each request with its depth and time from the document's.
    const rows: Row[] = [];
    const walk = (nodes: readonly Trace.Insights.Models.NetworkDependencyTree.CriticalRequestNode[], depth: number): void => {
      for (const n of nodes) {
        rows.push({ url: urlOf(n.request), depth, ms: ms(n.timeFromInitialRequest) });
        walk(n.children, depth + 1);
      }
    };
    walk(m.rootNodes, 0);
    return rows;
  },
  INPBreakdown: (m) => {
    const i = m.longestInteractionEvent;
    return i
      ? [
          { interaction: i.type, ms: ms(i.dur) },
          { phase: 'inputDelay', ms: ms(i.inputDelay) },
          { phase: 'processing', ms: ms(i.mainThreadHandling) },
          { phase: 'presentationDelay', ms: ms(i.presentationDelay) },
        ]
      : [];
  },
  ModernHTTP: (m) => m.http1Requests.map((r) => ({ url: urlOf(r), protocol: r.args.data.protocol })),
  // The script, what it could shed, and the polyfills and transforms found in it (their names, as DevTools lists them).
  LegacyJavaScript: (m) =>
    [...m.legacyJavaScriptResults]
      .map(([script, r]) => ({
        url: cut(script.url ?? script.sourceUrl ?? ''),
        wastedBytes: Math.round(r.estimatedByteSavings),
        found: r.matches.slice(0, MAX_ROWS).map((x) => x.name),
      }))
      .sort((a, b) => b.wastedBytes - a.wastedBytes),
  DOMSize: (m) => (m.maxDOMStats ? [{ elements: m.maxDOMStats.args.data.totalElements, depth: m.maxDOMStats.args.data.maxDepth }] : []),
};

/** The fired insights of one trace: theirs for the report, their rows for perf_insight, and the engine's time. */
export interface EngineResult {
  insights: Insight[];
  details: InsightDetail[];
  /** Wall time of parse + insights, ms. */
  ms: number;
  /** Why the engine gave nothing (it threw, or found no navigation), when it did not. */
  error?: string;
  /** Insights the engine could not compute on this trace (it threw inside them), by DevTools name. */
  failed: string[];
}

/**
 * Every insight the pinned engine computes, by DevTools name: perf_insight's vocabulary beside our rules.
 * test/devtools-insights-engine.test.ts holds it equal to the engine's own list, so an upgrade that drops one fails.
 */
export const DEVTOOLS_INSIGHTS = [
  'LCPBreakdown',
  'LCPDiscovery',
  'RenderBlocking',
  'DocumentLatency',
  'CLSCulprits',
  'INPBreakdown',
  'ForcedReflow',
  'ThirdParties',
  'ImageDelivery',
  'Cache',
  'FontDisplay',
  'DOMSize',
  'NetworkDependencyTree',
  'SlowCSSSelector',
  'Viewport',
  'ModernHTTP',
  'LegacyJavaScript',
  'DuplicatedJavaScript',
  'CharacterSet',
] as const satisfies readonly Name[];

/**
 * The insights that read the scripts' sources, which only a window without Profiler.start records (perf_load; a run's
 * attribution repeats cannot: src/drivers/cdp/trace.ts SOURCE_CATEGORIES). A run never fires them.
 */
export const SOURCE_INSIGHTS: ReadonlySet<Name> = new Set(['LegacyJavaScript', 'DuplicatedJavaScript']);

/** The engine's own list of insights, by DevTools name (loads the library). */
export async function engineInsightNames(): Promise<string[]> {
  return Object.keys((await loadEngine()).Insights.Models);
}

// The library takes 0.3-0.7 s to import (2 cores): loaded on the first load to analyse, not with every CLI command.
let engine: Promise<typeof Trace> | undefined;
function loadEngine(): Promise<typeof Trace> {
  engine ??= import('@paulirish/trace_engine').then((m) => {
    polyfillIteratorHelpers();
    return m;
  });
  return engine;
}

/**
 * Load the engine (and its third-party list) now, at a time nothing is measured: a window that will need it awaits
 * this before it opens, so the import (0.3-0.7 s on 2 cores) neither runs inside a window nor adds to the first
 * trace's analysis. Started early (a run's start, perf_load's way to about:blank) it overlaps waits the harness has
 * anyway. A failed import is the analysis' to report.
 */
export async function warmEngine(): Promise<void> {
  await Promise.all([loadEngine(), requestEntities('about:blank', [])]).catch(() => undefined);
}

type ThirdPartyWeb = typeof import('@paulirish/trace_engine/third_party/third-party-web/third-party-web.js').ThirdPartyWeb;
let thirdPartyWeb: Promise<ThirdPartyWeb> | undefined;

/**
 * Each URL's party as DevTools' ThirdParties insight names it, from the list the engine ships (third-party-web):
 * `first-party` on the page's site (the same registrable domain, or the same known entity, as google.com and
 * gstatic.com), else the entity's name ("Google Fonts") or, unknown to the list, its registrable domain; undefined
 * for what has no domain (data:, blob:).
 */
export async function requestEntities(pageUrl: string, urls: readonly string[]): Promise<(string | undefined)[]> {
  thirdPartyWeb ??= import('@paulirish/trace_engine/third_party/third-party-web/third-party-web.js').then((m) => m.ThirdPartyWeb);
  const tpw = await thirdPartyWeb;
  const site = (u: string): { domain: string; entity?: string } | undefined => {
    if (!/^https?:/i.test(u)) return undefined;
    const domain = tpw.getRootDomain(u);
    return domain ? { domain, ...(tpw.getEntity(u) ? { entity: tpw.getEntity(u)?.name } : {}) } : undefined;
  };
  const page = site(pageUrl);
  return urls.map((u) => {
    const s = site(u);
    if (!s) return undefined;
    if (page && (s.domain === page.domain || (s.entity !== undefined && s.entity === page.entity))) return 'first-party';
    return s.entity ?? s.domain;
  });
}

/**
 * The engine reads the trace without V8's samples (ProfileChunk, Profile): folding them into the main thread's tree was
 * over half its time (Swagger UI's load trace, 4.2 MB: 403 → 179 ms median), and no insight needs them. Every insight
 * of the planted page and of Swagger UI, the grid and TodoMVC read the same, but for ThirdParties' main-thread time,
 * which then counts the third party's whole tasks (the planted 180 ms task: 180.2 ms) rather than the samples that
 * landed in its functions (124.8 ms). The trace file keeps the samples: DevTools' flame chart shows the functions.
 */
const unsampled = (e: TraceEvent): boolean => e.name !== 'ProfileChunk' && e.name !== 'Profile';

// The source rundown's categories (cdp/trace.ts SOURCE_CATEGORIES): a script's URL, and its text.
const isSourceEvent = (e: TraceEvent): boolean => e.cat.startsWith('disabled-by-default-devtools.v8-source-rundown');
const scriptKey = (e: TraceEvent): string => `${String(e.args?.data?.isolate)}:${String(e.args?.data?.scriptId)}`;

/**
 * The scripts' sources the engine scans (LegacyJavaScript) are the measured load's own. The rundown replays every
 * script alive when tracing starts, i.e. the previous document's before a reload, and their requests have the reload's
 * URLs: the engine listed Swagger UI's bundle twice and scanned 2 MB more (quiet, 395–491 → 173–251 ms). Our probes'
 * and runtime's sources (their sourceURL) are the harness's. Both are left out; the trace file keeps them.
 */
function pageSources(events: readonly TraceEvent[]): TraceEvent[] {
  const nav = events.find((e) => e.name === 'navigationStart' && e.args?.data?.isLoadingMainFrame && e.args.data.documentLoaderURL);
  const before = (e: TraceEvent): boolean => nav !== undefined && e.ts < nav.ts;
  const ours = new Set(events.filter((e) => isSourceEvent(e) && isHarnessScript(String(e.args?.data?.sourceUrl ?? ''))).map(scriptKey));
  return events.filter((e) => !isSourceEvent(e) || !(before(e) || ours.has(scriptKey(e))));
}

/** The trace events as the engine types them: JSON from Chromium, its format; branded numbers are plain ones at run time. */
function isEngineTrace(events: readonly TraceEvent[]): events is readonly TraceEvent[] & readonly Trace.Types.Events.Event[] {
  return Array.isArray(events);
}

/**
 * Every insight the engine fired for the trace's first navigation (the measured load), or for the whole trace when it
 * has none (a window of steps): state `fail` (a problem with estimated savings) or `informative` (LCP phases, third
 * parties); a `pass` is left out.
 */
export async function devtoolsInsights(events: readonly TraceEvent[]): Promise<EngineResult> {
  const t0 = performance.now();
  const read = pageSources(events.filter(unsampled));
  if (!isEngineTrace(read)) return { insights: [], details: [], ms: 0, error: 'no trace events', failed: [] };
  try {
    const model = (await loadEngine()).TraceModel.Model.createWithAllHandlers();
    await model.parse(read);
    // A load: its navigation's set. A window of steps (no navigation): the set of the whole trace (INP, forced reflow).
    const parsed = model.parsedTrace();
    const sets = [...(parsed?.insights?.values() ?? [])];
    const set = sets.find((x) => x.navigation) ?? sets[0];
    if (!set)
      return { insights: [], details: [], ms: performance.now() - t0, error: 'the engine found no insight set in the trace', failed: [] };
    const fired = Object.values(set.model).filter((m): m is Model => m !== undefined && m.state !== 'pass');
    const { Extras } = await loadEngine();
    const ctx: RowContext = {
      pageUrl: parsed?.data.Meta.mainFrameURL ?? '',
      requests: parsed?.data.NetworkRequests.byTime ?? [],
      initiatorOf: (r) => (parsed ? Extras.Initiators.getNetworkInitiator(parsed.data, r) : undefined),
    };
    const out = fired
      .map((m) => toInsight(m, ctx))
      .sort((a, b) => (b.insight.estimatedSavingsMs ?? 0) - (a.insight.estimatedSavingsMs ?? 0));
    const failed = Object.keys(set.modelErrors);
    return { insights: out.map((o) => o.insight), details: out.map((o) => o.detail), ms: performance.now() - t0, failed };
  } catch (e) {
    const error = `DevTools' trace engine failed: ${(e as Error).message}`;
    return { insights: [], details: [], ms: performance.now() - t0, error, failed: [] };
  }
}

// The row fields that hold a request's URL, or a chain of them.
const URL_FIELDS = ['url', 'foundAfter', 'initiators'] as const;

function rowsOf(m: Model, ctx: RowContext): Row[] {
  const extract = ROWS[m.insightKey] as ((x: Model, c: RowContext) => Row[]) | undefined;
  const path = (v: unknown): unknown => (typeof v === 'string' ? pagePath(v, ctx.pageUrl) : Array.isArray(v) ? v.map(path) : v);
  return (extract ? extract(m, ctx) : []).map((row) => {
    const out = { ...row };
    for (const k of URL_FIELDS) if (k in out) out[k] = path(out[k]);
    return out;
  });
}

/** The largest of the metric savings the engine estimates, ms (CLS is a score, said in the title instead). */
function savingsMs(m: Model): number | undefined {
  const s = m.metricSavings;
  if (!s) return undefined;
  const v = Math.max(s.FCP ?? 0, s.LCP ?? 0, s.INP ?? 0, s.TBT ?? 0);
  return v > 0 ? round(v, 1) : undefined;
}

/** The first row's URL, else its culprit: what the insight points at. */
function culpritOf(rows: readonly Row[]): string {
  const first = rows.find((r) => typeof r.url === 'string' && r.url) ?? rows.find((r) => typeof r.culprit === 'string');
  return first ? String(first.url || first.culprit) : '';
}

const failedChecks = (rows: readonly Row[]): string => {
  const failed = rows.filter((r) => r.ok === false).map((r) => String(r.check));
  return failed.length ? `; failed: ${failed.join(', ')}` : '';
};
const longestPhase = (rows: readonly Row[]): string => {
  const phases = rows.filter((r): r is Row & { phase: string; ms: number } => typeof r.phase === 'string' && typeof r.ms === 'number');
  const top = phases.sort((x, y) => y.ms - x.ms)[0];
  return top ? `mostly ${top.phase} ${top.ms} ms` : '';
};
/** The LCP's element: its image URL, or for a text LCP (no URL) its time. */
const lcpOf = (rows: readonly Row[]): string => {
  const at = rows.find((r) => typeof r.lcpMs === 'number');
  return culpritOf(rows) || (at ? `text LCP at ${String(at.lcpMs)} ms` : '');
};
const joined = (...parts: string[]): string => parts.filter(Boolean).join(', ');
/** A CLS score to 3 decimals, or one significant digit under 0.001: a shift the grid made read "CLS 0" at 0.0003. */
const clsText = (v: number): string => (v > 0 && v < 0.001 ? v.toPrecision(1) : String(round(v, 3)));

// Insights whose rows are a fixed form (phases, checks, a score and its culprits), not a list of culprits to count.
const FIXED_ROWS = new Set<Name>(['LCPBreakdown', 'LCPDiscovery', 'INPBreakdown', 'DocumentLatency', 'CLSCulprits', 'DOMSize']);

/**
 * What a one-line listing says an insight found, where its first URL says too little: the function that forced the
 * reflow, the kind of shift with its element, the phase an interaction or the LCP spent its time in, the failed checks.
 */
const WHAT: { [N in Name]?: (rows: readonly Row[]) => string } = {
  ForcedReflow: (rows) => (rows[0] ? `${String(rows[0].function)}${rows[0].url ? ` (${String(rows[0].url)})` : ''}` : ''),
  CLSCulprits: (rows) => {
    const c = rows.find((r) => typeof r.culprit === 'string');
    return c ? `${String(c.culprit)}${c.url ? ` ${String(c.url)}` : ''}` : '';
  },
  INPBreakdown: (rows) =>
    rows[0]?.interaction ? joined(`${String(rows[0].interaction)} ${String(rows[0].ms)} ms`, longestPhase(rows)) : '',
  LCPBreakdown: (rows) => joined(lcpOf(rows), longestPhase(rows)),
  LCPDiscovery: (rows) => {
    const found = rows.find((r) => typeof r.foundAfter === 'string');
    return `${culpritOf(rows)}${failedChecks(rows)}${found ? `; found after ${String(found.type)} ${String(found.foundAfter)}` : ''}`;
  },
  DocumentLatency: (rows) => failedChecks(rows).replace(/^; /, ''),
};

/** One line: DevTools' title, the estimated savings, and the first row's URL or culprit (the id is the record's own). */
function titleOf(m: Model, rows: readonly Row[]): string {
  const s = m.metricSavings ?? {};
  const savings = [
    ...(['FCP', 'LCP', 'INP', 'TBT'] as const).filter((k) => (s[k] ?? 0) > 0).map((k) => `${k} ${Math.round(s[k] ?? 0)} ms`),
    ...((s.CLS ?? 0) > 0 ? [`CLS ${clsText(s.CLS ?? 0)}`] : []),
    ...((m.wastedBytes ?? 0) > 0 ? [`${Math.round((m.wastedBytes ?? 0) / 1024)} KiB`] : []),
  ];
  const what = (WHAT[m.insightKey] ?? culpritOf)(rows);
  // CLSCulprits estimates no savings: its worst cluster's score is what to bring down.
  const cls = typeof rows[0]?.worstClusterScore === 'number' ? `, worst cluster CLS ${clsText(rows[0].worstClusterScore)}` : '';
  // How many rows there are, where they are culprits and more than one: another URL is in perf_insight's rows.
  const many = rows.length > 1 && !FIXED_ROWS.has(m.insightKey);
  return (
    text(m.title) +
    `${many ? ` (${rows.length} rows)` : ''}` +
    `${savings.length ? `, est. savings ${savings.join(', ')}` : ''}${cls}${what ? ` — ${what}` : ''}`
  );
}

function toInsight(m: Model, ctx: RowContext): { insight: Insight; detail: InsightDetail } {
  const all = rowsOf(m, ctx);
  const rows = all.slice(0, MAX_ROWS);
  // Two URLs' length for the one-line form (insightLine: `id: title`), as when the title carried the id.
  const title = cut(titleOf(m, all), 2 * URL_CHARS - insightLine({ id: m.insightKey, title: '' }).length);
  const est = savingsMs(m);
  const culprit = cut(culpritOf(all), URL_CHARS);
  const insight: Insight = {
    id: m.insightKey,
    source: 'devtools',
    severity: m.state === 'fail' ? 'warn' : 'info',
    title,
    ...(culprit ? { culprit } : {}),
    evidence: { metric: `devtools.${m.insightKey}`, value: all.length, perFrame: null, threshold: 0 },
    ...(est !== undefined ? { estimatedSavingsMs: est } : {}),
    ...((m.wastedBytes ?? 0) > 0 ? { estimatedSavingsBytes: Math.round(m.wastedBytes ?? 0) } : {}),
    nextStep: `perf_insight { id: '${m.insightKey}' } lists its rows; DevTools' Performance panel shows it in the trace (perf_trace)`,
  };
  const described = text(m.description).replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
  const note = cut(/^.*?[.!?](?=\s|$)/.exec(described)?.[0] ?? described, NOTE_CHARS);
  const detail: InsightDetail = {
    id: m.insightKey,
    title,
    rows,
    ...(all.length > rows.length ? { note: `${note} (${all.length} rows)` } : { note }),
  };
  // Bounded by construction (cut URLs, MAX_ROWS); the loop is the guarantee should a row grow.
  while (detail.rows.length && Buffer.byteLength(JSON.stringify(detail)) > DETAIL_MAX_BYTES) detail.rows.pop();
  return { insight, detail };
}
