/**
 * The pure page-load figures of src/perf/load.ts: CLS by session windows, TBT clipped at FCP and at the
 * window's end, transfer bytes by type. Known values come from the definitions they cite (web.dev's
 * "Evolving the CLS metric", Lighthouse's tbt-utils.js); properties are checked over thousands of seeded
 * random inputs, so a regression shows up as a counterexample anyone can replay from its seed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bytesByType, clsOf, loadWindowMs, protocolName, requestsDetail, tbtOf } from '../src/perf/load.js';
import { unorderedNote } from '../src/perf/sources/load.js';
import { LOAD_RESOURCE_TYPES, type LoadReadings, type LoadRequest, type LoadResourceType } from '../src/drivers/measure.js';
import { sessionWithout } from '../src/drivers/measure.js';
import { refusalOf } from '../src/perf/sources/frames.js';
import type { FramePicture, SourceInput } from '../src/perf/sources/source.js';
import { mulberry32 } from './gate-sim.js';

// 5,000 random inputs per property: each check is microseconds, and 5,000 reach the window edges often.
const CASES = 5000;
// Floating sums of up to ~30 shifts differ from one another by a few ulps, never more.
const EPS = 1e-9;

type Shift = { ms: number; value: number };
type Task = { startMs: number; durationMs: number };

const sum = (xs: readonly number[]): number => xs.reduce((s, x) => s + x, 0);

function shuffled<T>(xs: readonly T[], rnd: () => number): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** Up to 30 shifts over 0–20 s, values up to 0.5 (a big shift is rarely more). */
function randomShifts(rnd: () => number): Shift[] {
  return Array.from({ length: Math.floor(rnd() * 30) }, () => ({ ms: rnd() * 20_000, value: rnd() * 0.5 }));
}

// ─── CLS ────────────────────────────────────────────────────────────────────────────────────────────

test('CLS: web.dev session windows — two shifts 500 ms apart form one window, a shift after a 1 s gap starts another', () => {
  assert.equal(clsOf([]), 0);
  const cls = clsOf([
    { ms: 0, value: 0.1 },
    { ms: 500, value: 0.1 },
    { ms: 2000, value: 0.15 },
  ]);
  assert.ok(Math.abs(cls - 0.2) < EPS, String(cls));
  // A gap of exactly 1 s already separates (windows hold shifts "less than 1 second" apart).
  assert.equal(
    clsOf([
      { ms: 0, value: 0.1 },
      { ms: 1000, value: 0.1 },
    ]),
    0.1,
  );
});

test('CLS: a window closes at 5 s even without a gap — shifts every 900 ms for 9 s make windows of 6 and 5 shifts', () => {
  const shifts = Array.from({ length: 11 }, (_, i) => ({ ms: i * 900, value: 0.1 }));
  assert.ok(Math.abs(clsOf(shifts) - 0.6) < EPS, String(clsOf(shifts)));
  // The later window wins when it is the larger one.
  const later = shifts.map((s) => (s.ms >= 5000 ? { ...s, value: 0.2 } : s));
  assert.ok(Math.abs(clsOf(later) - 1.0) < EPS, String(clsOf(later)));
});

test(`CLS over ${CASES} random loads: between the largest shift and the sum of all, the same in any order, linear in the values`, () => {
  const rnd = mulberry32(29);
  for (let i = 0; i < CASES; i++) {
    const shifts = randomShifts(rnd);
    const cls = clsOf(shifts);
    const values = shifts.map((s) => s.value);
    const ctx = `case ${i}: ${JSON.stringify(shifts)}`;
    assert.ok(cls <= sum(values) + EPS, ctx);
    assert.ok(cls >= Math.max(0, ...values) - EPS, ctx);
    assert.ok(Math.abs(clsOf(shuffled(shifts, rnd)) - cls) < EPS, `order matters: ${ctx}`);
    assert.ok(Math.abs(clsOf(shifts.map((s) => ({ ...s, value: s.value * 3 }))) - 3 * cls) < EPS * 3, `not linear: ${ctx}`);
  }
});

