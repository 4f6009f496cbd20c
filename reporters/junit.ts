/**
 * JUnit XML for CI test UIs (GitHub, GitLab, Jenkins, Buildkite all read it).
 *
 * Run: one testsuite per scenario (+variant), one testcase per counted repeat (warmups excluded: they
 * are thrown away by design and would only add noise to the CI's test history). A failed repeat is a
 * <failure> naming the step and the error; a refused one (the page rendered nothing) is <skipped>;
 * every budget is a testcase too, failing when the budget failed, so a CI UI tracks each budget's
 * history by a stable name.
 * Compare: one testcase per gated metric; an error-level regression fails it, a warning is a
 * <system-out> note (CI UIs have no "warn" state, and a warning must not turn the build red).
 */
import type { CompareRow } from '../src/perf/compare.js';
import type { BudgetResult, RepeatRecord, RunFile } from '../src/perf/run-file.js';
import { defineReporter } from './define.js';
import type { CompareContext, CompareReport } from './define.js';
import { MAX_ATTRIBUTION_LINES } from '../src/perf/attribution.js';
import { plainText } from '../src/printable.js';
import {
  estimatedCandidate,
  attributionTexts,
  insightChangeTexts,
  budgetLimit,
  budgetValue,
  countedRepeats,
  formatCi,
  formatDelta,
  formatValue,
  oneLine,
  runId,
  sortMetrics,
} from './format.js';

// ─── XML ────────────────────────────────────────────────────────────────────────────────────────────

/**
 * XML 1.0 § 2.2 Char: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]. Anything
 * else (NUL, other C0 controls, lone surrogates, U+FFFE/FFFF) makes the whole document unparseable
 * even as a character reference, so it is removed rather than escaped.
 */
const INVALID_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

const ENTITY: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/**
 * Text content: the five predefined entities; escape sequences (from a step's stderr, a thrown message: noise
 * in a CI UI, and live again in a terminal that prints the file), control and invalid characters stripped.
 */
