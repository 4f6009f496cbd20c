/**
 * Scenario files for tests that load YAML (scenario.test, insight-budgets.test, load-refusals.test): a temp folder
 * with the app/ folder the scenarios serve (`perf validate` checks that it exists), a writer of numbered or named
 * files in it, and loadScenario's refusal as a value. The folder goes when the test file ends.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { PerfError } from '../src/errors.js';
import { loadScenario } from '../src/scenario/load.js';

export interface ScenarioFiles {
  dir: string;
  /** Writes `text` to s<n>.yaml (or <name>.yaml) in dir; returns its path. */
  write(text: string, name?: string): string;
  /** The usage error loadScenario refuses the scenario file at `file` with (a test failure if it loads). */
  loadError(file: string, opts?: Parameters<typeof loadScenario>[1]): PerfError;
}

export function scenarioFiles(prefix: string): ScenarioFiles {
  const dir = mkdtempSync(join(tmpdir(), `rehearse-${prefix}-`));
  after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'app'));
  let n = 0;
  const write = (text: string, name = `s${n++}`): string => {
    const file = join(dir, `${name}.yaml`);
    writeFileSync(file, text);
    return file;
  };
  const loadError = (file: string, opts: Parameters<typeof loadScenario>[1] = {}): PerfError => {
    try {
      loadScenario(file, { cwd: dir, ...opts });
    } catch (e) {
      assert.ok(e instanceof PerfError, `expected PerfError, got ${String(e)}`);
      assert.equal(e.kind, 'usage');
      return e;
    }
    assert.fail(`expected ${file} to be refused`);
  };
  return { dir, write, loadError };
}
