/**
 * `perf history show|changes`, the trends page and MCP perf_history end to end, on a real SQLite history: 30 runs
 * built from a recorded run file (test/fixtures/runs/load-list-run.json) at 30 real commits of a temp git repo,
 * one primary metric (load.lcpMs) 20% slower from run 16 on; and an A/A history of 30 unchanged runs. Plus the
 * reply bound of perf_history on a huge history, and the trends page's markup.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { openHistory } from '../src/history/open.js';
import type { GitInfo } from '../src/history/types.js';
import { readRunFile } from '../src/perf/compare-runs.js';
import type { RunFile } from '../src/perf/run-file.js';
import { buildTrend, type Trend } from '../src/perf/trends.js';
import { historyBrief, HISTORY_REPLY_MAX_BYTES } from '../src/mcp/history-tool.js';
import { trendsHtml, trendText } from '../reporters/trends.js';
import { gaussian, mulberry32 } from './gate-sim.js';
import { FIXTURES_DIR, perfCli, ROOT } from './helpers.js';

const TIMEOUT = { timeout: 120_000 };
const CLI_MS = 60_000;
const METRIC = 'load.lcpMs';
const RUNS = 30;

let work = '';
let commits: GitInfo[] = [];

function git(args: string[]): string {
  return execFileSync('git', args, { cwd: work, encoding: 'utf8', timeout: 10_000 }).trim();
}

/** 30 real commits, each with its subject and date: what `perf run --history` would record from a checkout. */
function makeCommits(): GitInfo[] {
  git(['init', '-q', '-b', 'main']);
  const out: GitInfo[] = [];
  for (let i = 1; i <= RUNS; i++) {
    git(['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', `change number ${i}`]);
    const [commit, subject, authorDate] = git(['log', '-1', '--format=%H%n%s%n%aI']).split('\n');
    out.push({ commit: commit!, branch: 'main', mergeBase: commit!, subject: subject!, authorDate: authorDate! });
  }
  return out;
}

/** Run i of a history: the template's measured repeats with load.lcpMs around 1000 ms (CV 3%), ×`factor`. */
function runAt(template: RunFile, i: number, factor: number, rng: () => number): RunFile {
  const run = structuredClone(template);
  const start = Date.parse('2026-10-01T00:00:00Z') + i * 3_600_000;
  run.startedAt = new Date(start).toISOString();
  run.finishedAt = new Date(start + 60_000).toISOString();
  const level = 1000 * factor * (1 + 0.03 * gaussian(rng));
  for (const r of run.repeats) {
    if (r.status !== 'measured' || !r.report?.metrics) continue;
    r.report.metrics[METRIC] = Math.round(level * (1 + 0.02 * gaussian(rng)));
  }
  return run;
}

async function record(file: string, factorAt: (i: number) => number, seed: number): Promise<void> {
  const template = readRunFile(join(FIXTURES_DIR, 'runs', 'load-list-run.json'));
  const rng = mulberry32(seed);
  const store = await openHistory(file, work);
  try {
    for (let i = 0; i < RUNS; i++) {
      await store.recordRun({ run: runAt(template, i, factorAt(i), rng), git: commits[i]!, project: 'trends-test' });
    }
  } finally {
    await store.close();
  }
}

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'perf-trends-'));
  commits = makeCommits();
  await record(join(work, 'step.sqlite'), (i) => (i >= 15 ? 1.2 : 1), 31);
  await record(join(work, 'aa.sqlite'), () => 1, 32);
});

after(() => rmSync(work, { recursive: true, force: true }));

interface ChangeJson {
  scenario: string;
  metric: string;
  commit: string;
  subject: string;
  runId: number;
  before: number;
  after: number;
  relativeChange: number;
}

