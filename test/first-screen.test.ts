/**
 * Issue 58 "one screen that decides": the README's first `perf run` on the bundled example, through the built
 * CLI in a real Chromium, prints its verdict and budgets first, then the metrics that decide, then the findings,
 * in at most 25 lines (stdout and stderr, as a pipe or a CI log shows them); `--all` prints every metric.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { RunFile } from '../src/perf/run-file.js';
import { perfCli, ROOT } from './helpers.js';

// Inside the checkout (the README's command runs there), in a folder of its own.
const OUT = `build/first-screen-test-${process.pid}`;
after(() => rmSync(join(ROOT, OUT), { recursive: true, force: true }));

/** One screen of a terminal: what the issue measured at 71 lines. */
const SCREEN_LINES = 25;

const lines = (s: string): string[] => s.split('\n').filter((l, i, all) => l !== '' || i < all.length - 1);

test(
  'perf run at the defaults on the bundled example: ≤ 25 lines, budgets first, the metrics that decide marked',
  { timeout: 240_000 },
  async () => {
    const r = await perfCli(ROOT, ['run', 'scenarios/list-scroll.yaml', '--variant', 'desktop', '--out', OUT], 200_000);
    assert.equal(r.code, 0, r.stderr);
    const out = lines(r.stdout);
    const all = [...lines(r.stderr), ...out];
    assert.ok(all.length <= SCREEN_LINES, `${all.length} lines:\n${all.join('\n')}`);
    const at = (re: RegExp): number => out.findIndex((l) => re.test(l));
    const budgets = at(/^Budgets: all 1 passed: counters\.layouts\.perFrame <= 2/);
    const table = at(/^│ metric/);
    assert.ok(budgets >= 0 && budgets < table, r.stdout);
    const run = JSON.parse(readFileSync(join(ROOT, OUT, 'list-scroll-desktop-run.json'), 'utf8')) as RunFile;
    const marked = out.filter((l) => l.startsWith('│ ★ ')).map((l) => l.split('│')[1]!.trim().slice(2));
    assert.ok(marked.includes('counters.layouts') && marked.includes('counters.threadCpuMs'), r.stdout);
    assert.ok(marked.length < Object.keys(run.summary.metrics).length / 3, 'the first screen is not the whole table');
    assert.ok(!out.some((l) => /│\s+steps\.down\.ms/.test(l)), 'a metric that does not decide waits for --all');
    assert.ok(at(/^Findings \(repeat \d+/) > table, r.stdout);
    assert.match(
      r.stdout,
      new RegExp(`${marked.length} of ${Object.keys(run.summary.metrics).length} metrics shown; --all prints every one`),
    );
    assert.match(lines(r.stderr).at(-1)!, /^run file: /);
  },
);

test('perf run --all prints every metric of the run file', { timeout: 240_000 }, async () => {
  const args = ['run', 'scenarios/list-scroll.yaml', '--variant', 'desktop', '--repeat', '1', '--warmup', '0', '--label', 'all'];
  const r = await perfCli(ROOT, [...args, '--out', OUT, '--all'], 200_000);
  assert.equal(r.code, 0, r.stderr);
  const run = JSON.parse(readFileSync(join(ROOT, OUT, 'list-scroll-desktop-all.json'), 'utf8')) as RunFile;
  const rows = r.stdout
    .split('\n')
    .filter((l) => l.startsWith('│ ') && !l.startsWith('│ metric'))
    .map((l) => l.split('│')[1]!.trim().replace(/^★ /, ''));
  assert.deepEqual([...rows].sort(), Object.keys(run.summary.metrics).sort());
  assert.doesNotMatch(r.stdout, /--all prints every one/);
});
