/**
 * Attribution on hand-made records (issue 27), no browser: a repeat's record from a hand-made profile
 * and trace (forced layouts and styles charged to the function on top of the stack, long tasks to the
 * heaviest function); the diff of two runs' records per compare row (ranking, shares, the kind that
 * explains the metric first, the cap); what a row says when a driver records no profile; the schemas
 * (run file, compare JSON) and the text and MCP forms, bounded.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  diffPlaces,
  diffSteps,
  MAX_ATTRIBUTION_LINES,
  MAX_STACKS,
  NO_SCRIPT,
  repeatAttribution,
  rowAttribution,
  type AttributionSide,
  type RepeatAttribution,
} from '../src/perf/attribution.js';
import { compareRuns, validateComparison, validateRunFile } from '../src/perf/compare-runs.js';
import type { RepeatRecord, RunFile } from '../src/perf/run-file.js';
import { BEGIN_MARK, END_MARK, sessionWithout, type CpuProfile, type TraceEvent } from '../src/drivers/measure.js';
import { attributionLineText, attributionTexts } from '../reporters/format.js';
import { compareBrief, COMPARE_REPLY_MAX_BYTES, MCP_ATTRIBUTION_MAX_BYTES } from '../src/mcp/perf-tools.js';
import { isPerfError } from '../src/errors.js';
import { mulberry32 as rng } from './gate-sim.js';
import { ENV } from './run-inputs.js';

// ─── one repeat's record ────────────────────────────────────────────────────────────────────────────

test('a repeat record: self ms per function with path:line:col, forced layout and style charged to the forcing function, long tasks to the heaviest, folded stacks', () => {
  // Clock: trace µs ticks; epoch = ts / 1000 + 1_000_000 (the begin mark ties the two).
  const offset = 1_000_000;
  const cf = (functionName: string, url = '', line = 0, col = 0, scriptId = url ? '7' : '0') => ({
    functionName,
    scriptId,
    url,
    lineNumber: line,
    columnNumber: col,
  });
  const profile: CpuProfile = {
    nodes: [
      { id: 1, callFrame: cf('(root)'), children: [2, 5, 6] },
      { id: 2, callFrame: cf('onScroll', 'http://127.0.0.1:9/app.js', 9, 2), children: [3, 4] },
      { id: 3, callFrame: cf('thrash', 'http://127.0.0.1:9/app.js', 19, 4), children: [7] },
      { id: 4, callFrame: cf('spin', 'http://127.0.0.1:9/app.js', 29, 6) },
      { id: 5, callFrame: cf('(idle)') },
      { id: 6, callFrame: cf('(program)') },
      // A native getter under thrash: charged to thrash, dropped from the stack.
      { id: 7, callFrame: cf('get offsetHeight') },
    ],
    startTime: 0,
    endTime: 200_000,
    // 1 ms samples: 0–10 ms idle, 10–20 thrash (its getter), 20–100 spin, 100–200 idle.
    samples: [...Array(10).fill(5), ...Array(5).fill(3), ...Array(5).fill(7), ...Array(80).fill(4), ...Array(100).fill(5)],
    timeDeltas: Array(200).fill(1000),
  };
  const X = (name: string, tsMs: number, durMs: number): TraceEvent => ({
    name,
    cat: 'devtools.timeline',
    ph: 'X',
    ts: tsMs * 1000,
    dur: durMs * 1000,
    pid: 1,
    tid: 1,
  });
  const events: TraceEvent[] = [
    { name: BEGIN_MARK, cat: 'blink.user_timing', ph: 'R', ts: 0, pid: 1, tid: 1 },
    { name: END_MARK, cat: 'blink.user_timing', ph: 'R', ts: 200_000, pid: 1, tid: 1 },
    X('RunTask', 9, 92),
    X('FunctionCall', 9.5, 91),
    X('UpdateLayoutTree', 12, 1),
    X('Layout', 14, 3),
    X('Layout', 16, 2),
    // The frame's own layout, outside script: not forced.
    X('Layout', 150, 2),
    // A long task with no script sampled in it: charged to the no-script bucket.
    X('RunTask', 120, 60),
  ];
  const raw = {
    ...sessionWithout({
      token: 't',
      mode: 'attribution',
      phases: false,
      startedAt: offset,
      endedAt: offset + 200,
      durationMs: 200,
      marks: [{ name: BEGIN_MARK, at: offset }],
      missing: {},
      env: {
        browser: 'x',
        userAgent: 'x',
        headless: true,
        viewport: { width: 1, height: 1, dpr: 1, mobile: false },
        cpuThrottle: 1,
        cpuThrottleSource: 'default',
        url: 'http://127.0.0.1:9/',
      },
    }),
    profile,
    trace: { events, dataLoss: false, rendererPid: 1, mainFrameId: 'f', bytes: 0 },
  };
  const a = repeatAttribution(raw);
  assert.ok(a);
  assert.deepEqual(
    a.functions.map((f) => [f.name, f.url, f.selfMs]),
    [
      ['spin', '/app.js:30:7', 80],
      ['thrash', '/app.js:20:5', 10],
    ],
  );
  assert.deepEqual(
    a.forced.map((f) => [f.kind, f.name, f.url, f.ms, f.count]),
    [
      ['layout', 'thrash', '/app.js:20:5', 5, 2],
      ['style', 'thrash', '/app.js:20:5', 1, 1],
    ],
  );
  assert.deepEqual(
    a.longTasks.map((t) => [t.name, t.ms, t.count]),
    [
      ['spin', 92, 1],
      [NO_SCRIPT, 60, 1],
    ],
  );
  assert.deepEqual(a.stacks, [
    { frames: ['onScroll /app.js:10:3', 'spin /app.js:30:7'], selfMs: 80 },
    { frames: ['onScroll /app.js:10:3', 'thrash /app.js:20:5'], selfMs: 10 },
  ]);
  assert.equal(repeatAttribution({ ...raw, profile: undefined }), undefined, 'no profile, no record');
});

// ─── the diff ───────────────────────────────────────────────────────────────────────────────────────

const at = (name: string, line: number): { name: string; url: string } => ({ name, url: `/app.js:${line}:3` });

/** n records: `render` and `parse` in both runs with noise; in b, `burnCpu` (~96 ms) and a forced-layout thrash. */
function records(seed: number, n: number, jank: boolean): RepeatAttribution[] {
  const rand = rng(seed);
  return Array.from({ length: n }, () => ({
    functions: [
      { ...at('render', 10), selfMs: 20 + 4 * rand() },
      { ...at('parse', 20), selfMs: 8 + 8 * rand() },
      ...(jank
        ? [
            { ...at('burnCpu', 43), selfMs: 94 + 4 * rand() },
            { ...at('thrash', 33), selfMs: 30 + 2 * rand() },
          ]
        : [{ ...at('shrinks', 50), selfMs: 40 }]),
    ],
    forced: jank ? [{ ...at('thrash', 33), kind: 'layout' as const, ms: 25 + rand(), count: 11 }] : [],
    longTasks: [],
    stacks: [{ frames: ['render /app.js:10:3'], selfMs: 20 }],
  }));
}