test('changes --json names run 16’s commit, and only it; an A/A history of 30 gives none', TIMEOUT, async () => {
  const step = await perfCli(work, ['history', 'changes', '--json', '--history', 'step.sqlite'], CLI_MS);
  assert.equal(step.code, 0, step.stderr);
  const { changes } = JSON.parse(step.stdout) as { changes: ChangeJson[] };
  assert.equal(changes.length, 1, step.stdout);
  const c = changes[0]!;
  assert.equal(c.metric, METRIC);
  assert.equal(c.scenario, 'load-list');
  assert.equal(c.commit, commits[15]!.commit);
  assert.equal(c.subject, 'change number 16');
  assert.ok(c.before > 900 && c.before < 1100 && c.after > 1100 && c.after < 1300, JSON.stringify(c));
  assert.ok(Math.abs(c.relativeChange - 0.2) < 0.06, JSON.stringify(c));
  const aa = await perfCli(work, ['history', 'changes', 'load-list', '--json', '--history', 'aa.sqlite'], CLI_MS);
  assert.equal(aa.code, 0, aa.stderr);
  assert.deepEqual((JSON.parse(aa.stdout) as { changes: unknown[] }).changes, []);
  const text = await perfCli(work, ['history', 'changes', 'load-list', '--metric', METRIC, '--history', 'step.sqlite'], CLI_MS);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, new RegExp(`${commits[15]!.commit!.slice(0, 10)} change number 16 \\(run \\d+\\) .*\\+\\d+\\.\\d%`));
});

test('show prints the series with the change marked; --json has 30 points; --reporter html writes the trends page', TIMEOUT, async () => {
  const text = await perfCli(work, ['history', 'show', 'load-list', '--metric', METRIC, '--history', 'step.sqlite'], CLI_MS);
  assert.equal(text.code, 0, text.stderr);
  const marked = text.stdout.split('\n').filter((l) => l.startsWith('▶'));
  assert.equal(marked.length, 1, text.stdout);
  assert.ok(marked[0]!.includes(commits[15]!.commit!.slice(0, 10)) && /change \d+\.\d → \d+\.\d \(\+\d/.test(marked[0]!), marked[0]);
  const json = await perfCli(work, ['history', 'show', 'load-list', '--metric', METRIC, '--json', '--history', 'step.sqlite'], CLI_MS);
  const { series } = JSON.parse(json.stdout) as { series: { points: { commit: string; n: number }[]; changes: unknown[] }[] };
  assert.equal(series.length, 1);
  assert.equal(series[0]!.points.length, RUNS);
  assert.equal(series[0]!.points[0]!.commit, commits[0]!.commit);
  assert.equal(series[0]!.points[0]!.n, 3);
  assert.equal(series[0]!.changes.length, 1);
  const html = await perfCli(
    work,
    ['history', 'show', 'load-list', '--reporter', 'html', '--out', 'out', '--history', 'step.sqlite'],
    CLI_MS,
  );
  assert.equal(html.code, 0, html.stderr);
  const page = readFileSync(join(work, 'out', 'trends.html'), 'utf8');
  const charts = page.match(/data-chart="t\d+"/g) ?? [];
  assert.ok(charts.length >= 2, `one chart per primary metric: ${charts.length}`);
  assert.ok(page.includes(`<a id="t`) && page.includes(commits[15]!.commit!.slice(0, 10)));
  assert.ok(!/\ssrc="http/.test(page), 'nothing fetched');
});

test('bad input exits 2 naming the flag or what is recorded; a history that cannot be opened exits 3', TIMEOUT, async () => {
  const since = await perfCli(work, ['history', 'changes', '--since', 'last tuesday', '--history', 'step.sqlite'], CLI_MS);
  assert.equal(since.code, 2, since.stderr);
  assert.match(since.stderr, /--since: expected a date/);
  const unknown = await perfCli(work, ['history', 'show', 'load-lisst', '--history', 'step.sqlite'], CLI_MS);
  assert.equal(unknown.code, 2, unknown.stderr);
  assert.match(unknown.stderr, /no runs of scenario "load-lisst".*load-list/);
  const metric = await perfCli(work, ['history', 'show', 'load-list', '--metric', 'load.lcpMss', '--history', 'step.sqlite'], CLI_MS);
  assert.equal(metric.code, 2, metric.stderr);
  assert.match(metric.stderr, /did you mean "load\.lcpMs"/);
  // Its folder is a file: no SQLite can be opened there.
  writeFileSync(join(work, 'a-file'), '');
  const closed = await perfCli(work, ['history', 'changes', '--history', 'a-file/h.sqlite'], CLI_MS);
  assert.equal(closed.code, 3, closed.stderr);
  assert.ok(!/\n\s+at /.test(closed.stderr), 'no stack trace');
});

test('MCP perf_history over a real server: the series and run 16’s change, under 6 KB', TIMEOUT, async () => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(ROOT, 'bin/perf'), 'mcp', '--caps', 'core,history'],
    cwd: work,
    env: { ...(process.env as Record<string, string>) },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'rehearse-trends-test', version: '0.0.0' });
  await client.connect(transport);
  try {
    const res = (await client.callTool({
      name: 'perf_history',
      arguments: { scenario: 'load-list', metric: METRIC, history: 'step.sqlite' },
    })) as { isError?: boolean; content: { text: string }[] };
    assert.notEqual(res.isError, true, res.content[0]?.text);
    const text = res.content[0]!.text;
    assert.ok(Buffer.byteLength(text) <= HISTORY_REPLY_MAX_BYTES, `${Buffer.byteLength(text)} B`);
    const r = JSON.parse(text) as { series: { points: { commit: string }[]; changes: { commit: string }[]; runs: number }[] };
    assert.equal(r.series[0]!.runs, RUNS);
    assert.equal(r.series[0]!.points.length, 30);
    assert.deepEqual(
      r.series[0]!.changes.map((c) => c.commit),
      [commits[15]!.commit],
    );
    const missing = (await client.callTool({ name: 'perf_history', arguments: { history: 'none.sqlite' } })) as {
      isError?: boolean;
      content: { text: string }[];
    };
    assert.equal(missing.isError, true);
    assert.match(missing.content[0]!.text, /no history at .*none\.sqlite/);
    assert.ok(!existsSync(join(work, 'none.sqlite')), 'a read creates no file');
  } finally {
    await client.close();
  }
});

