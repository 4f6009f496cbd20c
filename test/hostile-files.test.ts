/**
 * Hostile files cannot hurt the reader (issue 26). From a real run of the dialog demo, files are
 * crafted the way someone could send them, and fed to the built CLI:
 * - valid run, compare and shard files carrying script in every string: the HTML reports `perf report`
 *   and `perf merge --reporter html` write are opened in our own Chromium, and nothing of the payload
 *   runs (no request reaches a local server the payload calls, the title stays, no policy violation);
 * - a string where a number belongs is refused (exit 2) naming the JSON path;
 * - failure screenshots: a symlink to a secret, a path out of the run folder and a text file named
 *   .png are neither embedded nor linked; only the real PNG is;
 * - `perf merge` refuses shard counts of 1e9 and -1 and a malformed comparison (exit 2 naming the field);
 * - no message quotes a file's content (CLI and MCP perf_compare on a secrets file);
 * - an internal error exits 4, and `perf --help` says so.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { validateComparison, validateRunFile, type RunsComparison } from '../src/perf/compare-runs.js';
import type { RepeatRecord, RunFile } from '../src/perf/run-file.js';
import { BrowserSession } from '../src/drivers/cdp/session.js';
import { reportError } from '../src/cli/main.js';
import { exitCodeOf } from '../src/errors.js';
import { ROOT } from './helpers.js';
import { watchPage, startBeacon, type Beacon } from './report-page.js';

const work = mkdtempSync(join(tmpdir(), 'rehearse-hostile-'));
after(() => rmSync(work, { recursive: true, force: true }));
const PERF = join(ROOT, 'bin/perf');

function perf(args: string[], cwd = work): { code: number; stdout: string; stderr: string } {
  const env = { ...process.env, GITHUB_STEP_SUMMARY: '' };
  const r = spawnSync(process.execPath, [PERF, ...args], { cwd, encoding: 'utf8', env, timeout: 180_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

const readJson = <T>(file: string): T => JSON.parse(readFileSync(join(work, file), 'utf8')) as T;
const writeJson = (file: string, data: unknown): void => writeFileSync(join(work, file), JSON.stringify(data, null, 1));
const clone = <T>(x: T): T => structuredClone(x);

/** `value` written at `path` inside parsed JSON: a crafted file is data, not a typed object. */
function setAt(root: unknown, path: readonly (string | number)[], value: unknown): void {
  let node = root as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[path[path.length - 1]!] = value;
}

// A 1×1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
const SECRET = 'SECRET-TOKEN-4f1c';

let real: RunFile;
let realB: RunFile;

before(() => {
  for (const label of ['a', 'b']) {
    const r = perf(['run', join(ROOT, 'scenarios/dialog.yaml'), '--repeat', '2', '--warmup', '0', '--label', label, '--out', 'runs']);
    assert.equal(r.code, 0, r.stderr);
  }
  real = readJson<RunFile>('runs/dialog-a.json');
  realB = readJson<RunFile>('runs/dialog-b.json');
});

// ─── hostile but valid files ────────────────────────────────────────────────────────────────────────

let beacon: Beacon;
before(async () => {
  beacon = await startBeacon();
});
after(() => beacon?.server.close());

/** Markup and script that would call the beacon and retitle the page, if it ever ran. */
function payload(where: string): string {
  const url = `http://127.0.0.1:${beacon.port}`;
  const js = `document.title='PWNED';fetch('${url}/fetch-${where}');location='${url}/nav-${where}'`;
  const refresh = `<meta http-equiv="refresh" content="0;url=${url}/refresh-${where}">`;
  return `<img src=x onerror="${js}"><script>${js}</script><svg onload="${js}"></svg>${refresh}'"&</title></style></script><!--`;
}

