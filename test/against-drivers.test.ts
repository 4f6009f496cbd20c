/**
 * `perf run X --against X` (A/A) runs each arm in the scenario's own engine: a terminal program in a
 * pseudo-terminal, WebKit and chromedriver over WebDriver (a session per repeat, a server per arm), a desktop app
 * through tauri-driver, Firefox over BiDi (Chromium on a Selenium Grid: grid.test, beside its other Grid runs). `perf gate`
 * against a committed baseline on a terminal program too. Each arm's run file carries its role, the
 * ABBA interleaving (`repeats[].sequence`) and the environment of the engine that measured it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { firefoxBinary } from '../src/drivers/bidi/firefox.js';
import { findServerBinary, miniBrowserPath } from '../src/drivers/webdriver/server.js';
import type { RunFile } from '../src/perf/run-file.js';
import { abbaOrder } from '../src/runner/against.js';
import { FIXTURES_DIR, perfCli as perf, ROOT } from './helpers.js';

const missingWebKit =
  findServerBinary('webkit') && miniBrowserPath() ? false : 'WebKitWebDriver not installed (apt-get install webkit2gtk-driver xvfb)';
const missingChromedriver = findServerBinary('chromedriver') ? false : 'chromedriver not installed (apt-get install chromium-driver)';
const missingTauri =
  missingWebKit ||
  (findServerBinary('tauri') ? false : 'tauri-driver not installed (npm ci installs @crabnebula/tauri-driver-linux-x64-gnu on Linux x64)');
const missingFirefox = firefoxBinary() ? false : 'Firefox not installed (apt-get install firefox-esr)';

/**
 * `perf run FILE --against FILE --repeat 2 --fixed`: both arms measured every repeat, both run files
 * written with their role and the A B B A order; returns the two run files as written.
 */
async function againstItself(dir: string, file: string, extra: string[] = []): Promise<{ baseline: RunFile; candidate: RunFile }> {
  // --no-timing: one repeat per unit, so each arm has exactly its 2 (an interleaved run adds profiled ones by default).
  const args = [
    'run',
    file,
    '--against',
    file,
    '--repeat',
    '2',
    '--warmup',
    '0',
    '--fixed',
    '--no-timing',
    '--out',
    'out',
    '--json',
    ...extra,
  ];
  const r = await perf(dir, args, 240_000);
  // A/A: pass, or a verdict two repeats cannot make (exit 1 is "changed" only past thresholds).
  assert.ok(r.code === 0 || r.code === 1, `${file}: exit ${r.code}\n${r.stderr}`);
  const out = JSON.parse(r.stdout) as Record<'baseline' | 'candidate', { path: string }> & { compare: unknown };
  const files = {
    baseline: JSON.parse(readFileSync(out.baseline.path, 'utf8')) as RunFile,
    candidate: JSON.parse(readFileSync(out.candidate.path, 'utf8')) as RunFile,
  };
  assert.notEqual(out.compare, null, `${file}: both arms measured, so compared\n${r.stderr}`);
  for (const role of ['baseline', 'candidate'] as const) {
    const run = files[role];
    const why = JSON.stringify(run.repeats.map((x) => (x.status === 'failed' ? x.failure.error.message : x.status)));
    assert.equal(run.summary.measured, 2, `${file} ${role}: ${why}`);
    assert.equal(run.against?.role, role);
    assert.equal(run.against?.order, 'ABBA');
    const slots = run.repeats.length;
    const expected = abbaOrder(slots)
      .map((o, sequence) => ({ ...o, sequence }))
      .filter((o) => o.arm === role)
      .map((o) => `${o.slot}@${o.sequence}`);
    assert.deepEqual(
      run.repeats.map((x) => `${x.index}@${x.sequence}`),
      expected,
      `${file} ${role}: repeats in the ABBA order`,
    );
  }
  return files;
}

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'rehearse-against-drivers-'));
  cpSync(join(ROOT, 'scenarios/app'), join(dir, 'app'), { recursive: true });
  return dir;
}

