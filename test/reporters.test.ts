/**
 * Reporters on hand-made run files and a real compareMetrics() result: no browser, no files except the
 * step-summary temp file. Each test checks what a reader of that format relies on.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { validateRunFile } from '../src/perf/compare-runs.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compareMetrics, DEFAULT_THRESHOLDS } from '../src/perf/compare.js';
import type { CompareResult, MetricSamples } from '../src/perf/compare.js';
import { summarize } from '../src/perf/stats.js';
import type { RepeatRecord, RunFile } from '../src/perf/run-file.js';
import { isPerfError } from '../src/errors.js';
import { appendToGithubStepSummary, getReporter, REPORTERS, reportPathFor } from '../reporters/index.js';
import { jsonReporter } from '../reporters/json.js';
import { junitReporter, xmlAttr, xmlText } from '../reporters/junit.js';
import { markdownReporter } from '../reporters/markdown.js';
import { tableReporter } from '../reporters/table.js';
import { formatValue, medianLoad, requestChanges, requestDeltaText, requestKey, shortUrl, sortMetrics } from '../reporters/format.js';

// ─── fixtures ───────────────────────────────────────────────────────────────────────────────────────

/** A message with every XML-special character, a BEL control character and an ANSI colour code. */
const NASTY_MESSAGE = `no element <button> & "Add" 'item'\u0007 \u001b[31mred\u001b[0m`;

const SAMPLES: Record<string, number[]> = {
  durationMs: [812.34, 820.1, 805.77, 830.4],
  'frames.count': [60, 61, 59, 60],
  'frames.painted': [58, 60, 59, 58],
  'interactions.latencyMs.p90': [84.21, 90.3, 80.02, 88.8],
  'counters.layouts.perFrame': [2.5, 2.4, 2.6, 2.5],
  'counters.heapDeltaBytes': [1_572_864, 1_600_000, 1_500_000, 1_580_000],
  'counters.layouts': [145, 144, 150, 146],
  'steps.scroll.ms': [400.04, 410.5, 398.2, 402],
  'steps.add.ms': [50.5, 52.1, 49.9, 51],
};

function repeatBase(index: number, warmup = false): Omit<RepeatRecord, 'status' | 'report'> & { steps: RepeatRecord['steps'] } {
  return {
    index,
    mode: 'timing',
    warmup,
    wallMs: 1234.5,
    // scroll before add: the table must follow this order, not the alphabet.
    steps: [
      { phase: 'setup', step: 'wait_for', label: '0-wait_for', status: 'ok', durationMs: 20 },
      { phase: 'steps', step: 'scroll', label: 'scroll', status: 'ok', durationMs: 400 },
      { phase: 'steps', step: 'tap', label: 'add', status: 'ok', durationMs: 50 },
    ],
  };
}

function makeRun(label = 'run'): RunFile {
  const metrics = Object.fromEntries(Object.entries(SAMPLES).map(([k, v]) => [k, summarize(v)]));
  const measured = (index: number, warmup = false): RepeatRecord => ({
    ...repeatBase(index, warmup),
    status: 'measured',
    report: { metrics: Object.fromEntries(Object.entries(SAMPLES).map(([k, v]) => [k, v[index % v.length]!])) },
  });
  return {
    schemaVersion: 1,
    scenario: 'list',
    variant: 'desktop',
    label,
    scenarioFile: 'scenarios/list.yaml',
    startedAt: '2025-01-01T00:00:00.000Z',
    finishedAt: '2025-01-01T00:01:00.000Z',
    interrupted: false,
    env: {
      tool: { name: 'rehearse', version: '0.1.0' },
      browser: { product: 'Chrome/131', userAgent: 'ua', headless: true },
      host: {
        platform: 'linux',
        arch: 'x64',
        cpuModel: 'cpu',
        cpus: 8,
        memoryBytes: 16e9,
        loadAverage: [0, 0, 0],
        node: 'v20',
        hostname: 'h',
      },
      restartMode: 'context',
      viewport: { width: 1440, height: 900, dpr: 1, mobile: false, touch: false },
      cpuThrottle: 4,
      app: { kind: 'serve', url: 'http://127.0.0.1:1234/list.html' },
    },
    thresholds: { warnPct: 10, errorPct: 25, metrics: {} },
    summary: { repeats: 6, measured: 4, refused: 1, failed: 1, warmup: 1, metrics, timingOnly: false },
    budgets: [
      { expr: 'interactions.latencyMs.p90 < 100', metric: 'interactions.latencyMs.p90', op: '<', limit: 100, value: 86.5, pass: true },
      { expr: 'counters.layouts.perFrame <= 2', metric: 'counters.layouts.perFrame', op: '<=', limit: 2, value: 2.5, pass: false },
    ],
    insights: [],
    repeats: [
      measured(0, true), // warmup: excluded everywhere
      measured(1),
      measured(2),
      measured(3),
      measured(4),
      {
        ...repeatBase(5),
        status: 'failed',
        failure: {
          phase: 'steps',
          step: 'tap',
          label: 'add',
          error: { kind: 'usage', code: 'target_not_found', message: NASTY_MESSAGE, suggestion: 'take a snap', candidates: ['Add <item>'] },
        },
      },
      { ...repeatBase(6), status: 'refused', reason: 'no frames painted in the window' },
    ],
  };
}

/** Deterministic ±1 % wobble around `base`, 10 repeats: real noise without a PRNG. */
function wobble(base: number): number[] {
  return Array.from({ length: 10 }, (_, i) => base * (1 + (((i * 7) % 10) - 4.5) / 450));
}

