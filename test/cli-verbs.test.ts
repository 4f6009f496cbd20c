/**
 * CLI step verbs: flags read from the step's schema (unit tests on a local step declaration), and
 * `perf <step>` across separate processes against one `perf start` session, sharing refs.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parseVerbArgs } from '../src/cli/verbs.js';
import { isPerfError } from '../src/errors.js';
import { defineStep, TARGET_ARGS } from '../src/steps/define.js';
import { STEPS } from '../src/steps/registry.js';
import { DEMO_DIR, refOf, ROOT } from './helpers.js';

const PERF = path.join(ROOT, 'bin', 'perf');
const has = (step: string): boolean => STEPS.some((s) => s.name === step);
const needs = (...steps: string[]): { skip: string | false } => {
  const missing = steps.filter((s) => !has(s));
  return { skip: missing.length ? `waiting for step(s): ${missing.join(', ')}` : false };
};

// A step declared here only to exercise flag parsing; it is never registered or run.
const probe = defineStep({
  name: 'verb_probe',
  description: 'Test-only step.',
  args: {
    type: 'object',
    properties: {
      ...TARGET_ARGS,
      text: { type: 'string', description: 'Text.' },
      interactiveOnly: { type: 'boolean', description: 'Flag.' },
      depth: { type: 'integer', description: 'Depth.' },
      value: { anyOf: [{ type: 'boolean' }, { type: 'string', enum: ['true', 'false'] }], description: 'Checked.' },
      keys: { type: 'array', items: { type: 'string' }, description: 'Keys.' },
    },
  },
  readOnly: true,
  actsOnTarget: true,
  shorthand: (value) => ({ target: { text: value } }),
  run: async () => ({}),
});

function parse(...argv: string[]): Record<string, unknown> {
  return parseVerbArgs(probe, argv).args;
}

function usageMessage(...argv: string[]): string {
  try {
    parse(...argv);
  } catch (e) {
    assert.ok(isPerfError(e));
    assert.equal(e.kind, 'usage');
    return e.message;
  }
  assert.fail('expected a usage error');
}

describe('flags from the schema', () => {
  test('--ref and --text "a b" as strings; kebab-case maps to camelCase', () => {
    assert.deepEqual(parse('--ref', 'e5', '--text', 'a b', '--interactive-only'), { ref: 'e5', text: 'a b', interactiveOnly: true });
  });

  test('numbers coerced by the schema type: --timeout-ms 3000 and --depth=2', () => {
    assert.deepEqual(parse('--timeout-ms', '3000', '--depth=2'), { timeoutMs: 3000, depth: 2 });
  });

  test('a number-looking value stays text where the schema takes text', () => {
    assert.deepEqual(parse('--text', '42'), { text: '42' });
  });

  test('booleans: bare flag, --flag=false, --flag false, --no-flag', () => {
    assert.deepEqual(parse('--interactive-only=false'), { interactiveOnly: false });
    assert.deepEqual(parse('--interactive-only', 'false'), { interactiveOnly: false });
    assert.deepEqual(parse('--no-interactive-only'), { interactiveOnly: false });
    assert.deepEqual(parse('--value'), { value: true });
    assert.deepEqual(parse('--value', 'false'), { value: false });
  });

  test('nested objects with dots, and as JSON', () => {
    assert.deepEqual(parse('--target.role', 'button', '--target.name', 'Submit'), { target: { role: 'button', name: 'Submit' } });
    assert.deepEqual(parse('--target', '{"text":"Add item"}', '--target.nth', '1'), { target: { text: 'Add item', nth: 1 } });
    assert.deepEqual(parse('--target.within.role', 'list'), { target: { within: { role: 'list' } } });
  });

  test('a list item by item, or as JSON', () => {
    assert.deepEqual(parse('--keys', 'a', '--keys', 'b'), { keys: ['a', 'b'] });
    assert.deepEqual(parse('--keys', '["x","y"]'), { keys: ['x', 'y'] });
  });

  test('a positional argument feeds the shorthand, flags merge over it', () => {
    assert.deepEqual(parse('Add item', '--target.nth', '0', '--snapshot', 'diff'), {
      target: { text: 'Add item', nth: 0 },
      snapshot: 'diff',
    });
  });

  test('an unknown flag names the closest valid flag, nested ones too', () => {
    assert.match(usageMessage('--interactiv-only'), /unknown flag --interactiv-only; did you mean --interactive-only\?/);
    assert.match(usageMessage('--target.rol', 'x'), /did you mean .*--target\.role\b/);
  });

  test('a flag missing its value, bad JSON, and two positionals are usage errors', () => {
    assert.match(usageMessage('--ref'), /--ref needs a value/);
    assert.match(usageMessage('--target', '{nope'), /--target: not valid JSON/);
    assert.match(usageMessage('a', 'b'), /at most one positional/);
  });
});

/** Run `perf … --json` in `cwd` (`text`: as a person types it); stdout parsed as JSON when it is. */
function perf(cwd: string, ...argv: string[]): { code: number; json: any; stdout: string; stderr: string } {
  const asText = argv[0] === 'text';
  const args = asText ? argv.slice(1) : argv.includes('--help') ? argv : [...argv, '--json'];
  const r = spawnSync(process.execPath, [PERF, ...args], { cwd, encoding: 'utf8', timeout: 60_000 });
  let json: unknown;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    json = undefined;
  }
  return { code: r.status ?? -1, json, stdout: r.stdout, stderr: r.stderr };
}

