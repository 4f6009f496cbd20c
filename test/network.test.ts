/**
 * Network emulation: the scenario key (applied at every clean restart, read back into the run
 * file's env), the network step, and where it is refused (WebDriver, terminal, bad names).
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadScenario } from '../src/scenario/load.js';
import { runScenario } from '../src/runner/run.js';
import { runStep, type StepResult } from '../src/engine/run-step.js';
import { mcpArgsSchema, getStep } from '../src/steps/registry.js';
import { NETWORK_PROFILES } from '../src/steps/network.js';
import { PerfError } from '../src/errors.js';
import type { RunFile } from '../src/perf/run-file.js';
import { DEMO_DIR, fresh, ROOT, sharedBrowser } from './helpers.js';

const work = mkdtempSync(join(tmpdir(), 'rehearse-network-'));
after(() => rmSync(work, { recursive: true, force: true }));
cpSync(DEMO_DIR, join(work, 'app'), { recursive: true });
const PERF = join(ROOT, 'bin/perf');
let n = 0;

function scenarioFile(body: string): string {
  const file = join(work, `net${n++}.yaml`);
  writeFileSync(file, body);
  return file;
}

function loadError(body: string, opts: Parameters<typeof loadScenario>[1] = {}): PerfError {
  try {
    loadScenario(scenarioFile(body), { cwd: work, ...opts });
  } catch (e) {
    assert.ok(e instanceof PerfError, `expected PerfError, got ${String(e)}`);
    assert.equal(e.kind, 'usage');
    return e;
  }
  assert.fail('expected a load error');
}

const FORM = (network: string): string => `
name: form-net
app: { serve: ./app, path: /form.html }
${network}
repeat: 1
warmup: 0
steps:
  - fill: { target: { label: Name }, text: Ada }
`;

/** The wall time of a repeat's clean restart and app open: where the app's load is paid. */
function openMs(run: RunFile): number {
  const r = run.repeats[0]!;
  return (r.phasesMs?.restart ?? 0) + (r.phasesMs?.open ?? 0);
}

test('network slow-3g: the app opens slower than unthrottled, and the run file env holds the settings', async () => {
  const plain = await runScenario(loadScenario(scenarioFile(FORM('')), { cwd: work }), {
    label: 'plain',
    outDir: join(work, 'out'),
    cwd: work,
  });
  const slow = await runScenario(loadScenario(scenarioFile(FORM('network: { profile: slow-3g }')), { cwd: work }), {
    label: 'slow',
    outDir: join(work, 'out'),
    cwd: work,
  });
  // Both opened the app (a repeat refused for drawing nothing in its one-fill window opened it too:
  // a loaded CI machine does that now and then); the open time is what this test is about.
  assert.deepEqual(
    [plain.run, slow.run].map((r) => (r.repeats[0]!.status === 'failed' ? 'failed' : 'opened')),
    ['opened', 'opened'],
  );
  const [fast, throttled] = [openMs(plain.run), openMs(slow.run)];
  console.log(`open: unthrottled ${fast.toFixed(0)} ms, slow-3g ${throttled.toFixed(0)} ms`);
  // slow-3g adds 2,000 ms to every request: the document alone cannot arrive sooner.
  assert.ok(throttled >= NETWORK_PROFILES['slow-3g'].latencyMs, `slow-3g open ${throttled} ms`);
  assert.ok(throttled > fast, `slow-3g open ${throttled} ms vs unthrottled ${fast} ms`);
  assert.equal(plain.run.env.network, undefined, 'no network key: no env.network');
  const { page, ...applied } = slow.run.env.network!;
  assert.deepEqual(applied, { profile: 'slow-3g', offline: false, latencyMs: 2000, downloadKbps: 400, uploadKbps: 400 });
  // navigator.connection reports the emulated conditions, rounded (and rtt a little above latency).
  assert.ok(page && page.rttMs >= 1000 && page.downlinkKbps > 0 && page.downlinkKbps <= 1000, JSON.stringify(page));
});

test('network step: offline makes a navigation fail clearly; none restores it; the answer is read back', async () => {
  const { demo } = await sharedBrowser();
  const { host } = await fresh(`${demo.url}/form.html`);
  const off = await runStep(host, 'network', { profile: 'offline' });
  assert.equal(off.status, 'ok');
  assert.deepEqual((off as Extract<StepResult, { status: 'ok' }>).data, {
    profile: 'offline',
    offline: true,
    latencyMs: 0,
    downloadKbps: 0,
    uploadKbps: 0,
    verified: true,
  });
  const nav = await runStep(host, 'navigate', { url: '/list.html' });
  assert.equal(nav.status, 'failed');
  assert.match((nav as Extract<StepResult, { status: 'failed' }>).error.message, /ERR_INTERNET_DISCONNECTED/);
  const on = await runStep(host, 'network', { profile: 'none' });
  assert.deepEqual((on as Extract<StepResult, { status: 'ok' }>).data, {
    profile: 'none',
    offline: false,
    latencyMs: 0,
    downloadKbps: 0,
    uploadKbps: 0,
    verified: true,
  });
  assert.equal((await runStep(host, 'navigate', { url: '/list.html' })).status, 'ok');
  const custom = await runStep(host, 'network', { latencyMs: 300, downloadKbps: 5000, uploadKbps: 1000 });
  assert.equal((custom as Extract<StepResult, { status: 'ok' }>).data?.profile, 'custom');
  const both = await runStep(host, 'network', { profile: 'fast-4g', latencyMs: 1, downloadKbps: 1, uploadKbps: 1 });
  assert.equal(both.status, 'failed');
  assert.match(
    (both as Extract<StepResult, { status: 'failed' }>).error.message,
    /give a profile, or all of latencyMs, downloadKbps and uploadKbps \(not both\)/,
  );
  await runStep(host, 'network', { profile: 'none' });
});

