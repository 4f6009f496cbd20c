/**
 * `perf run --engine` (loadScenario's `engine`): one scenario file, any engine, the driver the engine's as if the file
 * named it; and a file whose driver cannot drive its engine (Firefox over cdp or webdriver) is refused at its line, not
 * run in Chromium under the file's word "firefox". `perf gate --engine` the same, and a stored baseline of another
 * engine refused (exit 2) before anything runs.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadScenario } from '../src/scenario/load.js';
import { loadAgainstPair } from '../src/cli/against.js';
import { PerfError } from '../src/errors.js';
import { engineOfRun, planGate } from '../src/cli/gate.js';
import { readRunFile } from '../src/perf/compare-runs.js';
import { FIXTURES_DIR, ROOT } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'rehearse-engine-override-'));
after(() => rmSync(dir, { recursive: true, force: true }));
mkdirSync(join(dir, 'app'));

function write(name: string, browser: string): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, `app: { serve: ./app }\n${browser}steps:\n  - tap: { target: { text: Go } }\n`);
  return file;
}

test('engine replaces browser.engine only: the driver follows it, the restart and the rest stay the file’s', () => {
  const file = write('plain', 'browser: { restart: reload }\n');
  const chromium = loadScenario(file, { cwd: dir });
  assert.deepEqual([chromium.browser.engine, chromium.browser.driver, chromium.browser.restart], ['chromium', 'cdp', 'reload']);
  const firefox = loadScenario(file, { cwd: dir, engine: 'firefox' });
  assert.deepEqual([firefox.browser.engine, firefox.browser.driver, firefox.browser.restart], ['firefox', 'bidi', 'reload']);
  const webkit = loadScenario(write('webkit', 'browser: { engine: webkit }\n'), { cwd: dir, engine: 'chromium' });
  assert.deepEqual([webkit.browser.engine, webkit.browser.driver], ['chromium', 'cdp']);
});

test('Firefox over cdp or webdriver is refused at the line (before: the cdp driver ran it in Chromium)', () => {
  for (const driver of ['cdp', 'webdriver']) {
    for (const [file, engine] of [
      [write(`${driver}-firefox`, `browser: { driver: ${driver}, engine: firefox }\n`), undefined],
      [write(`${driver}-only`, `browser: { driver: ${driver} }\n`), 'firefox' as const],
    ] as const) {
      assert.throws(
        () => loadScenario(file, { cwd: dir, ...(engine ? { engine } : {}) }),
        (e: unknown) =>
          e instanceof PerfError && e.kind === 'usage' && new RegExp(`engine firefox is driven over BiDi, not ${driver}`).test(e.message),
      );
    }
  }
});

test('--against with --engine: both arms in that engine', () => {
  const file = write('pair', '');
  const { baseline, candidate } = loadAgainstPair(file, file, undefined, {}, {}, false, 'firefox');
  assert.deepEqual(
    [baseline.browser.engine, baseline.browser.driver, candidate.browser.engine, candidate.browser.driver],
    ['firefox', 'bidi', 'firefox', 'bidi'],
  );
});

test('perf gate --engine: every scenario in that engine; the engine of a stored run file', () => {
  const files = [write('gate-a', ''), write('gate-b', 'browser: { engine: webkit }\n')];
  const plan = planGate(files, { engine: 'firefox' });
  assert.deepEqual(
    plan.map((sc) => [sc.browser.engine, sc.browser.driver]),
    [
      ['firefox', 'bidi'],
      ['firefox', 'bidi'],
    ],
  );
  const run = readRunFile(join(FIXTURES_DIR, 'runs', 'load-list-run.json'));
  assert.equal(engineOfRun(run), 'chromium');
  assert.equal(engineOfRun({ env: { ...run.env, browser: { ...run.env.browser, driver: 'bidi', engine: 'firefox' } } }), 'firefox');
  assert.equal(engineOfRun({ env: { ...run.env, browser: { ...run.env.browser, driver: 'pty' } } }), undefined);
});

test('perf gate: a Chromium baseline and a Firefox run (--engine, or the file) is exit 2 naming both, before a browser starts', () => {
  const gate = join(dir, 'gate');
  mkdirSync(join(gate, 'baselines'), { recursive: true });
  mkdirSync(join(gate, 'app'), { recursive: true });
  writeFileSync(join(gate, 'app', 'index.html'), '<p>x</p>');
  writeFileSync(join(gate, 'load-list.yaml'), 'name: load-list\napp: { serve: ./app }\nmeasure: load\nrepeat: 3\nsteps: []\n');
  writeFileSync(
    join(gate, 'load-list-ff.yaml'),
    'name: load-list\napp: { serve: ./app }\nbrowser: { engine: firefox }\nmeasure: load\nsteps: []\n',
  );
  copyFileSync(join(FIXTURES_DIR, 'runs', 'load-list-run.json'), join(gate, 'baselines', 'load-list.json'));
  const perf = (args: string[]) =>
    spawnSync(process.execPath, [join(ROOT, 'bin', 'perf'), ...args], { cwd: gate, encoding: 'utf8', timeout: 60_000 });
  for (const args of [
    ['gate', 'load-list.yaml', '--engine', 'firefox'],
    ['gate', 'load-list-ff.yaml'],
    ['gate', 'load-list.yaml', '--engine', 'firefox', '--out', 'out'],
  ]) {
    const r = perf(args);
    assert.equal(r.status, 2, args.join(' ') + r.stderr + r.stdout);
    assert.match(r.stderr, /the baseline baselines\/load-list\.json was measured in chromium, and load-list(-ff)?\.yaml runs in firefox/);
    assert.match(r.stderr, /both arms must be one engine/);
    // Refused before anything ran: no run file of the gate's.
    assert.equal(existsSync(join(gate, 'out')) || existsSync(join(gate, 'build')), false);
  }
  const bad = perf(['gate', 'load-list.yaml', '--engine', 'safari']);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /gate: --engine must be one of chromium, webkit, firefox, got "safari"/);
});
