/**
 * Gate shards through the real CLI: `perf gate --shard 1/2` and `2/2` over example scenarios, then
 * `perf merge`, against the unsharded gate: the same runs, verdicts, statuses and exit code, the same
 * Markdown step summary shape and JUnit. The baselines are the committed ones marked as from another CPU
 * (so only the app's own work is gated: verdicts that do not depend on timing), with routes' removed
 * (a missing baseline) and `--var jank=1` (list-scroll regresses on layouts): pass, fail and missing in
 * one gate. Then the merge refusals: a missing shard, a duplicated one, shards of different gates, a bad
 * --shard. Small runs (3 fixed repeats, no warmup, three of the examples) keep the file near a minute and a half on 2 cores.
 * The unsharded gate and the two shards run at once: their verdicts are on counts (the baselines are from
 * another CPU), so they do not measure each other, and each waits mostly on its pages.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseShard, selectShard } from '../src/cli/shard.js';
import { perfCli, ROOT } from './helpers.js';

const work = mkdtempSync(join(tmpdir(), 'rehearse-shard-'));
after(() => rmSync(work, { recursive: true, force: true }));
const PERF = join(ROOT, 'bin/perf');
// Three of the examples (five runs with list-scroll's variants) give a pass, a fail and a missing
// baseline; every example would only add minutes of the same.
const SCENARIOS = ['dialog.yaml', 'list-scroll.yaml', 'routes.yaml'].map((f) => join(ROOT, 'scenarios', f));
const GATE = ['gate', ...SCENARIOS, '--baselines', 'baselines', '--repeat', '3', '--warmup', '0', '--fixed', '--var', 'jank=1'];

function perf(args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 300_000): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [PERF, ...args], {
    cwd: work,
    encoding: 'utf8',
    env: { ...process.env, GITHUB_STEP_SUMMARY: '', ...env },
    timeout: timeoutMs,
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

type Ran = { code: number; stdout: string; stderr: string };

/** perf() without blocking the event loop, so gates run side by side; killed (and failing) after `timeoutMs`. */
async function perfAsync(args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 300_000): Promise<Ran> {
  const r = await perfCli(work, args, timeoutMs, env);
  return { ...r, code: r.code ?? -1 };
}

let gates: Promise<{ full: Ran; s1: Ran; s2: Ran }> | undefined;
/** The unsharded gate and its two shards, started once (by whichever test asks first) and run at once. */
function threeGates(): Promise<{ full: Ran; s1: Ran; s2: Ran }> {
  gates ??= (async () => {
    const [full, s1, s2] = await Promise.all([
      perfAsync([...GATE, '--out', 'full', '--junit', 'full.xml', '--json'], { GITHUB_STEP_SUMMARY: join(work, 'full.md') }, 480_000),
      perfAsync([...GATE, '--out', 'shard-1', '--shard', '1/2', '--json'], {}, 480_000),
      perfAsync([...GATE, '--out', 'shard-2', '--shard', '2/2', '--json'], {}, 480_000),
    ]);
    return { full, s1, s2 };
  })();
  return gates;
}

before(() => {
  mkdirSync(join(work, 'baselines'));
  for (const f of readdirSync(join(ROOT, 'baselines'))) {
    if (f === 'routes.json') continue;
    const run = JSON.parse(readFileSync(join(ROOT, 'baselines', f), 'utf8')) as { env: { host: { cpuModel: string } } };
    run.env.host.cpuModel = 'Another CPU @ 3.1GHz';
    writeFileSync(join(work, 'baselines', f), JSON.stringify(run));
  }
});

type GateJson = { verdict: string; exitCode: number; runs: { id: string; status: string; verdict: string }[] };
const verdicts = (j: GateJson): string[] => j.runs.map((r) => `${r.id}:${r.status}:${r.verdict}`);
/** The summary's table rows without their detail (which quotes measured numbers). */
/**
 * The summary's run rows (`| \`id\` | verdict`). The metric rows under a failed run list what moved in that
 * measurement, and the sharded and unsharded gates are two measurements: a noisy secondary such as
 * memory.heapGrowthAfterGcBytes may show in one and not the other, so only the runs and verdicts are compared.
 */