const COMPARE_METRICS = [
  'durationMs',
  'frames.count',
  'frames.painted',
  'frames.dropped',
  'frames.dropped.perFrame',
  'frames.overBudget',
  'frames.overBudget.perFrame',
  'frames.frameMs.p50',
  'frames.frameMs.p90',
  'frames.frameMs.p99',
  'frames.frameMs.worst',
  'interactions.count',
  'interactions.latencyMs.p50',
  'interactions.latencyMs.p90',
  'interactions.latencyMs.worst',
  'longFrames.count',
  'longFrames.count.perFrame',
  'longFrames.blockingMs',
  'counters.layouts',
  'counters.layouts.perFrame',
  'counters.styleRecalcs',
  'counters.styleRecalcs.perFrame',
  'counters.scriptMs',
  'counters.heapDeltaBytes',
  'steps.scroll.ms',
  'steps.add.ms',
  'steps.filter.ms',
  'steps.expect.ms',
  'steps.open.ms',
  'steps.close.ms',
];

/** Three regressions of known size among 30 metrics; the rest are the same values in another order. */
const REGRESSION_FACTORS: Record<string, number> = { 'counters.layouts.perFrame': 1.6, durationMs: 1.35, 'frames.frameMs.p90': 1.15 };

function makeCompare(): CompareResult {
  const samples: MetricSamples[] = COMPARE_METRICS.map((metric, i) => {
    const a = wobble(10 + i);
    const factor = REGRESSION_FACTORS[metric];
    return { metric, a, b: factor ? a.map((v) => v * factor) : [...a].reverse(), role: 'primary', better: 'lower', floor: 0 };
  });
  return compareMetrics(samples, { thresholds: DEFAULT_THRESHOLDS });
}

// ─── a tiny XML well-formedness checker ─────────────────────────────────────────────────────────────

interface XmlNode {
  name: string;
  attrs: Record<string, string>;
  children: XmlNode[];
  text: string;
}

const ENTITY_REF = /&(?:amp|lt|gt|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);/y;

function decodeEntities(s: string, where: string): string {
  let out = '';
  for (let i = 0; i < s.length;) {
    if (s[i] === '&') {
      ENTITY_REF.lastIndex = i;
      const m = ENTITY_REF.exec(s);
      if (!m) throw new Error(`bare & in ${where}: ${JSON.stringify(s.slice(i, i + 12))}`);
      const ref = m[0].slice(1, -1);
      out += ref.startsWith('#x')
        ? String.fromCodePoint(parseInt(ref.slice(2), 16))
        : ref.startsWith('#')
          ? String.fromCodePoint(Number(ref.slice(1)))
          : { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }[ref]!;
      i += m[0].length;
    } else {
      out += s[i];
      i++;
    }
  }
  return out;
}

/**
 * Parses the subset of XML the JUnit reporter writes (prolog, elements, double-quoted attributes, text)
 * and throws on anything not well-formed: unbalanced or mismatched tags, raw < or bare & in text or
 * attributes, duplicate attributes, characters outside XML 1.0 Char, content outside one root.
 */
function parseXml(src: string): XmlNode {
  const invalid = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u.exec(src);
  if (invalid) throw new Error(`character U+${invalid[0].codePointAt(0)!.toString(16)} is not allowed in XML 1.0`);
  let i = 0;
  const prolog = /^<\?xml[^?]*\?>/.exec(src);
  if (prolog) i = prolog[0].length;
  const root: XmlNode = { name: '#document', attrs: {}, children: [], text: '' };
  const stack: XmlNode[] = [root];
  const openTag = /<([A-Za-z_][\w.-]*)((?:\s+[A-Za-z_][\w.:-]*="[^"<]*")*)\s*(\/?)>/y;
  const closeTag = /<\/([A-Za-z_][\w.-]*)\s*>/y;
  while (i < src.length) {
    const top = stack[stack.length - 1]!;
    if (src[i] !== '<') {
      const end = src.indexOf('<', i);
      const raw = src.slice(i, end < 0 ? src.length : end);
      const text = decodeEntities(raw, `text of <${top.name}>`);
      if (top === root && text.trim()) throw new Error(`text outside the root element: ${JSON.stringify(text)}`);
      top.text += text;
      i += raw.length;
      continue;
    }
    closeTag.lastIndex = i;
    const close = closeTag.exec(src);
    if (close) {
      if (close[1] !== top.name) throw new Error(`</${close[1]}> closes <${top.name}>`);
      stack.pop();
      i += close[0].length;
      continue;
    }
    openTag.lastIndex = i;
    const open = openTag.exec(src);
    if (!open) throw new Error(`malformed tag at ${i}: ${JSON.stringify(src.slice(i, i + 40))}`);
    const node: XmlNode = { name: open[1]!, attrs: {}, children: [], text: '' };
    for (const m of open[2]!.matchAll(/([A-Za-z_][\w.:-]*)="([^"]*)"/g)) {
      const [, key, value] = m;
      if (key! in node.attrs) throw new Error(`duplicate attribute ${key} on <${node.name}>`);
      node.attrs[key!] = decodeEntities(value!, `attribute ${key}`);
    }
    if (top === root && root.children.length) throw new Error('more than one root element');
    top.children.push(node);
    if (!open[3]) stack.push(node);
    i += open[0].length;
  }
  if (stack.length !== 1) throw new Error(`unclosed <${stack[stack.length - 1]!.name}>`);
  const doc = root.children[0];
  if (!doc) throw new Error('no root element');
  return doc;
}

function only<T>(xs: T[]): T {
  assert.equal(xs.length, 1);
  return xs[0]!;
}

