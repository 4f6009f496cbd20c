/**
 * buildReport as a fold over the metric sources (src/perf/sources): the same raw data gives the same
 * report, byte for byte, as before the fold (fixtures recorded from real Chromium and pty sessions plus
 * synthetic WebDriver/terminal/refusal cases, their expected JSON captured from the previous buildReport);
 * and the sources and the registry agree on which metrics exist, both ways. No browser.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { buildReport } from '../src/perf/report.js';
import type { RawSession, SourceName } from '../src/drivers/measure.js';
import { METRICS, resolveMetric } from '../src/perf/metrics.js';
import { COVERAGE_ORDER, SOURCES } from '../src/perf/sources/index.js';
import { framePicture } from '../src/perf/sources/frames.js';
import { clockOffsetMs } from '../src/perf/sources/source.js';
import { groupInteractions } from '../src/perf/sources/interactions.js';
import type { StepSpan } from '../src/perf/analysis.js';

const DIR = join(import.meta.dirname, '..', '..', 'test', 'fixtures', 'reports');
const cases = readdirSync(DIR)
  .filter((f) => f.endsWith('.raw.json.gz'))
  .map((f) => f.slice(0, -'.raw.json.gz'.length));

function readInput(name: string): { raw: RawSession; spans: StepSpan[] } {
  return JSON.parse(gunzipSync(readFileSync(join(DIR, `${name}.raw.json.gz`))).toString('utf8')) as { raw: RawSession; spans: StepSpan[] };
}

test('recorded raw sessions build the same report JSON as before the fold, byte for byte', { timeout: 60_000 }, () => {
  assert.ok(cases.length >= 15, `fixtures: ${cases.length}`);
  for (const name of cases) {
    const input = readInput(name);
    const { report, details } = buildReport(input.raw, input.spans);
    const actual = JSON.stringify({ report, details: [...details.entries()] }, null, 1) + '\n';
    // A change to reports that is meant: UPDATE_REPORT_FIXTURES=1 rewrites the expected JSON (review the diff).
    if (process.env.UPDATE_REPORT_FIXTURES === '1') writeFileSync(join(DIR, `${name}.expected.json`), actual);
    assert.equal(actual, readFileSync(join(DIR, `${name}.expected.json`), 'utf8'), name);
  }
});

test('the sources and the registry agree: every declared metric has a source, every source writes only declared metrics', () => {
  const written = new Set(Object.values(SOURCES).flatMap((s) => s.emits));
  for (const def of METRICS) assert.ok(written.has(def), `${def.name} is declared in metrics.ts but no source writes it`);
  for (const def of written) assert.ok(METRICS.includes(def), `${def.name} is written by a source but not in METRICS`);
  // Each fixture's metrics resolve to a declaration one of its sources names.
  for (const name of cases) {
    const expected = JSON.parse(readFileSync(join(DIR, `${name}.expected.json`), 'utf8')) as {
      report: { metrics: Record<string, number> };
    };
    for (const metric of Object.keys(expected.report.metrics)) {
      const def = resolveMetric(metric)?.def;
      assert.ok(def && written.has(def), `${name}: ${metric}`);
    }
  }
});

test('coverage lists every entry a source answers for, in COVERAGE_ORDER, and only those', () => {
  const answered = new Set<string>();
  for (const name of cases) {
    const expected = JSON.parse(readFileSync(join(DIR, `${name}.expected.json`), 'utf8')) as {
      report: { coverage: Record<string, string> };
    };
    const keys = Object.keys(expected.report.coverage);
    keys.forEach((k) => answered.add(k));
    const order = keys.map((k) => COVERAGE_ORDER.indexOf(k as SourceName));
    assert.ok(
      order.every((i, n) => i >= 0 && (n === 0 || i > order[n - 1]!)),
      `${name}: ${keys.join(', ')}`,
    );
  }
  // The fixtures between them show every coverage entry (CDP attribution, WebDriver /proc, pty).
  assert.deepEqual([...answered].sort(), [...COVERAGE_ORDER].sort());
});

test('no two sources answer for the same coverage entry', () => {
  for (const name of cases) {
    const { raw, spans } = readInput(name);
    const input = { raw, spans, window: { startAt: raw.startedAt, endAt: raw.endedAt }, offsetMs: clockOffsetMs(raw) };
    const frames = framePicture(input);
    const owners = new Map<string, string>();
    for (const source of Object.values(SOURCES)) {
      for (const entry of Object.keys(source.cover(input, frames))) {
        assert.equal(owners.get(entry), undefined, `${name}: ${entry} answered by ${owners.get(entry)} and ${source.name}`);
        owners.set(entry, source.name);
      }
    }
  }
});

test('a tap whose press and release land frames apart: the breakdown is the slow frame, its parts add up to the latency', () => {
  const at = 1_000_000;
  const entry = (name: string, startAt: number, durationMs: number, inputDelayMs: number, processingMs: number) => ({
    token: 't',
    doc: 'd',
    kind: 'interaction' as const,
    id: 7,
    name,
    target: name === 'click' ? 'button#slow' : '',
    startAt,
    durationMs,
    inputDelayMs,
    processingMs,
    presentationMs: durationMs - inputDelayMs - processingMs,
  });
  // A loaded host: the press painted in its own frame; release and click came 120 ms later, the click ran 300 ms.
  const messages = [entry('pointerdown', at, 16, 1, 2), entry('pointerup', at + 120, 320, 2, 1), entry('click', at + 121, 320, 2, 300)];
  const spans: StepSpan[] = [{ step: 'tap', label: 'slow click', startedAt: at - 5, durationMs: 500, status: 'ok' }];
  const [row] = groupInteractions(messages, spans, at - 100);
  assert.equal(row!.latencyMs, 320);
  assert.equal(row!.type, 'click');
  assert.equal(row!.step, 'slow click');
  assert.equal(row!.inputDelayMs, 2);
  assert.ok(row!.processingMs >= 300 && row!.processingMs < 310, `processing ${row!.processingMs}`);
  assert.ok(Math.abs(row!.inputDelayMs + row!.processingMs + row!.presentationMs - row!.latencyMs) <= 8, JSON.stringify(row));
});
