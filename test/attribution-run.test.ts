/**
 * Attribution end to end on real Chromium (issue 27): the demo's jank switch (scenarios/app/jank.js,
 * `--var jank=1` against 0) is explained by its own function in every text reporter, the compare JSON
 * and MCP perf_compare; the run file keeps each attribution repeat's record and validates; the MCP
 * reply stays within its bounds.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { readRunFile, validateComparison, type RunsComparison } from '../src/perf/compare-runs.js';
import { MAX_STACKS } from '../src/perf/attribution.js';
import { MCP_ATTRIBUTION_MAX_BYTES } from '../src/mcp/perf-tools.js';
import { ROOT } from './helpers.js';

const work = mkdtempSync(join(tmpdir(), 'rehearse-attribution-'));
after(() => rmSync(work, { recursive: true, force: true }));
const PERF = join(ROOT, 'bin/perf');
// MCP file arguments stay inside the working folder: the scenario and its app are copied into it.
const LIST = 'project/list-scroll.yaml';
const A = 'runs/list-scroll-desktop-jank0.json';
const B = 'runs/list-scroll-desktop-jank1.json';

function perf(args: string[], timeoutMs = 240_000): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [PERF, ...args], {
    cwd: work,
    encoding: 'utf8',
    env: { ...process.env, GITHUB_STEP_SUMMARY: '' },
    timeout: timeoutMs,
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** The jank's own functions, as the first line of a row must name them. */
const JANK = /^(forced (layout|style) in )?(burnCpu|forceLayoutThrash) \/jank\.js:\d+:\d+ /;

before(() => {
  mkdirSync(join(work, 'project'), { recursive: true });
  // Without the scenario's budget (layouts per frame ≤ 2): on a loaded host the janky list paints fewer frames and may
  // break it, and a failed budget exits 1; what is under test here is the attribution, not the budget.
  const scenario = readFileSync(join(ROOT, 'scenarios/list-scroll.yaml'), 'utf8').replace(/^budgets:\n(  - .*\n)+/m, '');
  assert.doesNotMatch(scenario, /^budgets:/m);
  writeFileSync(join(work, LIST), scenario);
  cpSync(join(ROOT, 'scenarios/app'), join(work, 'project/app'), { recursive: true });
  // 4 repeats a run: with zero spread in the layout count, 4 + 4 repeats reach p ≤ 0.0084 (stats.ts zeroSpreadNullBound).
  for (const [jank, label] of [
    ['0', 'jank0'],
    ['1', 'jank1'],
  ] as const) {
    const r = perf([
      'run',
      LIST,
      '--variant',
      'desktop',
      '--repeat',
      '4',
      '--warmup',
      '0',
      // Every repeat profiled: the test reads each repeat's attribution record (by default one in three is profiled).
      '--no-timing',
      '--var',
      `jank=${jank}`,
      '--label',
      label,
      '--out',
      'runs',
      '--quiet',
    ]);
    assert.equal(r.code, 0, r.stderr);
  }
});

test('each attribution repeat keeps its record in the run file, and the file validates', { timeout: 60_000 }, () => {
  const run = readRunFile(join(work, B));
  const measured = run.repeats.filter((r) => r.status === 'measured');
  assert.ok(measured.length >= 3, `measured ${measured.length}`);
  for (const r of measured) {
    const a = r.report.attribution;
    assert.ok(a, `repeat ${r.index} has an attribution record`);
    assert.ok(
      a.functions.some((f) => f.name === 'burnCpu' && /\/jank\.js:\d+:\d+$/.test(f.url)),
      JSON.stringify(a.functions.slice(0, 5)),
    );
    assert.ok(
      a.forced.some((f) => f.name === 'forceLayoutThrash' && f.kind === 'layout' && f.count > 0),
      JSON.stringify(a.forced),
    );
    assert.ok(a.stacks.length > 0 && a.stacks.length <= MAX_STACKS);
    assert.ok(a.stacks.some((s) => s.frames[s.frames.length - 1]!.startsWith('burnCpu /jank.js:')));
  }
});

