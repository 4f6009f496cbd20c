/**
 * The README's CI flow, verbatim (issue 58 item 6): its scenario lives at perf/home.yaml, and the commands of
 * "## The CI gate" (the sh block and the GitHub Actions `run: npx perf …` lines) are read from the README itself
 * and run as written through `npx perf` in an empty project whose node_modules/.bin/perf is this checkout's CLI.
 * The README drifting (a command that no longer finds the scenarios) fails here.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './helpers.js';

const work = mkdtempSync(join(tmpdir(), 'rehearse-readme-ci-'));
after(() => rmSync(work, { recursive: true, force: true }));

/** The `npx perf gate …` commands of the README's CI section, in order, comments dropped. */
function readmeGateCommands(readme: string): string[] {
  const start = readme.indexOf('## The CI gate');
  assert.ok(start >= 0, 'the README has a "## The CI gate" section');
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  return section
    .split('\n')
    .map((l) =>
      l
        .replace(/^\s*-?\s*run:\s*/, '')
        .replace(/\s+#.*$/, '')
        .trim(),
    )
    .filter((l) => l.startsWith('npx perf gate'));
}

function sh(command: string): { code: number; out: string } {
  const r = spawnSync('sh', ['-c', command], {
    cwd: work,
    encoding: 'utf8',
    env: { ...process.env, GITHUB_STEP_SUMMARY: '', npm_config_offline: 'true' },
    timeout: 240_000,
  });
  return { code: r.status ?? -1, out: `${r.stdout}\n${r.stderr}` };
}

test('README CI flow: perf/home.yaml, then its gate commands verbatim: --update writes baselines/home.json, the gates judge it', () => {
  const commands = readmeGateCommands(readFileSync(join(ROOT, 'README.md'), 'utf8'));
  assert.ok(commands.length >= 2, `the CI section names gate commands: ${commands.join(' | ')}`);
  assert.match(commands[0]!, /--update/, 'the flow starts by recording baselines');
  mkdirSync(join(work, 'node_modules/.bin'), { recursive: true });
  symlinkSync(join(ROOT, 'bin/perf'), join(work, 'node_modules/.bin/perf'));
  mkdirSync(join(work, 'perf/site'), { recursive: true });
  writeFileSync(join(work, 'perf/site/index.html'), '<!doctype html><title>home</title><button>Open menu</button>');
  // Small on purpose: the paths are under test, not the statistics (maxRepeat bounds the sequential gate).
  writeFileSync(
    join(work, 'perf/home.yaml'),
    'name: home\napp: { serve: ./site }\nrepeat: 2\nmaxRepeat: 4\nwarmup: 0\nsteps:\n  - tap: "Open menu"\n',
  );
  const update = sh(commands[0]!);
  assert.equal(update.code, 0, `${commands[0]}\n${update.out}`);
  assert.ok(existsSync(join(work, 'baselines/home.json')), `${commands[0]} wrote baselines/home.json:\n${update.out}`);
  for (const command of commands.slice(1)) {
    const r = sh(command);
    // 0 pass/inconclusive, 1 a verdict against the baseline: either way the scenario was found and judged.
    assert.ok(r.code === 0 || r.code === 1, `${command}: exit ${r.code}\n${r.out}`);
    assert.match(r.out, /\bhome\b/, `${command} judged perf/home.yaml:\n${r.out}`);
    const junit = command.match(/--junit (\S+)/)?.[1];
    if (junit) assert.match(readFileSync(join(work, junit), 'utf8'), /home/, `${junit} names the scenario`);
  }
});

test('a plain perf gate in a folder with neither perf/ nor scenarios/ says where it looked (exit 2)', () => {
  const empty = mkdtempSync(join(tmpdir(), 'rehearse-readme-empty-'));
  try {
    const r = spawnSync(process.execPath, [join(ROOT, 'bin/perf'), 'gate'], { cwd: empty, encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /no perf\/\*\.yaml or scenarios\/\*\.yaml here/);
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
});

test('two scenarios with one name would share a baseline: exit 2 before any browser starts', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rehearse-readme-twice-'));
  try {
    mkdirSync(join(dir, 'perf/site'), { recursive: true });
    writeFileSync(join(dir, 'perf/site/index.html'), '<p>x</p>');
    for (const f of ['home.yaml', 'home-main.yaml'])
      writeFileSync(join(dir, 'perf', f), 'name: home\napp: { serve: ./site }\nsteps:\n  - wait_for: { text: x }\n');
    const r = spawnSync(process.execPath, [join(ROOT, 'bin/perf'), 'gate', '--update'], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /perf\/home-main\.yaml and perf\/home\.yaml would share the baseline baselines\/home\.json/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