test('perf run --against on a terminal program: both arms page through less in a pseudo-terminal', { timeout: 300_000 }, async () => {
  const dir = scratch();
  try {
    writeFileSync(join(dir, 'big.txt'), Array.from({ length: 10_000 }, (_, i) => `line ${i + 1}`).join('\n') + '\n');
    writeFileSync(
      join(dir, 'less.yaml'),
      [
        'name: less',
        'app: { terminal: { command: less, args: [big.txt], cols: 80, rows: 24 } }',
        'setup:',
        '  - wait_for: "line 23"',
        'steps:',
        '  - press_key: { key: PageDown, repeat: 5, label: page }',
        '  - expect: { textContains: "line 116" }',
        '',
      ].join('\n'),
    );
    const { baseline, candidate } = await againstItself(dir, 'less.yaml');
    for (const run of [baseline, candidate]) {
      assert.equal(run.env.browser.driver, 'pty');
      assert.equal(run.env.app.terminal?.command, 'less');
      assert.ok(run.summary.metrics['terminal.bytesOut']!.median > 1000);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('perf run --against on WebKit: both arms in WebKit over WebDriver', { skip: missingWebKit, timeout: 300_000 }, async () => {
  const dir = scratch();
  try {
    writeFileSync(join(dir, 'webkit.yaml'), `${readFileSync(join(ROOT, 'scenarios/dialog.yaml'), 'utf8')}\nbrowser: { engine: webkit }\n`);
    const { baseline, candidate } = await againstItself(dir, 'webkit.yaml');
    for (const run of [baseline, candidate]) {
      assert.equal(run.env.browser.driver, 'webdriver');
      assert.equal(run.env.browser.engine, 'webkit');
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test(
  'perf run --against in Firefox: both arms over WebDriver BiDi, each in new user contexts',
  { skip: missingFirefox, timeout: 300_000 },
  async () => {
    const dir = scratch();
    try {
      writeFileSync(
        join(dir, 'firefox.yaml'),
        `${readFileSync(join(ROOT, 'scenarios/dialog.yaml'), 'utf8')}\nbrowser: { engine: firefox }\n`,
      );
      const { baseline, candidate } = await againstItself(dir, 'firefox.yaml');
      for (const run of [baseline, candidate]) {
        assert.equal(run.env.browser.driver, 'bidi');
        assert.equal(run.env.browser.engine, 'firefox');
        assert.equal(run.env.restartMode, 'context');
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

test('perf run --against over chromedriver: both arms on WebDriver, not CDP', { skip: missingChromedriver, timeout: 300_000 }, async () => {
  const dir = scratch();
  try {
    const dialog = readFileSync(join(ROOT, 'scenarios/dialog.yaml'), 'utf8');
    writeFileSync(join(dir, 'chromedriver.yaml'), `${dialog}\nbrowser: { driver: webdriver }\n`);
    const { baseline, candidate } = await againstItself(dir, 'chromedriver.yaml');
    for (const run of [baseline, candidate]) {
      assert.equal(run.env.browser.driver, 'webdriver');
      assert.equal(run.env.browser.engine, 'chromium');
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test(
  'perf run --against on a desktop app: both arms start the app anew through tauri-driver',
  { skip: missingTauri, timeout: 300_000 },
  async () => {
    const dir = scratch();
    try {
      cpSync(join(FIXTURES_DIR, 'tauri-app'), join(dir, 'tauri-app'), { recursive: true });
      const mini = miniBrowserPath()!;
      writeFileSync(
        join(dir, 'greet.yaml'),
        [
          'name: greet-desktop',
          'app:',
          '  serve: ./tauri-app',
          `  desktop: { binary: ${mini}, args: ["--automation", "\${APP_URL}"], driver: tauri }`,
          'steps:',
          '  - wait_for: { text: Greeter }',
          '  - tap: { target: { role: button, name: Greet }, label: greet }',
          '  - wait_for: { text: "Hello, Ada!" }',
          '',
        ].join('\n'),
      );
      const { baseline, candidate } = await againstItself(dir, 'greet.yaml');
      for (const run of [baseline, candidate]) assert.deepEqual(run.env.app.desktop, { binary: mini, driver: 'tauri' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

test(
  'perf gate on a terminal program: a committed baseline, then the gate judges a fresh run against it',
  { timeout: 300_000 },
  async () => {
    const dir = scratch();
    try {
      writeFileSync(join(dir, 'hello.txt'), Array.from({ length: 200 }, (_, i) => `row ${i + 1}`).join('\n') + '\n');
      writeFileSync(
        join(dir, 'less.yaml'),
        [
          'name: less',
          'app: { terminal: { command: less, args: [hello.txt] } }',
          'setup:',
          '  - wait_for: "row 5"',
          'steps:',
          '  - press_key: { key: PageDown, label: page }',
          '',
        ].join('\n'),
      );
      const small = ['--repeat', '2', '--warmup', '0', '--baselines', 'baselines', '--out', 'out'];
      const update = await perf(dir, ['gate', 'less.yaml', ...small, '--update'], 120_000);
      assert.equal(update.code, 0, update.stdout + update.stderr);
      const gate = await perf(dir, ['gate', 'less.yaml', ...small, '--fixed', '--json'], 120_000);
      const g = JSON.parse(gate.stdout) as { runs: { id: string; status: string }[] };
      assert.deepEqual(
        g.runs.map((r) => `${r.id}:${r.status}`),
        ['less:compared'],
        gate.stderr,
      );
      const run = JSON.parse(readFileSync(join(dir, 'out/less-gate.json'), 'utf8')) as RunFile;
      assert.equal(run.env.browser.driver, 'pty');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
