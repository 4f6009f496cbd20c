/**
 * buildReport as a fold over the metric sources (src/perf/sources): the same raw data gives the same
 * report, byte for byte, as before the fold (fixtures recorded from real Chromium and pty sessions plus
 * synthetic WebDriver/terminal/refusal cases, their expected JSON captured from the previous buildReport);
 * and the sources and the registry agree on which metrics exist, both ways. No browser.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { buildReport } from '../src/perf/report.js';
import type { RawSession } from '../src/drivers/measure.js';
import type { StepSpan } from '../src/perf/analysis.js';

const DIR = join(import.meta.dirname, '..', '..', 'test', 'fixtures', 'reports');
const cases = readdirSync(DIR)
  .filter((f) => f.endsWith('.raw.json.gz'))
  .map((f) => f.slice(0, -'.raw.json.gz'.length));

test('recorded raw sessions build the same report JSON as before the fold, byte for byte', { timeout: 60_000 }, () => {
  assert.ok(cases.length >= 15, `fixtures: ${cases.length}`);
  for (const name of cases) {
    const input = JSON.parse(gunzipSync(readFileSync(join(DIR, `${name}.raw.json.gz`))).toString('utf8')) as {
      raw: RawSession;
      spans: StepSpan[];
    };
    const { report, details } = buildReport(input.raw, input.spans);
    const actual = JSON.stringify({ report, details: [...details.entries()] }, null, 1) + '\n';
    assert.equal(actual, readFileSync(join(DIR, `${name}.expected.json`), 'utf8'), name);
  }
});