/** A made-up trend of `n` runs with a change every 50 runs and long subjects. */
function hugeTrend(k: number, n: number): Trend {
  const rng = mulberry32(k);
  const inputs = Array.from({ length: n }, (_, i) => {
    const m = 100 * (1 + 0.3 * (Math.floor(i / 50) % 2)) * (1 + 0.02 * gaussian(rng));
    return {
      runId: i + 1,
      commit: 'f'.repeat(40),
      subject: 'x'.repeat(300),
      date: '2026-10-01T00:00:00.000Z',
      values: [m, m, m],
      median: m,
    };
  });
  return buildTrend({ scenario: `scenario-${k}`, variant: 'v'.repeat(50), metric: 'durationMs' }, inputs);
}

test('perf_history’s reply stays under 6 KB however large the history (20 series × 2,000 runs, 40 changes each)', TIMEOUT, () => {
  const trends = Array.from({ length: 20 }, (_, k) => hugeTrend(k, 2000));
  assert.ok(trends[0]!.changes.length >= 30, `changes: ${trends[0]!.changes.length}`);
  const reply = JSON.stringify({ tool: 'perf_history', status: 'ok', history: '/a/path/.perf/history.sqlite', ...historyBrief(trends) });
  console.log(`# perf_history reply for 20 × 2,000 runs: ${Buffer.byteLength(reply)} B`);
  assert.ok(Buffer.byteLength(reply) <= HISTORY_REPLY_MAX_BYTES, `${Buffer.byteLength(reply)} B`);
  assert.match(reply, /left out to keep this reply under 6 KB/);
  const one = JSON.stringify(historyBrief([hugeTrend(1, 2000)]));
  assert.ok(Buffer.byteLength(one) <= HISTORY_REPLY_MAX_BYTES, `one series: ${Buffer.byteLength(one)} B`);
});

test('the trends page: one chart per series, change points in its data, the policy allows no fetch; text marks the change', TIMEOUT, () => {
  const t = hugeTrend(3, 120);
  const page = trendsHtml([t, hugeTrend(4, 60)], 'T <script>');
  assert.equal((page.match(/class="chart" data-chart=/g) ?? []).length, 2);
  assert.ok(page.includes("default-src 'none'"));
  assert.ok(page.includes('T &lt;script&gt;'));
  const data = JSON.parse(/<script type="application\/json" id="rehearse-trends">(.*?)<\/script>/s.exec(page)![1]!) as {
    charts: { changes: number[]; points: unknown[] }[];
  };
  assert.deepEqual(
    data.charts[0]!.changes,
    t.changes.map((c) => c.index),
  );
  assert.equal(data.charts[0]!.points.length, 120);
  const lines = trendText(t).split('\n');
  assert.equal(lines.filter((l) => l.startsWith('▶')).length, t.changes.length);
});
