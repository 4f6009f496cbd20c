/**
 * `perf gate` judges budgets (issue 58 item 5), through the real CLI on real Chromium: the load fixture
 * (test/fixtures/load, served as it is) with a budget on its request count that the page breaks, so the
 * baseline is exactly as bad as the candidate and the compare passes; the gate must still fail on the
 * budget, say so first (screen, --json, the Markdown summary, JUnit), and fail --update as well (lhci
 * assert's rule: a budget is absolute). A variant whose budget holds gates on its compare alone. The
 * same family: `perf run --against` failed on a candidate's broken budget without printing it; its
 * budget lines now follow the compare's verdict line.
 * Budgets on counts only (requests, bytes): nothing here depends on measured time, so it runs in the
 * browser lane.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BudgetResult, RunFile } from '../src/perf/run-file.js';
import { compareRuns, type RunsComparison } from '../src/perf/compare-runs.js';
import { entryVerdict, gateExitCode, renderGateText, type GateEntry } from '../src/cli/gate.js';
import { FIXTURES_DIR, perfCli, ROOT } from './helpers.js';

const work = mkdtempSync(join(tmpdir(), 'rehearse-gate-budgets-'));
after(() => rmSync(work, { recursive: true, force: true }));
cpSync(join(FIXTURES_DIR, 'load'), join(work, 'app'), { recursive: true });
// The fixture page loads its document, a stylesheet, a script, an image and a font: five requests, every
// time. `broken` allows one (a budget no build of this page keeps) beside a byte budget it keeps; `kept`
// allows fifty.
writeFileSync(
  join(work, 'budgets.yaml'),
  `name: budgets
app: { serve: ./app }
measure: load
repeat: 2
warmup: 0
steps: []
variants:
  broken: { budgets: ["load.requests <= 1", "load.transferBytes < 500KB"] }
  kept: { budgets: ["load.requests <= 50"] }
`,
);
// Fixed, profiled repeats: the counts are judged exactly at any n, and no timing repeat adds time.
const GATE = ['gate', 'budgets.yaml', '--baselines', 'baselines', '--out', 'out', '--repeat', '2', '--fixed', '--no-timing'];
const TIMEOUT_MS = 240_000;

interface GateJson {
  verdict: string;
  exitCode: number;
  budgets: (BudgetResult & { run: string })[];
  runs: { id: string; status: string; verdict: string; detail: string; compare?: RunsComparison }[];
}

test('gate --update with a broken budget: the baselines are written, the budget is listed first, exit 1', async () => {
  const r = await perfCli(work, [...GATE, '--update', '--json'], TIMEOUT_MS);
  assert.equal(r.code, 1, r.stdout + r.stderr);
  const j = JSON.parse(r.stdout) as GateJson;
  assert.equal(j.verdict, 'fail');
  assert.equal(j.exitCode, 1);
  assert.deepEqual(Object.keys(j).slice(0, 3), ['verdict', 'exitCode', 'budgets'], 'the budgets come right after the verdict');
  assert.deepEqual(
    j.budgets.map((b) => `${b.run}: ${b.expr} ${b.pass ? 'pass' : 'fail'}`),
    [
      'budgets-broken: load.requests <= 1 fail',
      'budgets-broken: load.transferBytes < 500KB pass',
      'budgets-kept: load.requests <= 50 pass',
    ],
  );
  assert.equal(j.budgets[0]!.value, 5, 'the fixture page makes five requests');
  assert.deepEqual(
    j.runs.map((x) => `${x.id}:${x.status}:${x.verdict}`),
    ['budgets-broken:updated:fail', 'budgets-kept:updated:pass'],
  );
  assert.match(j.runs[0]!.detail, /^budget broken: load\.requests <= 1 \(median 5\); baseline written: baselines\/budgets-broken\.json/);
  for (const v of ['broken', 'kept']) assert.ok(existsSync(join(work, `baselines/budgets-${v}.json`)), `baseline of ${v} written`);
});

test('a baseline as bad as the candidate: the compare passes, the broken budget fails the gate and is printed first', async () => {
  const summary = join(work, 'summary.md');
  const r = await perfCli(work, [...GATE, '--junit', 'reports/gate.xml', '--reporter', 'html'], TIMEOUT_MS, {
    GITHUB_STEP_SUMMARY: summary,
  });
  assert.equal(r.code, 1, r.stdout + r.stderr);
  const lines = r.stdout.split('\n');
  assert.equal(lines[0], 'perf gate: FAIL — 2 runs: 1 failed, 1 passed (1 budget broken)');
  assert.equal(lines[1], 'Budgets: 1 of 3 failed');
  assert.equal(lines[2], '  FAIL  budgets-broken: load.requests <= 1  (median 5)');
  assert.match(
    lines[3]!,
    /^ {2}PASS {2}budgets-broken: load\.transferBytes < 500KB {2}\(median [\d.]+ KB\) · budgets-kept: load\.requests <= 50/,
  );
  // The compare itself found nothing: the budget alone fails the run.
  assert.match(lines[4]!, /^ {2}FAIL {4}budgets-broken {2}budget broken: load\.requests <= 1 \(median 5\); no significant regression/);
  assert.match(lines[5]!, /^ {2}PASS {4}budgets-kept {4}no significant regression/);
  // A passing run says what it was decided on; the failing one's table follows below.
  assert.match(lines[6]!, /^ +★ decided on .*load\.requests/);

  const md = readFileSync(summary, 'utf8').split('\n');
  assert.equal(md[0], '### ❌ perf gate: FAIL — 2 runs: 1 failed, 1 passed (1 budget broken)');
  assert.deepEqual(md.slice(2, 5), ['**Budgets**: 1 of 3 failed', '', '- ❌ **FAIL** `budgets-broken` `load.requests <= 1`: median 5']);

  const xml = readFileSync(join(work, 'reports/gate.xml'), 'utf8');
  const budgetSuite = /<testsuite name="budgets-broken budgets" tests="2" failures="1"[\s\S]*?<\/testsuite>/.exec(xml)?.[0];
  assert.ok(budgetSuite, xml);
  assert.match(
    budgetSuite,
    /<testcase name="budget: load\.requests &lt;= 1" classname="rehearse\.budgets" time="0\.000">\s*<failure message="load\.requests &lt;= 1: median 5" type="budget_failed">/,
  );
  assert.match(budgetSuite, /<testcase name="budget: load\.transferBytes &lt; 500KB" classname="rehearse\.budgets" time="0\.000"\/>/);
  assert.ok(xml.indexOf('budgets-broken budgets') < xml.indexOf('compare'), 'the budget suites come first');
  assert.match(xml, /<testsuite name="budgets-kept budgets" tests="1" failures="0"/);

  // The compare's HTML report (a passing compare) shows the budget that failed the gate, first and marked.
  const pages = readdirSync(join(work, 'out')).filter((f) => f.startsWith('budgets-broken') && f.endsWith('.html'));
  assert.equal(pages.length, 1, `one compare report for budgets-broken: ${pages.join(', ')}`);
  const html = readFileSync(join(work, 'out', pages[0]!), 'utf8');
  assert.match(html, /<h2>Budgets of B \(candidate\) <span class="muted">\(1 of 2 failed\)<\/span>/);
  assert.match(
    html,
    /<tbody>\n<tr><td><span class="badge fail">FAIL<\/span><\/td><td><code>load\.requests &lt;= 1<\/code><\/td><td>median 5<\/td>/,
  );
});

test('a kept budget: the gate is its compare, exit 0', async () => {
  const r = await perfCli(work, [...GATE, '--variant', 'kept', '--json'], TIMEOUT_MS);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const j = JSON.parse(r.stdout) as GateJson;
  assert.equal(j.verdict, 'pass');
  assert.deepEqual(
    j.budgets.map((b) => `${b.run}: ${b.expr} ${b.pass}`),
    ['budgets-kept: load.requests <= 50 true'],
  );
  assert.equal(j.runs[0]!.status, 'compared');
  assert.equal(j.runs[0]!.compare!.verdict, 'pass');
  assert.doesNotMatch(j.runs[0]!.detail, /budget/);
});

test("perf run --against: the candidate's broken budget is printed right after the verdict line, exit 1", async () => {
  const args = ['run', 'budgets.yaml', '--variant', 'broken', '--against', 'budgets.yaml', '--repeat', '2', '--fixed', '--no-timing'];
  const r = await perfCli(work, [...args, '--out', 'against'], TIMEOUT_MS);
  assert.equal(r.code, 1, r.stdout + r.stderr);
  const lines = r.stdout.split('\n');
  assert.match(lines[0]!, /^[A-Z]+ {2}.*budgets \(broken\)/, r.stdout);
  assert.deepEqual(lines.slice(1, 3), ['Budgets: 1 of 2 failed', '  FAIL  load.requests <= 1  (median 5)'], r.stdout);
});

test('the rule without a browser: a broken budget fails a passing compare, an --update and a missing baseline; an unmeasured run lists none', () => {
  const committed = JSON.parse(readFileSync(join(ROOT, 'baselines/page-load.json'), 'utf8')) as RunFile;
  const broken = { ...committed.budgets[0]!, expr: 'load.requests <= 1', limit: 1, pass: false };
  const run: RunFile = { ...committed, budgets: [broken] };
  const kept: RunFile = { ...committed, budgets: [{ ...broken, expr: 'load.requests <= 50', limit: 50, pass: true }] };
  const entry = (r: RunFile, outcome: GateEntry['outcome']): GateEntry => ({
    id: 'page-load',
    scenario: 'page-load',
    variant: null,
    scenarioFile: 'page-load.yaml',
    baselineFile: 'baselines/page-load.json',
    runFile: 'out/page-load-gate.json',
    run: r,
    outcome,
  });
  const compared = (r: RunFile): GateEntry => {
    const comparison = compareRuns(committed, r, { force: true });
    assert.equal(comparison.verdict, 'pass', 'the same run twice');
    return entry(r, { status: 'compared', comparison, baseline: committed });
  };
  for (const e of [compared(run), entry(run, { status: 'updated', previous: null }), entry(run, { status: 'missing-baseline' })]) {
    assert.equal(entryVerdict(e), 'fail', e.outcome.status);
    assert.equal(gateExitCode([e]), 1, e.outcome.status);
  }
  assert.equal(gateExitCode([compared(kept)]), 0);
  assert.equal(gateExitCode([entry(kept, { status: 'updated', previous: null })]), 0);
  const unmeasured: RunFile = { ...run, summary: { ...run.summary, measured: 0 } };
  const text = renderGateText([entry(unmeasured, { status: 'unmeasured', reason: 'no measured repeat' })]);
  assert.doesNotMatch(text, /Budgets|budget broken/, text);
});
