/**
 * perf_end's reply (issue 59 item 4): a summary of the report, the figures an agent decides on and one line per fired
 * insight, within PERF_END_SUMMARY_MAX_BYTES; the rows are perf_insight's, the whole report is `full: true`. Read on the
 * report of a real window (the planted page's slow click, test/fixtures/perf-end-click-report.json, as perf_end returned
 * it whole) and on a report made to overflow. No browser: sizes and counts only.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Insight } from '../src/perf/insights.js';
import type { PerfReport } from '../src/perf/report.js';
import { endSummary, PERF_END_SUMMARY_MAX_BYTES } from '../src/steps/perf-end.js';
import { FIXTURES_DIR } from './helpers.js';

const TIMEOUT_MS = 10_000;

function clickReport(): PerfReport {
  return JSON.parse(readFileSync(join(FIXTURES_DIR, 'perf-end-click-report.json'), 'utf8')) as PerfReport;
}

const insight = (id: string, title: string): Insight => ({
  id,
  source: 'devtools',
  severity: 'warn',
  title,
  evidence: { metric: `devtools.${id}`, value: 1, perFrame: null, threshold: 0 },
  nextStep: `perf_insight { id: '${id}' }`,
});

test(
  'the slow click: one line per insight (twins folded), the headline figures, no ranked list, a quarter of the report',
  { timeout: TIMEOUT_MS },
  () => {
    const report = clickReport();
    // The engine's ForcedReflow, which the full report's 6 KB bound used to drop from the window's list.
    report.insights.push(insight('ForcedReflow', 'Forced reflow — forceLayoutLoop (http://127.0.0.1:42275/)'));
    const full = Buffer.byteLength(JSON.stringify(report));
    const s = endSummary(report);
    const bytes = Buffer.byteLength(JSON.stringify(s));
    assert.ok(bytes <= full / 4, `summary ${bytes} bytes, the full report ${full}`);
    const lines = s.insights as string[];
    // Six fired; our two rules whose DevTools twin fired too are folded into its line (the report keeps all six).
    assert.equal(report.insights.length, 6);
    assert.deepEqual(
      lines.map((l) => l.slice(0, l.indexOf(':'))),
      ['blockSelfMs', 'framesDropped', 'INPBreakdown', 'ForcedReflow'],
    );
    assert.match(lines[2]!, /^INPBreakdown: .* on button#slow "Slow" \(step tap\); also longInteraction$/);
    assert.match(lines[3]!, /^ForcedReflow: .*forceLayoutLoop.*; also forcedLayout$/);
    assert.equal(s.insightsOmitted, undefined);
    const metrics = s.metrics as Record<string, number>;
    assert.equal(metrics['interactions.latencyMs.worst'], 288);
    assert.equal(metrics['frames.dropped'], 15);
    assert.equal(metrics['steps.tap.ms'], 308.53);
    // No per-frame twin, no counter or memory figure but the headline ones: those are the full report's.
    assert.deepEqual(
      Object.keys(metrics).filter((m) => m.endsWith('.perFrame') || m.startsWith('memory.')),
      [],
    );
    for (const k of ['summary', 'coverage', 'env', 'counters', 'interactions', 'omitted', 'missing']) assert.equal(s[k], undefined, k);
  },
);

test(
  `never over ${PERF_END_SUMMARY_MAX_BYTES} bytes: step times go first, then the last insight lines, counted`,
  { timeout: TIMEOUT_MS },
  () => {
    const report = clickReport();
    for (let i = 0; i < 60; i++) report.metrics[`steps.step-number-${i}.ms`] = 100 + i;
    const long = `${'x'.repeat(200)} — http://127.0.0.1:42275/`;
    report.insights = Array.from({ length: 25 }, (_, i) => insight(`Insight${i}`, long));
    const s = endSummary(report);
    assert.ok(Buffer.byteLength(JSON.stringify(s)) <= PERF_END_SUMMARY_MAX_BYTES);
    const lines = s.insights as string[];
    assert.equal(lines.length + Number(s.insightsOmitted), 25);
    assert.ok(Number(s.insightsOmitted) > 0);
    assert.ok(lines.length >= 10, `${lines.length} lines kept`);
    assert.deepEqual(
      Object.keys(s.metrics as object).filter((m) => m.startsWith('steps.')),
      [],
      'every step time went before an insight line did',
    );
    // A source not read is said, with its reason.
    report.missingReasons = { profile: 'timing mode: no CPU profile' };
    report.insights = [];
    assert.deepEqual(endSummary(report).missing, { profile: 'timing mode: no CPU profile' });
  },
);

test('a refused window: the token, refused and the reason, nothing else', { timeout: TIMEOUT_MS }, () => {
  const report = { ...clickReport(), refused: true, reason: 'no frame was painted' };
  assert.deepEqual(endSummary(report), {
    sessionToken: report.sessionToken,
    refused: true,
    reason: 'no frame was painted',
    mode: 'attribution',
  });
});