const side = (recs: RepeatAttribution[]): AttributionSide => ({ records: recs.map((attribution, repeat) => ({ repeat, attribution })) });

test('row attribution: the grown function first with its share of an ms row; the forced-layout line first for a layout count; shrunk places left out', () => {
  const a = records(1, 6, false);
  const b = records(2, 6, true);
  const places = diffPlaces(a, b, 0.9);
  const cpu = rowAttribution({ metric: 'counters.threadCpuMs', shift: 135 }, places, [], { a: side(a), b: side(b) });
  const first = cpu.lines[0]!;
  assert.equal(first.name, 'burnCpu');
  assert.equal(first.kind, 'function');
  assert.equal(first.url, '/app.js:43:3');
  assert.equal(first.a, 0);
  assert.ok(Math.abs(first.deltaMs - 96) < 2.5, String(first.deltaMs));
  assert.ok(first.ci && first.ci.lowMs > 90 && first.ci.highMs < 100, JSON.stringify(first.ci));
  assert.ok(first.share !== null && Math.abs(first.share - first.deltaMs / 135) < 0.001);
  assert.deepEqual(cpu.repeats, { a: 6, b: 6 });
  assert.equal(cpu.missing, undefined);
  assert.ok(!cpu.lines.some((l) => l.name === 'shrinks'), 'a place whose time fell explains no regression');

  const layouts = rowAttribution({ metric: 'counters.layouts.perFrame', shift: 0.2 }, places, [], { a: side(a), b: side(b) });
  assert.equal(layouts.lines[0]!.kind, 'forcedLayout');
  assert.equal(layouts.lines[0]!.name, 'thrash');
  assert.ok(
    layouts.lines.every((l) => l.share === null),
    'no share of a count',
  );
});

