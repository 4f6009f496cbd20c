import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { ROOT } from './helpers.js';

const CRUISE = join(ROOT, 'node_modules/.bin/depcruise');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');

/** depcruise with our rules over a throwaway tree of `files` (path → source), cruising `roots`. */
function cruise(files: Record<string, string>, roots = ['src']): { code: number; out: string } {
  const dir = mkdtempSync(join(tmpdir(), 'rehearse-deps-'));
  try {
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext' } }));
    // Our packages, so an import of a library resolves to its node_modules path as in the project.
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(dir, path, '..'), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    const r = spawnSync(CRUISE, [...roots, '--config', CONFIG], { timeout: 120_000, cwd: dir, encoding: 'utf8' });
    return { code: r.status ?? -1, out: r.stdout + r.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('the layer rules pass on our own source', () => {
  const r = spawnSync(CRUISE, ['src', 'reporters', '--config', CONFIG], { timeout: 120_000, cwd: ROOT, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stdout + r.stderr);
});

/**
 * The refused imports below each sit in their own files, so one depcruise over one tree judges them all (each
 * violation is reported by its own file's path) and an allowed import is one whose file no violation names:
 * one cruise per test instead of one per case, each a few CPU seconds of loading TypeScript.
 */
test('a driver importing a step, a cycle, and CDP (the client or its types) outside the CDP driver are each refused', () => {
  const r = cruise({
    'src/drivers/cdp/x.ts': "import { y } from '../../steps/y.js';\nexport const x = y;\n",
    'src/steps/y.ts': 'export const y = 1;\n',
    'src/perf/a.ts': "import { b } from './b.js';\nexport const a = b;\n",
    'src/perf/b.ts': "import { a } from './a.js';\nexport const b = () => a;\n",
    'src/steps/z.ts': "import CDP from 'chrome-remote-interface';\nexport const z = CDP;\n",
    // A types-only package (nothing to resolve at run time) counts too.
    'src/perf/t.ts': "import type { Protocol } from 'devtools-protocol';\nexport type T = Protocol.Profiler.Profile;\n",
  });
  assert.notEqual(r.code, 0, r.out);
  assert.match(r.out, /drivers-points-down: src\/drivers\/cdp\/x\.ts → src\/steps\/y\.ts/);
  assert.match(r.out, /no-circular: src\/perf\/(a|b)\.ts →\s+src\/perf\/(a|b)\.ts/);
  assert.match(r.out, /cdp-client-in-cdp-driver-only: src\/steps\/z\.ts/);
  assert.match(r.out, /cdp-client-in-cdp-driver-only: src\/perf\/t\.ts → devtools-protocol/);
});

test('steps see only src/page; page and perf see only the driver contract, not a driver', () => {
  const r = cruise({
    'src/steps/s.ts': "import { p } from '../drivers/page-driver.js';\nexport const s = p;\n",
    'src/drivers/page-driver.ts': 'export const p = 1;\n',
    'src/page/q.ts': "import { c } from '../drivers/cdp/c.js';\nexport const q = c;\n",
    'src/drivers/cdp/c.ts': 'export const c = 1;\n',
    // Allowed: the page layer through the driver contract.
    'src/page/contract.ts': "import { p } from '../drivers/page-driver.js';\nexport const q = p;\n",
    'src/drivers/webdriver/w.ts': "import { c } from '../cdp/c.js';\nexport const w = c;\n",
  });
  assert.notEqual(r.code, 0, r.out);
  assert.match(r.out, /steps-points-down: src\/steps\/s\.ts → src\/drivers\/page-driver\.ts/);
  assert.match(r.out, /one-driver-behind-the-contract: src\/page\/q\.ts → src\/drivers\/cdp\/c\.ts/);
  assert.match(r.out, /no-driver-imports-another: src\/drivers\/webdriver\/w\.ts → src\/drivers\/cdp\/c\.ts/);
  assert.doesNotMatch(r.out, /src\/page\/contract\.ts/, 'the driver contract is allowed');
});

test('ws only in the one BiDi socket and the bidi driver; the socket only below the contract, shared by the drivers', () => {
  const r = cruise({
    'src/drivers/webdriver/own-socket.ts': "import WebSocket from 'ws';\nexport const w = WebSocket;\n",
    'src/session/daemon-socket.ts': "import type WebSocket from 'ws';\nexport type D = WebSocket;\n",
    'src/page/raw.ts': "import { BidiSocket } from '../drivers/bidi-socket.js';\nexport const p = BidiSocket;\n",
    'src/drivers/bidi-socket.ts': "import WebSocket from 'ws';\nexport const BidiSocket = WebSocket;\n",
    // Allowed: both drivers through the shared socket, and the bidi driver's relay serving WebSocket itself.
    'src/drivers/webdriver/session.ts': "import { BidiSocket } from '../bidi-socket.js';\nexport const s = BidiSocket;\n",
    'src/drivers/bidi/browser.ts': "import { BidiSocket } from '../bidi-socket.js';\nexport const b = BidiSocket;\n",
    'src/drivers/bidi/relay.ts': "import { WebSocketServer } from 'ws';\nexport const r = WebSocketServer;\n",
  });
  assert.notEqual(r.code, 0, r.out);
  assert.match(r.out, /ws-in-bidi-socket-only: src\/drivers\/webdriver\/own-socket\.ts → /);
  assert.match(r.out, /ws-in-bidi-socket-only: src\/session\/daemon-socket\.ts → /);
  assert.match(r.out, /bidi-socket-in-drivers-only: src\/page\/raw\.ts → src\/drivers\/bidi-socket\.ts/);
  for (const allowed of [
    'src/drivers/bidi-socket.ts',
    'src/drivers/webdriver/session.ts',
    'src/drivers/bidi/browser.ts',
    'src/drivers/bidi/relay.ts',
  ])
    assert.doesNotMatch(r.out, new RegExp(`: ${allowed.replace(/[./]/g, '\\$&')} →`), `${allowed} is allowed`);
});

test('cli, mcp, reporters and the src/ root files have rules too: each refuses an import up', () => {
  // reporters/ sit outside src: cruised as the project's lint:deps does (src and reporters).
  const r = cruise(
    {
      'src/files.ts': "import { s } from './session/s.js';\nexport const f = s;\n",
      'src/session/s.ts': 'export const s = 1;\n',
      'src/mcp/m.ts': "import { c } from '../cli/c.js';\nexport const m = c;\n",
      'src/cli/c.ts': 'export const c = 1;\n',
      'reporters/r.ts':
        "import { spawn } from 'node:child_process';\nimport { run } from '../src/runner/run.js';\nexport const r = [spawn, run];\n",
      'src/runner/run.ts': 'export const run = 1;\n',
    },
    ['src', 'reporters'],
  );
  assert.notEqual(r.code, 0, r.out);
  assert.match(r.out, /root-files-at-the-bottom: src\/files\.ts → src\/session\/s\.ts/);
  assert.match(r.out, /mcp-points-down: src\/mcp\/m\.ts → src\/cli\/c\.ts/);
  assert.match(r.out, /reporters-are-pure: reporters\/r\.ts → src\/runner\/run\.ts/);
  assert.match(r.out, /reporters-start-nothing: reporters\/r\.ts → (node:)?child_process/);
});

// Top to bottom, as .dependency-cruiser.cjs orders them; files at the src/ root are the bottom.
const LAYER_RANK: Record<string, number> = {
  cli: 0,
  mcp: 0,
  runner: 1,
  scenario: 2,
  engine: 3,
  steps: 4,
  page: 5,
  perf: 5,
  session: 6,
  drivers: 7,
};
const ROOT_RANK = 8;

function layerRank(srcDir: string, file: string): number | undefined {
  const rel = relative(srcDir, file);
  if (rel.startsWith('..')) return undefined;
  const first = rel.split('/')[0]!;
  return rel.includes('/') ? (LAYER_RANK[first] ?? ROOT_RANK) : ROOT_RANK;
}

/** Relative paths to modules written as strings (not imports), e.g. a script to fork, that land in a layer above the file. */
function pathsIntoUpperLayers(srcDir: string): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, e.name);
      if (e.isDirectory()) walk(full);
      else if (e.name.endsWith('.ts')) {
        const lines = readFileSync(full, 'utf8').split('\n');
        lines.forEach((line, i) => {
          if (/^\s*(import|export)\b.*\bfrom\b/.test(line) || /^\s*\} from /.test(line)) return;
          for (const m of line.matchAll(/'(\.\.?\/[^']*\.m?js)'/g)) {
            const target = resolve(dirname(full), m[1]!);
            const to = layerRank(srcDir, target.replace(/\.m?js$/, '.ts'));
            const from = layerRank(srcDir, full)!;
            if (to !== undefined && to < from) found.push(`${relative(srcDir, full)}:${i + 1} → ${m[1]}`);
          }
        });
      }
    }
  };
  walk(srcDir);
  return found;
}