function snapshotOf(json: any): string {
  const data = (json?.data ?? {}) as Record<string, unknown>;
  const s = data.snapshot ?? data.text ?? data.yaml ?? Object.values(data).find((v) => typeof v === 'string' && v.includes('\n'));
  assert.equal(typeof s, 'string', JSON.stringify(json).slice(0, 300));
  return s as string;
}

describe('perf <step> without a session', () => {
  let cwd: string;
  before(() => {
    cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'rehearse-verbs-'));
  });
  after(() => fs.rmSync(cwd, { recursive: true, force: true }));

  test('with no session: exit 3 and a hint to run perf start', { ...needs('reload') }, () => {
    const r = perf(cwd, 'reload');
    assert.equal(r.code, 3);
    assert.match(r.stderr, /no session.*\n.*perf start/);
  });

  test('a bad flag exits 2 with the closest valid name, before needing a session', { ...needs('navigate') }, () => {
    const r = perf(cwd, 'navigate', '--ulr', '/form.html');
    assert.equal(r.code, 2);
    assert.match(r.stderr, /unknown flag --ulr; did you mean --url\?/);
  });

  test('a wrong value type exits 2 naming the argument', { ...needs('navigate') }, () => {
    const r = perf(cwd, 'navigate', '/x', '--timeout-ms', 'soon');
    assert.equal(r.code, 2);
    assert.match(r.stderr, /navigate\.timeoutMs: must be number/);
  });

  test('perf <step> --help lists each argument with its type and description', { ...needs('navigate') }, () => {
    const r = perf(cwd, 'navigate', '--help');
    assert.equal(r.code, 0);
    assert.match(r.stdout, /^Usage: perf navigate/);
    assert.match(r.stdout, /--timeout-ms N\s+Default 30000\./);
    assert.match(r.stdout, /--optional\s+When true/);
  });
});