const ANSI = /\u001b\[/;

// ─── run reporters ──────────────────────────────────────────────────────────────────────────────────

test('table --all: header facts, every metric row with its median, in reading order', () => {
  const out = tableReporter.renderRun(makeRun(), { all: true });
  assert.match(out, /list \(desktop\) — run/);
  assert.match(out, /4 of 6 repeats measured, 1 refused, 1 failed \(\+1 warmup discarded\)/);
  assert.match(out, /restart context/);
  assert.match(out, /viewport 1440×900 @1x/);
  assert.match(out, /CPU throttle 4×/);
  assert.match(out, /durationMs\s*│\s*816\.2\b/); // median of 805.77, 812.34, 820.1, 830.4
  assert.match(out, /frames\.count\s*│\s*60\b/);
  assert.match(out, /counters\.layouts\.perFrame\s*│\s*2\.50\b/);
  assert.match(out, /counters\.heapDeltaBytes\s*│\s*1\.50 MB/);
  assert.match(out, /interactions\.latencyMs\.p90\s*│\s*86\.5\b/);
  const order = [
    'durationMs',
    'frames.count',
    'frames.painted',
    'interactions.latencyMs.p90',
    'counters.layouts ',
    'counters.layouts.perFrame',
    'counters.heapDeltaBytes',
    'steps.scroll.ms',
    'steps.add.ms',
  ];
  const positions = order.map((m) => out.search(new RegExp(`│ [★ ] ${m.replace(/\./g, '\\.')}`)));
  assert.ok(
    positions.every((p) => p >= 0),
    `all rows present: ${positions}`,
  );
  assert.deepEqual(
    [...positions].sort((x, y) => x - y),
    positions,
    'rows in reading order, steps in run order',
  );
  assert.match(out, /PASS {2}interactions\.latencyMs\.p90 < 100 {2}\(median 86\.5\)/);
  assert.match(out, /FAIL {2}counters\.layouts\.perFrame <= 2 {2}\(median 2\.50\)/);
  assert.match(out, /repeat 5 \(timing\) failed at steps › tap "add": target_not_found: no element <button>/);
  assert.match(out, /repeat 6 \(timing\) refused: no frames painted/);
  assert.doesNotMatch(out, ANSI, 'no colour codes by default');
  assert.match(tableReporter.renderRun(makeRun(), { color: true }), ANSI);
});

test('metric order and number formats follow the units in the names', () => {
  assert.deepEqual(
    sortMetrics(
      [
        'steps.b.ms',
        'counters.layouts.perFrame',
        'zzz',
        'frames.dropped',
        'counters.layouts',
        'durationMs',
        'longFrames.count',
        'interactions.count',
        'frames.count',
      ],
      ['b'],
    ),
    [
      'durationMs',
      'frames.count',
      'frames.dropped',
      'interactions.count',
      'longFrames.count',
      'counters.layouts',
      'counters.layouts.perFrame',
      'steps.b.ms',
      'zzz',
    ],
  );
  assert.equal(formatValue('durationMs', 12.345), '12.3');
  assert.equal(formatValue('frames.frameMs.p90', 16.66), '16.7');
  assert.equal(formatValue('steps.add.ms', 50), '50.0');
  assert.equal(formatValue('counters.layouts.perFrame', 0.5), '0.50');
  assert.equal(formatValue('counters.layouts', 145.5), '145.5');
  assert.equal(formatValue('counters.layouts', 7), '7');
  assert.equal(formatValue('counters.heapDeltaBytes', 512), '512 B');
  assert.equal(formatValue('counters.heapDeltaBytes', -2048), '-2.0 KB');
  assert.equal(formatValue('counters.heapDeltaBytes', 3 * 1024 * 1024), '3.00 MB');
  assert.equal(formatValue('durationMs', -0.01), '0.0');
  assert.equal(formatValue('durationMs', NaN), 'n/a');
});

test('json: the run file without repeats; compare result as JSON', () => {
  const run = makeRun();
  const parsed = JSON.parse(jsonReporter.renderRun(run)) as Record<string, unknown>;
  assert.equal(parsed.repeats, undefined);
  assert.equal(parsed.scenario, 'list');
  assert.deepEqual(parsed.summary, JSON.parse(JSON.stringify(run.summary)));
  assert.deepEqual(parsed.budgets, run.budgets);
  const result = makeCompare();
  const c = JSON.parse(jsonReporter.renderCompare(result, { a: run, b: run })) as CompareResult;
  assert.equal(c.verdict, result.verdict);
  assert.equal(c.rows.length, 30);
});

test('markdown run: heading, metrics table, budget lines, failed repeats escaped', () => {
  const md = markdownReporter.renderRun(makeRun());
  const lines = md.split('\n');
  assert.match(lines[0]!, /^### ❌ rehearse: list \(desktop\) — run$/);
  assert.ok(lines.includes('| metric | median | p25–p75 | min–max | n |'));
  assert.ok(lines.includes('|:--|--:|--:|--:|--:|'));
  assert.ok(lines.includes('| `durationMs` | 816.2 | 810.7–822.7 | 805.8–830.4 | 4 |'), md);
  assert.ok(lines.some((l) => l.startsWith('| `steps.add.ms` | 50.8 |')));
  assert.ok(lines.includes('**Budgets**: 1 of 2 failed'));
  assert.ok(lines.includes('- ✅ pass `interactions.latencyMs.p90 < 100`: median 86.5'));
  assert.ok(lines.includes('- ❌ **FAIL** `counters.layouts.perFrame <= 2`: median 2.50'));
  const failed = lines.find((l) => l.startsWith('- repeat 5'));
  assert.ok(failed, md);
  assert.match(failed, /`target_not_found`/);
  assert.match(failed, /no element \\<button\\> \\& "Add"/, 'HTML in a message is shown, not interpreted');
  assert.ok(lines.includes('- repeat 6 (timing): no frames painted in the window'));
});

test('a budget written in a unit shows its median and limit in that unit (table, markdown, junit, json), stored in bytes/ms', () => {
  const run = makeRun();
  run.budgets = [
    {
      expr: 'process.maxRssBytes <= 300KB',
      metric: 'process.maxRssBytes',
      op: '<=',
      limit: 307_200,
      unit: 'KB',
      value: 421_888,
      pass: false,
    },
    { expr: 'durationMs < 2.5s', metric: 'durationMs', op: '<', limit: 2500, unit: 's', value: 816.2, pass: true },
    {
      expr: 'process.maxRssBytes <= 1.5MiB',
      metric: 'process.maxRssBytes',
      op: '<=',
      limit: 1_572_864,
      unit: 'MiB',
      value: null,
      pass: false,
    },
  ];
  const table = tableReporter.renderRun(run);
  assert.match(table, /FAIL {2}process\.maxRssBytes <= 300KB {2}\(median 412\.0 KB\)/);
  assert.match(table, /PASS {2}durationMs < 2\.5s {2}\(median 0\.816 s\)/);
  assert.match(table, /FAIL {2}process\.maxRssBytes <= 1\.5MiB {2}\(no measured value\)/);
  const md = markdownReporter.renderRun(run).split('\n');
  assert.ok(md.includes('- ❌ **FAIL** `process.maxRssBytes <= 300KB`: median 412.0 KB'), md.join('\n'));
  const xml = junitReporter.renderRun(run);
  assert.match(xml, /budget process\.maxRssBytes &lt;= 300KB failed: median 412\.0 KB \(limit &lt;= 300 KB\)/);
  assert.match(xml, /\(limit &lt;= 1\.5 MiB\)/);
  assert.deepEqual((JSON.parse(jsonReporter.renderRun(run)) as RunFile).budgets, run.budgets);
  // The unit is a declared run-file field: read back as written, and only one of the units.
  assert.deepEqual(validateRunFile(JSON.parse(JSON.stringify(run)), 'r.json').budgets, run.budgets);
  const bogus = JSON.parse(JSON.stringify(run)) as { budgets: { unit: string }[] };
  bogus.budgets[0]!.unit = 'parsecs';
  assert.throws(
    () => validateRunFile(bogus, 'r.json'),
    (e: unknown) =>
      isPerfError(e) && e.code === 'run_file_invalid' && /budgets\[0\]\.unit must be one of "ms", "s", "B", "KB"/.test(e.message),
  );
});

test('GITHUB_STEP_SUMMARY: appended when set, twice keeps both, untouched when unset', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rehearse-summary-'));
  try {
    const file = join(dir, 'summary.md');
    const env = { GITHUB_STEP_SUMMARY: file };
    assert.equal(appendToGithubStepSummary('### first\n\n| a |\n|--|', env), file);
    assert.equal(appendToGithubStepSummary('### second', env), file);
    const text = readFileSync(file, 'utf8');
    assert.equal(text, '### first\n\n| a |\n|--|\n\n### second\n\n');
    assert.equal(appendToGithubStepSummary('### third', {}), undefined);
    assert.equal(appendToGithubStepSummary('### third', { GITHUB_STEP_SUMMARY: '' }), undefined);
    assert.equal(readFileSync(file, 'utf8'), text);
    assert.throws(
      () => appendToGithubStepSummary('x', { GITHUB_STEP_SUMMARY: join(dir, 'missing', 'summary.md') }),
      (e: unknown) => isPerfError(e) && e.kind === 'environment' && e.code === 'step_summary_unwritable',
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('junit run: well-formed, counts repeats (no warmup), failures, skipped, budgets', () => {
  const xml = junitReporter.renderRun(makeRun());
  const doc = parseXml(xml);
  assert.equal(doc.name, 'testsuites');
  const suite = only(doc.children.filter((c) => c.name === 'testsuite'));
  assert.equal(suite.attrs.name, 'list-desktop');
  const cases = suite.children.filter((c) => c.name === 'testcase');
  // 6 counted repeats (the warmup is excluded) + 2 budgets.
  assert.equal(cases.length, 8);
  assert.deepEqual(
    cases.map((c) => c.attrs.name),
    [
      'repeat 1 (timing)',
      'repeat 2 (timing)',
      'repeat 3 (timing)',
      'repeat 4 (timing)',
      'repeat 5 (timing)',
      'repeat 6 (timing)',
      'budget: interactions.latencyMs.p90 < 100',
      'budget: counters.layouts.perFrame <= 2',
    ],
  );
  assert.ok(cases.every((c) => c.attrs.classname === 'rehearse.list'));
  assert.equal(cases[0]!.attrs.time, '1.235');
  const failures = cases.flatMap((c) => c.children.filter((x) => x.name === 'failure'));
  const skipped = cases.flatMap((c) => c.children.filter((x) => x.name === 'skipped'));
  assert.equal(failures.length, 2);
  assert.equal(skipped.length, 1);
  for (const node of [suite, doc]) {
    assert.equal(node.attrs.tests, '8');
    assert.equal(node.attrs.failures, '2');
    assert.equal(node.attrs.skipped, '1');
  }
  assert.equal(only(cases[5]!.children).attrs.message, 'refused: no frames painted in the window');
  const failure = only(cases[4]!.children);
  assert.equal(failure.attrs.type, 'target_not_found');
  // Escaped on the way out, decoded by the parser: the same text minus the control and ANSI characters.
  assert.equal(failure.attrs.message, `tap: no element <button> & "Add" 'item' red`);
  assert.match(failure.text, /phase: steps\nstep: tap\nlabel: add\nerror: usage\/target_not_found: no element <button>/);
  assert.match(failure.text, /candidates: Add <item>/);
  assert.equal(only(cases[7]!.children).attrs.type, 'budget_failed');
  assert.equal(cases[6]!.children.length, 0, 'a passing budget is a passing testcase');
});

test('xml escaping: <&"\' escaped, control characters and lone surrogates stripped', () => {
  assert.equal(xmlText(`a<b>&"c"'d'`), 'a&lt;b&gt;&amp;&quot;c&quot;&apos;d&apos;');
  assert.equal(xmlAttr('x\u0000y\u0008z\u000B\u000C\u001F\uFFFE\uD800!'), 'xyz!');
  assert.equal(xmlAttr('line1\nline2\ttab'), 'line1&#10;line2&#9;tab');
  assert.equal(xmlText('emoji 🎉 and é kept'), 'emoji 🎉 and é kept');
  const run = makeRun();
  run.scenario = 'a<b>&"\'\u0001';
  assert.doesNotThrow(() => parseXml(junitReporter.renderRun(run)));
  // The checker itself rejects what the reporter must never produce.
  assert.throws(() => parseXml('<a x="1 & 2"/>'), /bare &/);
  assert.throws(() => parseXml('<a><b></a></b>'), /closes/);
  assert.throws(() => parseXml('<a>\u0001</a>'), /not allowed/);
  assert.throws(() => parseXml('<a x="<"/>'), /malformed/);
});

// ─── compare reporters ──────────────────────────────────────────────────────────────────────────────

test('markdown compare: verdict first, 3 regressions worst first, unchanged collapsed, ≤ 15 lines', () => {
  const result = makeCompare();
  assert.equal(result.verdict, 'fail');
  const md = markdownReporter.renderCompare(result, { a: makeRun('main'), b: makeRun('pr') });
  const lines = md.trimEnd().split('\n');
  assert.ok(lines.length <= 15, `${lines.length} lines:\n${md}`);
  assert.match(lines[0]!, /^### ❌ FAIL perf compare list \(desktop\): main → pr — 2 errors, 1 warning$/);
  const rows = lines.filter((l) => l.startsWith('| `'));
  assert.equal(rows.length, 3, md);
  assert.match(rows[0]!, /^\| `counters\.layouts\.perFrame` \| 29\.00 \| 46\.40 \| \+60\.0% \| \+\d+\.\d…\+\d+\.\d% \| 🔴 error \|$/);
  assert.match(rows[1]!, /^\| `durationMs` \| 10\.0 \| 13\.5 \| \+35\.0% \| .* \| 🔴 error \|$/);
  assert.match(rows[2]!, /^\| `frames\.frameMs\.p90` \| 18\.0 \| 20\.7 \| \+15\.0% \| .* \| 🟡 warn \|$/);
  // The one-sided test at α 5% shows the matching two-sided 90% interval.
  assert.ok(
    // The candidate column is the baseline plus the shift the verdict judges: baseline, candidate and change add up.
    lines.some((l) => /^\| metric \| main \| pr \(= main \+ shift\) \| change \| 9\d% CI \| severity \|/.test(l)),
    md,
  );
  assert.ok(lines.includes('<details><summary>27 unchanged metrics</summary>'));
  assert.ok(lines.includes('</details>'));
  const unchanged = lines.find((l) => l.startsWith('`frames.count`'));
  assert.ok(unchanged, md);
  assert.equal(unchanged.split(' · ').length, 27);
  assert.match(unchanged, /`steps\.scroll\.ms` 34\.0 → 34\.0 · `steps\.add\.ms`/);
});

test('markdown compare: a pass with nothing changed says so', () => {
  const result = compareMetrics(
    [{ metric: 'durationMs', a: wobble(10), b: wobble(10).reverse(), role: 'primary', better: 'lower', floor: 0 }],
    { thresholds: DEFAULT_THRESHOLDS },
  );
  const md = markdownReporter.renderCompare(result, { a: makeRun('main'), b: makeRun('pr') });
  assert.match(md, /^### ✅ PASS perf compare .* — no significant change\n/);
  assert.match(md, /No metric changed beyond the runs' own noise\./);
  assert.match(md, /1 unchanged metric</);
});

test('table compare: verdict line, changed rows, unchanged list (--all), the count of the rest on the first screen', () => {
  const out = tableReporter.renderCompare(makeCompare(), { a: makeRun('main'), b: makeRun('pr') });
  const lines = out.split('\n');
  assert.match(lines[0]!, /^FAIL {2}list \(desktop\): main → pr — 2 errors, 1 warning$/);
  assert.match(out, /★ counters\.layouts\.perFrame\s*│\s*29\.00\s*│\s*46\.40\s*│\s*\+60\.0%/);
  assert.match(out, /frames\.frameMs\.p90 .*│ warn\s*│/);
  assert.match(out, /^27 unchanged: --all lists them$/m);
  assert.doesNotMatch(out, /^unchanged \(27\)/m);
  const all = tableReporter.renderCompare(makeCompare(), { a: makeRun('main'), b: makeRun('pr') }, { all: true });
  assert.match(all, /^unchanged \(27\): durationMs|^unchanged \(27\): frames\.count/m);
  assert.doesNotMatch(out, ANSI);
});

/** Cells of the table rows whose first cell holds `metric`. */
function rowCells(text: string, metric: string): string[] {
  const line = text.split('\n').find((l) => l.split('│')[1]?.trim().replace(/^★ /, '') === metric);
  assert.ok(line, `a row for ${metric} in\n${text}`);
  return line
    .split('│')
    .slice(1, -1)
    .map((c) => c.trim());
}

test('table compare: baseline, candidate and change come from the one estimate the verdict used', () => {
  // Two clusters that move differently: the candidate's median jumps +127%, the Hodges–Lehmann shift (what
  // the verdict judges) is +30%. A table of medians beside a change from the shift showed both at once.
  const w = (x: number, i: number): number => x * (1 + (((i * 7) % 10) - 4.5) / 450);
  const a = [100, 100, 100, 100, 100, 100, 200, 200, 200, 200].map(w);
  const b = [130, 130, 130, 130, 230, 230, 230, 230, 230, 230].map(w);
  const gated = { role: 'primary', better: 'lower', floor: 0 } as const;
  const secondary = { ...gated, role: 'secondary' } as const;
  const result = compareMetrics(
    [
      { metric: 'durationMs', a, b, ...gated },
      { metric: 'frames.frameMs.p90', a: wobble(20), b: wobble(20).map((v) => v * 1.5), ...secondary },
    ],
    { thresholds: DEFAULT_THRESHOLDS },
  );
  const row = result.rows.find((r) => r.metric === 'durationMs')!;
  assert.equal(row.verdict, 'regressed');
  assert.ok(Math.abs(row.b.median - (row.a.median + row.shift!)) > 50, 'the fixture separates the median from the estimate');
  const ctx = { a: makeRun('main'), b: makeRun('pr') };
  const out = tableReporter.renderCompare(result, ctx);
  const [, base, cand, change, ci, status] = rowCells(out, 'durationMs');
  assert.equal(base, formatValue('durationMs', row.a.median));
  assert.equal(cand, formatValue('durationMs', row.a.median + row.shift!), 'the candidate is the baseline plus the shift');
  assert.notEqual(cand, formatValue('durationMs', row.b.median));
  const pct = (s: string): number => Number(s.replace(/[%+]/g, ''));
  assert.ok(Math.abs(pct(change!) - (100 * (Number(cand) - Number(base))) / Number(base)) < 0.2, `${base} → ${cand} is ${change}`);
  const [low, high] = ci!.replace('%', '').split('…').map(Number);
  assert.ok(low! <= pct(change!) && pct(change!) <= high!, `the change ${change} lies in its interval ${ci}`);
  assert.equal(status, 'error');
  assert.match(out, /pr \(est\.\) = main's median \+ the estimated shift the verdict is on/);
  // The first screen shows the rows that decide; a secondary regression waits for --all.
  assert.ok(!out.includes('frames.frameMs.p90 '), out);
  assert.match(out, /^1 more changed \(not deciding\): --all lists them$/m);
  const all = tableReporter.renderCompare(result, ctx, { all: true });
  assert.equal(rowCells(all, 'frames.frameMs.p90')[5], 'info (secondary)');
});

test('table run: budgets first, then the metrics that decide (marked), then the findings; every metric with --all', () => {
  const run = makeRun();
  run.insights = [{ id: 'forced-layout', severity: 'warn', title: 'Forced layouts in the scroll handler', nextStep: 'x' }];
  const median = run.repeats.find((r) => r.status === 'measured' && r.index === 2)!;
  if (median.status === 'measured')
    median.report.summary = {
      blocksBySelf: [
        { name: 'renderRows', url: '/list.js:10', selfMs: 40.25, share: 0.5 },
        { name: 'layoutAll', url: '/list.js:80', selfMs: 20, share: 0.25 },
        { name: 'third', url: '/list.js:99', selfMs: 10, share: 0.125 },
      ],
    };
  run.insightsFrom = { repeat: 2, mode: 'attribution', of: 4 };
  const out = tableReporter.renderRun(run);
  const lines = out.trimEnd().split('\n');
  const at = (re: RegExp): number => lines.findIndex((l) => re.test(l));
  assert.ok(at(/^Budgets: 1 of 2 failed/) === 2, out);
  assert.ok(at(/^ {2}FAIL {2}counters\.layouts\.perFrame <= 2 {2}\(median 2\.50\)/) > 0, out);
  // 58.5 painted frames: ratios are judged per frame (perf/compare/primaries.ts familyForms), so that form is the one shown.
  const marked = lines.filter((l) => l.startsWith('│') && l.includes('★ ')).map((l) => l.split('│')[1]!.trim());
  assert.deepEqual(marked, ['★ interactions.latencyMs.p90', '★ counters.layouts.perFrame']);
  assert.ok(at(/│ {3}durationMs/) < 0 && at(/steps\.scroll\.ms/) < 0, 'the other metrics wait for --all');
  assert.ok(at(/Findings \(repeat 2, the median of 4 attribution repeats\)/) > at(/counters\.layouts\.perFrame │/));
  assert.match(out, /^ {2}insight warn: Forced layouts in the scroll handler \(forced-layout\)$/m);
  assert.match(out, /^ {2}function renderRows \/list\.js:10 {2}40\.3 ms self \(50% of script\)$/m);
  assert.match(out, /^ {2}function layoutAll /m);
  assert.doesNotMatch(out, /function third/, 'three findings in all');
  assert.match(out, /2 of 9 metrics shown; --all prints every one/);
  const all = tableReporter.renderRun(run, { all: true });
  for (const metric of Object.keys(run.summary.metrics)) assert.match(all, new RegExp(`│ [★ ] ${metric.replace(/\./g, '\\.')} +│`));
  // 2 of title and facts, 3 of budgets, 3 of table, 4 of findings, the legend, 4 of failed and refused repeats.
  assert.equal(lines.length, 17, out);
});

test('junit compare: one testcase per gated metric, failure per error, warn as system-out', () => {
  const result = makeCompare();
  // An ungated row is informational and stays out of the CI test list.
  result.rows.push({ ...result.rows[result.rows.length - 1]!, metric: 'extra.info', gated: false });
  const doc = parseXml(junitReporter.renderCompare(result, { a: makeRun('main'), b: makeRun('pr') }));
  const suite = only(doc.children);
  const cases = suite.children.filter((c) => c.name === 'testcase');
  assert.equal(cases.length, 30);
  assert.equal(suite.attrs.tests, '30');
  assert.equal(suite.attrs.failures, '2');
  const failed = cases.filter((c) => c.children.some((x) => x.name === 'failure')).map((c) => c.attrs.name);
  assert.deepEqual(failed.sort(), ['counters.layouts.perFrame', 'durationMs']);
  const warn = only(cases.filter((c) => c.children.some((x) => x.name === 'system-out')));
  assert.equal(warn.attrs.name, 'frames.frameMs.p90');
  assert.match(
    only(warn.children).text,
    /^warn: frames\.frameMs\.p90 regressed: 18\.0 \(main\) → 20\.7 \(pr, estimated: the baseline \+ the shift the verdict is on\), \+15\.0%/,
  );
  const failure = only(cases.find((c) => c.attrs.name === 'durationMs')!.children);
  assert.equal(failure.attrs.type, 'regression');
  assert.match(failure.text, /^regressed \+35/);
});

// ─── the list ───────────────────────────────────────────────────────────────────────────────────────

test('getReporter: every listed reporter by name; unknown names the closest', () => {
  assert.deepEqual(
    REPORTERS.map((r) => r.name),
    ['table', 'json', 'markdown', 'junit', 'html'],
  );
  for (const r of REPORTERS) assert.equal(getReporter(r.name), r);
  assert.throws(
    () => getReporter('markdwn'),
    (e: unknown) => {
      assert.ok(isPerfError(e));
      assert.equal(e.kind, 'usage');
      assert.equal(e.code, 'unknown_reporter');
      assert.deepEqual(e.candidates, ['markdown']);
      assert.match(e.message, /did you mean "markdown"/);
      assert.match(e.suggestion ?? '', /table, json, markdown, junit, html/);
      return true;
    },
  );
  assert.throws(
    () => getReporter('pdf'),
    (e: unknown) => isPerfError(e) && e.code === 'unknown_reporter' && !/did you mean/.test(e.message),
  );
});

test('reportPathFor: written beside the run file, never over it', () => {
  const paths = REPORTERS.map((r) => reportPathFor('build/perf/list-desktop-run.json', r));
  assert.deepEqual(paths, [
    'build/perf/list-desktop-run.txt',
    'build/perf/list-desktop-run.summary.json',
    'build/perf/list-desktop-run.md',
    'build/perf/list-desktop-run.junit.xml',
    'build/perf/list-desktop-run.html',
  ]);
});

// ─── page load (issue 29) ───────────────────────────────────────────────────────────────────────────

/** A real run file: `perf run test/fixtures/runs/load-list.yaml` (measure: load on scenarios/app/list.html), traces deleted. */
const LOAD_RUN_FILE = join(import.meta.dirname, '..', '..', 'test', 'fixtures', 'runs', 'load-list-run.json');
const loadRun = (): RunFile => JSON.parse(readFileSync(LOAD_RUN_FILE, 'utf8')) as RunFile;

test('load run: the median repeat by load.lcpMs is the one the reporters draw, the same in every reporter', () => {
  const run = loadRun();
  validateRunFile(run, LOAD_RUN_FILE);
  const counted = run.repeats.filter((r): r is Extract<RepeatRecord, { status: 'measured' }> => r.status === 'measured' && !r.warmup);
  const byLcp = [...counted].sort((a, b) => a.report.metrics['load.lcpMs']! - b.report.metrics['load.lcpMs']!);
  const want = byLcp[Math.floor((byLcp.length - 1) / 2)]!;
  const m = medianLoad(run)!;
  assert.equal(m.repeat.index, want.index);
  assert.equal(m.by, 'load.lcpMs');
  // Without LCP (WebKit), the load event decides; a run without a load has no section at all.
  const noLcp = loadRun();
  for (const r of noLcp.repeats) if (r.status === 'measured') delete r.report.metrics['load.lcpMs'];
  assert.equal(medianLoad(noLcp)!.by, 'load.loadEventMs');
  const plain = loadRun();
  for (const r of plain.repeats) if (r.status === 'measured') delete r.report.load;
  assert.equal(medianLoad(plain), undefined);
  assert.doesNotMatch(tableReporter.renderRun(plain), /Largest requests/);
  assert.doesNotMatch(markdownReporter.renderRun(plain), /Largest requests/);
});

test('table and markdown: after the metrics, the 5 largest requests of the median load by size, and its LCP element', () => {
  const run = loadRun();
  const m = medianLoad(run)!;
  const top = [...m.load.top].sort((a, b) => b.transferBytes - a.transferBytes);
  for (const text of [tableReporter.renderRun(run, { all: true }), markdownReporter.renderRun(run)]) {
    const at = text.indexOf('Largest requests');
    assert.ok(at > text.indexOf('load.transferBytes'), 'after the metrics');
    assert.match(text, new RegExp(`median repeat ${m.repeat.index} by load\\.lcpMs · ${m.load.requestsTotal} requests`));
    const rows = top.map((r) => text.indexOf(shortUrl(r.url, m.load.url), at));
    assert.ok(
      rows.every((i) => i > at),
      `every top request is listed: ${rows}`,
    );
    assert.deepEqual(
      [...rows].sort((x, y) => x - y),
      rows,
      'largest first',
    );
    assert.match(text, /\/app\.css.*stylesheet.*6\.8 KB.*yes/);
    assert.match(text, /LCP element: span\.row-sub "\\?#0002 · gamma · updated 15 min ago" at \d+\.\d ms/);
  }
  assert.equal(shortUrl('https://cdn.example.com/lib/a.js?v=1', 'http://127.0.0.1:8080/'), 'cdn.example.com/lib/a.js?v=1');
  const long = shortUrl(`http://h/${'x'.repeat(200)}/bundle.js`, 'http://h/');
  assert.ok(long.length === 60 && long.endsWith('/bundle.js') && long.includes('…'), long);
});

test('compare of two loads: the requests that changed most between the median loads, grown, new and gone', () => {
  const a = loadRun();
  const b = loadRun();
  b.label = 'pr';
  const css = medianLoad(b)!.load.top.find((r) => r.url.endsWith('/app.css'))!;
  // Every repeat of the candidate: a 200 KB larger stylesheet, a new script, and the font gone.
  for (const r of b.repeats) {
    if (r.status !== 'measured' || !r.report.load) continue;
    const load = r.report.load;
    const lists = [load.top, ...(load.requests ? [load.requests] : [])];
    for (const list of lists) {
      for (const q of list) if (q.url === css.url) q.transferBytes += 204800;
      list.push({ ...css, url: css.url.replace('app.css', 'extra.js'), type: 'script', transferBytes: 5000 });
      const font = list.findIndex((q) => q.type === 'font');
      if (font >= 0) list.splice(font, 1);
    }
  }
  const result = makeCompare();
  const table = tableReporter.renderCompare(result, { a, b });
  const md = markdownReporter.renderCompare(result, { a, b });
  for (const text of [table, md]) {
    const at = text.indexOf('Requests that changed most');
    assert.ok(at > 0, text);
    const grown = text.indexOf('/app.css', at);
    const added = text.indexOf('/extra.js', at);
    assert.ok(grown > at && added > grown, 'largest change first');
    assert.match(text.slice(at), /\/app\.css.*\+200\.0 KB/);
    assert.match(text.slice(at), /\/extra\.js.*new/);
    if (medianLoad(a)!.load.top.some((q) => q.type === 'font')) assert.match(text.slice(at), /font.*gone/);
  }
  // Unchanged loads say so; runs without a load have no section.
  assert.match(tableReporter.renderCompare(result, { a, b: loadRun() }), /Requests: none changed in size/);
  assert.doesNotMatch(tableReporter.renderCompare(result, { a: makeRun('main'), b: makeRun('pr') }), /Requests/);
});

test('compare of two loads on different ports: the app requests match (no gone + new pair), a changed one by its path', () => {
  const a = loadRun();
  const b = loadRun();
  b.label = 'pr';
  // The candidate's app on another port, as `${PORT}` gives every run: its own requests keep their paths.
  const origin = new URL(medianLoad(a)!.load.url).origin;
  const moved = 'http://127.0.0.1:1';
  assert.notEqual(origin, moved);
  const move = (u: string): string => (u.startsWith(origin) ? moved + u.slice(origin.length) : u);
  let css = '';
  for (const r of b.repeats) {
    if (r.status !== 'measured' || !r.report.load) continue;
    const load = r.report.load;
    load.url = move(load.url);
    for (const q of [...load.top, ...(load.requests ?? [])]) {
      q.url = move(q.url);
      if (q.url.endsWith('/app.css')) {
        q.transferBytes += 1024;
        css = q.url;
      }
    }
  }
  assert.ok(css.startsWith(moved), 'the stylesheet moved');
  const changes = requestChanges(medianLoad(a)!.load, medianLoad(b)!.load);
  assert.deepEqual(
    changes.map((c) => `${shortUrl(c.url, c.pageUrl)} ${requestDeltaText(c)}`),
    ['/app.css +1.0 KB'],
    'one change, by its path, on neither side alone',
  );
  assert.equal(changes[0]!.url, css, 'named by the URL of the candidate');
  for (const text of [tableReporter.renderCompare(makeCompare(), { a, b }), markdownReporter.renderCompare(makeCompare(), { a, b })]) {
    const section = text.slice(text.indexOf('Requests that changed most'));
    assert.doesNotMatch(section, /\b(gone|new)\b/, section);
    assert.doesNotMatch(section, /127\.0\.0\.1/, 'no host on the requests of the page origin');
  }
  // Another origin stays itself: the same path on a CDN is not the app's request.
  assert.equal(requestKey('https://cdn.example/app.css', 'http://127.0.0.1:1/index.html'), 'https://cdn.example/app.css');
  assert.equal(requestKey('http://127.0.0.1:1/app.css?v=2', 'http://127.0.0.1:1/index.html'), '/app.css?v=2');
});

test('table and markdown: page text in a request URL or the LCP element cannot break the table or the terminal', () => {
  const run = loadRun();
  const m = medianLoad(run)!;
  m.load.top[0]!.url = `http://evil/a|b\`c<img src=x onerror=alert(1)>\u001b[31m\nnext`;
  m.load.lcpElement = 'div#x "<script>alert(2)</script> | *bold* \u001b[2J"';
  const table = tableReporter.renderRun(run);
  assert.doesNotMatch(table, /\u001b/, 'no escape sequence reaches the terminal');
  assert.doesNotMatch(table.slice(table.indexOf('Largest requests')), /\nnext/, 'the URL stays on its line');
  const md = markdownReporter.renderRun(run);
  const row = md.split('\n').find((l) => l.includes('evil'))!;
  assert.equal(row.split(/(?<!\\)\|/).length, 6, `4 cells: ${row}`);
  assert.match(md, /LCP element: div\\#x "\\<script\\>alert\(2\)\\<\/script\\> \\\| \\\*bold\\\*/);
});
