import { test } from 'node:test';
import assert from 'node:assert/strict';
import { symlinkSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { loadScenario } from '../src/scenario/load.js';
import { scenarioSchema } from '../src/scenario/schema.js';
import { PerfError } from '../src/errors.js';
import { judgeBudgets } from '../src/runner/records.js';
import { BUDGET_UNIT_NAMES, BUDGET_UNITS, limitInBudgetUnit, toMetricUnit } from '../src/perf/budget-units.js';
import type { BudgetResult } from '../src/perf/run-file.js';
import { ROOT } from './helpers.js';
import { scenarioFiles } from './scenario-files.js';
import { Ajv } from 'ajv';
import { parse as parseYaml } from 'yaml';

const files = scenarioFiles('scenario');
const { dir, write } = files;
const loadError = (text: string, opts: Parameters<typeof loadScenario>[1] = {}): PerfError => files.loadError(write(text), opts);

const OK = `app: { serve: ./app, path: /list.html }\nsteps:\n  - tap: "Add item"\n`;

test('a valid scenario loads with defaults and the serve folder resolved against the scenario file', () => {
  const sc = loadScenario(write(OK), { cwd: dir });
  assert.equal(sc.app.serve, join(dir, 'app'));
  assert.equal(sc.repeat, 5);
  assert.equal(sc.maxRepeat, 20, 'sampling to a decision may add up to 4 × repeat');
  assert.equal(sc.warmup, 1);
  assert.equal(sc.browser.restart, 'context');
  assert.deepEqual(sc.viewport, { width: 1280, height: 800, dpr: 1, mobile: false, touch: false });
  assert.deepEqual(sc.steps[0]!.args, { target: { text: 'Add item' } });
  assert.equal(sc.steps[0]!.line, 3);
});

test('invalid YAML names the line', () => {
  const e = loadError('app: { serve: ./app\nsteps:\n  - tap: x\n');
  assert.match(e.message, /s\d+\.yaml:\d+:\d+: invalid YAML/);
});

test('an unknown step names its line and column and the closest step', () => {
  const e = loadError('app: { serve: ./app }\nsteps:\n  - tap: x\n  - scrol: { dy: 10 }\n');
  assert.match(e.message, /s\d+\.yaml:4:5: unknown step "scrol"; did you mean "scroll"/);
});

test('a wrong argument type names the step line and what was expected', () => {
  const e = loadError('app: { serve: ./app }\nsteps:\n  - scroll: { dy: lots }\n');
  assert.match(e.message, /:3:\d+: scroll\.dy: must be number, got string "lots"/);
});

test('an unknown argument names it with the closest valid one', () => {
  const e = loadError('app: { serve: ./app }\nsteps:\n  - scroll: { dyy: 10 }\n');
  assert.match(e.message, /:3:\d+: scroll: unknown argument "dyy" \(did you mean "dy"/);
});

test('an unknown top-level key is reported at the key', () => {
  const e = loadError('app: { serve: ./app }\nrepeats: 3\nsteps:\n  - tap: x\n');
  assert.match(e.message, /:2:1: unknown argument "repeats" \(did you mean "repeat"\?\)/);
});

test('a wrong value type at the top level names the line', () => {
  const e = loadError('app: { serve: ./app }\nrepeat: many\nsteps:\n  - tap: x\n');
  assert.match(e.message, /:2:9: repeat: must be integer/);
});

test('an unknown var names its line and the declared vars', () => {
  const e = loadError('app: { serve: ./app }\nvars: { query: a }\nsteps:\n  - fill: { target: { label: F }, text: "${qeury}" }\n');
  assert.match(e.message, /:4:\d+: unknown var \$\{qeury\}; did you mean \$\{query\}\?; vars are: query/);
});

test('an unset environment variable is a load-time error', () => {
  const e = loadError('app: { serve: ./app }\nsteps:\n  - fill: { target: { label: F }, text: "${env.REHEARSE_UNSET_VAR}" }\n', {
    env: {},
  });
  assert.match(e.message, /:3:\d+: \$\{env\.REHEARSE_UNSET_VAR\}: environment variable REHEARSE_UNSET_VAR is not set/);
});

test('vars and env interpolate; a whole-string var keeps its type; ${PORT} is left for the app', () => {
  const sc = loadScenario(
    write(
      'app: { command: "serve --port ${PORT}", url: "http://127.0.0.1:${PORT}" }\nvars: { px: 3000, who: Ada }\nsteps:\n  - scroll: { dy: "${px}" }\n  - fill: { target: { label: Name }, text: "${who} from ${env.HOME_TOWN}" }\n',
    ),
    { cwd: dir, env: { HOME_TOWN: 'London' } },
  );
  assert.equal(sc.steps[0]!.args.dy, 3000);
  assert.equal(sc.steps[1]!.args.text, 'Ada from London');
  assert.equal(sc.app.command, 'serve --port ${PORT}');
});

test('$${ is a literal ${: not interpolated, no var or environment read, beside ordinary vars', () => {
  const text = [
    'app: { serve: ./app, path: "/form.html?q=$${env.HOME_TOWN}" }',
    'vars: { who: Ada }',
    'steps:',
    '  - fill: { target: { label: Name }, text: "$${env.HOME_TOWN}" }',
    '  - fill: { target: { label: Email }, text: "${who} typed $${who} and $${nope}" }',
    '  - fill: { target: { label: Age }, text: "$${who}" }',
    '',
  ].join('\n');
  const sc = loadScenario(write(text), { cwd: dir, env: { HOME_TOWN: 'London' } });
  assert.equal(sc.steps[0]!.args.text, '${env.HOME_TOWN}');
  assert.equal(sc.steps[1]!.args.text, 'Ada typed ${who} and ${nope}', 'an escaped unknown var is no error');
  assert.equal(sc.steps[2]!.args.text, '${who}', 'a whole-string escape stays a string');
  assert.equal(sc.app.path, '/form.html?q=${env.HOME_TOWN}');
  assert.deepEqual(sc.secrets, [], 'nothing was read from the environment');
});

test('a variant name outside [a-z0-9_-] is refused at its key (line:col); a scenario name with / at its line', () => {
  const text = 'app: { serve: ./app }\nvariants:\n  ok: {}\n  x/../../../outside: { repeat: 1 }\nsteps:\n  - tap: x\n';
  const variant = loadError(text, { variant: 'ok' });
  assert.equal(variant.code, 'scenario_invalid');
  assert.match(variant.message, /s\d+\.yaml:4:3: variant name "x\/\.\.\/\.\.\/\.\.\/outside" may only use a-z, 0-9, _ and -/);
  assert.match(variant.suggestion ?? '', /e\.g\. x-outside/);
  for (const name of ['Phone', 'dark.mode']) {
    const e = loadError(`app: { serve: ./app }\nvariants:\n  ${name}: {}\nsteps:\n  - tap: x\n`, { variant: name });
    assert.match(e.message, new RegExp(`:3:3: variant name "${name.replace('.', '\\.')}" may only use`));
  }
  const named = loadError('name: ../../outside/x\napp: { serve: ./app }\nsteps:\n  - tap: x\n');
  assert.match(named.message, /:1:7: name "\.\.\/\.\.\/outside\/x" may only use letters, digits, _, \. and -/);
});

test('--var overrides a declared var', () => {
  const sc = loadScenario(write('app: { serve: ./app, path: "/list.html?jank=${jank}" }\nvars: { jank: 0 }\nsteps:\n  - tap: x\n'), {
    cwd: dir,
    vars: { jank: '1' },
  });
  assert.equal(sc.app.path, '/list.html?jank=1');
});

const VARIANTS =
  'app: { serve: ./app }\nviewport: { width: 1280, height: 800, dpr: 1 }\nvariants:\n  phone: { viewport: { width: 375, dpr: 3, mobile: true }, cpuThrottle: 4 }\n  desktop: { viewport: { width: 1440 } }\nsteps:\n  - tap: x\n';

test('a variant deep-merges: objects key by key, scalars replace', () => {
  const sc = loadScenario(write(VARIANTS), { cwd: dir, variant: 'phone' });
  assert.deepEqual(sc.viewport, { width: 375, height: 800, dpr: 3, mobile: true, touch: false });
  assert.equal(sc.cpuThrottle, 4);
  assert.equal(sc.variant, 'phone');
});

test('--variant is required when variants exist, listing them', () => {
  const e = loadError(VARIANTS);
  assert.equal(e.code, 'variant_required');
  assert.match(e.message, /phone, desktop/);
});

test('an unknown variant lists the valid names', () => {
  const e = loadError(VARIANTS, { variant: 'tablet' });
  assert.equal(e.code, 'variant_unknown');
  assert.match(e.message, /unknown variant "tablet"; variants are: phone, desktop/);
});

test('--variant is refused when the scenario declares none', () => {
  const e = loadError(OK, { variant: 'phone' });
  assert.match(e.message, /declares no variants/);
});

test('a malformed budget is a load-time error at its line', () => {
  const e = loadError('app: { serve: ./app }\nsteps:\n  - tap: x\nbudgets:\n  - "durationMs < 100"\n  - "frames.painted about 3"\n');
  assert.match(e.message, /:6:5: malformed budget "frames.painted about 3": expected "<metric> <op> <number>"/);
});

const BUDGETS_HEAD = 'app: { serve: ./app }\nsteps:\n  - tap: x\nbudgets:\n';

test("budgets with units: the limit is stored in the metric's own unit (s → ms, KB/MB = KiB/MiB → bytes), the unit kept", () => {
  const written = [
    'durationMs <= 2.5s',
    'durationMs < 800ms',
    'durationMs <= 1.1s',
    'process.maxRssBytes <= 1.5MB',
    'process.maxRssBytes <= 300KiB',
    'process.maxRssBytes < 300 KB',
    'process.maxRssBytes < 2048B',
    'counters.heapDeltaBytes > -2MiB',
    'counters.layouts.perFrame <= 2',
  ];
  const sc = loadScenario(write(BUDGETS_HEAD + written.map((b) => `  - "${b}"\n`).join('')), { cwd: dir });
  assert.deepEqual(
    sc.budgets.map((b) => [b.limit, b.unit ?? null]),
    [
      [2500, 's'],
      [800, 'ms'],
      [1100, 's'], // not 1100.0000000000002: a median of exactly 1100 ms passes
      [1.5 * 1024 * 1024, 'MB'],
      [300 * 1024, 'KiB'],
      [300 * 1024, 'KB'],
      [2048, 'B'],
      [-2 * 1024 * 1024, 'MiB'],
      [2, null],
    ],
  );
  assert.deepEqual(
    sc.budgets.map((b) => b.expr),
    written,
  );
});

test('a limit written in any unit reads back as written: 10,000 decimals with up to 3 places, every unit', () => {
  let seed = 29;
  const rand = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let i = 0; i < 10_000; i++) {
    const unit = BUDGET_UNIT_NAMES[i % BUDGET_UNIT_NAMES.length]!;
    const n = Number((rand() * 10 ** (1 + (i % 5))).toFixed(i % 4));
    const limit = toMetricUnit(n, unit);
    assert.equal(limitInBudgetUnit(limit, unit), `${n} ${unit}`);
    if (BUDGET_UNITS[unit].factor === 1000) assert.ok(Number.isInteger(limit), `${n} ${unit} → ${limit} ms`);
  }
});

test('a unit that does not fit the metric, or is no unit, is a load-time error naming its line and the budget', () => {
  const load = (b: string): PerfError => loadError(`${BUDGETS_HEAD}  - "durationMs < 100"\n  - "${b}"\n`);
  assert.match(load('durationMs < 3KB').message, /s\d+\.yaml:6:5: budget 2: durationMs takes a time \(ms, s\), not KB$/);
  assert.match(
    load('process.maxRssBytes < 3s').message,
    /:6:5: budget 2: process\.maxRssBytes takes a size \(B, KB, KiB, MB, MiB\), not s$/,
  );
  assert.match(load('frames.painted > 3ms').message, /:6:5: budget 2: frames\.painted is a count and takes no unit, not ms$/);
  const lower = load('durationMs < 300kb');
  assert.match(lower.message, /:6:5: budget 2: unknown unit "kb" in "durationMs < 300kb"; did you mean "KB"\?$/);
  assert.match(lower.suggestion ?? '', /KB = KiB = 1024 bytes/);
  assert.match(load('durationMs < 3 parsecs').message, /:6:5: budget 2: unknown unit "parsecs"/);
  // In a variant (its list replaces the top one), at the variant's line.
  const variant = (b: string): PerfError =>
    loadError(`${BUDGETS_HEAD}  - "durationMs < 100"\nvariants:\n  a:\n    budgets:\n      - "${b}"\n  b: {}\n`, { variant: 'a' });
  assert.match(variant('durationMs < 3KB').message, /:9:9: budget 1: durationMs takes a time/);
  assert.match(variant('durationMs < 3kb').message, /:9:9: budget 1: unknown unit "kb"/);
  const file = write(`${BUDGETS_HEAD}  - "durationMs < 100"\n  - "counters.layouts < 2KB"\n`);
  const r = spawnSync(process.execPath, [join(ROOT, 'bin/perf'), 'validate', file], { timeout: 120_000, cwd: ROOT, encoding: 'utf8' });
  assert.equal(r.status, 2, 'a wrong unit is a usage error: exit 2, before any browser starts');
  assert.match(r.stderr, /:6:5: budget 2: counters\.layouts is a count and takes no unit, not KB/);
});

test('a KB budget is judged on the median in bytes and keeps its unit for the reports', () => {
  const sc = loadScenario(write(`${BUDGETS_HEAD}  - "process.maxRssBytes <= 300KB"\n  - "durationMs <= 1.1s"\n`), { cwd: dir });
  const judge = (rssBytes: number, durationMs: number): BudgetResult[] =>
    judgeBudgets(sc.budgets, { 'process.maxRssBytes': { median: rssBytes }, durationMs: { median: durationMs } }, []);
  const over = judge(412 * 1024, 1100);
  assert.deepEqual(over[0], {
    expr: 'process.maxRssBytes <= 300KB',
    metric: 'process.maxRssBytes',
    op: '<=',
    limit: 307_200,
    unit: 'KB',
    value: 421_888,
    pass: false,
  });
  assert.equal(over[1]!.pass, true, '1100 ms is within 1.1 s');
  assert.deepEqual(
    judge(300 * 1024, 1100.1).map((b) => b.pass),
    [true, false],
  );
  assert.equal(judge(300 * 1000, 0)[0]!.pass, true, '300,000 bytes are within 300 KB (KiB), not over a decimal 300 kB');
});

test('an unknown metric in a budget, a threshold or gate.metrics names its line and the closest registry name', () => {
  const budget = loadError('app: { serve: ./app }\nsteps:\n  - tap: x\nbudgets:\n  - "counters.layout.perFrame <= 2"\n');
  assert.equal(budget.code, 'scenario_invalid');
  assert.match(budget.message, /:5:5: unknown metric "counters\.layout\.perFrame"; did you mean "counters\.layouts\.perFrame"/);
  assert.ok(budget.candidates?.includes('counters.layouts.perFrame'));
  const gate = loadError('app: { serve: ./app }\nsteps:\n  - tap: x\ngate:\n  metrics: [counters.layouts, frames.overbudget]\n');
  assert.match(gate.message, /:5:31: unknown metric "frames\.overbudget"; did you mean "frames\.overBudget"/);
  const threshold = loadError('app: { serve: ./app }\nsteps:\n  - tap: x\nthresholds:\n  metrics:\n    durationMS: { warn: 5% }\n');
  assert.match(threshold.message, /:6:5: unknown metric "durationMS"; did you mean "durationMs"/);
});

test('gate.metrics replaces the primary family; steps.<label>.ms needs a measured step with that label', () => {
  const sc = loadScenario(
    write(
      'app: { serve: ./app }\nsteps:\n  - tap: { target: { text: x }, label: open }\ngate:\n  metrics: [counters.threadCpuMs.perFrame, steps.open.ms]\n',
    ),
    { cwd: dir },
  );
  assert.deepEqual(sc.gate, { metrics: ['counters.threadCpuMs.perFrame', 'steps.open.ms'] });
  const e = loadError('app: { serve: ./app }\nsteps:\n  - tap: { target: { text: x }, label: open }\ngate:\n  metrics: [steps.close.ms]\n');
  assert.match(e.message, /unknown metric "steps\.close\.ms" \(no measured step is labelled "close"; labels: open\)/);
});

test('an unclosed flow map, flow list or quote is reported where the parser stopped and where it opened', () => {
  const map = loadError('app: { serve: ./app\nsteps:\n  - tap: x\n');
  assert.match(map.message, /:2:1: invalid YAML: .*; the "\{" opened at s\d+\.yaml:1:6 is not closed$/);
  const list = loadError("name: don't\nvars: [a, b\nsteps:\n  - tap: x\n");
  assert.match(list.message, /; the "\[" opened at s\d+\.yaml:2:7 is not closed$/);
  const quote = loadError('app: { serve: "./app }\nsteps:\n  - tap: x\n');
  assert.match(quote.message, /; the quote opened at s\d+\.yaml:1:15 is not closed$/);
});

test('a duplicate key names its second occurrence', () => {
  const e = loadError('app: { serve: ./app }\nsteps:\n  - tap: x\nrepeat: 3\nrepeat: 4\n');
  assert.match(e.message, /:5:1: invalid YAML: duplicate key "repeat"$/);
});

test('a file over 1 MiB is refused before parsing, naming the limit', () => {
  const e = loadError('app: { serve: ./app }\nsteps:\n  - tap: x\n# ' + 'x'.repeat(2 ** 20) + '\n');
  assert.equal(e.code, 'scenario_too_large');
  assert.match(e.message, /1\.0 MiB; a scenario may be at most 1 MiB/);
});

test('a step list over 5,000 steps is refused naming the list, the count and the limit', () => {
  const e = loadError('app: { serve: ./app }\nsteps:\n' + '  - tap: x\n'.repeat(5001));
  assert.equal(e.code, 'scenario_invalid');
  assert.match(e.message, /steps has 5001 steps; a list may have at most 5000/);
  assert.equal(e.kind, 'usage');
});

test('serve outside the project (/, a parent, a symlink out) is refused at its line unless allowOutside', () => {
  const root = loadError('app: { serve: "/" }\nsteps:\n  - tap: x\n');
  assert.match(root.message, /s\d+\.yaml:1:\d+: .*app\.serve: \/ is the file system root/);
  assert.match(root.suggestion ?? '', /--allow-outside/);
  assert.match(loadError('name: p\napp:\n  serve: ..\nsteps:\n  - tap: x\n').message, /:3:\d+: .* is a parent of the project/);
  symlinkSync('/usr', join(dir, 'out-link'));
  assert.match(loadError('app: { serve: ./out-link/share }\nsteps:\n  - tap: x\n').message, /\/usr\/share is outside the project/);
  assert.equal(loadScenario(write('app: { serve: "/" }\nsteps:\n  - tap: x\n'), { cwd: dir, allowOutside: true }).app.serve, '/');
  // Inside the scenario's folder (even before it is built) is fine.
  assert.equal(loadScenario(write('app: { serve: ./dist }\nsteps:\n  - tap: x\n'), { cwd: dir }).app.serve, join(dir, 'dist'));
});

test('a map of 50,000 keys parses in linear time (the duplicate check is one pass)', () => {
  const keys = Array.from({ length: 50_000 }, (_, i) => `  k${i}: ${i}`).join('\n');
  const sc = loadScenario(write(`app: { serve: ./app }\nvars:\n${keys}\nsteps:\n  - tap: x\n`), { cwd: dir });
  assert.equal(Object.keys(sc.vars).length, 50_000);
});

test('`perf validate`: an alias bomb is a scenario error at the first alias, exit 2, and the other files are still checked; control bytes are never echoed raw', () => {
  const bomb = write(
    'app: { serve: ./app }\nsteps:\n  - tap: x\nvars:\n  a: &a [x,x,x,x,x,x,x,x,x,x]\n  b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\n  c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\n  d: [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\n',
  );
  const escape = write('app: { serve: ./app }\nsteps:\n  - "\x1b]0;pwned\x07\x1b[31mtap": x\n');
  const good = write(OK);
  const r = spawnSync(process.execPath, [join(ROOT, 'bin/perf'), 'validate', bomb, escape, good], {
    timeout: 120_000,
    cwd: dir,
    encoding: 'utf8',
  });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /:6:\d+: invalid YAML: Excessive alias count/);
  assert.ok(r.stdout.includes(`ok  ${good}\n`), r.stdout);
  assert.doesNotMatch(r.stderr, /\x1b|\x07/);
  assert.match(r.stderr, /\\u001b\]0;pwned\\u0007\\u001b\[31mtap/);
});

