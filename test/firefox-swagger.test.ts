/**
 * A third-party app in Firefox (issue 60): Swagger UI (swagger-ui-dist) with the scenario file the Chromium verdict
 * bench runs (bench/verdict-pages/swagger-click.yaml, copied unchanged), switched to Firefox by `perf run --engine
 * firefox` alone; and the same app over MCP (app_start engine firefox, snap, tap by ref, expect).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { firefoxBinary } from '../src/drivers/bidi/firefox.js';
import { stdioServer } from './mcp-client.js';
import { firefoxProjects, type Project } from './firefox-projects.js';
import { refOf, ROOT } from './helpers.js';

const NO_FIREFOX = firefoxBinary() ? false : 'Firefox not installed (apt-get install firefox-esr)';
// Two repeats of Swagger UI's two clicks plus Firefox's start, on a loaded 2-core machine.
const RUN_TIMEOUT_MS = 240_000;
const PAGES = path.join(ROOT, 'bench', 'verdict-pages');
const SCENARIO = 'swagger-click.yaml';

const projects = firefoxProjects('rehearse-firefox-swagger-', RUN_TIMEOUT_MS);
const perf = projects.perf;
/** The Swagger app as bench/verdict-apps.ts lays it out (the registry's build beside our page), the scenario beside it. */
function project(): Project {
  const p = projects.create();
  const app = path.join(p.dir, 'app');
  fs.mkdirSync(app);
  const dist = path.join(ROOT, 'node_modules', 'swagger-ui-dist');
  for (const f of ['swagger-ui.css', 'index.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js'])
    fs.copyFileSync(path.join(dist, f), path.join(app, f));
  fs.copyFileSync(path.join(ROOT, 'bench', 'load-pages', 'petstore.json'), path.join(app, 'petstore.json'));
  for (const f of ['swagger.html', 'swagger-init.js', 'analytics.js']) fs.copyFileSync(path.join(PAGES, f), path.join(app, f));
  fs.copyFileSync(path.join(PAGES, SCENARIO), path.join(p.dir, SCENARIO));
  return p;
}

describe('Swagger UI in Firefox', { skip: NO_FIREFOX, timeout: 900_000 }, () => {
  test('the Chromium scenario file with --engine firefox: every repeat measured, both clicks timed', { timeout: RUN_TIMEOUT_MS }, () => {
    const p = project();
    assert.equal(fs.readFileSync(path.join(p.dir, SCENARIO), 'utf8'), fs.readFileSync(path.join(PAGES, SCENARIO), 'utf8'));
    assert.doesNotMatch(fs.readFileSync(path.join(p.dir, SCENARIO), 'utf8'), /engine/);
    const r = perf(p, ['run', SCENARIO, '--engine', 'firefox', '--repeat', '2', '--warmup', '0', '--quiet']);
    assert.equal(r.code, 0, r.stderr);
    const run = JSON.parse(fs.readFileSync(path.join(p.dir, 'build', 'perf', 'swagger-click-run.json'), 'utf8'));
    assert.deepEqual([run.env.browser.engine, run.env.browser.driver], ['firefox', 'bidi']);
    assert.match(run.env.browser.product, /^firefox\//);
    assert.deepEqual(
      run.repeats.filter((x: { warmup?: boolean }) => !x.warmup).map((x: { status: string }) => x.status),
      ['measured', 'measured'],
    );
    const m = run.summary.metrics as Record<string, { median: number; n: number }>;
    // Event Timing reports the two operation clicks (each renders a whole operation panel: well over 16 ms).
    assert.equal(m['interactions.count']?.median, 2, JSON.stringify(m));
    assert.ok(m['interactions.latencyMs.p90']!.median > 0);
    assert.ok(m['frames.painted']!.median > 0);
    for (const label of ['open', 'open2']) assert.equal(m[`steps.${label}.ms`]?.n, 2, `steps.${label}.ms`);
    // What Firefox cannot give is absent, not zero.
    assert.equal(m['frames.partial'], undefined);
  });

  test('--engine is checked: an unknown engine and one the file cannot run in are exit 2', { timeout: RUN_TIMEOUT_MS }, () => {
    const p = project();
    const bad = perf(p, ['run', SCENARIO, '--engine', 'gecko']);
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /--engine must be one of chromium, webkit, firefox, got "gecko"/);
    const text = fs
      .readFileSync(path.join(p.dir, SCENARIO), 'utf8')
      .replace(/^browser: \{ restart: context \}$/m, 'browser: { driver: cdp }');
    assert.match(text, /driver: cdp/);
    fs.writeFileSync(path.join(p.dir, 'cdp.yaml'), text);
    const mixed = perf(p, ['run', 'cdp.yaml', '--engine', 'firefox']);
    assert.equal(mixed.code, 2, mixed.stderr);
    assert.match(mixed.stderr, /engine firefox is driven over BiDi, not cdp/);
  });

  test('over MCP: app_start engine firefox, snap, tap by ref, expect', { timeout: RUN_TIMEOUT_MS }, async () => {
    const p = project();
    const mcp = await stdioServer(p.dir, { name: 'firefox-swagger-test', callTimeoutMs: 120_000, env: { TMPDIR: p.tmp } });
    try {
      const start = await mcp.call('app_start', { serve: 'app', path: '/swagger.html', engine: 'firefox' });
      assert.equal(start.isError, false, start.text);
      assert.equal(start.json.data.engine, 'firefox');
      const ready = await mcp.call('wait_for', { text: 'Add a new pet to the store' });
      assert.equal(ready.isError, false, ready.text);
      const snap = await mcp.call('snap', {});
      const add = refOf(String(snap.json.data.snapshot), 'button', 'POST /pet Add a new pet to the store');
      const tap = await mcp.call('tap', { ref: add, snapshot: 'diff' });
      assert.equal(tap.isError, false, tap.text);
      assert.equal(tap.json.effect.treeChanged.changed, true, tap.text);
      assert.match(String(tap.json.data.snapshot), /Request body/, tap.text);
      const opened = await mcp.call('expect', { ref: add, visible: true });
      assert.equal(opened.isError, false, opened.text);
      const body = await mcp.call('expect', { target: { text: 'Request body' }, visible: true });
      assert.equal(body.isError, false, body.text);
      const seen = await mcp.call('snap', { grep: 'Add a new pet' });
      assert.match(String(seen.json.data.snapshot), /button "POST \/pet Add a new pet to the store" \[expanded\]/);
      const stop = await mcp.call('app_stop', {});
      assert.equal(stop.isError, false, stop.text);
    } finally {
      await mcp.close();
    }
  });
});
