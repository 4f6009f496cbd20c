/**
 * The metric registry (src/perf/metrics.ts) is the one vocabulary: every metric a real run file holds
 * resolves in it, `perf metrics --json` prints it, docs/metrics.md's table is generated from it, and the
 * default primary family stays within MAX_PRIMARY.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  checkMetricName,
  defaultPrimaryMetrics,
  MAX_PRIMARY,
  METRICS,
  metricsByDriverMarkdown,
  metricsMarkdown,
  primaryRuleMarkdown,
  resolveMetric,
  sortMetricNames,
} from '../src/perf/metrics.js';
import type { RunFile } from '../src/perf/run-file.js';
import { PerfError } from '../src/errors.js';
import { ROOT } from './helpers.js';

const baselineFiles = readdirSync(join(ROOT, 'baselines')).filter((f) => f.endsWith('.json'));

test('every metric in the committed baselines (real Chromium reports of every bundled scenario) resolves in the registry', () => {
  assert.ok(baselineFiles.length >= 6);
  const seen = new Set<string>();
  const seenOverCdp = new Set<string>();
  for (const f of baselineFiles) {
    const run = JSON.parse(readFileSync(join(ROOT, 'baselines', f), 'utf8')) as RunFile;
    for (const r of run.repeats)
      if (r.status === 'measured') for (const k of Object.keys(r.report.metrics)) (run.env.browser.driver ? seen : seenOverCdp).add(k);
  }
  for (const k of seenOverCdp) seen.add(k);
  const unknown = [...seen].filter((k) => !resolveMetric(k));
  assert.deepEqual(unknown, []);
  assert.deepEqual(
    [...seenOverCdp].filter((k) => !resolveMetric(k)!.def.drivers.includes('cdp')),
    [],
  );
  // And the registry is not padded with names nothing produces (steps.<label>.ms is a pattern). The
  // baselines are CDP runs: other drivers' metrics are checked by their own runs (webdriver, terminal tests).
  const unproduced = METRICS.filter(
    (d) => d.drivers.includes('cdp') && !d.name.includes('<') && ![...seen].some((k) => k === d.name || k === `${d.name}.perFrame`),
  ).map((d) => d.name);
  assert.ok(unproduced.length <= 2, `declared but never produced by the bundled scenarios: ${unproduced.join(', ')}`);
});

test('the default primary family is at most 8 metrics on any one driver, each with a better direction, and resolves by name', () => {
  const primary = defaultPrimaryMetrics();
  // A terminal's family (its latency and bytes) and a browser's never meet in one run: at most 8 on each driver.
  for (const driver of ['cdp', 'pty'] as const) {
    const own = primary.filter((m) => resolveMetric(m)!.def.drivers.includes(driver));
    assert.ok(own.length >= 1 && own.length <= MAX_PRIMARY, `${driver}: ${own.join(', ')}`);
  }
  for (const m of primary) {
    const r = resolveMetric(m);
    assert.ok(r, m);
    assert.notEqual(r.def.better, 'none', m);
    assert.equal(r.def.gate, 'primary', m);
  }
  assert.ok(primary.includes('counters.layouts') && primary.includes('counters.threadCpuMs'));
});

test('checkMetricName: a typo is a PerfError with the closest names as candidates; steps.<label>.ms needs the label', () => {
  assert.throws(
    () => checkMetricName('frames.overbudget.perFrame'),
    (e: unknown) => e instanceof PerfError && e.code === 'unknown_metric' && e.candidates!.includes('frames.overBudget.perFrame'),
  );
  assert.equal(checkMetricName('steps.open.ms', ['open']).label, 'open');
  assert.throws(() => checkMetricName('steps.open.ms', ['close']), /no measured step is labelled "open"; labels: close/);
  assert.deepEqual(sortMetricNames(['zzz', 'counters.layouts.perFrame', 'durationMs', 'counters.layouts']), [
    'durationMs',
    'counters.layouts',
    'counters.layouts.perFrame',
    'zzz',
  ]);
});

test("docs/metrics.md's metric table is the registry's, generated (edit src/perf/metrics.ts, then `npm run docs`)", () => {
  const readme = readFileSync(join(ROOT, 'docs/metrics.md'), 'utf8');
  const m = /<!-- metrics:begin -->\n([\s\S]*?)\n<!-- metrics:end -->/.exec(readme);
  assert.ok(m, 'docs/metrics.md has the metrics:begin/end markers');
  assert.equal(m[1], metricsMarkdown());
});

test("docs/metrics.md's per-driver table is the registry's, generated (`npm run docs`), and the WebKit guide links to it", () => {
  const readme = readFileSync(join(ROOT, 'docs/metrics.md'), 'utf8');
  const m = /<!-- metrics-by-driver:start -->\n([\s\S]*?)\n<!-- metrics-by-driver:end -->/.exec(readme);
  assert.ok(m, 'docs/metrics.md has the metrics-by-driver:start/end markers');
  assert.equal(m[1], metricsByDriverMarkdown());
  const guide = readFileSync(join(ROOT, 'docs/webkit-tauri.md'), 'utf8');
  assert.ok(guide.includes('](metrics.md#which-metrics-each-driver-produces)'), 'the WebKit and Tauri guide links to the table');
});

test('`perf metrics --json` prints the registry with direction, role and host dependence; `perf metrics` a table', () => {
  const r = spawnSync(process.execPath, [join(ROOT, 'bin/perf'), 'metrics', '--json'], { timeout: 120_000, cwd: ROOT, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const j = JSON.parse(r.stdout) as {
    metrics: { name: string; better: string; gate: string; hostDependent: boolean; perFrameName: string | null; drivers: string[] }[];
    maxPrimary: number;
    minPaintedForPerFrame: number;
  };
  assert.equal(j.metrics.length, METRICS.length);
  assert.equal(j.maxPrimary, MAX_PRIMARY);
  assert.equal(j.minPaintedForPerFrame, 30);
  const layouts = j.metrics.find((x) => x.name === 'counters.layouts')!;
  assert.deepEqual(
    [layouts.better, layouts.gate, layouts.hostDependent, layouts.perFrameName],
    ['lower', 'primary', false, 'counters.layouts.perFrame'],
  );
  const painted = j.metrics.find((x) => x.name === 'frames.painted')!;
  assert.deepEqual([painted.better, painted.gate], ['none', 'never']);
  assert.deepEqual(layouts.drivers, ['cdp']);
  assert.deepEqual(j.metrics.find((x) => x.name === 'frames.overBudget')!.drivers, [
    'cdp',
    'webdriver-chromium',
    'webdriver-webkit',
    'bidi-firefox',
  ]);
  // Firefox has Event Timing and LCP, not Long Animation Frames: declared per metric, so a compare never calls them missing.
  const on = (name: string): boolean => j.metrics.find((x) => x.name === name)!.drivers.includes('bidi-firefox');
  assert.deepEqual(['interactions.latencyMs.p50', 'load.lcpMs', 'longFrames.blockingMs', 'layoutShift.score', 'counters.layouts'].map(on), [
    true,
    true,
    false,
    false,
    false,
  ]);
  const t = spawnSync(process.execPath, [join(ROOT, 'bin/perf'), 'metrics'], { timeout: 120_000, cwd: ROOT, encoding: 'utf8' });
  assert.equal(t.status, 0);
  assert.match(t.stdout, /^metric +unit +better +gate/);
  assert.match(t.stdout, /\ncounters\.threadCpuMs \(\+\.perFrame\) +ms +lower +primary +host/);
});

test('docs/metrics.md\'s "primaries by noise" paragraph is the registry\'s rule, generated (`npm run docs`)', () => {
  const readme = readFileSync(join(ROOT, 'docs/metrics.md'), 'utf8');
  const m = /<!-- primary-rule:begin -->\n([\s\S]*?)\n<!-- primary-rule:end -->/.exec(readme);
  assert.ok(m, 'docs/metrics.md has the primary-rule:begin/end markers');
  assert.equal(m[1], primaryRuleMarkdown());
  assert.match(m[1]!, /`gate\.metrics` overrides the rule/);
  assert.deepEqual(
    METRICS.filter((d) => d.promote).map((d) => d.name),
    ['counters.scriptMs', 'counters.taskMs', 'memory.heapUsedAfterGcBytes', 'memory.domNodes', 'process.cpuMs'],
  );
  assert.ok(
    METRICS.filter((d) => d.promote).every((d) => d.gate === 'secondary' && d.better === 'lower'),
    'a promotable metric is a secondary one with a direction',
  );
});
