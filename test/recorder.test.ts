/**
 * Chrome DevTools Recorder import: the mapping (pure), three recordings of the demo app that import
 * and run with the same results as their hand-written twins, `perf run recording.json`, and the
 * refusal of steps with no equivalent (exit 2 with their JSON path, unless --skip-unsupported).
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { convertRecording, networkArgs, selectorTarget } from '../src/scenario/recorder.js';
import { loadScenario, type Scenario } from '../src/scenario/load.js';
import { runScenario } from '../src/runner/run.js';
import { runStep } from '../src/engine/run-step.js';
import { serveStatic } from '../src/session/static-server.js';
import { DEMO_DIR, fresh, ROOT, sharedBrowser } from './helpers.js';

const work = mkdtempSync(join(tmpdir(), 'rehearse-recorder-'));
after(() => rmSync(work, { recursive: true, force: true }));
cpSync(DEMO_DIR, join(work, 'app'), { recursive: true });
const PERF = join(ROOT, 'bin/perf');
const REC = join(ROOT, 'test/fixtures/recorder');

function perf(args: string[], env: NodeJS.ProcessEnv = process.env): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [PERF, ...args], { cwd: work, encoding: 'utf8', timeout: 120_000, env });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** perf without blocking this process (which serves the app the run opens). */
function perfAsync(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [PERF, ...args], { cwd: work, stdio: ['ignore', 'ignore', 'pipe'], env });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code: code ?? -1, stderr }));
  });
}

test('selectors: aria with a role → role and name, text/ → text, css and pierce/ → css, xpath and frame paths → none', () => {
  assert.deepEqual(selectorTarget('aria/Submit[role="button"]'), { role: 'button', name: 'Submit' });
  assert.deepEqual(selectorTarget('aria/Open dialog'), { text: 'Open dialog' });
  assert.deepEqual(selectorTarget('aria/Name', true), { label: 'Name' });
  assert.deepEqual(selectorTarget('text/2000 items'), { text: '2000 items' });
  assert.deepEqual(selectorTarget('#submit'), { css: '#submit' });
  assert.deepEqual(selectorTarget('pierce/#inner'), { css: '#inner' });
  assert.deepEqual(selectorTarget(['#only']), { css: '#only' });
  assert.equal(selectorTarget('xpath///*[@id="submit"]'), undefined);
  assert.equal(selectorTarget(['#host', '#inner']), undefined);
});

test('steps: a keyDown+keyUp pair is one press_key, modifiers held make a combo, scrolls become deltas, network presets are named', () => {
  const base = 'http://localhost:8080';
  const { scenario, unsupported } = convertRecording(
    {
      title: 'Keys and scrolls',
      steps: [
        { type: 'emulateNetworkConditions', download: 50000, upload: 50000, latency: 2000 },
        { type: 'navigate', url: `${base}/list.html?jank=0` },
        { type: 'keyDown', key: 'Enter' },
        { type: 'keyUp', key: 'Enter' },
        { type: 'keyDown', key: 'Control' },
        { type: 'keyDown', key: 'a' },
        { type: 'keyUp', key: 'a' },
        { type: 'keyUp', key: 'Control' },
        { type: 'scroll', x: 0, y: 500 },
        { type: 'scroll', x: 0, y: 200 },
        { type: 'doubleClick', selectors: [['#add-item']], offsetX: 1, offsetY: 1 },
        { type: 'hover', selectors: [['text/Add item']] },
        { type: 'change', value: 'de', selectors: [['form > select.country']] },
        { type: 'navigate', url: `${base}/form.html` },
        { type: 'emulateNetworkConditions', download: 100000, upload: 25000, latency: 40 },
        { type: 'close' },
      ],
    },
    'keys.json',
  );
  assert.deepEqual(unsupported, []);
  assert.deepEqual(scenario.app, { url: base, path: '/list.html?jank=0' });
  assert.deepEqual(scenario.network, { profile: 'slow-3g' });
  assert.deepEqual(scenario.steps, [
    { press_key: { key: 'Enter' } },
    { press_key: { key: 'a', modifiers: ['Control'] } },
    { scroll: { dy: 500 } },
    { scroll: { dy: -300 } },
    { dblclick: { target: { css: '#add-item' } } },
    { hover: { target: { text: 'Add item' } } },
    { select_option: { target: { css: 'form > select.country' }, option: 'de' } },
    { navigate: { url: '/form.html' } },
    { network: { latencyMs: 40, downloadKbps: 800, uploadKbps: 200 } },
  ]);
  assert.deepEqual(networkArgs({ download: -1, upload: -1, latency: 0 }), { profile: 'none' });
  assert.deepEqual(networkArgs({ download: 0, upload: 0, latency: 0 }), { profile: 'offline' });
  assert.deepEqual(networkArgs({ download: ((9 * 1000 * 1000) / 8) * 0.9, upload: ((1.5 * 1000 * 1000) / 8) * 0.9, latency: 60 * 2.75 }), {
    profile: 'fast-4g',
  });
});