test('row attribution ranks lines whose interval excludes 0 first, places before steps, and keeps at most 8', () => {
  const rand = rng(7);
  const n = 5;
  // Spread so wide that 5 + 5 repeats cannot tell its shift from 0.
  const noisyA = [0, 90, 10, 80, 20];
  const noisyB = [100, 0, 150, 5, 60];
  const mk = (grow: boolean): RepeatAttribution[] =>
    Array.from({ length: n }, (_, i) => ({
      // 10 functions growing by 1..10 ms with little noise, and one growing by more with huge noise.
      functions: [
        ...Array.from({ length: 10 }, (_, k) => ({ ...at(`f${k}`, k + 1), selfMs: 10 + (grow ? k + 1 : 0) + 0.1 * rand() })),
        { ...at('noisy', 99), selfMs: (grow ? noisyB : noisyA)[i]! },
      ],
      forced: [],
      longTasks: [],
      stacks: [],
    }));
  const a = mk(false);
  const b = mk(true);
  const steps = diffSteps({ down: [100, 101, 99, 100, 102] }, { down: [300, 298, 305, 301, 299] }, 0.9);
  const r = rowAttribution({ metric: 'durationMs', shift: 250 }, diffPlaces(a, b, 0.9), steps, { a: side(a), b: side(b) });
  assert.equal(r.lines.length, MAX_ATTRIBUTION_LINES);
  assert.deepEqual(
    r.lines.map((l) => l.name),
    ['f9', 'f8', 'f7', 'f6', 'f5', 'f4', 'f3', 'f2'],
  );
  const all = rowAttribution({ metric: 'durationMs', shift: 250 }, diffPlaces(a.slice(0, 2), b.slice(0, 2), 0.9), steps, {
    a: side(a),
    b: side(b),
  });
  // 2 + 2 repeats cannot reach a 90% interval (null): the step, judged on 5 + 5, excludes 0 and comes first.
  assert.ok(all.lines.every((l) => l.kind === 'step' || l.ci === null));
  assert.equal(all.lines[0]!.kind, 'step');
  assert.equal(all.lines[0]!.name, 'down');
  assert.ok(all.lines[0]!.share! > 0.7 && all.lines[0]!.share! < 0.9);
});

// ─── run files: missing profiles, schemas ───────────────────────────────────────────────────────────

/** A run of 6 measured attribution repeats: `layouts` layouts each, `down` ms in the step, and the records given. */
function run(
  label: string,
  layouts: number,
  downMs: number,
  recs: RepeatAttribution[] | undefined,
  browser: Partial<RunFile['env']['browser']> = {},
): RunFile {
  const rand = rng(label.length * 31 + layouts);
  const repeats: RepeatRecord[] = Array.from({ length: 6 }, (_, i) => ({
    index: i,
    mode: 'attribution',
    warmup: false,
    wallMs: 1000,
    steps: [],
    status: 'measured',
    report: {
      metrics: { 'counters.layouts': layouts, 'frames.painted': 10, 'steps.down.ms': downMs * (0.98 + 0.04 * rand()) },
      ...(recs ? { attribution: recs[i]! } : {}),
    },
  }));
  return {
    schemaVersion: 1,
    scenario: 'list-scroll',
    variant: 'desktop',
    label,
    scenarioFile: 'scenarios/list-scroll.yaml',
    startedAt: '2026-01-01T00:00:00.000Z',
    finishedAt: '2026-01-01T00:01:00.000Z',
    interrupted: false,
    env: { ...ENV, browser: { ...ENV.browser, ...browser } },
    thresholds: { warnPct: 10, errorPct: 25, metrics: {} },
    summary: { repeats: 6, measured: 6, refused: 0, failed: 0, warmup: 0, metrics: {}, timingOnly: false },
    budgets: [],
    insights: [],
    repeats,
  };
}