/** `run` with the payload in every string a report shows, and every number still a number. */
function hostileRun(base: RunFile, tag: string): RunFile {
  const P = payload(tag);
  const run = clone(base);
  Object.assign(run, { scenario: `dialog${P}`, variant: P, label: `${tag}${P}`, scenarioFile: P, startedAt: P, finishedAt: P });
  Object.assign(run.env.browser, { product: P, userAgent: P });
  Object.assign(run.env.host, { cpuModel: P, platform: P, arch: P, node: P, hostname: P });
  run.env.app.url = P;
  run.env.network = { profile: P, offline: false, latencyMs: 1, downloadKbps: 1, uploadKbps: 1 };
  const metric = `steps.${P}.ms`;
  run.summary.metrics[metric] = { median: 2, min: 1, max: 3, p25: 1.5, p75: 2.5, n: 2 };
  run.thresholds.metrics[P] = { warnPct: 5 };
  run.gate = { metrics: [metric, 'counters.layouts'] };
  run.budgets = [{ expr: `${metric} < 1 ${P}`, metric, op: '<', limit: 1, value: 2, pass: false }];
  const evidence = { metric: P, value: P, perFrame: P, threshold: P };
  run.insights = [{ id: P, severity: P, title: P, nextStep: P, evidence, rows: [{ [P]: P, other: { nested: P } }], rowsTotal: 7 }];
  run.traces = { median: { repeat: 0, path: P }, slowest: { repeat: 1, path: `${P}.json` } };
  for (const r of run.repeats) {
    for (const s of r.steps) s.label = P;
    if (r.status !== 'measured') continue;
    r.report.metrics[metric] = 2;
    const summary = r.report.summary as { blocksBySelf?: { name: string; url: string }[] } | undefined;
    for (const b of summary?.blocksBySelf ?? []) Object.assign(b, { name: P, url: P });
  }
  const error = { kind: P, code: P, message: P, suggestion: P, candidates: [P] };
  const n = run.repeats.length;
  const common = { mode: 'timing' as const, warmup: false, wallMs: 1, startedAt: P };
  run.repeats.push(
    {
      ...common,
      index: n,
      steps: [{ phase: 'steps', step: P, label: P, status: 'failed', durationMs: 1, error, warnings: [P] }],
      status: 'failed',
      failure: { phase: 'steps', step: P, label: P, error, screenshot: P },
    },
    { ...common, index: n + 1, steps: [], status: 'refused', reason: P },
  );
  return validateRunFile(run, `hostile ${tag}`);
}

interface Opened {
  title: string;
  text: string;
  requests: string[];
  errors: string[];
}

let session: BrowserSession | undefined;
after(async () => session?.close());

/** Open `file` from disk in our Chromium, give any handler its chance, and read what happened. */
async function open(file: string): Promise<Opened> {
  session ??= await BrowserSession.open({ prewarm: 'none' });
  await session.restart('context');
  const page = session.page;
  const { requests, errors } = await watchPage(page, { console: false });
  await page.navigate(pathToFileURL(file).href);
  // Load, two frames and a pause: an error handler, a refresh or a navigation would have started by then.
  let read = { title: '', text: '' };
  try {
    await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 500))))');
    read = await page.evaluate<{ title: string; text: string }>('({ title: document.title, text: document.body.innerText })');
  } catch (err) {
    // A refresh or a navigation the payload started takes the page away: that is the failure to report.
    errors.push(`the page went away: ${(err as Error).message}`);
  }
  return { ...read, requests: requests.filter((u) => !/^(file|data):/.test(u)), errors };
}

function assertInert(o: Opened, file: string): void {
  assert.deepEqual(beacon.hits, [], `${file}: the payload called the beacon`);
  assert.deepEqual(o.requests, [], `${file}: a request left the page`);
  // The report's own title may quote the payload as text; the payload would have made it exactly this.
  assert.notEqual(o.title, 'PWNED', `${file}: the payload retitled the page`);
  assert.deepEqual(o.errors, [], `${file}: a console error (a refused inline handler means markup got through)`);
  assert.ok(o.text.includes('<img src=x onerror='), `${file}: the payload shows as text`);
}

