/**
 * Paths and flags do what the README says (issue 58 item 6), through the built CLI without a browser:
 * a --var / --baseline-var name the scenario does not know is exit 2 with the closest name, as the same typo
 * in YAML is; `perf validate` checks the files a scenario names (serve folder, storage state, terminal program
 * and folder) where the runner resolves them, against the scenario file.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadScenario } from '../src/scenario/load.js';
import { PerfError } from '../src/errors.js';
import { planGate } from '../src/cli/gate.js';
import { perfCli, ROOT } from './helpers.js';

const work = mkdtempSync(join(tmpdir(), 'rehearse-cli-paths-'));
after(() => rmSync(work, { recursive: true, force: true }));
mkdirSync(join(work, 'perf/site'), { recursive: true });
writeFileSync(join(work, 'perf/site/index.html'), '<button>Open menu</button>');
const VARS = 'name: v\nvars: { site: a }\napp: { serve: ./site }\nsteps:\n  - wait_for: { text: "Open ${site} ${build}" }\n';
writeFileSync(join(work, 'perf/v.yaml'), VARS);
writeFileSync(join(work, 'perf/w.yaml'), 'name: w\napp: { serve: ./site }\nsteps:\n  - wait_for: { text: Open }\n');

test('--var with a name the scenario does not know: exit 2 and "did you mean", on run, gate and --against', async () => {
  for (const args of [
    ['run', 'perf/v.yaml', '--var', 'sitee=x', '--var', 'build=1'],
    ['gate', 'perf/v.yaml', '--var', 'sitee=x'],
    ['run', 'perf/v.yaml', '--against', 'perf/v.yaml', '--var', 'sitee=x'],
  ]) {
    const r = await perfCli(work, args, 60_000);
    assert.equal(r.code, 2, `perf ${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /--var sitee: perf\/v\.yaml has no var sitee; did you mean site\?; vars are: site, build/);
  }
});

test('--baseline-var with an unknown name: exit 2 naming --baseline-var and the closest name', async () => {
  const r = await perfCli(
    work,
    ['run', 'perf/v.yaml', '--against', 'perf/v.yaml', '--var', 'build=1', '--baseline-var', 'buidl=2'],
    60_000,
  );
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /--baseline-var buidl: perf\/v\.yaml has no var buidl; did you mean build\?/);
});

test('a --var the file declares, or only uses as ${name}, loads; the same typo in YAML is still refused at its line', () => {
  const file = join(work, 'perf/v.yaml');
  const sc = loadScenario(file, { cwd: work, vars: { site: 'b', build: '7' } });
  assert.equal(sc.steps[0]!.args.text, 'Open b 7');
  assert.throws(
    () => loadScenario(file, { cwd: work, vars: { sit: 'b', build: '7' } }),
    (e: unknown) => e instanceof PerfError && e.code === 'invalid_flag' && /did you mean site\?/.test(e.message),
  );
});

test('gate --var over several scenarios: a name one of them knows is set there; a name none knows is exit 2', async () => {
  const plan = planGate([join(work, 'perf/v.yaml'), join(work, 'perf/w.yaml')], { vars: { site: 'menu', build: '1' } });
  assert.deepEqual(
    plan.map((sc) => sc.name),
    ['v', 'w'],
  );
  const r = await perfCli(work, ['gate', 'perf/v.yaml', 'perf/w.yaml', '--var', 'sitee=x'], 60_000);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /--var sitee: none of the 2 scenarios has a var sitee; did you mean site\?/);
});

test('perf validate: the README scenario at perf/home.yaml with serve: ./dist and no perf/dist is exit 2 at file:line, key and what was expected', async () => {
  const home = 'name: home\napp: { serve: ./dist }\nsteps:\n  - tap: "Open menu"\n';
  writeFileSync(join(work, 'perf/home.yaml'), home);
  // ./dist beside the working folder is not the one: relative paths resolve against the scenario file, as the runner does.
  mkdirSync(join(work, 'dist'), { recursive: true });
  const r = await perfCli(work, ['validate', 'perf/home.yaml'], 60_000);
  assert.equal(r.code, 2, r.stderr);
  assert.match(
    r.stderr,
    /perf\/home\.yaml:2:15: app\.serve: \.\/dist \(perf\/dist: relative to the scenario file\) does not exist; expected the folder that holds the built app/,
  );
  mkdirSync(join(work, 'perf/dist'));
  const ok = await perfCli(work, ['validate', 'perf/home.yaml'], 60_000);
  assert.equal(ok.code, 0, ok.stderr);
  assert.match(ok.stdout, /^ok {2}perf\/home\.yaml/);
});

test('perf validate: a missing storage state, terminal program or folder, and a variant that points serve at a file: exit 2 at its line', async () => {
  const cases: [string, RegExp][] = [
    [
      'app: { serve: ./site }\nbrowser: { storageState: ./state.json }\n',
      /:2:26: browser\.storageState: \.\/state\.json \(perf\/state\.json: .*\) does not exist; expected a state file/,
    ],
    [
      'app: { terminal: { command: ./tui.sh } }\n',
      /:1:29: app\.terminal\.command: \.\/tui\.sh .* does not exist; expected an executable program/,
    ],
    [
      'app: { terminal: { command: cat, cwd: ./nowhere } }\n',
      /:1:39: app\.terminal\.cwd: \.\/nowhere .* does not exist; expected an existing folder/,
    ],
    [
      'app: { serve: ./site }\nvariants:\n  a: {}\n  b: { app: { serve: ./site/index.html } }\n',
      /:4:22: app\.serve: \.\/site\/index\.html .* is not a folder/,
    ],
  ];
  for (const [head, want] of cases) {
    writeFileSync(join(work, 'perf/f.yaml'), `${head}steps:\n  - wait_for: { text: Open }\n`);
    const r = await perfCli(work, ['validate', 'perf/f.yaml'], 60_000);
    assert.equal(r.code, 2, `${head}: ${r.stderr}`);
    assert.match(r.stderr, want);
  }
  writeFileSync(join(work, 'perf/tui.sh'), '#!/bin/sh\ncat\n', { mode: 0o755 });
  writeFileSync(join(work, 'perf/f.yaml'), 'app: { terminal: { command: ./tui.sh, cwd: ./site } }\nsteps:\n  - press_key: Enter\n');
  const ok = await perfCli(work, ['validate', 'perf/f.yaml'], 60_000);
  assert.equal(ok.code, 0, ok.stderr);
});

test('docs/load.md: its scenario validates as written and with steps: [] (the load alone); the doc never calls steps optional', async () => {
  const doc = readFileSync(join(ROOT, 'docs/load.md'), 'utf8');
  const yaml = /```yaml\n([\s\S]*?)```/.exec(doc)?.[1] ?? '';
  assert.ok(yaml && /^measure: load/m.test(yaml), 'docs/load.md opens with a measure: load scenario');
  assert.doesNotMatch(doc, /steps:?`?[^\n]*optional/, 'the validator requires steps:');
  mkdirSync(join(work, 'load/app'), { recursive: true });
  const bare = yaml.replace(/^steps:[^\n]*\n(?: {2}-[^\n]*\n)*/m, 'steps: []\n');
  assert.notEqual(bare, yaml);
  const cases: [string, string][] = [
    ['as-written', yaml],
    ['load-alone', bare],
  ];
  for (const [name, text] of cases) {
    writeFileSync(join(work, `load/${name}.yaml`), text);
    const r = await perfCli(work, ['validate', `load/${name}.yaml`], 60_000);
    assert.equal(r.code, 0, `${name}: ${r.stderr}`);
  }
  writeFileSync(join(work, 'load/no-steps.yaml'), yaml.replace(/^steps:[^\n]*\n(?: {2}-[^\n]*\n)*/m, ''));
  const r = await perfCli(work, ['validate', 'load/no-steps.yaml'], 60_000);
  assert.equal(r.code, 2, 'without steps: the validator refuses it, as the doc says');
});