test('a regressed row of runs with records names the function; the compare JSON with attribution and flame validates', () => {
  const a = run('a', 10, 100, records(3, 6, false));
  const b = run('b', 21, 220, records(4, 6, true));
  validateRunFile(JSON.parse(JSON.stringify(b)), 'b.json');
  const c = compareRuns(a, b);
  const layouts = c.rows.find((r) => r.metric === 'counters.layouts')!;
  assert.equal(layouts.verdict, 'regressed');
  assert.equal(layouts.attribution?.lines[0]?.name, 'thrash');
  assert.equal(layouts.attribution?.lines[0]?.kind, 'forcedLayout');
  assert.ok(layouts.attribution!.lines.some((l) => l.kind === 'step' && l.name === 'down'));
  assert.ok(
    c.rows.filter((r) => !r.gated).every((r) => r.attribution === undefined),
    'secondary rows carry none',
  );
  // The flame: the median attribution repeat of each run by summed self ms.
  assert.ok(c.attribution?.flame.a && c.attribution.flame.b);
  assert.ok(c.attribution.flame.a.repeat >= 0 && c.attribution.flame.a.repeat < 6);
  validateComparison(JSON.parse(JSON.stringify(c)), 'c.json');
});

test('a run file whose record holds more stacks than perf keeps is rejected', () => {
  const recs = records(5, 6, true);
  recs[0]!.stacks = Array.from({ length: MAX_STACKS + 1 }, (_, i) => ({ frames: [`f${i} /a.js:1:1`], selfMs: 1 }));
  assert.throws(
    () => validateRunFile(JSON.parse(JSON.stringify(run('b', 21, 220, recs))), 'b.json'),
    (e: unknown) => isPerfError(e) && /stacks/.test(e.message),
  );
});

test('a webdriver or pty run says what is missing and how to get it; the step lines still come', () => {
  for (const driver of ['webdriver', 'pty'] as const) {
    const c = compareRuns(run('a', 10, 100, undefined, { driver }), run('b', 21, 220, undefined, { driver }));
    const row = c.rows.find((r) => r.metric === 'counters.layouts')!;
    assert.equal(row.verdict, 'regressed');
    assert.equal(row.attribution?.missing, `no CPU profile: the ${driver} driver records none; step windows only`);
    assert.deepEqual(row.attribution?.repeats, { a: 0, b: 0 });
    assert.equal(row.attribution?.lines[0]?.kind, 'step');
    assert.equal(row.attribution?.lines[0]?.name, 'down');
    assert.ok(row.attribution!.lines[0]!.deltaMs > 100);
    assert.deepEqual(c.attribution?.flame, { a: null, b: null });
    assert.match(attributionTexts(row).join('\n'), new RegExp(`not named: no CPU profile: the ${driver} driver records none`));
    validateComparison(JSON.parse(JSON.stringify(c)), 'c.json');
  }
  // A Chromium baseline written before attribution records: the candidate's records cannot be diffed alone.
  const c = compareRuns(run('a', 10, 100, undefined), run('b', 21, 220, records(4, 6, true)));
  const row = c.rows.find((r) => r.metric === 'counters.layouts')!;
  assert.match(row.attribution!.missing!, /^no CPU profile in the baseline: its attribution repeats hold no attribution record/);
  assert.ok(row.attribution!.lines.every((l) => l.kind === 'step'));
});

// ─── text and MCP ───────────────────────────────────────────────────────────────────────────────────

