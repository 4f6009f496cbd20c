/**
 * Insights in the verdict (issue 59 item 3), the pure stage: which insights appear, disappear, grow or shrink between
 * two runs' repeats, judged on the share of each arm's repeats (the attribution repeats when both arms have them), and
 * how the compare file, the table and the Markdown carry them. The end-to-end compare of a real load is in
 * test/devtools-insights.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { insightChanges, MAX_INSIGHT_CHANGES } from '../src/perf/compare/insight-changes.js';
import type { RepeatRecord } from '../src/perf/run-file.js';

type Planted = { id: string; savingsMs?: number; culprit?: string }[];

function repeats(perRepeat: Planted[], mode: 'timing' | 'attribution' = 'timing'): RepeatRecord[] {
  return perRepeat.map((insights, index) => ({
    index,
    mode,
    warmup: false,
    wallMs: 1000,
    steps: [],
    status: 'measured',
    report: {
      metrics: { durationMs: 100 },
      insights: insights.map((i) => ({
        id: i.id,
        title: `${i.id} title`,
        severity: 'warn',
        ...(i.culprit !== undefined ? { culprit: i.culprit } : {}),
        ...(i.savingsMs !== undefined ? { estimatedSavingsMs: i.savingsMs } : {}),
      })),
    },
  }));
}

const times = (n: number, p: Planted): Planted[] => Array.from({ length: n }, () => p);

test("new, gone, grew and shrank, each judged on most of an arm's repeats; the lines say how many", { timeout: 10_000 }, () => {
  const a = repeats([
    ...times(3, [{ id: 'Cache' }, { id: 'FontDisplay', savingsMs: 400 }, { id: 'LCPDiscovery', savingsMs: 900 }]),
    [{ id: 'Cache' }, { id: 'FontDisplay', savingsMs: 400 }, { id: 'LCPDiscovery', savingsMs: 900 }, { id: 'DOMSize' }],
  ]);
  const b = repeats(
    times(4, [
      { id: 'RenderBlocking', savingsMs: 700, culprit: '/slow.css' },
      { id: 'FontDisplay', savingsMs: 1000 },
      { id: 'LCPDiscovery', savingsMs: 300 },
    ]),
  );
  const c = insightChanges(a, b);
  assert.deepEqual(
    c.map((x) => `${x.id}:${x.change}`),
    ['RenderBlocking:new', 'FontDisplay:grew', 'Cache:gone', 'LCPDiscovery:shrank'],
  );
  // DOMSize fired in one baseline repeat of four: noise, not a change.
  assert.ok(!c.some((x) => x.id === 'DOMSize'));
  const rb = c[0]!;
  assert.deepEqual(rb.b, { fired: 4, of: 4, savingsMs: 700 });
  assert.equal(rb.culprit, '/slow.css');
  assert.equal(c[1]!.culprit, undefined);
  assert.equal(rb.line, 'RenderBlocking new in the candidate (4 of 4 repeats, est. savings 700 ms): RenderBlocking title');
  assert.equal(c[1]!.line, 'FontDisplay grew: est. savings 400 ms → 1000 ms: FontDisplay title');
});

test('a near-threshold rule, a small change of savings, and thin arms: no line', { timeout: 10_000 }, () => {
  // Fires in 2 of 4 in both arms: neither new nor gone.
  const flapping = repeats([[{ id: 'X' }], [], [{ id: 'X' }], []]);
  assert.deepEqual(insightChanges(flapping, flapping), []);
  // 300 → 340 ms: under both 50 ms and half the baseline's savings.
  const a = repeats(times(3, [{ id: 'RenderBlocking', savingsMs: 300 }]));
  const b = repeats(times(3, [{ id: 'RenderBlocking', savingsMs: 340 }]));
  assert.deepEqual(insightChanges(a, b), []);
  // An arm with no repeat that ran the insights says nothing.
  assert.deepEqual(insightChanges([], b), []);
});

test('DevTools insights live in the attribution repeats: judged there when both arms have them', { timeout: 10_000 }, () => {
  const timing = repeats(times(4, [{ id: 'long-frames' }]));
  const a = [...timing, ...repeats(times(2, [{ id: 'long-frames' }]), 'attribution')];
  const b = [...timing, ...repeats(times(2, [{ id: 'long-frames' }, { id: 'RenderBlocking', savingsMs: 700 }]), 'attribution')];
  const c = insightChanges(a, b);
  // Over every repeat it would be 2 of 6 (absent by share); over the attribution repeats it is 2 of 2.
  assert.deepEqual(
    c.map((x) => [x.id, x.change, x.b.fired, x.b.of]),
    [['RenderBlocking', 'new', 2, 2]],
  );
});

test(`at most ${MAX_INSIGHT_CHANGES} lines, new ones with the largest savings first`, { timeout: 10_000 }, () => {
  const planted = Array.from({ length: 12 }, (_, i) => ({ id: `I${i}`, savingsMs: 100 * (i + 1) }));
  const c = insightChanges(repeats(times(2, [])), repeats(times(2, planted)));
  assert.equal(c.length, MAX_INSIGHT_CHANGES);
  assert.deepEqual(
    c.slice(0, 2).map((x) => x.id),
    ['I11', 'I10'],
  );
});

test('savings none in the baseline and N ms in the candidate: grew (and back: shrank); none in both: no line', { timeout: 10_000 }, () => {
  const none = repeats(times(3, [{ id: 'LCPDiscovery' }]));
  const some = repeats(times(3, [{ id: 'LCPDiscovery', savingsMs: 700 }]));
  const grew = insightChanges(none, some);
  assert.deepEqual(
    grew.map((x) => [x.id, x.change, x.a.savingsMs, x.b.savingsMs]),
    [['LCPDiscovery', 'grew', null, 700]],
  );
  assert.equal(grew[0]!.line, 'LCPDiscovery grew: est. savings none → 700 ms: LCPDiscovery title');
  assert.deepEqual(
    insightChanges(some, none).map((x) => `${x.id}:${x.change}`),
    ['LCPDiscovery:shrank'],
  );
  // Under 50 ms from none is no finding, as between two estimates.
  assert.deepEqual(insightChanges(none, repeats(times(3, [{ id: 'LCPDiscovery', savingsMs: 30 }]))), []);
  assert.deepEqual(insightChanges(none, none), []);
});
