/**
 * The repeat schedule on real drivers, through the built CLI: a driver that records no CPU profile (a terminal
 * program in a pty, Firefox over BiDi) runs timing repeats only, warm-up included, and its milliseconds decide at
 * the defaults of `perf run --against` and `perf gate` (no --timing). Chromium keeps its profiled repeats, and the
 * sequential design counts its timing repeats. Counts and roles only: no timing is asserted.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { firefoxBinary } from '../src/drivers/bidi/firefox.js';
import type { RunFile } from '../src/perf/run-file.js';
import { DEMO_DIR, perfCli as perf, ROOT } from './helpers.js';

const missingFirefox = firefoxBinary() ? false : 'Firefox not installed (apt-get install firefox-esr)';
// A few short repeats per arm plus the program's or browser's start, on a loaded 2-core machine.
const RUN_TIMEOUT_MS = 240_000;

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function scratch(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'rehearse-schedule-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

interface Gate {
  primary: string[];
  setAside: { metric: string }[];
  notJudged: { metric: string; why: string }[];
}
interface Compared {
  timing: { gated: boolean; note: string };
  gate: Gate;
}

/** The run file's repeats as mode letters, warm-ups marked: "Tw T T". */
const modes = (run: RunFile): string => run.repeats.map((r) => `${r.mode === 'timing' ? 'T' : 'A'}${r.warmup ? 'w' : ''}`).join(' ');
const read = (path: string): RunFile => JSON.parse(readFileSync(path, 'utf8')) as RunFile;
/** The metrics that decide: primaries, and those set aside at a quarter weight when this machine is too noisy for them. */
const deciding = (g: Gate): string[] => [...g.primary, ...g.setAside.map((x) => x.metric)];

// Echo off, then a fixed 300 ms before the answer: the latency from the typed line to the screen is the sleep,
// steady enough for the noise rule to keep it primary. Nothing here asserts its value.
const TERMINAL = [
  'name: answer',
  'app:',
  '  terminal: { command: bash, args: ["-c", "stty -echo; echo ready; read x; sleep 0.3; echo got:$x; sleep 100"] }',
  'repeat: 4',
  'warmup: 1',
  'maxRepeat: 8',
  'setup:',
  '  - wait_for: { text: ready }',
  'steps:',
  '  - type: { text: "hi\\n", label: answer }',
  '  - wait_for: { text: "got:hi" }',
  '',
].join('\n');

test(
  'pty: perf run --against at its defaults runs timing repeats only, and terminal latency is a primary',
  { timeout: RUN_TIMEOUT_MS },
  async () => {
    const dir = scratch({ 'answer.yaml': TERMINAL });
    const r = await perf(dir, ['run', 'answer.yaml', '--against', 'answer.yaml', '--out', 'out', '--json'], RUN_TIMEOUT_MS);
    assert.ok(r.code === 0 || r.code === 1, r.stderr);
    const out = JSON.parse(r.stdout) as Record<'baseline' | 'candidate', { path: string }> & { compare: Compared };
    for (const role of ['baseline', 'candidate'] as const) {
      const run = read(out[role].path);
      const counted = run.repeats.filter((x) => !x.warmup).length;
      assert.equal(modes(run), ['Tw', ...Array<string>(counted).fill('T')].join(' '), `${role}: no attribution repeat on a terminal`);
      assert.ok(counted >= 4 && counted <= 8, `${role}: ${counted} repeats`);
      // The design the noise rule reads: every unit up to maxRepeat is a timing repeat.
      assert.deepEqual(run.sequential?.max, { a: 8, b: 8, timingA: 8, timingB: 8 });
    }
    const c = out.compare;
    assert.equal(c.timing.gated, true, c.timing.note);
    // Primary, or set aside when a loaded runner makes it noisy (CI: CV 8.3 %): judged either way.
    assert.ok(deciding(c.gate).includes('terminal.latencyMs.p50'), JSON.stringify(c.gate));
    assert.deepEqual(
      c.gate.notJudged.filter((x) => /timing-mode/.test(x.why)),
      [],
    );
  },
);

