/**
 * Budgets that name an insight, end to end through the real CLI on real Chromium (issue 59 item 3): the planted page
 * (test/fixtures/insights: a stylesheet held 700 ms) breaks `insights.RenderBlocking.count == 0` in perf run, perf run
 * --against and perf gate, the budget line naming it in the terminal, --json, Markdown and JUnit; a page with nothing
 * render-blocking keeps it; `==` judges an ordinary count (load.requests). An unknown insight id stops perf run before
 * any browser starts, exit 2 with a did-you-mean. Counts only, and one savings bound that holds wide (≥ 1 ms of a
 * stylesheet held 700 ms): nothing here depends on how fast the machine is.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BudgetResult, RunFile } from '../src/perf/run-file.js';
import { FIXTURES_DIR, perfCli } from './helpers.js';

const work = mkdtempSync(join(tmpdir(), 'rehearse-insight-budgets-run-'));
after(() => rmSync(work, { recursive: true, force: true }));
cpSync(join(FIXTURES_DIR, 'insights'), join(work, 'app'), { recursive: true });
// The planted page: its document, slow.css (render-blocking, held 700 ms), hero.json (the LCP image's URL, fetched by
// the page's script), hero.png, font.woff and the third party's script from localhost: six requests.
writeFileSync(
  join(work, 'planted.yaml'),
  `name: planted
app:
  command: "node app/server.mjs"
  url: "http://127.0.0.1:\${PORT}/"
measure: load
cache: cold
repeat: 2
warmup: 0
steps: []
budgets:
  - "insights.RenderBlocking.count == 0"
  - "insights.RenderBlocking.savingsMs >= 1"
  - "load.requests == 6"
  - "load.requests == 5"
`,
);
// Nothing render-blocking: one document, no stylesheet, no script.
mkdirSync(join(work, 'clean'));
writeFileSync(
  join(work, 'clean', 'index.html'),
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Clean</title><link rel="icon" href="data:,"></head>' +
    '<body><h1>Clean</h1><p>Nothing blocks this page.</p></body></html>\n',
);
writeFileSync(
  join(work, 'clean.yaml'),
  `name: clean
app: { serve: ./clean }
measure: load
cache: cold
repeat: 2
warmup: 0
steps: []
budgets: ["insights.RenderBlocking.count == 0", "load.requests == 1"]
`,
);
// Attribution repeats only: DevTools' engine runs on each, so the counts are out of every repeat.
const FIXED = ['--repeat', '2', '--no-timing'];
const TIMEOUT_MS = 240_000;
const verdicts = (bs: readonly BudgetResult[]): string[] => bs.map((b) => `${b.expr} ${b.pass ? 'pass' : 'fail'}`);

test(
  'perf run of the planted page: RenderBlocking.count == 0 breaks (exit 1) and is named on screen, in the run file, Markdown and JUnit',
  { timeout: 2 * TIMEOUT_MS },
  async () => {
    const r = await perfCli(work, ['run', 'planted.yaml', ...FIXED, '--out', 'out', '--reporter', 'markdown,junit'], TIMEOUT_MS);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const lines = r.stdout.split('\n');
    const at = lines.indexOf('Budgets: 2 of 4 failed');
    assert.ok(at > 0, r.stdout);
    assert.deepEqual(lines.slice(at + 1, at + 3), [
      '  FAIL  insights.RenderBlocking.count == 0  (fired in 2 of 2 repeats)',
      '  FAIL  load.requests == 5  (median 6)',
    ]);
    assert.match(
      lines[at + 3]!,
      /^ {2}PASS {2}insights\.RenderBlocking\.savingsMs >= 1 {2}\(median \d+\.\d\) · load\.requests == 6 {2}\(median 6\)$/,
    );

    const run = JSON.parse(readFileSync(join(work, 'out/planted-run.json'), 'utf8')) as RunFile;
    assert.deepEqual(verdicts(run.budgets), [
      'insights.RenderBlocking.count == 0 fail',
      'insights.RenderBlocking.savingsMs >= 1 pass',
      'load.requests == 6 pass',
      'load.requests == 5 fail',
    ]);
    assert.deepEqual(
      run.budgets.map((b) => [b.op, b.value === null ? null : b.metric.endsWith('savingsMs') ? 'ms' : b.value, b.of ?? null]),
      [
        ['==', 2, 2],
        ['>=', 'ms', 2],
        ['==', 6, null],
        ['==', 6, null],
      ],
    );
    const md = readFileSync(join(work, 'out/planted-run.md'), 'utf8');
    assert.match(md, /- ❌ \*\*FAIL\*\* `insights\.RenderBlocking\.count == 0`: fired in 2 of 2 repeats/);
    const xml = readFileSync(join(work, 'out/planted-run.junit.xml'), 'utf8');
    assert.match(
      xml,
      /<testcase name="budget: insights\.RenderBlocking\.count == 0" [^>]*>\s*<failure message="insights\.RenderBlocking\.count == 0: fired in 2 of 2 repeats" type="budget_failed">/,
    );
    assert.match(xml, /<testcase name="budget: insights\.RenderBlocking\.savingsMs &gt;= 1" [^>]*\/>/);
  },
);

test(
  'perf run --json of a page with nothing render-blocking: RenderBlocking.count == 0 holds, fired in 0 of 2, exit 0',
  { timeout: 2 * TIMEOUT_MS },
  async () => {
    const r = await perfCli(work, ['run', 'clean.yaml', ...FIXED, '--out', 'out', '--json'], TIMEOUT_MS);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const j = JSON.parse(r.stdout) as RunFile;
    assert.deepEqual(
      j.budgets.map((b) => [b.expr, b.value, b.of ?? null, b.pass]),
      [
        ['insights.RenderBlocking.count == 0', 0, 2, true],
        ['load.requests == 1', 1, null, true],
      ],
    );
  },
);

test(
  'perf gate --update and perf run --against: the broken insight budget is listed first, exit 1',
  { timeout: 2 * TIMEOUT_MS },
  async () => {
    const gate = await perfCli(
      work,
      ['gate', 'planted.yaml', '--baselines', 'baselines', '--out', 'gate', '--update', '--fixed', ...FIXED, '--json'],
      TIMEOUT_MS,
    );
    assert.equal(gate.code, 1, gate.stdout + gate.stderr);
    const g = JSON.parse(gate.stdout) as { verdict: string; budgets: (BudgetResult & { run: string })[] };
    assert.equal(g.verdict, 'fail');
    assert.deepEqual(
      g.budgets.filter((b) => !b.pass).map((b) => `${b.run}: ${b.expr} (${b.value} of ${b.of ?? '-'})`),
      ['planted: insights.RenderBlocking.count == 0 (2 of 2)', 'planted: load.requests == 5 (6 of -)'],
    );

    const against = await perfCli(
      work,
      ['run', 'planted.yaml', '--against', 'planted.yaml', '--fixed', ...FIXED, '--out', 'against'],
      TIMEOUT_MS,
    );
    assert.equal(against.code, 1, against.stdout + against.stderr);
    const lines = against.stdout.split('\n');
    assert.deepEqual(
      lines.slice(1, 4),
      [
        'Budgets: 2 of 4 failed',
        '  FAIL  insights.RenderBlocking.count == 0  (fired in 2 of 2 repeats)',
        '  FAIL  load.requests == 5  (median 6)',
      ],
      against.stdout,
    );
  },
);

test(
  'perf run with an unknown insight id: exit 2 before any browser, file:line:col, the key and a did-you-mean, no stack',
  { timeout: 2 * TIMEOUT_MS },
  async () => {
    writeFileSync(
      join(work, 'typo.yaml'),
      readFileSync(join(work, 'planted.yaml'), 'utf8').replace('RenderBlocking.count', 'RenderBlock.count'),
    );
    const r = await perfCli(work, ['run', 'typo.yaml', '--out', 'typo'], TIMEOUT_MS);
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(
      r.stderr,
      /typo\.yaml:11:5: budget 1: unknown insight "RenderBlock" in "insights\.RenderBlock\.count"; did you mean "RenderBlocking"\?/,
    );
    assert.doesNotMatch(r.stderr, /\n\s+at /);
  },
);