test(
  'perf compare names the jank function first under every regressed primary row: JSON, table, Markdown, JUnit',
  { timeout: 120_000 },
  () => {
    const json = perf(['compare', A, B, '--json']);
    assert.equal(json.code, 1, json.stderr);
    const c = validateComparison(JSON.parse(json.stdout), 'compare.json') as RunsComparison;
    const explained = c.rows.filter((r) => r.gated && r.verdict === 'regressed');
    assert.ok(explained.length >= 1, JSON.stringify(c.rows.map((r) => [r.metric, r.verdict])));
    for (const row of explained) {
      const first = row.attribution?.lines[0];
      assert.ok(first, `${row.metric} has attribution lines`);
      assert.ok(
        ['burnCpu', 'forceLayoutThrash'].includes(first.name) && first.url?.startsWith('/jank.js:'),
        `${row.metric}: ${JSON.stringify(first)}`,
      );
      if (row.metric.startsWith('counters.layouts')) assert.equal(first.kind, 'forcedLayout');
      assert.ok(first.deltaMs > 0 && first.ci !== null && first.ci.lowMs > 0);
      assert.ok(row.attribution!.lines.length <= 8);
    }
    // Rows that did not regress carry none; the flame stacks of both median repeats are there.
    assert.ok(c.rows.filter((r) => r.verdict === 'unchanged').every((r) => r.attribution === undefined));
    assert.ok(c.attribution?.flame.a && c.attribution.flame.b && c.attribution.flame.b.stacks.length > 0);

    const table = perf(['compare', A, B]).stdout;
    for (const row of explained) {
      // Under the table: the metric, then its places, the first on the metric's own line.
      const firstLine = table.split('\n').find((l) => l.startsWith(`${row.metric} ↳ `));
      assert.ok(firstLine, table);
      assert.match(firstLine.slice(row.metric.length + 3), JANK, firstLine);
    }
    const md = perf(['compare', A, B, '--reporter', 'markdown']).stdout;
    assert.match(md, /\*\*Where the change is\*\*/);
    for (const row of explained) {
      const lines = md.split('\n');
      const at = lines.findIndex((l) => l === `- \`${row.metric}\``);
      assert.ok(at >= 0, md);
      // Markdown escapes what it must (`\`), so the path reads /jank.js: once unescaped.
      assert.match(
        lines[at + 1]!.replace(/\\(.)/g, '$1'),
        /^ {2}- (forced (layout|style) in )?(burnCpu|forceLayoutThrash) \/jank\.js:\d+:\d+ /,
      );
    }
    const junit = perf(['compare', A, B, '--reporter', 'junit']).stdout;
    for (const row of explained.filter((r) => r.severity === 'error')) {
      const m = new RegExp(`<testcase name="${row.metric.replace(/\./g, '\\.')}"[^]*?<failure message="([^"]*)"`).exec(junit);
      assert.ok(m, junit);
      assert.match(m[1]!, /; where: (forced (layout|style) in )?(burnCpu|forceLayoutThrash) \/jank\.js:\d+:\d+ /);
    }
  },
);

test('MCP perf_compare carries the attribution, bounded; the reply stays within 6 KB; no flame stacks', { timeout: 120_000 }, async () => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [PERF, 'mcp'],
    cwd: work,
    env: { ...(process.env as Record<string, string>) },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'rehearse-attribution-test', version: '0.0.0' });
  await client.connect(transport);
  try {
    for (const json of [false, true]) {
      const res = (await client.callTool({ name: 'perf_compare', arguments: { a: A, b: B, json } })) as {
        isError?: boolean;
        content: { text: string }[];
      };
      assert.notEqual(res.isError, true, res.content[0]?.text);
      const text = res.content[0]!.text;
      assert.ok(!text.includes('"stacks"'), 'no flame stacks over MCP');
      const c = JSON.parse(text);
      const rows = (json ? c.rows : c.changed) as {
        metric: string;
        verdict: string;
        gated: boolean;
        attribution?: { top: { name: string; at?: string }[] };
      }[];
      const explained = rows.filter((r) => r.gated && r.verdict === 'regressed');
      assert.ok(explained.length >= 1);
      for (const r of explained) {
        const first = r.attribution?.top[0];
        assert.ok(
          first && ['burnCpu', 'forceLayoutThrash'].includes(first.name) && first.at?.startsWith('/jank.js:'),
          JSON.stringify(r.attribution),
        );
        assert.ok(r.attribution!.top.length <= 3);
      }
      const attributionBytes = Buffer.byteLength(JSON.stringify(rows.flatMap((r) => (r.attribution ? [r.attribution] : []))));
      assert.ok(attributionBytes <= MCP_ATTRIBUTION_MAX_BYTES, `attribution ${attributionBytes} B`);
      if (!json) assert.ok(Buffer.byteLength(text) <= 6 * 1024, `reply ${Buffer.byteLength(text)} B`);
      console.log(`perf_compare json=${json}: reply ${Buffer.byteLength(text)} B, attribution ${attributionBytes} B`);
    }
  } finally {
    await client.close();
  }
});
