/**
 * `perf run --engine` (loadScenario's `engine`): one scenario file, any engine, the driver the engine's as if the file
 * named it; and a file whose driver cannot drive its engine (Firefox over cdp or webdriver) is refused at its line, not
 * run in Chromium under the file's word "firefox".
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadScenario } from '../src/scenario/load.js';
import { loadAgainstPair } from '../src/cli/against.js';
import { PerfError } from '../src/errors.js';

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
