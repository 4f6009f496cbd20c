/**
 * The build's precompiled validators (src/precompiled.ts, tools/gen-validators.ts): every listed schema has one,
 * and it answers exactly as ajv.compile of the same schema under the same options (result and errors), on
 * valid inputs and on broken ones. A schema that changed since the build finds none, so it compiles at run time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { parse } from 'yaml';
import { precompiledValidator, type AjvSetup } from '../src/precompiled.js';
import { SCHEMAS } from '../tools/validator-schemas.js';
import { RUN_FILE_SCHEMA } from '../src/perf/run-file.js';
import { scenarioSchema } from '../src/scenario/schema.js';
import { getStep, stepArgsSchema } from '../src/steps/registry.js';
import { childOutput, ROOT } from './helpers.js';

function both(setup: AjvSetup, schema: object): [ValidateFunction, ValidateFunction] {
  const pre = precompiledValidator(setup, schema);
  assert.ok(pre, `a precompiled ${setup} validator (npm run build generates them)`);
  return [pre, new Ajv(SCHEMAS[setup].options).compile(schema)];
}

/** Both validators on `data`: the same verdict and the same errors (schemas compared by content). */
function agree(pair: [ValidateFunction, ValidateFunction], data: unknown, expectValid: boolean, what: string): void {
  const [pre, rt] = pair;
  assert.equal(pre(data), expectValid, `${what}: precompiled`);
  assert.equal(rt(data), expectValid, `${what}: run time`);
  assert.deepEqual(JSON.parse(JSON.stringify(pre.errors ?? null)), JSON.parse(JSON.stringify(rt.errors ?? null)), what);
}

test('every listed schema has a precompiled validator', () => {
  let n = 0;
  for (const [setup, { schemas }] of Object.entries(SCHEMAS) as [AjvSetup, (typeof SCHEMAS)[AjvSetup]][]) {
    for (const s of schemas) {
      assert.equal(typeof precompiledValidator(setup, s), 'function');
      n++;
    }
  }
  assert.ok(n > 40, `${n} schemas`);
});

test('run files: the committed baselines pass, broken copies fail with the same errors', () => {
  const pair = both('files', RUN_FILE_SCHEMA);
  const dir = join(ROOT, 'baselines');
  for (const f of readdirSync(dir)) {
    const run = JSON.parse(readFileSync(join(dir, f), 'utf8')) as { repeats: { index: unknown }[]; summary: unknown };
    agree(pair, run, true, f);
    agree(pair, { ...run, repeats: [{ ...run.repeats[0], index: 'x' }] }, false, `${f} with a string index`);
    agree(pair, { ...run, summary: undefined }, false, `${f} without a summary`);
  }
});

test('scenarios and step arguments: the bundled examples pass, broken ones fail with the same errors', () => {
  const pair = both('args', scenarioSchema({ forEditors: false }));
  const dir = join(ROOT, 'scenarios');
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.yaml'))) {
    const sc = parse(readFileSync(join(dir, f), 'utf8')) as Record<string, unknown>;
    agree(pair, sc, true, f);
    agree(pair, { ...sc, repeat: 'many', stesp: [] }, false, `${f} with a bad repeat and a misspelt key`);
  }
  const tap = both('args', stepArgsSchema(getStep('tap')));
  agree(tap, { target: { text: 'Go' } }, true, 'tap');
  agree(tap, { target: { text: 'Go' }, timeoutMs: 'soon', clicks: 2 }, false, 'tap with bad arguments');
});

test('a schema that changed since the build has no precompiled validator', () => {
  assert.equal(precompiledValidator('files', { ...RUN_FILE_SCHEMA, description: 'changed' }), undefined);
  assert.equal(precompiledValidator('args', { type: 'object', properties: { x: { type: 'string' } } }), undefined);
});

// npm runs the generator (`prepack`, through `npm run build`) inside `npm pack --json` and `npm publish --json`: its stdout must stay empty, or
// their JSON document arrives prefixed by the summary line (measured on a fresh clone: JSON.parse failed on "gen-valida…").
test('the generator writes its summary to stderr and nothing to stdout', { timeout: 120_000 }, async () => {
  const r = await childOutput(process.execPath, [join(ROOT, 'dist', 'tools', 'gen-validators.js')], { cwd: ROOT, timeoutMs: 110_000 });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /^gen-validators: \d+ validators written/);
});