test('an attribution line as text: name, path:line:col, Δ per repeat, its interval and share', () => {
  const text = attributionLineText({
    kind: 'function',
    name: 'burnCpu',
    url: '/jank.js:43:10',
    a: 0,
    b: 96.2,
    deltaMs: 96.2,
    ci: { lowMs: 90.04, highMs: 101.3 },
    share: 0.714,
  });
  assert.equal(text, 'burnCpu /jank.js:43:10  +96.2 ms/repeat (CI +90.0…+101, 71% of Δ)');
  assert.equal(
    attributionLineText({ kind: 'forcedLayout', name: 'x\ny', url: '/a.js:1:1', a: 1, b: 3, deltaMs: 2, ci: null, share: null }),
    'forced layout in x y /a.js:1:1  +2.0 ms/repeat',
  );
  // A function can grow by more than the whole row when others shrank: capped, never "126% of Δ".
  const over = { kind: 'function', name: 'f', url: '/a.js:1:1', a: 0, b: 5, deltaMs: 5, ci: null } as const;
  assert.equal(attributionLineText({ ...over, share: 1.26 }), 'f /a.js:1:1  +5.0 ms/repeat (≥100% of Δ)');
  assert.equal(attributionLineText({ ...over, share: 1 }), 'f /a.js:1:1  +5.0 ms/repeat (≥100% of Δ)');
  assert.equal(attributionLineText({ ...over, share: 0.994 }), 'f /a.js:1:1  +5.0 ms/repeat (99% of Δ)');
});

test('MCP: the attribution of many rows stays within 2 KB, the one-glance reply within 6 KB, no flame stacks', () => {
  const a = run('a', 10, 100, records(3, 6, false));
  const b = run('b', 21, 220, records(4, 6, true));
  const c = compareRuns(a, b);
  const row = c.rows.find((r) => r.metric === 'counters.layouts')!;
  // 8 regressed primary rows with 8 lines each and long names, 20 changed secondary rows with long
  // reasons: far past both budgets before bounding.
  const long = 'x'.repeat(300);
  const primary = Array.from({ length: 8 }, (_, i) => ({
    ...row,
    metric: `steps.s${i}.ms`,
    reason: long,
    attribution: { ...row.attribution!, lines: Array(8).fill({ ...row.attribution!.lines[0]!, name: long }) },
  }));
  const secondary = Array.from({ length: 20 }, (_, i) => ({
    ...row,
    metric: `steps.t${i}.ms`,
    gated: false,
    role: 'secondary' as const,
    verdict: 'changed' as const,
    reason: long,
    attribution: undefined,
  }));
  const many = { ...c, rows: [...primary, ...secondary] };
  for (const full of [false, true]) {
    const brief = compareBrief(many, full);
    const text = JSON.stringify(brief);
    assert.ok(!text.includes('"stacks"'));
    const rows = (full ? brief.rows : brief.changed) as { attribution?: { top: unknown[] } }[];
    const attr = rows.flatMap((r) => (r.attribution ? [r.attribution] : []));
    assert.ok(attr.length >= 1 && attr.every((x) => x.top.length <= 3));
    assert.ok(Buffer.byteLength(JSON.stringify(attr)) <= MCP_ATTRIBUTION_MAX_BYTES, `${Buffer.byteLength(JSON.stringify(attr))} B`);
    assert.ok(typeof brief.attributionOmitted === 'number' && brief.attributionOmitted > 0);
    if (!full) {
      assert.ok(Buffer.byteLength(text) <= COMPARE_REPLY_MAX_BYTES, `${Buffer.byteLength(text)} B`);
      assert.equal(rows.filter((r) => (r as { gated?: boolean }).gated).length, 8, 'every primary row stays');
      assert.match(String(brief.changedOmitted), /left out/);
    }
  }
});

test('numbers past the float range leave no line and no null where a number belongs', () => {
  const huge = 1.7e308;
  const lines = diffSteps({ s: [huge, -huge, huge] }, { s: [-huge, huge, -huge] }, 0.9);
  for (const l of lines) {
    assert.ok([l.a, l.b, l.deltaMs].every(Number.isFinite));
    assert.ok(l.ci === null || (Number.isFinite(l.ci.lowMs) && Number.isFinite(l.ci.highMs)));
  }
  const near = diffSteps({ s: [1e307, 1e307] }, { s: [1.5e307, 1.5e307] }, 0.9);
  assert.ok(near.every((l) => l.ci === null || Number.isFinite(l.ci.highMs)));
});
