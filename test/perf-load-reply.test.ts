/**
 * perf_load's reply (src/steps/perf-load.ts loadReply), from a report as the load source and DevTools' engine leave
 * it: the render-blocking flag on the largest requests is ours only where the engine did not run (no trace: WebDriver,
 * Firefox; or the engine failed). When it ran, its RenderBlocking line names the requests and what they cost, and the
 * flag would say it twice (issue 59: one of two computations of the same thing kept). The engine's side on real
 * Chromium is test/devtools-insights.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LoadRequest } from '../src/drivers/measure.js';
import { pagePath } from '../src/perf/analysis.js';
import { loadReply, type LoadReport } from '../src/steps/perf-load.js';

const BASE = 'http://127.0.0.1:8080/';
const request = (file: string, type: LoadRequest['type'], transferBytes: number, renderBlocking: boolean): LoadRequest => ({
  url: `${BASE}${file}`,
  type,
  startMs: 0,
  responseStartMs: 10,
  endMs: 20,
  transferBytes,
  renderBlocking,
});

function report(devtools: LoadReport['devtools']): LoadReport {
  const insights: LoadReport['insights'] = devtools
    ? [
        {
          id: 'RenderBlocking',
          source: 'devtools',
          severity: 'warn',
          title: `Render-blocking requests — ${BASE}slow.css`,
          evidence: { metric: 'devtools.RenderBlocking', value: 1, perFrame: null, threshold: 0 },
          nextStep: "perf_insight { id: 'RenderBlocking' }",
        },
      ]
    : [];
  return {
    sessionToken: 'ps-1',
    refused: false,
    metrics: { 'load.fcpMs': 800 },
    load: {
      url: BASE,
      ended: 'quiet',
      ttfbMs: 10,
      fcpMs: 800,
      lcpMs: 900,
      domContentLoadedMs: 700,
      loadEventMs: 900,
      lcpElement: null,
      lcpUrl: null,
      requestsTotal: 3,
      top: [
        request('hero.png', 'image', 2_000_000, false),
        request('', 'document', 2000, true),
        request('slow.css', 'stylesheet', 400, true),
      ],
    },
    insights,
    ...(devtools ? { devtools } : {}),
  };
}

const flagged = (r: LoadReport): string[] => {
  const top = loadReply(r, { url: BASE, cache: 'cold', status: 200 }).data?.top as { url: string; renderBlocking?: boolean }[];
  return top.filter((t) => t.renderBlocking === true).map((t) => t.url);
};

test('the top rows carry the render-blocking flag only where DevTools engine gave no result', { timeout: 10_000 }, () => {
  // The engine ran: its RenderBlocking line says which requests held the first paint; no row repeats it.
  const ran = report({ ms: 300, insights: 1 });
  assert.deepEqual(flagged(ran), []);
  assert.deepEqual(loadReply(ran, { url: BASE, cache: 'cold', status: 200 }).data?.insights, [
    `RenderBlocking: Render-blocking requests — ${BASE}slow.css`,
  ]);
  // No trace (WebDriver, Firefox) or the engine failed: the flag is what the reply has. The page's own URLs are paths.
  assert.deepEqual(flagged(report(undefined)), ['/', '/slow.css']);
  assert.deepEqual(flagged(report({ ms: 30, insights: 0, error: "DevTools' trace engine failed: x" })), ['/', '/slow.css']);
});

test("a reply writes the page's own URLs as paths, another origin's whole", { timeout: 10_000 }, () => {
  assert.equal(pagePath('http://127.0.0.1:8080/a/b.js?v=1', 'http://127.0.0.1:8080/index.html'), '/a/b.js?v=1');
  // Same host, another port: another origin, and no prefix of it (":80" is a prefix of ":8080").
  assert.equal(pagePath('http://127.0.0.1:80/x.js', 'http://127.0.0.1:8080/'), 'http://127.0.0.1:80/x.js');
  assert.equal(pagePath('http://127.0.0.1:8080/x.js', 'http://127.0.0.1:80/'), 'http://127.0.0.1:8080/x.js');
  assert.equal(pagePath('https://cdn.example/x.js', 'http://127.0.0.1:8080/'), 'https://cdn.example/x.js');
  assert.equal(pagePath('data:image/png;base64,AAAA', 'http://127.0.0.1:8080/'), 'data:image/png;base64,AAAA');
});

test("our forcedLayout beside DevTools' ForcedReflow is one line, under the DevTools name, as in perf_end", { timeout: 10_000 }, () => {
  const r = report({ ms: 300, insights: 2 });
  const evidence = { metric: 'x', value: 1, perFrame: null, threshold: 0 };
  r.insights.push(
    { id: 'forcedLayout', source: 'rehearse', severity: 'warn', title: '19 of 21 layouts forced from script', evidence, nextStep: '' },
    { id: 'ForcedReflow', source: 'devtools', severity: 'warn', title: 'Forced reflow — resetScroll', evidence, nextStep: '' },
  );
  assert.deepEqual(loadReply(r, { url: BASE, cache: 'cold', status: 200 }).data?.insights, [
    `RenderBlocking: Render-blocking requests — ${BASE}slow.css`,
    'ForcedReflow: Forced reflow — resetScroll; also forcedLayout',
  ]);
});
