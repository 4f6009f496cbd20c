/**
 * Compares in Firefox (issue 60's targets): `perf run --against` with both arms in the real firefox-esr, a jank A/B
 * (the candidate's click handler busies the main thread 150 ms, unmistakable on a loaded machine) fails on an
 * interaction metric, an A/A does not fail; and `perf gate --engine firefox` records a Firefox baseline from a file
 * that names no engine, gates against it, and refuses it for a Chromium run (exit 2 naming both) before any browser.
 * Verdicts and counts only, never a timing.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test, type TestContext } from 'node:test';
import { firefoxBinary } from '../src/drivers/bidi/firefox.js';
import { firefoxProjects, type Project } from './firefox-projects.js';

const NO_FIREFOX = firefoxBinary() ? false : 'Firefox not installed (apt-get install firefox-esr)';
// Up to 6 looks of an A B B A round on a loaded 2-core machine (measured: a decision at 9 vs 9 took 40 s unloaded).
const RUN_TIMEOUT_MS = 400_000;

const projects = firefoxProjects('rehearse-ff-against-', RUN_TIMEOUT_MS);

const PAGE = `<!doctype html><title>jank</title><button id="b">Add</button><p id="out">0</p>
<script>
  // ?busy=N: the click handler busies the main thread N ms before it updates the count (the jank under test).
  const busy = Number(new URLSearchParams(location.search).get('busy') || 0);
  let n = 0;
  document.getElementById('b').addEventListener('click', () => {
    const end = performance.now() + busy;
    while (performance.now() < end) {}
    document.getElementById('out').textContent = String(++n);
  });
</script>
`;

/** A project with the page and jank-click.yaml (three taps); `engine` adds the engine key. */
function project(engine: boolean): Project {
  const p = projects.create();
  fs.mkdirSync(path.join(p.dir, 'app'));
  fs.writeFileSync(path.join(p.dir, 'app', 'index.html'), PAGE);
  const tap = (n: number): string => `  - tap: { target: { role: button, name: Add }, label: add${n} }\n`;
  fs.writeFileSync(
    path.join(p.dir, 'jank-click.yaml'),
    `name: jank-click\napp: { serve: ./app, path: "/index.html?busy=\${busy}" }\n${engine ? 'browser: { engine: firefox }\n' : ''}` +
      `vars: { busy: 0 }\nsteps:\n${tap(1)}${tap(2)}${tap(3)}  - expect: { target: { css: "#out" }, text: "3" }\n`,
  );
  return p;
}

function against(p: Project, busy: number, out: string, t: TestContext): { code: number; stdout: string; stderr: string } {
  const args = ['run', 'jank-click.yaml', '--against', 'jank-click.yaml', '--var', `busy=${busy}`, '--baseline-var', 'busy=0'];
  const r = projects.perf(p, [...args, '--repeat', '3', '--warmup', '0', '--out', out, '--label', out]);
  // The verdict and the look it came at, in the test's output (the report of a run of this file quotes them).
  const looks = r.stderr.split('\n').filter((l) => l.startsWith('--against: look'));
  t.diagnostic(`${r.stdout.split('\n')[0]} | ${looks[looks.length - 1] ?? 'no look'}`);
  return r;
}

describe('compares in Firefox over BiDi', { skip: NO_FIREFOX, timeout: 1_200_000 }, () => {
  test(
    'a jank A/B (150 ms in the click handler, both arms Firefox) fails naming an interaction or frame metric',
    { timeout: RUN_TIMEOUT_MS },
    (t) => {
      const p = project(true);
      const r = against(p, 150, 'ab', t);
      assert.equal(r.code, 1, r.stderr + r.stdout);
      assert.match(r.stdout, /^FAIL {2}jank-click: ab-baseline → ab-candidate/m);
      assert.match(r.stdout, /^gate: .*\b(interactions|frames)\.[\w.]+ error/m, r.stdout);
      for (const arm of ['baseline', 'candidate']) {
        const run = JSON.parse(fs.readFileSync(path.join(p.dir, 'ab', `jank-click-ab-${arm}.json`), 'utf8'));
        assert.deepEqual([run.env.browser.driver, run.env.browser.engine], ['bidi', 'firefox']);
        assert.match(run.env.app.url, arm === 'candidate' ? /busy=150$/ : /busy=0$/);
      }
    },
  );

  test('an A/A (both arms Firefox, no jank) does not fail', { timeout: RUN_TIMEOUT_MS }, (t) => {
    const p = project(true);
    const r = against(p, 0, 'aa', t);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.match(r.stdout, /^(PASS|WARN|INCONCLUSIVE) {2}jank-click: aa-baseline → aa-candidate/m);
  });

  test(
    'perf gate --engine firefox: --update records a Firefox baseline, the gate judges against it, a Chromium gate is refused',
    { timeout: RUN_TIMEOUT_MS },
    () => {
      const p = project(false);
      const gate = ['gate', 'jank-click.yaml', '--engine', 'firefox', '--repeat', '2', '--warmup', '0'];
      const update = projects.perf(p, [...gate, '--update']);
      assert.equal(update.code, 0, update.stderr + update.stdout);
      const baseline = JSON.parse(fs.readFileSync(path.join(p.dir, 'baselines', 'jank-click.json'), 'utf8'));
      assert.deepEqual([baseline.env.browser.driver, baseline.env.browser.engine, baseline.summary.measured], ['bidi', 'firefox', 2]);

      const judged = projects.perf(p, [...gate, '--fixed', '--json']);
      assert.ok(judged.code === 0 || judged.code === 1, judged.stderr + judged.stdout);
      const j = JSON.parse(judged.stdout) as { verdict: string; runs: { id: string; status: string; runFile: string }[] };
      assert.deepEqual(
        j.runs.map((e) => [e.id, e.status]),
        [['jank-click', 'compared']],
      );
      assert.ok(['pass', 'warn', 'inconclusive'].includes(j.verdict), judged.stdout);
      const run = JSON.parse(fs.readFileSync(path.resolve(p.dir, j.runs[0]!.runFile), 'utf8'));
      assert.deepEqual([run.env.browser.engine, run.summary.measured], ['firefox', 2]);

      // The same file without --engine runs in Chromium: refused before it starts, naming both engines.
      const chromium = projects.perf(p, ['gate', 'jank-click.yaml']);
      assert.equal(chromium.code, 2, chromium.stderr + chromium.stdout);
      assert.match(chromium.stderr, /baselines\/jank-click\.json was measured in firefox, and jank-click\.yaml runs in chromium/);
    },
  );
});
