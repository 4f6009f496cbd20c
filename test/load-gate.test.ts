/**
 * The gate on page loads (issue 29's target), through the real CLI on real Chromium: a baseline of the
 * fixture app (test/fixtures/load, its own server) recorded with `perf gate --update`, then `perf gate`
 * against it passes unchanged code, fails a 200 KB larger script bundle on load.transferBytes at the first
 * look (a count: no noise to sample past), and fails a render-blocking stylesheet answered 300 ms late on
 * the paint milestones (or, on a host busy through many repeats, leaves them inconclusive naming the busy host,
 * never a pass). Vars switch the server between baseline and candidate. Verdicts and exit codes are
 * asserted, never timings. TIMING lane: the stylesheet's verdict depends on measured time.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunFile } from '../src/perf/run-file.js';
import type { RunsComparison } from '../src/perf/compare-runs.js';
import { FIXTURES_DIR, ROOT } from './helpers.js';

const work = mkdtempSync(join(tmpdir(), 'rehearse-load-gate-'));
after(() => rmSync(work, { recursive: true, force: true }));
cpSync(join(FIXTURES_DIR, 'load'), join(work, 'app'), { recursive: true });
const PERF = join(ROOT, 'bin/perf');
// Timing mode: the paint milestones are gated only from repeats without the sampling profiler. Two variants,
// each with its baseline: `defaults` judges on the registry's load family; `paint` names its primaries itself
// (gate.metrics). loadQuietMs 400: the fixture's last request, paint and LCP candidate all come before its load
// event, so 400 ms of quiet ends the window where 1 s would, only sooner (this file runs alone, in the TIMING lane).
writeFileSync(
  join(work, 'load.yaml'),
  `name: load
app:
  command: "node app/server.mjs --extra-script-kb \${extraKb} --css-delay-ms \${cssDelayMs}"
  url: "http://127.0.0.1:\${PORT}/index.html"
vars: { extraKb: 0, cssDelayMs: 0 }
measure: load
loadQuietMs: 400
timing: true
repeat: 3
warmup: 0
steps: []
variants:
  defaults: {}
  paint: { gate: { metrics: [load.fcpMs, load.lcpMs, load.transferBytes, load.requests] } }
`,
);
const GATE = ['gate', 'load.yaml', '--baselines', 'baselines', '--out', 'out', '--json'];
// 200 KB: the larger bundle. 300 ms: its late stylesheet, 3x this page's whole FCP on a quiet host.
const EXTRA_KB = 200;
const CSS_DELAY_MS = 300;

interface GateJson {
  verdict: string;
  runs: { id: string; status: string; verdict: string; compare?: RunsComparison }[];
}

function gate(args: string[]): { code: number; json: GateJson; stderr: string } {
  const r = spawnSync(process.execPath, [PERF, ...GATE, ...args], {
    cwd: work,
    encoding: 'utf8',
    env: { ...process.env, GITHUB_STEP_SUMMARY: '' },
    timeout: 300_000,
  });
  assert.ok(r.stdout.trim().startsWith('{'), `no JSON (exit ${r.status}): ${r.stdout}${r.stderr}`);
  return { code: r.status ?? -1, json: JSON.parse(r.stdout) as GateJson, stderr: r.stderr };
}

function comparison(j: GateJson): RunsComparison {
  assert.equal(j.runs.length, 1);
  assert.equal(j.runs[0]!.status, 'compared', JSON.stringify(j.runs[0]));
  return j.runs[0]!.compare!;
}

const row = (c: RunsComparison, metric: string): RunsComparison['rows'][number] => {
  const r = c.rows.find((x) => x.metric === metric);
  assert.ok(r, `no row for ${metric}: ${c.rows.map((x) => x.metric).join(', ')}`);
  return r;
};
const errors = (c: RunsComparison): string[] => c.rows.filter((x) => x.severity === 'error').map((x) => x.metric);
/** Each arm's repeats as the host recorded them, so a timing verdict that fails here says what the machine did. */
function hosts(variant: string): string {
  const arm = (file: string): string => {
    let run: RunFile;
    try {
      run = JSON.parse(readFileSync(join(work, file), 'utf8')) as RunFile;
    } catch {
      return `${file}: unreadable`;
    }
    const cells = run.repeats.map((r) => {
      const h = r.host;
      const fcp = r.status === 'measured' ? r.report.metrics['load.fcpMs'] : r.status;
      return h
        ? `fcp ${fcp} idx ${h.benchmarkIndex.toFixed(0)} other ${h.foreignCpuPct?.toFixed(0) ?? '-'}% steal ${h.stealPct.toFixed(0)}%`
        : `fcp ${fcp} no host`;
    });
    return `${file}:\n  ${cells.join('\n  ')}`;
  };
  return [arm(`baselines/load-${variant}.json`), arm(`out/load-${variant}-gate.json`)].join('\n');
}

const explain = (c: RunsComparison, variant = 'defaults'): string =>
  c.rows
    .filter((x) => x.metric.startsWith('load.'))
    .map((x) => `${x.metric} ${x.verdict} ${x.severity} ${x.reason ?? ''}`)
    .concat(hosts(variant))
    .join('\n');