test('pty: perf gate --update, then perf gate, gates terminal latency at the defaults', { timeout: RUN_TIMEOUT_MS }, async () => {
  const dir = scratch({ 'answer.yaml': TERMINAL });
  const update = await perf(dir, ['gate', 'answer.yaml', '--update', '--out', 'out'], RUN_TIMEOUT_MS);
  assert.equal(update.code, 0, update.stderr + update.stdout);
  const baseline = read(join(dir, 'baselines', 'answer.json'));
  assert.equal(modes(baseline), ['Tw', ...Array<string>(8).fill('T')].join(' '), 'the baseline: 2 × repeat, timing repeats only');
  const r = await perf(dir, ['gate', 'answer.yaml', '--out', 'out', '--json'], RUN_TIMEOUT_MS);
  assert.ok(r.code === 0 || r.code === 1, r.stderr);
  const gate = JSON.parse(r.stdout) as { runs: { compare: Compared; runFile: string }[] };
  const run = gate.runs[0]!;
  assert.ok(
    read(run.runFile).repeats.every((x) => x.mode === 'timing'),
    modes(read(run.runFile)),
  );
  assert.equal(run.compare.timing.gated, true, run.compare.timing.note);
  assert.ok(deciding(run.compare.gate).includes('terminal.latencyMs.p50'), JSON.stringify(run.compare.gate));
});

test(
  'Firefox: perf run and perf run --against at their defaults run timing repeats only; ms metrics decide',
  { skip: missingFirefox, timeout: RUN_TIMEOUT_MS },
  async () => {
    const dialog = readFileSync(join(ROOT, 'scenarios', 'dialog.yaml'), 'utf8').trimEnd();
    const dir = scratch({ 'dialog.yaml': `${dialog}\nbrowser: { engine: firefox }\nrepeat: 3\nwarmup: 1\nmaxRepeat: 4\n` });
    cpSync(DEMO_DIR, join(dir, 'app'), { recursive: true });
    // One repeat shows the plan of a single run (its warm-up and repeats alike); the compare below samples more.
    const single = await perf(dir, ['run', 'dialog.yaml', '--repeat', '1', '--out', 'out', '--json'], RUN_TIMEOUT_MS);
    assert.equal(single.code, 0, single.stderr);
    const run = read((JSON.parse(single.stdout) as { path: string }).path);
    assert.equal(modes(run), 'Tw T');
    assert.equal(run.insightsFrom?.mode, 'timing');

    const r = await perf(dir, ['run', 'dialog.yaml', '--against', 'dialog.yaml', '--out', 'ab', '--json'], RUN_TIMEOUT_MS);
    assert.ok(r.code === 0 || r.code === 1, r.stderr);
    const out = JSON.parse(r.stdout) as Record<'baseline' | 'candidate', { path: string }> & { compare: Compared };
    for (const role of ['baseline', 'candidate'] as const) {
      const arm = read(out[role].path);
      assert.ok(
        arm.repeats.every((x) => x.mode === 'timing'),
        `${role}: ${modes(arm)}`,
      );
      assert.deepEqual(arm.sequential?.max, { a: 4, b: 4, timingA: 4, timingB: 4 });
    }
    const c = out.compare;
    assert.equal(c.timing.gated, true, c.timing.note);
    // Interaction latency decides (primary, or set aside at a quarter weight when this machine is too noisy): judged either way.
    assert.ok(
      deciding(c.gate).some((m) => m.startsWith('interactions.')),
      JSON.stringify(c.gate),
    );
  },
);

test(
  'Chromium: perf run --against at its defaults keeps its profiled repeats, and the design counts its timing ones',
  { timeout: RUN_TIMEOUT_MS },
  async () => {
    const dialog = readFileSync(join(ROOT, 'scenarios', 'dialog.yaml'), 'utf8').trimEnd();
    const dir = scratch({ 'dialog.yaml': `${dialog}\nrepeat: 2\nwarmup: 1\nmaxRepeat: 4\n` });
    cpSync(DEMO_DIR, join(dir, 'app'), { recursive: true });
    const r = await perf(dir, ['run', 'dialog.yaml', '--against', 'dialog.yaml', '--fixed', '--out', 'ab', '--json'], RUN_TIMEOUT_MS);
    assert.ok(r.code === 0 || r.code === 1, r.stderr);
    const out = JSON.parse(r.stdout) as Record<'baseline' | 'candidate', { path: string }>;
    for (const role of ['baseline', 'candidate'] as const) assert.equal(modes(read(out[role].path)), 'Aw T A T', role);
    // Sampled to a decision: the design's reach in timing repeats is maxRepeat, not 0 (a scenario without `timing:`).
    const seq = await perf(dir, ['run', 'dialog.yaml', '--against', 'dialog.yaml', '--out', 'seq', '--json'], RUN_TIMEOUT_MS);
    assert.ok(seq.code === 0 || seq.code === 1, seq.stderr);
    const cand = read((JSON.parse(seq.stdout) as { candidate: { path: string } }).candidate.path);
    assert.deepEqual(cand.sequential?.max, { a: 6, b: 6, timingA: 4, timingB: 4 });
  },
);