test(`CLS over ${CASES} random loads: all shifts in one window (gaps < 1 s, span < 5 s) → CLS is their sum`, () => {
  const rnd = mulberry32(2029);
  for (let i = 0; i < CASES; i++) {
    let ms = rnd() * 10_000;
    const first = ms;
    const shifts: Shift[] = [];
    for (let k = Math.floor(rnd() * 12); k >= 0; k--) {
      shifts.push({ ms, value: rnd() * 0.3 });
      // Gaps under 1 s; stop before the window's 5 s.
      ms += rnd() * 999;
      if (ms - first >= 4999) break;
    }
    const cls = clsOf(shuffled(shifts, rnd));
    assert.ok(Math.abs(cls - sum(shifts.map((s) => s.value))) < EPS, `case ${i}: ${JSON.stringify(shifts)} → ${cls}`);
  }
});

// ─── TBT ────────────────────────────────────────────────────────────────────────────────────────────

test("TBT: Lighthouse's example — a 150 ms task with FCP at 50 ms is clipped to 100 ms, so it blocks 50 ms", () => {
  // lighthouse-core/computed/metrics/tbt-utils.js: "if we have a 150ms task [0, 150] and FCP happens midway at
  // 50ms, we first clip the task into [50, 150], and then calculate the Blocking Region to be [100, 150]".
  assert.equal(tbtOf([{ startMs: 0, durationMs: 150 }], 50, 10_000), 50);
  // Before FCP entirely: nothing; clipped under 50 ms: nothing.
  assert.equal(tbtOf([{ startMs: 0, durationMs: 400 }], 400, 10_000), 0);
  assert.equal(tbtOf([{ startMs: 0, durationMs: 120 }], 80, 10_000), 0);
  // Exactly 50 ms blocks nothing; past it, the excess.
  assert.equal(tbtOf([{ startMs: 100, durationMs: 50 }], 0, 10_000), 0);
  assert.equal(tbtOf([{ startMs: 100, durationMs: 80 }], 0, 10_000), 30);
});

test("TBT: clipped at the load window's end — a task straddling it counts its part inside, one after it nothing", () => {
  assert.equal(tbtOf([{ startMs: 900, durationMs: 200 }], 0, 1000), 50);
  assert.equal(tbtOf([{ startMs: 1000, durationMs: 500 }], 0, 1000), 0);
  assert.equal(tbtOf([{ startMs: 980, durationMs: 500 }], 0, 1000), 0);
  // Clipped at both ends: [0, 2000] inside [500, 1200] is 700 ms, 650 blocking.
  assert.equal(tbtOf([{ startMs: 0, durationMs: 2000 }], 500, 1200), 650);
});

/** Up to 20 non-overlapping tasks over 0–6 s, 0–300 ms each (the main thread runs one task at a time). */
function randomTasks(rnd: () => number): Task[] {
  const tasks: Task[] = [];
  let at = rnd() * 200;
  for (let k = Math.floor(rnd() * 20); k > 0; k--) {
    const durationMs = rnd() * 300;
    tasks.push({ startMs: at, durationMs });
    at += durationMs + rnd() * 300;
  }
  return tasks;
}

test(`TBT over ${CASES} random loads: ≥ 0, ≤ the window, additive; tasks inside it give Σ max(0, d − 50)`, () => {
  const rnd = mulberry32(4242);
  for (let i = 0; i < CASES; i++) {
    const tasks = randomTasks(rnd);
    const from = rnd() * 2000;
    const to = from + rnd() * 5000;
    const tbt = tbtOf(tasks, from, to);
    const ctx = `case ${i}: from ${from} to ${to} ${JSON.stringify(tasks)}`;
    assert.ok(tbt >= 0, ctx);
    assert.ok(tbt <= to - from + EPS, ctx);
    assert.ok(Math.abs(tbt - sum(tasks.map((t) => tbtOf([t], from, to)))) < EPS, ctx);
    // A window that holds every task clips nothing.
    const all = tbtOf(tasks, 0, 1e9);
    assert.ok(Math.abs(all - sum(tasks.map((t) => Math.max(0, t.durationMs - 50)))) < EPS, ctx);
    assert.ok(tbt <= all + EPS, `clipping added blocking time: ${ctx}`);
  }
});