const mdRows = (md: string, ids: readonly string[]): string[] =>
  md
    .split('\n')
    .filter((l) => ids.some((id) => l.startsWith(`| \`${id}\` |`)))
    .map((l) => l.split(' | ').slice(0, 2).join(' | '));

test('--shard parsing and the deal: round-robin over the sorted runs, every run in exactly one shard', () => {
  assert.deepEqual(parseShard('2/3'), { index: 2, count: 3 });
  for (const bad of ['0/2', '3/2', 'x', '1/0', '1/', '-1/2']) assert.throws(() => parseShard(bad), /--shard must be I\/N/);
  const items = ['e', 'a', 'd', 'b', 'c'];
  const shards = [1, 2, 3].map((index) => selectShard(items, (x) => x, { index, count: 3 }));
  // Each shard keeps the gate's own order.
  assert.deepEqual(shards, [['a', 'd'], ['e', 'b'], ['c']]);
  assert.deepEqual(
    selectShard(items, (x) => x, { index: 1, count: 1 }),
    items,
  );
});

test('a bad --shard value → exit 2 naming the flag, before any browser starts', () => {
  for (const bad of ['0/2', '3/2', 'x']) {
    const r = perf([...GATE, '--shard', bad]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, new RegExp(`--shard must be I/N with 1 <= I <= N, got "${bad}"`));
  }
});

let full: GateJson;
let fullMd: string;
let fullCode: number;

test('the unsharded gate: pass, fail (jank) and a missing baseline', { timeout: 600_000 }, async () => {
  const summary = join(work, 'full.md');
  const r = (await threeGates()).full;
  fullCode = r.code;
  assert.equal(r.code, 1, r.stderr);
  full = JSON.parse(r.stdout) as GateJson;
  fullMd = readFileSync(summary, 'utf8');
  // Every scenario and variant given.
  assert.deepEqual(
    full.runs.map((x) => x.id).sort(),
    ['dialog', 'list-scroll-desktop', 'list-scroll-phone', 'list-scroll-slow-4g', 'routes'],
    verdicts(full).join(', '),
  );
  const by = Object.fromEntries(full.runs.map((x) => [x.id, x]));
  assert.equal(by['list-scroll-desktop']!.verdict, 'fail');
  assert.equal(by.routes!.status, 'missing-baseline');
  assert.equal(by.dialog!.status, 'compared');
});

