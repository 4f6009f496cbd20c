/**
 * The reference in docs/ is generated from the registries (tools/docs.ts, `npm run docs`): this fails
 * when a generated file is stale, and checks that the README stays a guide (≤ 250 lines) whose links
 * to docs/ resolve.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { generateDocs, staleDocs, stepDrivers } from '../tools/docs.js';
import { STEPS } from '../src/steps/registry.js';
import { ROOT } from './helpers.js';

test('docs/steps.md, metrics.md, cli.md and drivers.md are what `npm run docs` writes now', { timeout: 60_000 }, () => {
  const docs = generateDocs();
  assert.deepEqual(
    docs.map((d) => d.file),
    ['docs/steps.md', 'docs/metrics.md', 'docs/cli.md', 'docs/drivers.md'],
  );
  assert.deepEqual(staleDocs(ROOT), [], 'stale: run `npm run docs` and commit the result');
  const steps = docs.find((d) => d.file === 'docs/steps.md')!.text;
  for (const s of STEPS) assert.ok(steps.includes(`## \`${s.name}\``), `steps.md has a section for ${s.name}`);
});

test('the steps a terminal runs are derived from the step registry, not typed by hand', { timeout: 60_000 }, () => {
  const onPty = STEPS.filter((s) => stepDrivers(s).includes('pty')).map((s) => s.name);
  assert.ok(onPty.includes('perf_trace') && onPty.includes('signal') && onPty.includes('snap'));
  assert.ok(!onPty.includes('navigate'));
  const tauri = STEPS.find((s) => s.name === 'tauri_invoke')!;
  assert.deepEqual(stepDrivers(tauri), ['webdriver']);
  // Firefox's column is the bidi driver's own lacks, not WebDriver classic's (it once showed switch_page while bidi lacked pages).
  const on = (name: string): string[] => stepDrivers(STEPS.find((s) => s.name === name)!);
  for (const name of ['switch_page', 'device_profile', 'wait_for_network_idle']) assert.ok(on(name).includes('bidi'), name);
  for (const name of ['network', 'perf_trace']) assert.ok(!on(name).includes('bidi'), name);
  assert.ok(!on('device_profile').includes('webdriver'));
});

test('the README is a guide of at most 250 lines, and every relative link in it and in docs/ resolves', { timeout: 60_000 }, () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const lines = readme.trimEnd().split('\n').length;
  assert.ok(lines <= 250, `README has ${lines} lines`);
  const files = ['README.md', ...generateDocs().map((d) => d.file), ...GUIDES.map((g) => `docs/${g}`)];
  for (const file of files) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    for (const m of text.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)) {
      const target = m[1]!;
      if (/^[a-z]+:/.test(target)) continue;
      assert.ok(existsSync(join(ROOT, dirname(file), target)), `${file} links to ${target}, which does not exist`);
    }
  }
});

const GUIDES = ['scenarios.md', 'gate.md', 'mcp.md', 'webkit-tauri.md', 'terminals.md', 'grid.md', 'reports.md', 'benchmarks.md'];