test('valid files with script in every string: reports by perf report and perf merge run none of it', { timeout: 300_000 }, async () => {
  writeJson('ha.json', hostileRun(real, 'a'));
  writeJson('hb.json', hostileRun(realB, 'b'));

  // One run file; two run files; a compare result read back (with script in its own strings too).
  const single = perf(['report', 'hb.json', '--out', 'single.html']);
  assert.equal(single.code, 0, single.stderr);
  const pair = perf(['report', 'ha.json', 'hb.json', '--force', '--out', 'pair.html']);
  assert.equal(pair.code, 0, pair.stderr);
  const cmp = perf(['compare', 'ha.json', 'hb.json', '--force', '--json']);
  assert.ok(cmp.code === 0 || cmp.code === 1, cmp.stderr);
  const P = payload('compare');
  const comparison = JSON.parse(cmp.stdout) as RunsComparison;
  comparison.warnings.push(P);
  Object.assign(comparison.gate, { summary: P, notJudged: [{ metric: P, why: P }] });
  Object.assign(comparison, { blind: P, host: { same: false, note: P }, timing: { gated: false, note: P } });
  for (const row of comparison.rows) row.reason = P;
  writeJson('cmp.json', validateComparison(JSON.parse(JSON.stringify(comparison)), 'cmp.json'));
  const fromCompare = perf(['report', 'cmp.json', '--out', 'from-compare.html']);
  assert.equal(fromCompare.code, 0, fromCompare.stderr);

  // A shard of a gate, merged into HTML: the per-run report and the gate's index page.
  const S = payload('shard');
  mkdirSync(join(work, 'shard'), { recursive: true });
  const entry = (id: string, outcome: unknown, run: RunFile | null): unknown => {
    const runFile = run ? 'elsewhere/hb-gate.json' : null;
    return { id, scenario: S, variant: null, scenarioFile: S, baselineFile: S, runFile, run, outcome };
  };
  writeJson('shard/gate-shard-1-of-1.json', {
    kind: 'rehearse-gate-shard',
    schemaVersion: 1,
    shard: { index: 1, count: 1 },
    plan: [`${S}1`, `${S}2`, `${S}3`],
    strict: false,
    entries: [
      entry(`${S}1`, { status: 'compared', comparison: readJson('cmp.json'), baseline: readJson('ha.json') }, readJson('hb.json')),
      entry(`${S}2`, { status: 'error', error: { kind: 'environment', code: S, message: S, suggestion: S } }, null),
      entry(`${S}3`, { status: 'unmeasured', reason: S }, null),
    ],
  });
  const merged = perf(['merge', 'shard', '--reporter', 'html', '--out', 'merged']);
  assert.ok([0, 1, 3].includes(merged.code), `exit ${merged.code}: ${merged.stderr}`);

  for (const f of ['single.html', 'pair.html', 'from-compare.html', 'merged/gate.html', 'merged/hb-gate.html']) {
    const html = readFileSync(join(work, f), 'utf8');
    assert.doesNotMatch(html, /'unsafe-inline'/, `${f}: scripts and styles by hash only`);
    assert.match(html, /script-src 'sha256-[A-Za-z0-9+/]+=*' 'sha256-[A-Za-z0-9+/]+=*'; base-uri 'none'; form-action 'none'/);
    assertInert(await open(join(work, f)), f);
  }
});

test('a string where a number belongs is refused before anything reads it: exit 2 naming the file and the JSON path', () => {
  const evil = '<img src=x onerror=alert(1)>';
  const cases: [string, (string | number)[], unknown, RegExp][] = [
    ['n.json', ['summary', 'metrics', 'durationMs', 'n'], evil, /n\.json: not a rehearse run file: summary\.metrics\.durationMs\.n must/],
    ['index.json', ['repeats', 0, 'index'], evil, /index\.json: not a rehearse run file: repeats\[0\]\.index must be a whole/],
    ['huge.json', ['repeats', 0, 'index'], 1e9, /repeats\[0\]\.index must be at most 99999, got 1000000000/],
  ];
  for (const [file, path, value, re] of cases) {
    const run = clone(real);
    setAt(run, path, value);
    writeJson(file, run);
    const r = perf(['report', file]);
    assert.equal(r.code, 2, `${file}: ${r.stderr}`);
    assert.match(r.stderr, re);
    assert.doesNotMatch(r.stderr, /<img|at .*\.js:\d+/, 'neither the value nor a stack');
  }
  const cmp: unknown = JSON.parse(perf(['compare', 'runs/dialog-a.json', 'runs/dialog-b.json', '--json']).stdout);
  setAt(cmp, ['rows', 0, 'a', 'n'], evil);
  writeJson('bad-cmp.json', cmp);
  const r = perf(['report', 'bad-cmp.json']);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /bad-cmp\.json: not a compare result of `perf compare --json`: rows\[0\]\.a\.n must be a whole number/);
});

