/**
 * Budgets that name an insight (issue 59 item 3) and the `==` operator, without a browser: how the keys are parsed and
 * refused (`perf validate`, exit 2, the file's line and the key, a did-you-mean), how a run's repeats are judged (count:
 * the analysed repeats it fired in; savings: medians, 0 where it did not fire; a DevTools insight only where its engine
 * ran), and how the budget line reads. test/insight-budgets-run.test.ts runs the same on real Chromium.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { loadScenario } from '../src/scenario/load.js';
import { scenarioSchema } from '../src/scenario/schema.js';
import { PerfError } from '../src/errors.js';
import { judgeBudgets } from '../src/runner/records.js';
import { BUDGET_OPS } from '../src/perf/budget-units.js';
import { DEVTOOLS_INSIGHTS } from '../src/perf/devtools-insights.js';
import { INSIGHTS } from '../src/perf/insights.js';
import { checkInsightKey, insightIds } from '../src/perf/insight-budgets.js';
import type { RepeatRecord } from '../src/perf/run-file.js';
import { budgetValue } from '../reporters/format.js';
import { budgetLines } from '../reporters/table.js';
import { budgetMarkdown } from '../reporters/markdown.js';
import { budgetSuiteXml } from '../reporters/junit.js';
import { ROOT } from './helpers.js';
import { scenarioFiles } from './scenario-files.js';

const TIMEOUT_MS = 60_000;
const files = scenarioFiles('insight-budgets');
const { dir, write } = files;
const LOAD = 'app: { serve: ./app }\nmeasure: load\nsteps: []\nbudgets:\n';
const STEPS = 'app: { serve: ./app }\nsteps:\n  - tap: x\nbudgets:\n';
const budgets = (...b: string[]): string => b.map((x) => `  - "${x}"\n`).join('');

const loadError = (text: string): PerfError => files.loadError(write(text));

test("the ids a budget may name are perf_insight's: our rules, then every DevTools insight", { timeout: TIMEOUT_MS }, () => {
  assert.deepEqual(insightIds(), [...INSIGHTS.map((r) => r.id), ...DEVTOOLS_INSIGHTS]);
  assert.ok(insightIds().includes('RenderBlocking') && insightIds().includes('forcedLayout'));
  assert.equal(checkInsightKey('load.requests'), undefined, 'a metric is no insight key');
});

test("insight keys and ==: parsed into the metric, op and limit, a unit applied by the field's kind", { timeout: TIMEOUT_MS }, () => {
  const sc = loadScenario(
    write(
      LOAD +
        budgets(
          'insights.RenderBlocking.count == 0',
          'insights.RenderBlocking.savingsMs < 0.3s',
          'insights.ImageDelivery.savingsBytes <= 100KB',
          'insights.forcedLayout.count <= 1',
          'load.requests == 5',
        ),
    ),
    { cwd: dir },
  );
  assert.deepEqual(sc.budgets, [
    { expr: 'insights.RenderBlocking.count == 0', metric: 'insights.RenderBlocking.count', op: '==', limit: 0 },
    { expr: 'insights.RenderBlocking.savingsMs < 0.3s', metric: 'insights.RenderBlocking.savingsMs', op: '<', limit: 300, unit: 's' },
    {
      expr: 'insights.ImageDelivery.savingsBytes <= 100KB',
      metric: 'insights.ImageDelivery.savingsBytes',
      op: '<=',
      limit: 102_400,
      unit: 'KB',
    },
    { expr: 'insights.forcedLayout.count <= 1', metric: 'insights.forcedLayout.count', op: '<=', limit: 1 },
    { expr: 'load.requests == 5', metric: 'load.requests', op: '==', limit: 5 },
  ]);
  // Our rules run on a window of steps too.
  assert.equal(loadScenario(write(STEPS + budgets('insights.forcedLayout.count == 0')), { cwd: dir }).budgets.length, 1);
});

test(
  'refused at load with the line, the key and a did-you-mean: an unknown id, an unknown field, a unit on a count',
  { timeout: TIMEOUT_MS },
  () => {
    const id = loadError(LOAD + budgets('load.requests <= 9', 'insights.RenderBlockin.count == 0'));
    assert.match(
      id.message,
      /s\d+\.yaml:6:5: budget 2: unknown insight "RenderBlockin" in "insights\.RenderBlockin\.count"; did you mean "RenderBlocking"\?$/,
    );
    assert.deepEqual(id.candidates, ['insights.RenderBlocking.count']);
    // Case is an edit too: the DevTools spelling is suggested.
    assert.match(loadError(LOAD + budgets('insights.renderBlocking.count == 0')).message, /did you mean "RenderBlocking"\?/);
    const field = loadError(LOAD + budgets('insights.RenderBlocking.savings < 100'));
    assert.match(
      field.message,
      /:5:5: budget 1: "insights\.RenderBlocking\.savings": an insight budget reads count, savingsMs, savingsBytes, not "savings"; did you mean "insights\.RenderBlocking\.savingsBytes" or "insights\.RenderBlocking\.savingsMs"\?$/,
    );
    assert.match(loadError(LOAD + budgets('insights.RenderBlocking == 0')).message, /reads count, savingsMs, savingsBytes, not ""/);
    assert.match(
      loadError(LOAD + budgets('insights.CLSCulprits.count == 0KB')).message,
      /budget 1: insights\.CLSCulprits\.count is a count and takes no unit, not KB/,
    );
    assert.match(loadError(LOAD + budgets('insights.Cache.savingsMs <= 3KB')).message, /takes a time \(ms, s\), not KB/);
    // DevTools' engine runs on a measured load only: on a window of steps the budget could never be judged.
    assert.match(
      loadError(STEPS + budgets('insights.forcedLayout.count == 0', 'insights.LCPDiscovery.count == 0')).message,
      /:6:5: budget 2: LCPDiscovery is one of DevTools' insights, computed on a measured load only/,
    );
    // LegacyJavaScript reads the scripts' sources, which a run's trace does not record: it would never fire.
    const legacy = loadError(LOAD + budgets('insights.LegacyJavaScript.count == 0'));
    assert.match(legacy.message, /:5:5: budget 1: LegacyJavaScript reads the scripts' sources, which a run's trace does not record/);
    assert.match(legacy.suggestion ?? '', /perf_load/);
    assert.match(loadError(LOAD + budgets('load.requests = 5')).message, /malformed budget "load\.requests = 5": .*op one of <= >= == < >/);
  },
);

test(
  'perf validate: an unknown insight id is exit 2 naming file:line:col and the key, with a did-you-mean, no stack',
  { timeout: TIMEOUT_MS },
  () => {
    const file = write(LOAD + budgets('insights.RenderBlocking.count == 0', 'insights.LCPDiscovry.count == 0'));
    const r = spawnSync(process.execPath, [join(ROOT, 'bin/perf'), 'validate', file], { timeout: TIMEOUT_MS, cwd: dir, encoding: 'utf8' });
    assert.equal(r.status, 2, r.stdout + r.stderr);
    assert.match(
      r.stderr,
      /s\d+\.yaml:6:5: budget 2: unknown insight "LCPDiscovry" in "insights\.LCPDiscovry\.count"; did you mean "LCPDiscovery"\?/,
    );
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
    const ok = spawnSync(
      process.execPath,
      [join(ROOT, 'bin/perf'), 'validate', write(LOAD + budgets('insights.RenderBlocking.count == 0'))],
      {
        timeout: TIMEOUT_MS,
        cwd: dir,
        encoding: 'utf8',
      },
    );
    assert.equal(ok.status, 0, ok.stdout + ok.stderr);
  },
);

test('the JSON Schema takes every op, == included, and an insight key; its description names them', { timeout: TIMEOUT_MS }, () => {
  const schema = scenarioSchema({ forEditors: true }) as { definitions: { budgets: { description: string } } };
  const validate = new Ajv({ strict: false }).compile(schema);
  const doc = (b: string): unknown => ({ app: { serve: './app' }, measure: 'load', steps: [], budgets: [b] });
  for (const op of BUDGET_OPS) assert.ok(validate(doc(`load.requests ${op} 5`)), `${op}: ${JSON.stringify(validate.errors)}`);
  assert.ok(validate(doc('insights.RenderBlocking.savingsMs <= 0.3s')), JSON.stringify(validate.errors));
  assert.equal(validate(doc('load.requests = 5')), false);
  assert.match(schema.definitions.budgets.description, /op one of <= >= == < >/);
  assert.match(schema.definitions.budgets.description, /insights\.<id>\.count\|savingsMs\|savingsBytes/);
});

// ─── judging ───────────────────────────────────────────────────────────────────────────────────────

type Insight = { id: string; estimatedSavingsMs?: number; estimatedSavingsBytes?: number };
function repeat(
  index: number,
  insights: Insight[],
  o: { mode?: 'timing' | 'attribution'; devtools?: { error?: string; failed?: string[] } | null; warmup?: boolean } = {},
): RepeatRecord {
  const devtools = o.devtools === null ? {} : { devtools: { ms: 200, insights: insights.length, ...(o.devtools ?? {}) } };
  return {
    index,
    mode: o.mode ?? 'attribution',
    warmup: o.warmup ?? false,
    wallMs: 1000,
    steps: [],
    status: 'measured',
    report: { metrics: { durationMs: 100 }, insights: insights.map((i) => ({ severity: 'warn', title: i.id, ...i })), ...devtools },
  };
}
const sc = loadScenario(
  write(
    LOAD +
      budgets(
        'insights.RenderBlocking.count == 0',
        'insights.RenderBlocking.savingsMs >= 1',
        'insights.ImageDelivery.savingsBytes <= 100KB',
        'insights.framesOverBudget.count == 0',
        'load.requests == 5',
      ),
  ),
  { cwd: dir },
);
const RB = (ms: number): Insight => ({ id: 'RenderBlocking', estimatedSavingsMs: ms });
const IMG = (bytes: number): Insight => ({ id: 'ImageDelivery', estimatedSavingsBytes: bytes });

test(
  'count is the analysed repeats an insight fired in (any firing breaks == 0); savings are medians, 0 where unfired',
  { timeout: TIMEOUT_MS },
  () => {
    const records = [
      repeat(0, [RB(700), IMG(200_000)], { warmup: true }),
      repeat(1, [RB(650), IMG(300_000)]),
      repeat(2, [IMG(250_000)]),
      repeat(3, [IMG(260_000)]),
      // A timing repeat is not analysed beside attribution ones (DevTools' engine never runs on it).
      repeat(4, [RB(900)], { mode: 'timing', devtools: null }),
    ];
    const r = judgeBudgets(sc.budgets, { 'load.requests': { median: 5 } }, records);
    assert.deepEqual(
      r.map((b) => [b.expr, b.value, b.of, b.pass]),
      [
        // Fired in 1 of 3: a median (0) would pass a stylesheet that blocks in a third of the loads.
        ['insights.RenderBlocking.count == 0', 1, 3, false],
        ['insights.RenderBlocking.savingsMs >= 1', 0, 3, false],
        ['insights.ImageDelivery.savingsBytes <= 100KB', 260_000, 3, false],
        ['insights.framesOverBudget.count == 0', 0, 3, true],
        ['load.requests == 5', 5, undefined, true],
      ],
    );
    const all = judgeBudgets(sc.budgets, { 'load.requests': { median: 4 } }, [repeat(1, [RB(650)]), repeat(2, [RB(700)])]);
    assert.deepEqual(
      all.map((b) => [b.value, b.of, b.pass]),
      [
        [2, 2, false],
        [675, 2, true],
        [0, 2, true],
        [0, 2, true],
        [4, undefined, false],
      ],
    );
  },
);

test(
  'a DevTools insight counts only the repeats its engine computed it in; none: no value, the budget fails',
  { timeout: TIMEOUT_MS },
  () => {
    const records = [
      repeat(1, [], { devtools: { error: "DevTools' trace engine failed: x" } }),
      repeat(2, [], { devtools: { failed: ['RenderBlocking'] } }),
      repeat(3, []),
    ];
    const [count, , img, frames] = judgeBudgets(sc.budgets, {}, records);
    assert.deepEqual([count!.value, count!.of, count!.pass], [0, 1, true]);
    assert.deepEqual([img!.value, img!.of], [0, 2]);
    assert.deepEqual([frames!.value, frames!.of], [0, 3], 'our rules run on every analysed repeat');
    // Timing repeats only (no attribution repeat): our rules still judge, DevTools' cannot.
    const timing = judgeBudgets(sc.budgets, {}, [repeat(1, [], { mode: 'timing', devtools: null })]);
    assert.deepEqual(
      timing.map((b) => [b.value, b.of ?? null, b.pass]),
      [
        [null, 0, false],
        [null, 0, false],
        [null, 0, false],
        [0, 1, true],
        [null, null, false],
      ],
    );
    assert.equal(budgetValue(timing[0]!), 'no measured repeat computed it');
    assert.equal(budgetValue(timing[4]!), 'no measured value');
  },
);

test(
  'the budget line: "fired in N of M repeats" for a count, the median in its unit for savings, in every reporter',
  { timeout: TIMEOUT_MS },
  () => {
    const records = [repeat(1, [RB(650), IMG(300_000)]), repeat(2, [RB(700), IMG(310_000)])];
    const judged = judgeBudgets(sc.budgets, { 'load.requests': { median: 5 } }, records);
    assert.deepEqual(judged.map(budgetValue), [
      'fired in 2 of 2 repeats',
      'median 675.0',
      'median 297.9 KB',
      'fired in 0 of 2 repeats',
      'median 5',
    ]);
    assert.deepEqual(
      budgetLines(
        judged.map((budget) => ({ budget })),
        false,
      ).slice(0, 3),
      [
        'Budgets: 2 of 5 failed',
        '  FAIL  insights.RenderBlocking.count == 0  (fired in 2 of 2 repeats)',
        '  FAIL  insights.ImageDelivery.savingsBytes <= 100KB  (median 297.9 KB)',
      ],
    );
    assert.ok(
      budgetMarkdown(judged.map((budget) => ({ budget }))).includes(
        '- ❌ **FAIL** `insights.RenderBlocking.count == 0`: fired in 2 of 2 repeats',
      ),
    );
    assert.match(
      budgetSuiteXml({ scenario: 's', budgets: judged }, 's budgets'),
      /<testcase name="budget: insights\.RenderBlocking\.count == 0" classname="rehearse\.s" time="0\.000">\s*<failure message="insights\.RenderBlocking\.count == 0: fired in 2 of 2 repeats" type="budget_failed">/,
    );
  },
);