test('docs/reports.md: the HTML reports of the demo scenarios are about 100 KB, as it says (run and compare, from the committed baselines)', async () => {
  const doc = readFileSync(join(ROOT, 'docs/reports.md'), 'utf8');
  const stated = Number(/about (\d+) KB for the demo scenarios/.exec(doc)?.[1]);
  assert.ok(stated > 0, 'docs/reports.md states the size');
  const out = join(work, 'reports');
  mkdirSync(out, { recursive: true });
  const runs = ['list-scroll-desktop', 'filter-typing', 'form-submit', 'page-load'];
  const jobs: [string, string[]][] = runs.map((b) => [
    b,
    ['report', join(ROOT, 'baselines', `${b}.json`), '--out', join(out, `${b}.html`)],
  ]);
  const base = join(ROOT, 'baselines/list-scroll-desktop.json');
  jobs.push(['compare', ['report', base, base, '--out', join(out, 'compare.html'), '--force']]);
  for (const [name, args] of jobs) {
    const r = await perfCli(work, args, 60_000);
    assert.equal(r.code, 0, `${name}: ${r.stderr}`);
    const kb = statSync(join(out, `${name}.html`)).size / 1024;
    // "About": within a half and one and a half times the stated size.
    assert.ok(kb > stated * 0.5 && kb < stated * 1.5, `${name}.html is ${kb.toFixed(0)} KB; docs/reports.md says about ${stated} KB`);
  }
});