// ─── screenshots ────────────────────────────────────────────────────────────────────────────────────

test('failure screenshots: only a PNG file inside the run folder shows; a symlink, ../ and text do not', { timeout: 120_000 }, () => {
  const dir = join(work, 'sent');
  mkdirSync(dir, { recursive: true });
  // The secret starts like a PNG, so only where it lies can keep it out of the report.
  const secret = Buffer.concat([PNG.subarray(0, 8), Buffer.from(`${SECRET}\n`)]);
  writeFileSync(join(work, 'secret.png'), secret);
  writeFileSync(join(work, 'outside.png'), secret);
  symlinkSync(join(work, 'secret.png'), join(dir, 'shot.png'));
  writeFileSync(join(dir, 'notes.png'), `${SECRET}\n`);
  writeFileSync(join(dir, 'real.png'), PNG);
  const run = clone(real);
  const failed = (index: number, screenshot: string): RepeatRecord => ({
    index,
    mode: 'timing',
    warmup: false,
    wallMs: 1,
    steps: [],
    status: 'failed',
    failure: { phase: 'steps', step: 'tap', error: { kind: 'usage', code: 'target_not_found', message: 'gone' }, screenshot },
  });
  const n = run.repeats.length;
  run.repeats.push(failed(n, 'shot.png'), failed(n + 1, '../outside.png'), failed(n + 2, 'notes.png'), failed(n + 3, 'real.png'));
  writeFileSync(join(dir, 'run.json'), JSON.stringify(run));

  // Run from inside the folder, so "../outside.png" names the file beside it.
  const r = perf(['report', 'run.json'], dir);
  assert.equal(r.code, 0, r.stderr);
  const html = readFileSync(join(dir, 'run.html'), 'utf8');
  const shots = [...html.matchAll(/<img class="shot"[^>]* src="data:image\/png;base64,([^"]+)"/g)].map((m) => Buffer.from(m[1]!, 'base64'));
  assert.equal(shots.length, 1, 'only the real PNG is embedded');
  assert.ok(shots[0]!.equals(PNG));
  assert.ok(!html.includes(SECRET), 'the secret is not in the report');
  for (const m of html.matchAll(/base64,([A-Za-z0-9+/=]+)/g)) {
    assert.ok(!Buffer.from(m[1]!, 'base64').includes(SECRET), 'nor in any inlined data');
  }
  assert.doesNotMatch(html, /href="[^"]*(shot|outside|notes)\.png"/, 'nor linked');
  assert.match(html, /screenshot not shown: shot\.png is a symbolic link/);
  assert.match(html, /screenshot not shown: \.\.\/outside\.png is outside the run file&#39;s folder/);
  assert.match(html, /screenshot not shown: notes\.png is not a PNG file/);
});

// ─── perf merge ─────────────────────────────────────────────────────────────────────────────────────

test('perf merge: shard count 1e9 or -1, an index past it, a malformed comparison: exit 2 naming the field', { timeout: 120_000 }, () => {
  const cmp = JSON.parse(perf(['compare', 'runs/dialog-a.json', 'runs/dialog-b.json', '--json']).stdout) as RunsComparison;
  const shard = {
    kind: 'rehearse-gate-shard',
    schemaVersion: 1,
    shard: { index: 1, count: 1 },
    plan: ['dialog'],
    strict: false,
    entries: [
      {
        id: 'dialog',
        scenario: 'dialog',
        variant: null,
        scenarioFile: 's.yaml',
        baselineFile: 'b.json',
        runFile: 'r.json',
        run: realB,
        outcome: { status: 'compared', comparison: cmp, baseline: real },
      },
    ],
  };
  writeJson('good-shard.json', shard);
  const good = perf(['merge', 'good-shard.json', '--json']);
  assert.ok(good.code === 0 || good.code === 1, good.stderr);

  const cases: [string, (string | number)[], unknown, RegExp][] = [
    ['count-1e9.json', ['shard', 'count'], 1e9, /shard\.count must be at most 1000, got 1000000000/],
    ['count-neg.json', ['shard', 'count'], -1, /shard\.count must be at least 1, got -1/],
    ['index-past.json', ['shard', 'index'], 2, /shard\.index 2 is past shard\.count 1/],
    ['bad-rows.json', ['entries', 0, 'outcome', 'comparison', 'rows'], 'x', /entries\[0\]\.outcome\.comparison\.rows must be a list/],
    ['bad-row.json', ['entries', 0, 'outcome', 'comparison', 'rows', 0, 'verdict'], 3, /comparison\.rows\[0\]\.verdict must be one of/],
    ['bad-status.json', ['entries', 0, 'outcome', 'status'], 'weird', /entries\[0\]\.outcome\.status must be one of "compared", "missing/],
  ];
  for (const [file, path, value, re] of cases) {
    const s = clone(shard);
    setAt(s, path, value);
    writeJson(file, s);
    const r = perf(['merge', file]);
    assert.equal(r.code, 2, `${file}: ${r.stderr}`);
    assert.match(r.stderr, new RegExp(`merge: ${file.replace('.', '\\.')}: `));
    assert.match(r.stderr, re, file);
  }
});

// ─── no message quotes a file ───────────────────────────────────────────────────────────────────────

test('a file that is not JSON: the byte where it stops being JSON, never its text (CLI and MCP)', { timeout: 120_000 }, async () => {
  writeFileSync(join(work, 'passwd'), `root:x:0:0:${SECRET}:/root:/bin/bash\n`);
  for (const args of [
    ['compare', 'passwd', 'runs/dialog-a.json'],
    ['report', 'passwd'],
    ['merge', 'passwd'],
  ]) {
    const r = perf(args);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /passwd: not a .*: not JSON \(at byte 0\)/);
    assert.ok(!r.stderr.includes('root:') && !r.stderr.includes(SECRET), r.stderr);
  }
  const env = { ...(process.env as Record<string, string>) };
  const transport = new StdioClientTransport({ command: process.execPath, args: [PERF, 'mcp'], cwd: work, env, stderr: 'pipe' });
  const client = new Client({ name: 'rehearse-test', version: '0.0.0' });
  await client.connect(transport);
  try {
    const call = client.callTool({ name: 'perf_compare', arguments: { a: 'passwd', b: 'runs/dialog-a.json' } });
    const res = (await call) as { isError?: boolean; content: { type: string; text?: string }[] };
    const text = res.content.map((c) => c.text ?? '').join('\n');
    assert.equal(res.isError, true, text);
    assert.match(text, /not JSON \(at byte 0\)/);
    assert.ok(!text.includes('root:') && !text.includes(SECRET), text);
  } finally {
    await client.close();
  }
});

// ─── exit 4 ─────────────────────────────────────────────────────────────────────────────────────────

test('an internal error (anything but a PerfError) exits 4, never 1; perf --help says what 4 means', { timeout: 60_000 }, () => {
  assert.equal(exitCodeOf('internal'), 4);
  const written: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string) => (written.push(String(chunk)), true)) as typeof process.stderr.write;
  let code: number;
  try {
    code = reportError(new TypeError("Cannot read properties of undefined (reading 'n')"));
  } finally {
    process.stderr.write = write;
  }
  assert.equal(code, 4);
  assert.match(written.join(''), /^perf: internal error: Cannot read properties of undefined \(reading 'n'\)\n {2}hint: this is a bug/);
  const help = perf(['--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /Exit codes: 0 ok · 1 judged failed · .* · 4 internal error \(a bug in perf; report it\)/);
});