test('a scenario with network offline fails its repeat at the app open, saying why', async () => {
  const { run } = await runScenario(loadScenario(scenarioFile(FORM('network: { profile: offline }')), { cwd: work }), {
    label: 'offline',
    outDir: join(work, 'out'),
    cwd: work,
  });
  const r = run.repeats[0]!;
  assert.equal(r.status, 'failed');
  assert.ok(
    r.status === 'failed' && r.failure.phase === 'restart' && /ERR_INTERNET_DISCONNECTED/.test(r.failure.error.message),
    JSON.stringify(r),
  );
});

test("a network step does not outlive its repeat: the next clean restart puts the scenario's network back (reload too)", async () => {
  for (const restart of ['reload', 'context'] as const) {
    const body = `
name: step-leak
app: { serve: ./app, path: /form.html }
browser: { restart: ${restart} }
repeat: 2
warmup: 0
steps:
  - fill: { target: { label: Name }, text: Ada }
  - network: offline
`;
    const { run } = await runScenario(loadScenario(scenarioFile(body), { cwd: work }), {
      label: restart,
      outDir: join(work, 'out'),
      cwd: work,
    });
    // Offline left on would fail the second repeat's app open (net::ERR_INTERNET_DISCONNECTED). A
    // repeat refused for drawing nothing in its window (a loaded machine) opened the app all the same.
    assert.deepEqual(
      run.repeats.map((r) => (r.status === 'failed' ? 'failed' : 'opened')),
      ['opened', 'opened'],
      `${restart}: ${JSON.stringify(run.repeats.map((r) => (r.status === 'failed' ? r.failure : r.status)))}`,
    );
  }
});

test('a bad profile name is exit 2 with file:line and the allowed values', () => {
  const file = scenarioFile(FORM('network: { profile: slow-5g }'));
  const r = spawnSync(process.execPath, [PERF, 'run', file, '--out', join(work, 'out')], { timeout: 300_000, cwd: work, encoding: 'utf8' });
  assert.equal(r.status, 2, r.stderr);
  assert.match(
    r.stderr,
    /net\d+\.yaml:4:\d+: network\.profile: must be one of "none", "slow-3g", "fast-3g", "slow-4g", "fast-4g", "offline", got string "slow-5g"/,
  );
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
});

test('network on a WebDriver or terminal scenario is refused when it loads, naming the line and the driver', () => {
  const key = loadError('app: { serve: ./app }\nbrowser: { engine: webkit }\nnetwork: { profile: slow-3g }\nsteps:\n  - tap: x\n');
  assert.match(key.message, /net\d+\.yaml:3:\d+: network is not available on the webdriver driver/);
  const step = loadError('app: { serve: ./app }\nbrowser: { driver: webdriver }\nsteps:\n  - tap: x\n  - network: fast-3g\n');
  assert.match(step.message, /net\d+\.yaml:5:\d+: network is not available on the webdriver driver: WebDriver cannot throttle the network/);
  const variant = loadError(
    'app: { serve: ./app }\nbrowser: { driver: webdriver }\nvariants:\n  slow: { network: { profile: slow-4g } }\nsteps:\n  - tap: x\n',
    { variant: 'slow' },
  );
  assert.match(variant.message, /net\d+\.yaml:4:\d+: network is not available on the webdriver driver/);
  const term = loadError('app: { terminal: { command: cat } }\nnetwork: { profile: slow-3g }\nsteps:\n  - press_key: a\n');
  assert.match(term.message, /net\d+\.yaml:2:\d+: network is for web apps/);
});

test('the key: numbers come together, a variant overrides it, profile none drops it', () => {
  const partial = loadError(FORM('network: { latencyMs: 100, downloadKbps: 1000 }'));
  assert.match(partial.message, /:4:\d+: network: must have properties [a-zA-Z, ]*uploadKbps[a-zA-Z, ]* when property \w+ is present/);
  const mixed = loadError(FORM('network: { profile: fast-4g, latencyMs: 100, downloadKbps: 1000, uploadKbps: 500 }'));
  assert.match(mixed.message, /:4:\d+: network: give a profile, or all of latencyMs, downloadKbps and uploadKbps \(not both\)/);
  const custom = loadScenario(scenarioFile(FORM('network: { latencyMs: 100, downloadKbps: 1000, uploadKbps: 500 }')), { cwd: work });
  assert.deepEqual(custom.network, { profile: 'custom', offline: false, latencyMs: 100, downloadKbps: 1000, uploadKbps: 500 });
  const body = FORM(
    'network: { latencyMs: 100, downloadKbps: 1000, uploadKbps: 500 }\nvariants:\n  slow: { network: { profile: slow-4g } }\n  off: { network: { profile: none } }',
  );
  const file = scenarioFile(body);
  assert.deepEqual(loadScenario(file, { cwd: work, variant: 'slow' }).network, { profile: 'slow-4g', ...NETWORK_PROFILES['slow-4g'] });
  assert.equal(loadScenario(file, { cwd: work, variant: 'off' }).network, undefined);
  const example = loadScenario(join(ROOT, 'scenarios/list-scroll.yaml'), { variant: 'slow-4g' });
  assert.equal(example.network?.profile, 'slow-4g');
});

test('over MCP the network tool offers the profile only (the numbers are for scenario files)', () => {
  const schema = mcpArgsSchema(getStep('network'));
  assert.deepEqual(Object.keys(schema.properties ?? {}).sort(), ['profile', 'timeoutMs']);
  assert.equal(schema.dependencies, undefined);
});