test(`TBT over ${CASES} random loads: monotone — a longer task, a later window end or an earlier FCP never lowers it`, () => {
  const rnd = mulberry32(7);
  for (let i = 0; i < CASES; i++) {
    const tasks = randomTasks(rnd);
    if (tasks.length === 0) continue;
    const from = rnd() * 2000;
    const to = from + rnd() * 5000;
    const tbt = tbtOf(tasks, from, to);
    const ctx = `case ${i}: from ${from} to ${to} ${JSON.stringify(tasks)}`;
    const k = Math.floor(rnd() * tasks.length);
    const longer = tasks.map((t, j) => (j === k ? { ...t, durationMs: t.durationMs + rnd() * 200 } : t));
    assert.ok(tbtOf(longer, from, to) >= tbt - EPS, `a longer task lowered TBT: ${ctx}`);
    assert.ok(tbtOf(tasks, from, to + rnd() * 1000) >= tbt - EPS, `a later end lowered TBT: ${ctx}`);
    assert.ok(tbtOf(tasks, from * rnd(), to) >= tbt - EPS, `an earlier FCP lowered TBT: ${ctx}`);
  }
});

// ─── bytes by type, the window ──────────────────────────────────────────────────────────────────────

function randomRequests(rnd: () => number): LoadRequest[] {
  return Array.from({ length: Math.floor(rnd() * 40) }, (_, i) => {
    const type: LoadResourceType = LOAD_RESOURCE_TYPES[Math.floor(rnd() * LOAD_RESOURCE_TYPES.length)]!;
    const startMs = rnd() * 3000;
    // A cache hit or a hidden cross-origin size is 0 bytes: a quarter of them.
    const transferBytes = rnd() < 0.25 ? 0 : Math.floor(rnd() * 500_000);
    return {
      url: `http://127.0.0.1/${i}`,
      type,
      startMs,
      responseStartMs: null,
      endMs: startMs + 10,
      transferBytes,
      renderBlocking: false,
    };
  });
}

test(`bytesByType over ${CASES} random loads: every type present, each the sum of its requests, all adding up to the total`, () => {
  assert.deepEqual(bytesByType([]), { document: 0, script: 0, stylesheet: 0, image: 0, font: 0, fetch: 0, other: 0 });
  const rnd = mulberry32(300);
  for (let i = 0; i < CASES; i++) {
    const requests = randomRequests(rnd);
    const by = bytesByType(requests);
    assert.deepEqual(Object.keys(by).sort(), [...LOAD_RESOURCE_TYPES].sort());
    for (const type of LOAD_RESOURCE_TYPES) {
      assert.equal(by[type], sum(requests.filter((r) => r.type === type).map((r) => r.transferBytes)), `case ${i} ${type}`);
    }
    assert.equal(sum(Object.values(by)), sum(requests.map((r) => r.transferBytes)), `case ${i}`);
  }
});

function readings(navigationStartAt: number, endedAt: number, fcpMs: number | null = null): LoadReadings {
  return {
    url: 'http://127.0.0.1/',
    navigationStartAt,
    endedAt,
    ended: 'quiet',
    status: 200,
    ttfbMs: null,
    fcpMs,
    domContentLoadedMs: null,
    loadEventMs: null,
    lcp: null,
    shifts: [],
    longTasks: [],
    requests: [],
    support: { paint: true, lcp: true, shift: true, longTask: true, renderBlocking: true },
  };
}

test('loadWindowMs: navigation start to the window end, never negative', () => {
  assert.equal(loadWindowMs(readings(1_000, 3_500)), 2500);
  assert.equal(loadWindowMs(readings(5_000, 4_000)), 0);
});

test('a load window whose page painted once (a warm, static page) is not refused as "rendered nothing"; a load with no FCP is', () => {
  // One painted frame: the window of steps that changed nothing on screen is refused, a load that painted its content is not.
  const picture: FramePicture = { stats: undefined, liveness: 1, painted: 1, frameOf: () => -1, missing: {} };
  const raw = (load?: LoadReadings): SourceInput => ({
    raw: session(load),
    spans: [],
    window: { startAt: 0, endAt: 1200 },
    offsetMs: undefined,
  });
  const session = (load?: LoadReadings): ReturnType<typeof sessionWithout> =>
    sessionWithout({
      token: 't',
      mode: 'timing',
      phases: false,
      startedAt: 0,
      endedAt: 1200,
      durationMs: 1200,
      marks: [],
      missing: {},
      env: {
        browser: 'Chrome',
        userAgent: '',
        headless: true,
        viewport: { width: 1280, height: 800, dpr: 1, mobile: false },
        cpuThrottle: 1,
        cpuThrottleSource: 'default',
        url: 'http://127.0.0.1/',
      },
      ...(load ? { load } : {}),
    });
  assert.match(refusalOf(raw(), picture) ?? '', /rendered nothing/);
  assert.equal(refusalOf(raw(readings(0, 1200, 80)), picture), undefined);
  assert.match(refusalOf(raw(readings(0, 1200, null)), picture) ?? '', /rendered nothing/);
});