/** Each recording, its hand-written twin, and what the page holds at the end (the result both must reach). */
const TWINS = [
  {
    recording: 'form-fill.json',
    twin: 'form-submit.yaml',
    probe: "document.querySelector('[data-testid=result]').textContent",
    want: /"name":"Ada".*"country":"jp"/,
  },
  {
    recording: 'list-filter.json',
    twin: 'filter-typing.yaml',
    probe: "[document.querySelector('[data-testid=count]').textContent, document.querySelector('#filter').value].join(' | ')",
    want: /^2000 items \| $/,
  },
  {
    recording: 'dialog.json',
    twin: 'dialog.yaml',
    probe:
      "[document.querySelector('[data-testid=dialog-result]').textContent, document.querySelector('#confirm-dialog').open, document.body.textContent.includes('Saved')].join(' | ')",
    want: /^Dialog closed: ok \| false \| true$/,
  },
];

/** Run a scenario's setup and steps on a fresh page of the demo app: every step's status, and the probe's answer. */
async function outcome(sc: Scenario, probe: string): Promise<{ statuses: string[]; result: string }> {
  const { demo } = await sharedBrowser();
  const { host } = await fresh(`${demo.url}${sc.app.path}`);
  const statuses: string[] = [];
  for (const call of [...sc.setup, ...sc.steps]) {
    const r = await runStep(host, call.name, call.args, { validated: true });
    statuses.push(r.status === 'ok' ? 'ok' : `${call.name} ${r.status}: ${r.error.message}`);
  }
  return { statuses, result: String(await (await host.page()).evaluate(probe)) };
}

for (const { recording, twin, probe, want } of TWINS) {
  test(`${recording} imports, validates and runs with the same result as scenarios/${twin}`, async () => {
    const out = join(work, recording.replace('.json', '.yaml'));
    const imp = perf(['import', join(REC, recording), '--serve', 'app', '--out', out]);
    assert.equal(imp.code, 0, imp.stderr);
    assert.match(
      readFileSync(out, 'utf8'),
      new RegExp(`^# Imported by perf import from the Chrome DevTools Recorder recording .*${recording.replace('.', '\\.')}`),
    );
    const imported = loadScenario(out, { cwd: work });
    const [mine, theirs] = [await outcome(imported, probe), await outcome(loadScenario(join(ROOT, 'scenarios', twin)), probe)];
    assert.ok(
      mine.statuses.every((s) => s === 'ok'),
      mine.statuses.join('\n'),
    );
    assert.ok(
      theirs.statuses.every((s) => s === 'ok'),
      theirs.statuses.join('\n'),
    );
    assert.equal(mine.result, theirs.result);
    assert.match(mine.result, want);
    // And as a scenario: one measured repeat, every step ok.
    const { run } = await runScenario({ ...imported, repeat: 1, warmup: 0 }, { label: 'imported', outDir: join(work, 'out'), cwd: work });
    const r = run.repeats[0]!;
    assert.equal(r.status, 'measured', JSON.stringify(r.status === 'failed' ? r.failure : r.status));
    assert.deepEqual(
      r.steps.map((s) => s.status),
      imported.steps.map(() => 'ok'),
    );
  });
}

test('perf run recording.json converts it in memory and runs it', async () => {
  const demo = await serveStatic({ root: DEMO_DIR });
  try {
    const rec = join(work, 'dialog-live.json');
    writeFileSync(rec, readFileSync(join(REC, 'dialog.json'), 'utf8').replaceAll('http://localhost:8080', demo.url));
    const r = await perfAsync(['run', rec, '--repeat', '1', '--warmup', '0', '--out', join(work, 'live'), '--quiet']);
    assert.equal(r.code, 0, r.stderr);
    const run = JSON.parse(readFileSync(join(work, 'live', 'dialog-run.json'), 'utf8')) as {
      summary: { measured: number };
      scenarioFile: string;
    };
    assert.equal(run.summary.measured, 1);
    assert.match(run.scenarioFile, /dialog-live\.json$/);
  } finally {
    await demo.close();
  }
});

/** A recording whose typed value, title and wait text hold ${env.SECRET}: data, never a read of the environment. */
function secretRecording(origin: string): string {
  const name = [['aria/Name[role="textbox"]'], ['#name']];
  return JSON.stringify({
    title: 'Leak ${env.SECRET}',
    steps: [
      { type: 'navigate', url: `${origin}/form.html` },
      { type: 'change', value: '${env.SECRET}', selectors: name },
      { type: 'click', selectors: [['#submit']], offsetX: 5, offsetY: 5 },
      { type: 'waitForElement', selectors: [['text/"name":"${env.SECRET}"']] },
    ],
  });
}