export function xmlText(s: string): string {
  return plainText(s)
    .replace(INVALID_XML_CHAR, '')
    .replace(/[&<>"']/g, (c) => ENTITY[c] ?? c);
}

/**
 * Attribute value (always written in double quotes). Tab and LF (a CR is one by now) become character references
 * because a parser normalises literal ones in attributes to spaces (XML 1.0 § 3.3.3).
 */
export function xmlAttr(s: string): string {
  return xmlText(s).replace(/\t/g, '&#9;').replace(/\n/g, '&#10;');
}

function attrs(a: Record<string, string | number>): string {
  return Object.entries(a)
    .map(([k, v]) => ` ${k}="${xmlAttr(String(v))}"`)
    .join('');
}

/** JUnit times are seconds; rounded to whole ms first so 1234.5 ms reads 1.235, not 1.234 (binary float). */
function seconds(ms: number): string {
  return (Math.round(Math.max(0, ms)) / 1000).toFixed(3);
}

interface TestCase {
  name: string;
  classname: string;
  timeMs: number;
  failure?: { message: string; type: string; details: string };
  skipped?: { message: string };
  systemOut?: string;
}

function testcaseXml(tc: TestCase): string {
  const open = `    <testcase${attrs({ name: tc.name, classname: tc.classname, time: seconds(tc.timeMs) })}`;
  const body: string[] = [];
  if (tc.failure)
    body.push(`      <failure${attrs({ message: tc.failure.message, type: tc.failure.type })}>${xmlText(tc.failure.details)}</failure>`);
  if (tc.skipped) body.push(`      <skipped${attrs({ message: tc.skipped.message })}/>`);
  if (tc.systemOut) body.push(`      <system-out>${xmlText(tc.systemOut)}</system-out>`);
  return body.length ? `${open}>\n${body.join('\n')}\n    </testcase>` : `${open}/>`;
}

interface Suite {
  name: string;
  timestamp?: string;
  properties: Record<string, string>;
}

function counts(cases: TestCase[]): { tests: number; failures: number; errors: number; skipped: number; time: string } {
  const timeMs = cases.reduce((sum, c) => sum + c.timeMs, 0);
  const failures = cases.filter((c) => c.failure).length;
  return { tests: cases.length, failures, errors: 0, skipped: cases.filter((c) => c.skipped).length, time: seconds(timeMs) };
}

/** One <testsuite> element, indented to sit in a <testsuites>. */
function suiteXml(suite: Suite, cases: TestCase[]): string {
  const props = Object.entries(suite.properties).map(([name, value]) => `      <property${attrs({ name, value })}/>`);
  return [
    `  <testsuite${attrs({ name: suite.name, ...counts(cases), ...(suite.timestamp ? { timestamp: suite.timestamp } : {}) })}>`,
    ...(props.length ? ['    <properties>', ...props, '    </properties>'] : []),
    ...cases.map(testcaseXml),
    '  </testsuite>',
  ].join('\n');
}

function document(suite: Suite, cases: TestCase[]): string {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${attrs({ name: 'rehearse', ...counts(cases) })}>`,
    suiteXml(suite, cases),
    '</testsuites>',
    '',
  ].join('\n');
}

// ─── run ────────────────────────────────────────────────────────────────────────────────────────────

function repeatCase(r: RepeatRecord, classname: string): TestCase {
  const tc: TestCase = { name: `repeat ${r.index} (${r.mode})`, classname, timeMs: r.wallMs };
  // Optional steps that failed and step warnings do not fail a repeat, but whoever opens it should see them.
  const notes = r.steps.flatMap((s) => [
    ...(s.status === 'skipped' && s.error
      ? [`optional step ${s.step} "${s.label}" skipped: ${s.error.code}: ${oneLine(s.error.message)}`]
      : []),
    ...(s.warnings ?? []).map((w) => `${s.step} "${s.label}": ${w}`),
  ]);
  if (notes.length) tc.systemOut = notes.join('\n');
  if (r.status === 'refused') tc.skipped = { message: `refused: ${oneLine(r.reason)}` };
  if (r.status === 'failed') {
    const f = r.failure;
    const e = f.error;
    tc.failure = {
      message: `${f.step ?? f.phase}: ${oneLine(e.message)}`,
      type: e.code,
      details: [
        `phase: ${f.phase}`,
        ...(f.step ? [`step: ${f.step}`] : []),
        ...(f.label ? [`label: ${f.label}`] : []),
        `error: ${e.kind}/${e.code}: ${e.message}`,
        ...(e.suggestion ? [`suggestion: ${e.suggestion}`] : []),
        ...(e.candidates?.length ? [`candidates: ${e.candidates.join(', ')}`] : []),
        ...(f.screenshot ? [`screenshot: ${f.screenshot}`] : []),
      ].join('\n'),
    };
  }
  return tc;
}

/** One testcase per budget, named `budget: EXPR` in perf run and perf gate alike, so a CI UI keeps one history per budget. */
function budgetCase(b: BudgetResult, classname: string): TestCase {
  const tc: TestCase = { name: `budget: ${b.expr}`, classname, timeMs: 0 };
  if (!b.pass)
    tc.failure = {
      message: `${b.expr}: ${budgetValue(b)}`,
      type: 'budget_failed',
      details: `budget ${b.expr} failed: ${budgetValue(b)} (limit ${budgetLimit(b)})`,
    };
  return tc;
}

/** perf gate's suite of one run's budgets (a failing testcase per broken budget), to sit beside its compare suite. */
export function budgetSuiteXml(run: Pick<RunFile, 'scenario' | 'budgets'>, name: string): string {
  return suiteXml(
    { name, properties: {} },
    run.budgets.map((b) => budgetCase(b, `rehearse.${run.scenario}`)),
  );
}

function renderRun(run: RunFile): string {
  const classname = `rehearse.${run.scenario}`;
  const cases = [...countedRepeats(run).map((r) => repeatCase(r, classname)), ...run.budgets.map((b) => budgetCase(b, classname))];
  const v = run.env.viewport;
  return document(
    {
      name: runId(run),
      timestamp: run.startedAt,
      properties: {
        label: run.label,
        scenarioFile: run.scenarioFile,
        restartMode: run.env.restartMode,
        viewport: `${v.width}x${v.height}@${v.dpr}${v.mobile ? ' mobile' : ''}${v.touch ? ' touch' : ''}`,
        cpuThrottle: String(run.env.cpuThrottle),
        interrupted: String(run.interrupted),
      },
    },
    cases,
  );
}

// ─── compare ────────────────────────────────────────────────────────────────────────────────────────

/** The row's top attribution lines, for a failure message: where the change is, not only that it is. */
function where(row: CompareRow): string {
  const lines = attributionTexts(row);
  return lines.length ? `; where: ${lines.join('; ')}` : '';
}

function evidence(row: CompareRow, ctx: CompareContext): string {
  const ci = row.ci ? ` (${Math.floor(row.ci.level * 100)}% CI ${formatCi(row)})` : '';
  return (
    `${formatValue(row.metric, row.a.median)} (${ctx.a.label}) → ${formatValue(row.metric, estimatedCandidate(row))}` +
    ` (${ctx.b.label}, estimated: the baseline + the shift the verdict is on), ${formatDelta(row)}${ci}`
  );
}

function renderCompare(result: CompareReport, ctx: CompareContext): string {
  const classname = `rehearse.${ctx.a.scenario}.compare`;
  const insights = insightChangeTexts(result).lines;
  const byMetric = new Map(result.rows.map((r) => [r.metric, r]));
  // Stable reading order (not severity order) so a CI's per-test history lines up between builds.
  const gated = sortMetrics(result.rows.filter((r) => r.gated).map((r) => r.metric)).flatMap((m) => byMetric.get(m) ?? []);
  const cases = gated.map((row): TestCase => {
    const tc: TestCase = { name: row.metric, classname, timeMs: 0 };
    if (row.verdict === 'missing' && row.severity === 'error') {
      tc.failure = { message: `${row.metric} not measured: ${row.reason}`, type: 'missing', details: row.reason };
    } else if (row.verdict === 'regressed' && row.severity === 'error') {
      const details = [row.reason, ...attributionTexts(row, MAX_ATTRIBUTION_LINES), ...insights.map((l) => `insight: ${l}`)].join('\n');
      tc.failure = { message: `${row.metric} regressed: ${evidence(row, ctx)}${where(row)}`, type: 'regression', details };
    } else if (row.verdict === 'regressed' && row.severity === 'warn') {
      tc.systemOut = `warn: ${row.metric} regressed: ${evidence(row, ctx)}${where(row)}\n${row.reason}`;
    } else if (row.verdict === 'inconclusive') {
      tc.systemOut = `inconclusive: ${row.metric}: ${evidence(row, ctx)}${where(row)}\n${row.reason}`;
    } else if (row.setAside !== undefined) {
      tc.systemOut = `set aside as noisy: ${row.setAside}`;
    }
    return tc;
  });
  return document(
    {
      name: `${runId(ctx.a)} compare ${ctx.a.label} → ${ctx.b.label}`,
      timestamp: ctx.b.startedAt,
      properties: {
        verdict: result.verdict,
        baseline: ctx.a.label,
        candidate: ctx.b.label,
        ...(result.timing ? { timing: result.timing.note } : {}),
        ...(result.gate?.primary?.length ? { decidedBy: result.gate.primary.join(', ') } : {}),
        ...(result.gate?.setAside?.length ? { setAside: result.gate.setAside.map((x) => x.metric).join(', ') } : {}),
        ...(insights.length ? { insightsChanged: insights.join('; ') } : {}),
      },
    },
    cases,
  );
}

export const junitReporter = defineReporter({
  name: 'junit',
  description: 'JUnit XML for CI test UIs: one testcase per repeat and budget, or per gated metric in a compare',
  fileExtension: 'junit.xml',
  format: 'text',
  renderRun,
  renderCompare,
});