// ─── what each request says ─────────────────────────────────────────────────────────────────────────

test('protocolName: http/1.x is h1, h3 and its drafts h3, h2 and the rest as the browser says them', () => {
  assert.deepEqual(['http/1.1', 'HTTP/1.0', 'h2', 'h3', 'h3-29', 'data', 'blob'].map(protocolName), [
    'h1',
    'h1',
    'h2',
    'h3',
    'h3',
    'data',
    'blob',
  ]);
});

test(`requestsDetail over ${CASES} random loads: failed first, then render-blocking, then by bytes; the reply within 2 KB`, () => {
  const rnd = mulberry32(59);
  for (let i = 0; i < CASES; i++) {
    const requests = randomRequests(rnd).map((r, j) => ({
      ...r,
      url: rnd() < 0.3 ? `https://cdn${j}.example/${'x'.repeat(Math.floor(rnd() * 300))}` : r.url,
      status: rnd() < 0.2 ? 404 : 200,
      renderBlocking: rnd() < 0.2,
      protocol: 'h2',
      servedFrom: 'network' as const,
      cacheControl: 'max-age=60',
      initiator: { type: 'parser', url: 'http://127.0.0.1/' },
      priority: 'High',
      entity: rnd() < 0.3 ? 'example' : 'first-party',
    }));
    const load = { ...readings(0, 1000), requests };
    const d = requestsDetail(load);
    const ctx = `case ${i}: ${d.rows.length} of ${requests.length}`;
    // perf_insight's envelope (token, id, title) is ~200 bytes of the 2 KB.
    assert.ok(Buffer.byteLength(JSON.stringify(d)) <= 2048 - 200, ctx);
    const rank = (r: Record<string, unknown>): number[] => [
      r.status === 404 ? 0 : 1,
      r.renderBlocking ? 0 : 1,
      -(r.transferBytes as number),
    ];
    for (let k = 1; k < d.rows.length; k++) {
      const [a, b] = [rank(d.rows[k - 1]!), rank(d.rows[k]!)];
      assert.ok(a[0]! < b[0]! || (a[0] === b[0] && (a[1]! < b[1]! || (a[1] === b[1] && a[2]! <= b[2]!))), ctx);
    }
    assert.match(d.title, new RegExp(`^${requests.length} requests: ${requests.filter((r) => r.status === 404).length} failed`));
    if (d.rows.length < requests.length) assert.match(d.note ?? '', new RegExp(`${d.rows.length} of ${requests.length} shown`), ctx);
    for (const r of d.rows) assert.ok(!String(r.url).startsWith('http://127.0.0.1'), `the page's own by their path: ${ctx}`);
  }
});

test('the note on first bytes outside their bar names only the requests still without one (the network gave the others theirs)', () => {
  const font = { url: 'http://127.0.0.1/font.woff', startMs: 61.2, firstByteMs: 80.6, endMs: 62.1 };
  const request = (responseStartMs: number | null): LoadRequest => ({
    url: font.url,
    type: 'font',
    startMs: 61.2,
    responseStartMs,
    endMs: 82,
    transferBytes: 300,
    renderBlocking: false,
  });
  const load = (r: LoadRequest): LoadReadings => ({ ...readings(0, 1000), requests: [r], unorderedFirstBytes: [font] });
  assert.equal(
    unorderedNote(load(request(null))),
    "1 request(s) had a first byte outside their start..end in the browser's Resource Timing, so their waterfall bars show no " +
      'first byte: http://127.0.0.1/font.woff (start 61.2 ms, first byte 80.6 ms, end 62.1 ms)',
  );
  assert.equal(unorderedNote(load(request(80.6))), undefined);
});
