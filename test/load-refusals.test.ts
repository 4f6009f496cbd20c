/**
 * `measure: load` and `cache:` at the scenario's line (issue 29): what loads, and what is refused before
 * anything starts — a load on a terminal program, `cache` without a measured load, `setup` before a cold
 * load, an unknown `measure` — through loadScenario and through `perf validate` (exit 2, file:line:col).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { loadScenario } from '../src/scenario/load.js';
import { ROOT } from './helpers.js';
import { scenarioFiles } from './scenario-files.js';

const { dir, write, loadError } = scenarioFiles('load-refusals');

const REFUSED = {
  terminal: {
    text: 'app:\n  terminal: { command: cat }\nmeasure: load\nsteps:\n  - press_key: a\n',
    at: ':3:10:',
    says: /measure is for web pages: a terminal program has no page load to measure/,
  },
  cacheAlone: {
    text: 'app: { serve: ./app }\ncache: warm\nsteps:\n  - tap: Go\n',
    at: ':2:8:',
    says: /cache is the HTTP cache at a measured load: it needs measure: load/,
  },
  quietAlone: {
    text: 'app: { serve: ./app }\nloadQuietMs: 300\nsteps:\n  - tap: Go\n',
    at: ':2:14:',
    says: /loadQuietMs is the quiet that ends a measured load: it needs measure: load/,
  },
  quietTooShort: {
    text: 'app: { serve: ./app }\nmeasure: load\nloadQuietMs: 20\nsteps: []\n',
    at: ':3:14:',
    says: /loadQuietMs: must be >= 100/,
  },
  quietTooLong: {
    text: 'app: { serve: ./app }\nmeasure: load\nloadQuietMs: 20000\nsteps: []\n',
    at: ':3:14:',
    says: /loadQuietMs: must be <= 10000/,
  },
  terminalQuiet: {
    text: 'app:\n  terminal: { command: cat }\nloadQuietMs: 300\nsteps:\n  - press_key: a\n',
    at: ':3:14:',
    says: /loadQuietMs is for web pages: a terminal program has no page load to measure/,
  },
  coldSetup: {
    text: 'app: { serve: ./app }\nmeasure: load\ncache: cold\nsetup:\n  - tap: Go\nsteps: []\n',
    at: ':5:3:',
    says: /setup runs before the measured window, and with measure: load and a cold cache .* no page to set up/,
  },
  unknownMeasure: {
    text: 'app: { serve: ./app }\nmeasure: paint\nsteps:\n  - tap: Go\n',
    at: ':2:10:',
    says: /measure: must be one of "steps", "load", got string "paint"/,
  },
} as const;

test('measure: load loads with no steps; the cache follows browser.restart (reload → warm, context → cold) unless cache says', () => {
  const cold = loadScenario(write('app: { serve: ./app }\nmeasure: load\nsteps: []\n', 'cold'), { cwd: dir });
  assert.equal(cold.measure, 'load');
  assert.equal(cold.cache, 'cold');
  assert.equal(cold.loadQuietMs, 1000, "Lighthouse's quiet thresholds by default");
  const quick = loadScenario(write('app: { serve: ./app }\nmeasure: load\nloadQuietMs: 250\nsteps: []\n', 'quick'), { cwd: dir });
  assert.equal(quick.loadQuietMs, 250);
  assert.equal(cold.steps.length, 0);
  const warm = loadScenario(write('app: { serve: ./app }\nbrowser: { restart: reload }\nmeasure: load\nsteps: []\n', 'warm'), {
    cwd: dir,
  });
  assert.equal(warm.cache, 'warm');
  // A warm load may set up first: setup runs on the warming load, before the measured one.
  const setup = loadScenario(write('app: { serve: ./app }\nmeasure: load\ncache: warm\nsetup:\n  - tap: Go\nsteps: []\n', 'warm-setup'), {
    cwd: dir,
  });
  assert.equal(setup.cache, 'warm');
  assert.equal(setup.setup.length, 1);
  const steps = loadScenario(write('app: { serve: ./app }\nsteps:\n  - tap: Go\n', 'steps'), { cwd: dir });
  assert.equal(steps.measure, 'steps');
});

test('with measure: steps (the default) an empty steps list is still refused; with measure: load it is the load alone', () => {
  const e = loadError(write('app: { serve: ./app }\nsteps: []\n', 'empty'));
  assert.match(e.message, /steps is empty: a scenario measures at least one step \(or its load: measure: load\)/);
});

for (const [name, r] of Object.entries(REFUSED)) {
  test(`refused at its line: ${name}`, () => {
    const e = loadError(write(r.text, name));
    assert.ok(e.message.includes(`${name}.yaml${r.at}`), e.message);
    assert.match(e.message, r.says);
  });
}

test('`perf validate` of each refused file: exit 2, file:line:col and the reason, no stack; a good load scenario passes', () => {
  const files = Object.entries(REFUSED).map(([name, x]) => write(x.text, name));
  const r = spawnSync(process.execPath, [join(ROOT, 'bin/perf'), 'validate', ...files], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 2, r.stdout + r.stderr);
  for (const [name, x] of Object.entries(REFUSED)) {
    assert.ok(r.stderr.includes(`${name}.yaml${x.at}`), r.stderr);
    assert.match(r.stderr, x.says);
  }
  assert.doesNotMatch(r.stderr, /\n\s+at /);
  const good = write('app: { serve: ./app }\nbrowser: { restart: reload }\nmeasure: load\nsteps: []\n', 'good');
  const ok = spawnSync(process.execPath, [join(ROOT, 'bin/perf'), 'validate', good], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 120_000,
  });
  assert.equal(ok.status, 0, ok.stderr);
});