test('gate --update records the load baselines: every repeat measured, the same bytes and requests in each', () => {
  const r = gate(['--update']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(
    r.json.runs.map((x) => `${x.id}:${x.status}`),
    ['load-defaults:updated', 'load-paint:updated'],
  );
  const base = JSON.parse(readFileSync(join(work, 'baselines/load-defaults.json'), 'utf8')) as RunFile;
  const measured = base.repeats.filter((x) => x.status === 'measured' && !x.warmup);
  assert.ok(measured.length >= 6, `${measured.length} measured repeats`);
  for (const m of ['load.transferBytes', 'load.requests', 'load.transferBytes.script']) {
    const values = new Set(measured.map((x) => (x.status === 'measured' ? x.report.metrics[m] : undefined)));
    assert.equal(values.size, 1, `${m}: ${[...values].join(', ')}`);
  }
});

test('unchanged code never fails: exit 0, no error row, the counts identical in every repeat of both runs', () => {
  const r = gate(['--variant', 'defaults']);
  const c = comparison(r.json);
  assert.equal(r.code, 0, explain(c));
  // A busy host may leave a timing undecided (inconclusive), and a stored baseline is another moment of the machine: a
  // warn (exit 0) can come of that (CI with a core spinning: load.fcpMs +12 %, the candidate's repeats losing 0–13 % of
  // the CPU to other guests, the baseline's 0–1 %). Unchanged code never fails.
  assert.ok(['pass', 'inconclusive', 'warn'].includes(r.json.verdict), `${r.json.verdict}\n${explain(c)}`);
  assert.deepEqual(errors(c), [], explain(c));
  for (const m of ['load.transferBytes', 'load.requests']) {
    assert.equal(row(c, m).verdict, 'unchanged', explain(c));
    assert.ok(c.gate.primary.includes(m), c.gate.primary.join(', '));
  }
});

test(`a ${EXTRA_KB} KB larger script bundle fails at look 1: load.transferBytes regressed (error), script bytes + exactly that`, () => {
  const r = gate(['--variant', 'defaults', '--var', `extraKb=${EXTRA_KB}`]);
  const c = comparison(r.json);
  assert.equal(r.code, 1, explain(c));
  assert.equal(r.json.verdict, 'fail');
  const bytes = row(c, 'load.transferBytes');
  assert.equal(bytes.verdict, 'regressed', explain(c));
  assert.equal(bytes.severity, 'error');
  assert.equal(c.gate.look, 1, 'a deterministic count needs no second look');
  const script = row(c, 'load.transferBytes.script');
  assert.equal(script.verdict, 'regressed');
  // The body grew by exactly that; the real response headers by the Content-Length's extra digits.
  const grown = script.b.median - script.a.median;
  assert.ok(grown >= EXTRA_KB * 1024 && grown <= EXTRA_KB * 1024 + 16, `${grown} bytes`);
  assert.equal(row(c, 'load.requests').verdict, 'unchanged');
});

/**
 * The late stylesheet's verdict: a fail on the paint milestones, or, when the host was busy through many
 * repeats, inconclusive with the busy host named (host-busy.ts re-judges on the quiet repeats alone, which may
 * be too few to be significant): the gate then refuses to blame the build. Never a pass.
 */
function assertLateStylesheet(r: ReturnType<typeof gate>, t: { diagnostic(s: string): void }, variant: string): void {
  const c = comparison(r.json);
  const ms = (m: string): string => `${m} ${row(c, m).a.median} → ${row(c, m).b.median}`;
  t.diagnostic(`late stylesheet: ${r.json.verdict}; ${ms('load.fcpMs')}; ${ms('load.lcpMs')}; look ${c.gate.look}`);
  assert.deepEqual(c.gate.notJudged, [], explain(c, variant));
  if (r.json.verdict === 'fail') {
    assert.equal(r.code, 1, explain(c, variant));
    const paint = ['load.fcpMs', 'load.lcpMs'].filter((m) => errors(c).includes(m));
    assert.ok(paint.length > 0, `neither load.fcpMs nor load.lcpMs is an error:\n${explain(c, variant)}`);
    for (const m of paint) assert.equal(row(c, m).verdict, 'regressed');
  } else {
    assert.equal(r.json.verdict, 'inconclusive', explain(c, variant));
    assert.equal(r.code, 0);
    for (const m of ['load.fcpMs', 'load.lcpMs']) assert.match(row(c, m).reason, /host busy|machine saturated/, explain(c, variant));
  }
  assert.equal(row(c, 'load.transferBytes').verdict, 'unchanged');
  assert.equal(row(c, 'load.requests').verdict, 'unchanged');
}

test(`a render-blocking stylesheet ${CSS_DELAY_MS} ms late fails on the paint milestones (error); the bytes are unchanged`, (t) => {
  assertLateStylesheet(gate(['--variant', 'paint', '--var', `cssDelayMs=${CSS_DELAY_MS}`]), t, 'paint');
});

test(`the default load family on the late stylesheet fails on the paint milestones; the noise rule never demotes them`, (t) => {
  // On a fast local page (FCP ~100 ms) a busy 2-core host spreads the baseline's paint times by 10-25%, which
  // would make the noise rule set FCP and LCP aside; a load's family is fixed instead (perf/compare/primaries.ts), so a
  // 300 ms late stylesheet (+200% and more) fails whatever the spread.
  assertLateStylesheet(gate(['--variant', 'defaults', '--var', `cssDelayMs=${CSS_DELAY_MS}`]), t, 'defaults');
});
