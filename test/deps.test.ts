import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './helpers.js';

const CRUISE = join(ROOT, 'node_modules/.bin/depcruise');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');

/** depcruise with our rules over a throwaway tree of `files` (path → source). */
function cruise(files: Record<string, string>): { code: number; out: string } {
  const dir = mkdtempSync(join(tmpdir(), 'rehearse-deps-'));
  try {
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext' } }));
    // Our packages, so an import of a library resolves to its node_modules path as in the project.
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(dir, path, '..'), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    const r = spawnSync(CRUISE, ['src', '--config', CONFIG], { timeout: 120_000, cwd: dir, encoding: 'utf8' });
    return { code: r.status ?? -1, out: r.stdout + r.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('the layer rules pass on our own source', () => {
  const r = spawnSync(CRUISE, ['src', 'reporters', '--config', CONFIG], { timeout: 120_000, cwd: ROOT, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stdout + r.stderr);
});

test('a driver importing a step, a cycle, and CDP (the client or its types) outside the CDP driver are each refused', () => {
  const up = cruise({
    'src/drivers/cdp/x.ts': "import { y } from '../../steps/y.js';\nexport const x = y;\n",
    'src/steps/y.ts': 'export const y = 1;\n',
  });
  assert.notEqual(up.code, 0, up.out);
  assert.match(up.out, /drivers-points-down: src\/drivers\/cdp\/x\.ts → src\/steps\/y\.ts/);
  const cycle = cruise({
    'src/perf/a.ts': "import { b } from './b.js';\nexport const a = b;\n",
    'src/perf/b.ts': "import { a } from './a.js';\nexport const b = () => a;\n",
  });
  assert.notEqual(cycle.code, 0, cycle.out);
  assert.match(cycle.out, /no-circular/);
  const cdp = cruise({ 'src/steps/z.ts': "import CDP from 'chrome-remote-interface';\nexport const z = CDP;\n" });
  assert.notEqual(cdp.code, 0, cdp.out);
  assert.match(cdp.out, /cdp-client-in-cdp-driver-only: src\/steps\/z\.ts/);
  // A types-only package (nothing to resolve at run time) counts too.
  const types = cruise({
    'src/perf/t.ts': "import type { Protocol } from 'devtools-protocol';\nexport type T = Protocol.Profiler.Profile;\n",
  });
  assert.notEqual(types.code, 0, types.out);
  assert.match(types.out, /cdp-client-in-cdp-driver-only: src\/perf\/t\.ts → devtools-protocol/);
});

test('steps see only src/page; page and perf see only the driver contract, not a driver', () => {
  const step = cruise({
    'src/steps/s.ts': "import { p } from '../drivers/page-driver.js';\nexport const s = p;\n",
    'src/drivers/page-driver.ts': 'export const p = 1;\n',
  });
  assert.notEqual(step.code, 0, step.out);
  assert.match(step.out, /steps-points-down: src\/steps\/s\.ts → src\/drivers\/page-driver\.ts/);
  const page = cruise({
    'src/page/q.ts': "import { c } from '../drivers/cdp/c.js';\nexport const q = c;\n",
    'src/drivers/cdp/c.ts': 'export const c = 1;\n',
  });
  assert.notEqual(page.code, 0, page.out);
  assert.match(page.out, /one-driver-behind-the-contract: src\/page\/q\.ts → src\/drivers\/cdp\/c\.ts/);
  const contract = cruise({
    'src/page/q.ts': "import { p } from '../drivers/page-driver.js';\nexport const q = p;\n",
    'src/drivers/page-driver.ts': 'export const p = 1;\n',
  });
  assert.equal(contract.code, 0, contract.out);
  const across = cruise({
    'src/drivers/webdriver/w.ts': "import { c } from '../cdp/c.js';\nexport const w = c;\n",
    'src/drivers/cdp/c.ts': 'export const c = 1;\n',
  });
  assert.notEqual(across.code, 0, across.out);
  assert.match(across.out, /no-driver-imports-another: src\/drivers\/webdriver\/w\.ts → src\/drivers\/cdp\/c\.ts/);
});

test('the page runtime is typed: a misspelt method, wrong arguments or a result read with the wrong shape fail tsc', () => {
  const dir = mkdtempSync(join(ROOT, 'test', '.tmp-runtime-'));
  try {
    const file = join(dir, 'probe.ts');
    writeFileSync(
      file,
      [
        "import { callRuntime } from '../../src/drivers/cdp/page-runtime.js';",
        "import type { Page } from '../../src/drivers/cdp/browser.js';",
        'export async function probe(page: Page): Promise<void> {',
        "  await callRuntime(page, 'gaet', ['e1']);", // no such method
        "  await callRuntime(page, 'box', ['e1']);", // missing argument
        "  const b = await callRuntime(page, 'box', ['e1', true]);",
        "  if (b.status === 'ok') b.rect.widht;", // no such field
        '}',
      ].join('\n'),
    );
    const tsc = join(ROOT, 'node_modules/.bin/tsc');
    const r = spawnSync(
      tsc,
      [
        '--noEmit',
        '--strict',
        '--module',
        'NodeNext',
        '--moduleResolution',
        'NodeNext',
        '--target',
        'ES2022',
        '--types',
        'node',
        '--skipLibCheck',
        file,
      ],
      { timeout: 120_000, cwd: ROOT, encoding: 'utf8' },
    );
    const errors = (r.stdout.match(/probe\.ts\(\d+,\d+\): error TS\d+/g) ?? []).map((e) => Number(/\((\d+),/.exec(e)![1]));
    assert.deepEqual(errors, [4, 5, 7], r.stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