test('app without a source, or with two, is refused', () => {
  assert.match(loadError('app: { path: /x }\nsteps:\n  - tap: x\n').message, /app needs one of serve/);
  assert.match(loadError('app: { serve: ./a, command: "x" }\nsteps:\n  - tap: x\n').message, /got serve and command/);
});

test('a step item with two keys says to split it', () => {
  const e = loadError('app: { serve: ./app }\nsteps:\n  - tap: x\n    fill: y\n');
  assert.match(e.message, /:3:5: a step is one key \(the step name\), got 2: tap, fill/);
});

test('thresholds parse "10%" and per-metric overrides', () => {
  const sc = loadScenario(
    write(
      'app: { serve: ./app }\nsteps:\n  - tap: x\nthresholds: { warn: 5%, error: "30 %", metrics: { "frames.overBudget": { error: 5% } } }\n',
    ),
    { cwd: dir },
  );
  assert.deepEqual(sc.thresholds, { warnPct: 5, errorPct: 30, metrics: { 'frames.overBudget': { errorPct: 5 } } });
});

test("scenario.schema.json: under 128 KB, each shared piece defined once, the examples valid, and an unknown argument reported at its step by an editor's validator", () => {
  const text = readFileSync(join(ROOT, 'scenario.schema.json'), 'utf8');
  // 128 KB: an editor loads it at once (the YAML language server takes schemas of megabytes); the bound is
  // here to catch a shared piece copied into every step, which would multiply the file, not a new step.
  assert.ok(text.length < 128 * 1024, `${text.length} bytes`);
  const schema = JSON.parse(text) as { definitions: Record<string, unknown> };
  // A $ref only where a schema goes: never as the value of a map keyword such as properties.
  assert.doesNotMatch(text, /"(properties|definitions|patternProperties)": \{\s*"\$ref"/);
  assert.ok(schema.definitions.target && schema.definitions.step);
  const validate = new Ajv({ strict: false }).compile(schema);
  for (const f of readdirSync(join(ROOT, 'scenarios')).filter((n) => n.endsWith('.yaml'))) {
    assert.equal(
      validate(parseYaml(readFileSync(join(ROOT, 'scenarios', f), 'utf8'))),
      true,
      `${f}: ${JSON.stringify(validate.errors?.[0])}`,
    );
  }
  assert.equal(validate({ app: { serve: './app' }, steps: ['snap', { tap: 'Go' }, { tap: { target: { text: 'x' }, bogus: 1 } }] }), false);
  const first = validate.errors![0]!;
  assert.equal(first.instancePath, '/steps/2/tap');
  assert.deepEqual(first.params, { additionalProperty: 'bogus' });
});

test('scenario.schema.json at the repo root is in sync with the step registry', () => {
  const committed = JSON.parse(readFileSync(join(ROOT, 'scenario.schema.json'), 'utf8')) as unknown;
  assert.deepEqual(
    committed,
    JSON.parse(JSON.stringify(scenarioSchema({ forEditors: true }))),
    'run `./bin/perf schema > scenario.schema.json`',
  );
});

test('every example scenario validates (all variants) through `perf validate`, exit 0', () => {
  const files = readdirSync(join(ROOT, 'scenarios'))
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => `scenarios/${f}`);
  assert.ok(files.length >= 5);
  const r = spawnSync(process.execPath, [join(ROOT, 'bin/perf'), 'validate', ...files], { timeout: 120_000, cwd: ROOT, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim().split('\n').length, files.length);
});

test('`perf validate` of a broken file exits 2 with file:line:col and no stack', () => {
  const file = write('app: { serve: ./app }\nsteps:\n  - tapp: x\n');
  const r = spawnSync(process.execPath, [join(ROOT, 'bin/perf'), 'validate', file], { timeout: 120_000, cwd: ROOT, encoding: 'utf8' });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /:3:5: unknown step "tapp"; did you mean "tap"/);
  assert.doesNotMatch(r.stderr, /\n\s+at /);
});
