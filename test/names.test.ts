/**
 * Names become file names: a variant name, a run label or a --variant outside [a-z0-9_-] is exit 2
 * (at the variant's line:col, or naming the flag) through the built CLI and MCP, before any browser
 * starts; and the paths built from names are checked on their resolved form to stay in their folder.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { PerfError } from '../src/errors.js';
import { baselinePath } from '../src/cli/gate.js';
import { loadScenario } from '../src/scenario/load.js';
import { runScenario } from '../src/runner/run.js';
import { DEMO_DIR, ROOT } from './helpers.js';

// Two levels down, so `../..` from the baselines folder still lands inside `top` where the test looks.
const top = mkdtempSync(join(tmpdir(), 'rehearse-names-'));
const work = join(top, 'a', 'b');
mkdirSync(work, { recursive: true });
after(() => rmSync(top, { recursive: true, force: true }));
cpSync(DEMO_DIR, join(work, 'app'), { recursive: true });
const PERF = join(ROOT, 'bin/perf');

function perf(args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [PERF, ...args], { cwd: work, encoding: 'utf8', timeout: 120_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** Every file below `top`, as paths relative to it. */
function allFiles(): string[] {
  return readdirSync(top, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(top.length + 1));
}

const ESCAPING = 'x/../../../outside';
const FORM = 'app: { serve: ./app, path: /form.html }\nrepeat: 1\nwarmup: 0\n';
writeFileSync(join(work, 'escape.yaml'), `${FORM}variants:\n  ok: {}\n  ${ESCAPING}: {}\nsteps:\n  - tap: Submit\n`);
writeFileSync(join(work, 'form.yaml'), `${FORM}steps:\n  - tap: Submit\n`);

test('a variant named x/../../../outside: exit 2 at its line:col (run, validate, gate --update)', { timeout: 120_000 }, () => {
  const before = allFiles();
  const gate = ['gate', 'escape.yaml', '--update', '--baselines', 'b'];
  const commands = [['run', 'escape.yaml', '--variant', 'ok'], ['validate', 'escape.yaml'], gate];
  for (const args of commands) {
    const r = perf(args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    const want = /escape\.yaml:6:3: variant name "x\/\.\.\/\.\.\/\.\.\/outside" may only use a-z, 0-9, _ and -/;
    assert.match(r.stderr, want, args.join(' '));
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  }
  assert.deepEqual(allFiles(), before, 'no run file, baseline or folder was written anywhere');
});

test('--label and --variant outside [a-z0-9_-]: exit 2 naming the flag (run, --against, gate, selftest)', { timeout: 120_000 }, () => {
  const cases: [string[], RegExp][] = [
    [['run', 'form.yaml', '--label', '../x'], /run: --label "\.\.\/x" may only use a-z, 0-9, _ and -/],
    [['run', 'form.yaml', '--label', 'Main'], /run: --label "Main" may only use/],
    [['run', 'form.yaml', '--against', 'form.yaml', '--label', '../x'], /run: --label "\.\.\/x" may only use/],
    [['run', 'escape.yaml', '--variant', '../x'], /run: --variant "\.\.\/x" may only use a-z, 0-9, _ and -/],
    [['gate', 'escape.yaml', '--variant', '../x'], /gate: --variant "\.\.\/x" may only use/],
    [['selftest', 'escape.yaml', '--variant', '../x'], /selftest: --variant "\.\.\/x" may only use/],
  ];
  const before = allFiles();
  for (const [args, want] of cases) {
    const r = perf(args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, want, args.join(' '));
  }
  assert.deepEqual(allFiles(), before);
});

test('MCP perf_run: a label or variant outside [a-z0-9_-] is an error naming it, with the rule', { timeout: 120_000 }, async () => {
  const env = { ...(process.env as Record<string, string>) };
  const transport = new StdioClientTransport({ command: process.execPath, args: [PERF, 'mcp'], cwd: work, env, stderr: 'pipe' });
  const client = new Client({ name: 'rehearse-names-test', version: '0.0.0' });
  await client.connect(transport);
  try {
    for (const [args, want] of [
      [{ scenario: 'form.yaml', label: '../x' }, /perf_run\.label: string "\.\.\/x" may only use a-z, 0-9, _ and -/],
      [{ scenario: 'escape.yaml', variant: ESCAPING }, /perf_run\.variant: string "x\/\.\.\/\.\.\/\.\.\/outside" may only use/],
    ] as const) {
      type Reply = { isError?: boolean; content: { type: string; text?: string }[] };
      const res = (await client.callTool({ name: 'perf_run', arguments: args })) as Reply;
      assert.equal(res.isError, true);
      const reply = JSON.parse(res.content.find((c) => c.type === 'text')?.text ?? '{}') as { code?: string; message?: string };
      assert.equal(reply.code, 'invalid_arguments');
      assert.match(reply.message ?? '', want);
    }
  } finally {
    await client.close();
  }
});

test('paths built from names are checked resolved: a baseline or run file leaving its folder is refused', { timeout: 60_000 }, async () => {
  const dir = join(work, 'baselines');
  assert.equal(baselinePath(dir, { name: 'list', variant: 'phone' }), join(dir, 'list-phone.json'));
  // A scenario name from a file name may hold dots: still a file in the folder.
  assert.equal(baselinePath(dir, { name: '..', variant: null }), join(dir, '...json'));
  for (const sc of [
    { name: 'list', variant: '../../outside' },
    { name: '../outside', variant: null },
  ]) {
    const outside = (e: unknown): boolean => e instanceof PerfError && e.code === 'path_outside_folder' && e.kind === 'usage';
    assert.throws(() => baselinePath(dir, sc), outside);
  }
  // The runner checks its run file the same way, before any app or browser starts.
  const sc = { ...loadScenario(join(work, 'form.yaml'), { cwd: work }), name: '../../../outside' };
  const run = runScenario(sc, { label: 'run', outDir: join(work, 'out'), cwd: work });
  await assert.rejects(run, (e: unknown) => e instanceof PerfError && e.code === 'path_outside_folder');
  assert.equal(existsSync(join(work, 'out')), false);
});