test('no process is started by a path into a layer above (a script to fork is in its own folder, lower, or under bin/)', () => {
  assert.deepEqual(pathsIntoUpperLayers(join(ROOT, 'src')), []);
  // The check sees what depcruise cannot: the session manager forking the runner's daemon by a path string.
  const dir = mkdtempSync(join(tmpdir(), 'rehearse-deps-'));
  try {
    mkdirSync(join(dir, 'session'));
    writeFileSync(join(dir, 'session', 'm.ts'), "const script = new URL('../runner/terminal-daemon.js', import.meta.url);\n");
    assert.deepEqual(pathsIntoUpperLayers(dir), ['session/m.ts:1 → ../runner/terminal-daemon.js']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('only src/drivers/cdp sends CDP commands: no send("Domain.method") outside it', () => {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, e.name);
      if (e.isDirectory()) {
        if (full !== join(ROOT, 'src', 'drivers', 'cdp')) walk(full);
      } else if (e.name.endsWith('.ts')) {
        readFileSync(full, 'utf8')
          .split('\n')
          .forEach((line, i) => {
            if (/\.send\(\s*'[A-Z][A-Za-z]+\.[a-zA-Z]+'/.test(line)) found.push(`${relative(ROOT, full)}:${i + 1}`);
          });
      }
    }
  };
  walk(join(ROOT, 'src'));
  assert.deepEqual(found, []);
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