/** Every file below `dir`, read as text. */
function filesBelow(dir: string): { file: string; text: string }[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .map((file) => ({ file, text: readFileSync(file, 'latin1') }));
}

test('a recording is data: ${env.SECRET} in it is imported as $${env.SECRET} and typed as written', { timeout: 300_000 }, async () => {
  const secret = `hunter2-${process.pid}`;
  const env = { ...process.env, SECRET: secret };
  const rec = join(work, 'secret.json');
  writeFileSync(rec, secretRecording('http://localhost:8080'));
  const out = join(work, 'secret.yaml');
  const imp = perf(['import', rec, '--serve', 'app', '--out', out], env);
  assert.equal(imp.code, 0, imp.stderr);
  const yaml = readFileSync(out, 'utf8');
  assert.match(yaml, /fill: \{ target: \{ role: textbox, name: Name \}, text: "\$\$\{env\.SECRET\}" \}/);
  assert.match(yaml, /wait_for: \{ text: '"name":"\$\$\{env\.SECRET\}"' \}/);
  assert.match(yaml, /recording "Leak \$\$\{env\.SECRET\}"/);
  assert.ok(!yaml.includes(secret) && !imp.stdout.includes(secret) && !imp.stderr.includes(secret));

  // The recording itself, as perf run converts it: the field holds the literal text.
  const sc = loadScenario(rec, { cwd: work, env });
  assert.deepEqual(sc.secrets, [], 'nothing was read from the environment');
  const typed = await outcome(sc, "document.querySelector('#name').value");
  assert.ok(
    typed.statuses.every((st) => st === 'ok'),
    typed.statuses.join('\n'),
  );
  assert.equal(typed.result, '${env.SECRET}');

  // perf run recording.json end to end: every step ok (the result shows the literal name), the secret nowhere.
  const demo = await serveStatic({ root: DEMO_DIR });
  try {
    const live = join(work, 'secret-live.json');
    writeFileSync(live, secretRecording(demo.url));
    const dir = join(work, 'secret-out');
    const r = await perfAsync(['run', live, '--repeat', '1', '--warmup', '0', '--out', dir, '--quiet'], env);
    assert.equal(r.code, 0, r.stderr);
    const files = filesBelow(dir);
    const runFile = files.find((f) => f.file.endsWith('-run.json'));
    assert.ok(runFile, files.map((f) => f.file).join(', '));
    const run = JSON.parse(runFile.text) as { summary: { measured: number }; repeats: { steps: { status: string }[] }[] };
    assert.equal(run.summary.measured, 1);
    assert.deepEqual(
      run.repeats[0]!.steps.map((st) => st.status),
      ['ok', 'ok', 'ok'],
    );
    for (const f of files) assert.ok(!f.text.includes(secret), `${f.file} holds the secret`);
    assert.ok(!r.stderr.includes(secret));
  } finally {
    await demo.close();
  }
});

test('a recording with unsupported steps: exit 2 listing each JSON path; --skip-unsupported writes the rest with a warning each', () => {
  const rec = join(REC, 'unsupported.json');
  const out = join(work, 'unsupported.yaml');
  const refused = perf(['import', rec, '--out', out]);
  assert.equal(refused.code, 2, refused.stderr);
  assert.match(refused.stderr, /3 recorded steps have no equivalent/);
  assert.match(refused.stderr, /steps\[2\]: waitForExpression/);
  assert.match(refused.stderr, /steps\[3\]: customStep "login"/);
  assert.match(refused.stderr, /steps\[4\]\.selectors: click with only selectors our targets cannot express/);
  assert.match(refused.stderr, /--skip-unsupported/);
  assert.doesNotMatch(refused.stderr, /\n\s+at /, 'no stack trace');
  assert.equal(existsSync(out), false, 'nothing written');
  const run = perf(['run', rec]);
  assert.equal(run.code, 2);
  assert.match(run.stderr, /steps\[3\]: customStep "login"/);
  const skipped = perf(['import', rec, '--out', out, '--serve', 'app', '--skip-unsupported']);
  assert.equal(skipped.code, 0, skipped.stderr);
  assert.equal(skipped.stderr.match(/warning: skipped steps\[\d\]/g)?.length, 3);
  const sc = loadScenario(out, { cwd: work });
  assert.deepEqual(
    sc.steps.map((s) => s.name),
    ['fill', 'tap'],
  );
});

test('a .json that is not a recording is exit 2 saying so', () => {
  const file = join(work, 'not-a-recording.json');
  writeFileSync(file, JSON.stringify({ name: 'x', steps: 'no' }));
  const r = perf(['run', file]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /not a Chrome DevTools Recorder recording/);
});