describe('perf <step> against a perf start session', { skip: STEPS.length ? false : 'no step registered yet' }, () => {
  let cwd: string;
  before(() => {
    cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'rehearse-verbs-'));
    // The app inside the working folder, as in a project: serve stays inside it.
    fs.cpSync(DEMO_DIR, path.join(cwd, 'app'), { recursive: true });
    const start = perf(cwd, 'start', '--serve', 'app', '--path', '/list.html');
    assert.equal(start.code, 0, start.stderr);
  });
  after(() => {
    perf(cwd, 'stop');
    fs.rmSync(cwd, { recursive: true, force: true });
  });

  test('refs minted by one invocation work in the next (snap, then tap --ref)', { ...needs('snap', 'tap', 'navigate') }, () => {
    const snap = perf(cwd, 'snap', '--interactive-only');
    assert.equal(snap.code, 0, snap.stderr);
    const ref = refOf(snapshotOf(snap.json), 'button', 'Add item');
    const tap = perf(cwd, 'tap', '--ref', ref);
    assert.equal(tap.code, 0, tap.stderr + tap.stdout);
    assert.equal(tap.json.status, 'ok');
    assert.equal(tap.json.effect.treeChanged.changed, true);
    const check = perf(cwd, 'snap', '--grep', '2001 items');
    assert.match(snapshotOf(check.json), /2001 items/);
  });

  test(
    'fill --ref --text "a b" prints the effect read back; tap "TEXT" uses the shorthand',
    { ...needs('snap', 'fill', 'tap', 'navigate') },
    () => {
      assert.equal(perf(cwd, 'navigate', '/list.html').code, 0);
      const ref = refOf(snapshotOf(perf(cwd, 'snap', '--interactive-only').json), 'textbox', 'Filter');
      const fill = perf(cwd, 'fill', '--ref', ref, '--text', 'Item 19');
      assert.equal(fill.code, 0, fill.stderr);
      assert.equal(fill.json.effect.text.value, 'Item 19');
      assert.equal(fill.json.effect.text.verified, true);
      const tap = perf(cwd, 'tap', 'Add item');
      assert.equal(tap.code, 0, tap.stderr);
    },
  );

  test('a failed step exits 1 and prints the error JSON (--json), as text only its message and hint on stderr', { ...needs('tap') }, () => {
    const r = perf(cwd, 'tap', '--target.text', 'No such thing', '--timeout-ms', '300');
    assert.equal(r.code, 1, r.stderr);
    assert.equal(typeof r.json.code, 'string');
    assert.equal(typeof r.json.message, 'string');
    const t = perf(cwd, 'text', 'tap', '--target.text', 'No such thing', '--timeout-ms', '300');
    assert.equal(t.code, 1);
    assert.equal(t.stdout, '');
    assert.match(t.stderr, /^perf tap: .*No such thing/m);
  });

  test('a step prints text for people: a snapshot as its own lines, no JSON escapes; --json the same data', { ...needs('snap') }, () => {
    const text = perf(cwd, 'text', 'snap', '--interactive-only');
    assert.equal(text.code, 0, text.stderr);
    assert.equal(text.json, undefined, 'not JSON');
    assert.doesNotMatch(text.stdout, /\\n/, 'no \\n escapes');
    assert.match(text.stdout, /^status: ok$/m);
    const json = perf(cwd, 'snap', '--interactive-only');
    const snapshot = snapshotOf(json.json);
    // Every line of the JSON's snapshot is a line of the text (refs are stable between the two invocations).
    const lines = new Set(text.stdout.split('\n'));
    const missing = snapshot.split('\n').filter((l) => l && !lines.has(l));
    assert.deepEqual(missing, [], text.stdout);
    assert.ok(snapshot.split('\n').length > 3, snapshot);
  });

  test('screenshot writes the image to --path and prints the path', { ...needs('screenshot') }, () => {
    const file = path.join(cwd, 'shot.png');
    const r = perf(cwd, 'screenshot', '--path', file);
    assert.equal(r.code, 0, r.stderr);
    const written = (r.json.image?.path ?? r.json.data?.path) as string;
    assert.equal(path.resolve(cwd, written), file);
    assert.equal(fs.readFileSync(file).subarray(1, 4).toString(), 'PNG');
  });

  test('screenshot without --path writes ./screenshot-<time>.png in the current folder', { ...needs('screenshot') }, () => {
    const r = perf(cwd, 'screenshot', '--format', 'jpeg');
    assert.equal(r.code, 0, r.stderr);
    const file = r.json.image.path as string;
    assert.match(path.basename(file), /^screenshot-\d{4}-\d\d-\d\dT[\d-]+Z\.jpg$/);
    assert.equal(path.dirname(fs.realpathSync(file)), fs.realpathSync(cwd));
    assert.equal(r.json.image.bytes, fs.statSync(file).size);
    assert.equal(fs.readFileSync(file)[0], 0xff, 'a JPEG starts with 0xFF 0xD8');
  });
});