test(
  "shards 1/2 and 2/2, merged: the unsharded gate's runs, verdicts, exit code, summary rows and JUnit",
  { timeout: 600_000 },
  async () => {
    const { s1, s2 } = await threeGates();
    const j1 = JSON.parse(s1.stdout) as GateJson;
    const j2 = JSON.parse(s2.stdout) as GateJson;
    assert.equal(j1.runs.length + j2.runs.length, full.runs.length, s1.stderr + s2.stderr);
    assert.equal(j1.runs.length, Math.ceil(full.runs.length / 2), 'round-robin: shard sizes differ by at most one');
    assert.deepEqual(new Set([...j1.runs, ...j2.runs].map((x) => x.id)), new Set(full.runs.map((x) => x.id)));
    assert.ok(existsSync(join(work, 'shard-1/gate-shard-1-of-2.json')));
    assert.ok(existsSync(join(work, 'shard-2/gate-shard-2-of-2.json')));

    const summary = join(work, 'merged.md');
    const m = perf(['merge', 'shard-2', 'shard-1', '--junit', 'merged.xml', '--json'], { GITHUB_STEP_SUMMARY: summary });
    assert.equal(m.code, fullCode, m.stderr);
    const merged = JSON.parse(m.stdout) as GateJson;
    assert.equal(merged.verdict, full.verdict);
    assert.equal(merged.exitCode, full.exitCode);
    assert.deepEqual(verdicts(merged), verdicts(full), 'same runs, same order, same verdicts');

    const md = readFileSync(summary, 'utf8');
    assert.equal(md.split('\n')[0], fullMd.split('\n')[0], 'the same headline');
    const ids = full.runs.map((x) => x.id);
    assert.deepEqual(mdRows(md, ids), mdRows(fullMd, ids));
    assert.equal(mdRows(md, ids).length, ids.length, 'a row per run');
    const suites = (xml: string): string[] =>
      [...xml.matchAll(/<testsuite name="([^"]*)" tests="(\d+)" failures="(\d+)"/g)].map(
        (x) => `${x[1]!.replace(/ → gate$/, '')}:${x[2]}:${x[3]}`,
      );
    assert.deepEqual(suites(readFileSync(join(work, 'merged.xml'), 'utf8')), suites(readFileSync(join(work, 'full.xml'), 'utf8')));

    // Text, as a person reads it: the same first line as the gate's.
    const text = perf(['merge', 'shard-1', 'shard-2']);
    assert.equal(text.code, fullCode);
    assert.equal(text.stdout.split('\n')[0], fullMd.split('\n')[0]!.replace(/^### ❌ /, ''));
    assert.match(text.stdout, /^perf gate: FAIL — \d+ runs: \d+ failed, \d+ missing baseline, \d+ passed\n/);
    // One folder holding every shard file (CI artifacts downloaded into one place) merges too.
    mkdirSync(join(work, 'all'));
    for (const i of [1, 2]) copyFileSync(join(work, `shard-${i}/gate-shard-${i}-of-2.json`), join(work, `all/gate-shard-${i}-of-2.json`));
    assert.equal(perf(['merge', 'all', '--quiet']).code, fullCode);
    // --reporter html: one report per run into --out, as perf gate --reporter html writes beside its runs.
    const html = perf(['merge', 'all', '--reporter', 'html', '--out', 'merged-html']);
    assert.equal(html.code, fullCode, html.stderr);
    const reports = readdirSync(join(work, 'merged-html')).filter((f) => f.endsWith('.html'));
    assert.ok(reports.includes('list-scroll-desktop-gate.html'), reports.join(', '));
    assert.match(readFileSync(join(work, 'merged-html/list-scroll-desktop-gate.html'), 'utf8'), /counters\.layouts/);
    assert.match(
      readFileSync(join(work, 'merged-html/gate.html'), 'utf8'),
      /<a href="list-scroll-desktop-gate\.html">/,
      'the merged gate on one page',
    );
  },
);

test('merge refuses a missing shard, a duplicated one, shards of different gates: exit 2 naming it', () => {
  const missing = perf(['merge', 'shard-1']);
  assert.equal(missing.code, 2, missing.stderr);
  assert.match(missing.stderr, /merge: shard 2\/2 missing \(given: 1\/2 gate-shard-1-of-2\.json\)/);

  const twice = perf(['merge', 'shard-1', 'shard-2', 'shard-1']);
  assert.equal(twice.code, 2);
  assert.match(twice.stderr, /merge: shard 1\/2 given twice: shard-1\/gate-shard-1-of-2\.json and shard-1\/gate-shard-1-of-2\.json/);

  const shard2 = JSON.parse(readFileSync(join(work, 'shard-2/gate-shard-2-of-2.json'), 'utf8')) as {
    shard: { index: number; count: number };
    plan: string[];
  };
  mkdirSync(join(work, 'of3'));
  writeFileSync(join(work, 'of3/gate-shard-2-of-3.json'), JSON.stringify({ ...shard2, shard: { index: 2, count: 3 } }));
  const counts = perf(['merge', 'shard-1', 'of3']);
  assert.equal(counts.code, 2);
  assert.match(counts.stderr, /of3\/gate-shard-2-of-3\.json is shard 2\/3, but shard-1\/gate-shard-1-of-2\.json is of 2 shards/);

  mkdirSync(join(work, 'other'));
  writeFileSync(
    join(work, 'other/gate-shard-2-of-2.json'),
    JSON.stringify({ ...shard2, plan: shard2.plan.filter((id) => id !== 'dialog') }),
  );
  const other = perf(['merge', 'shard-1', 'other']);
  assert.equal(other.code, 2);
  assert.match(other.stderr, /other\/gate-shard-2-of-2\.json \(shard 2\/2\) ran a different scenario set/);

  const none = perf(['merge', 'full']);
  assert.equal(none.code, 2);
  assert.match(none.stderr, /merge: full: no gate-shard-I-of-N\.json in this folder/);
});
