/**
 * The tarball is the product (issue 58 items 2 and 3), as a stranger gets it: `npm pack`, installed by path into an
 * empty project from the npm cache where it can (--prefer-offline: the checkout's own `npm ci` put every tarball
 * there, but `npm ci` installs from the lock and never fetches the registry documents that resolving the tarball's
 * version ranges needs, so --offline fails with ENOTCACHED after a fresh clone's `npm ci` (measured)), without
 * the optional better-sqlite3; then `npx perf doctor`, `npx perf validate` and one real `npx perf run` of the bundled
 * example against the system Chromium, and a history verb that says how to add SQLite (exit 3). Then the README's
 * five-minute guide verbatim (its scenario and commands read from the README) on the demo app the package ships.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { childOutput, ROOT } from './helpers.js';

// Generous: an offline install of ~100 packages and a Chromium run on a shared 2-core CI machine.
const INSTALL_MS = 300_000;
const RUN_MS = 180_000;

let work: string;
let project: string;
let tarball: string;

function sh(cmd: string, args: string[], cwd: string, timeoutMs: number) {
  return childOutput(cmd, args, { cwd, timeoutMs, env: { GITHUB_STEP_SUMMARY: '', npm_config_update_notifier: 'false' } });
}

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'perf-pack-'));
  project = join(work, 'app');
  // Scripts skipped: `prepack` would rebuild dist/ under the other tests; the suite has built it.
  const packed = await sh('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], ROOT, INSTALL_MS);
  assert.equal(packed.code, 0, packed.stderr);
  tarball = join(work, (JSON.parse(packed.stdout) as { filename: string }[])[0]!.filename);
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'empty-app', version: '1.0.0', private: true }));
});

after(() => rmSync(work, { recursive: true, force: true }));

test('the tarball installs offline into an empty project and runs the bundled example there', { timeout: 900_000 }, async () => {
  const install = await sh('npm', ['i', '--prefer-offline', '--no-audit', '--no-fund', '--omit=optional', tarball], project, INSTALL_MS);
  assert.equal(install.code, 0, `npm i --prefer-offline: ${install.stderr.slice(-3000)}`);
  const pkg = join(project, 'node_modules', 'rehearse-perf');
  assert.ok(existsSync(join(pkg, 'docs', 'cli.md')), 'the docs ship');
  assert.ok(!existsSync(join(pkg, 'dist', 'test')), 'no compiled tests ship');
  assert.ok(!existsSync(join(project, 'node_modules', 'better-sqlite3')), 'the optional SQLite addon is not installed');
  // npm 11 warned "install scripts not yet covered by allowScripts: rehearse-perf (prepare: …)" while the package had a
  // `prepare`; it has no install-time script now, so a stricter npm has nothing of ours to skip.
  assert.doesNotMatch(install.stderr, /rehearse-perf@[^\n]*\((pre|post)?(install|prepare)/, 'no install script of ours');
  const shipped = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
  for (const hook of ['preinstall', 'install', 'postinstall', 'prepare']) assert.equal(shipped.scripts?.[hook], undefined, hook);

  const doctor = await sh('npx', ['perf', 'doctor'], project, RUN_MS);
  assert.equal(doctor.code, 0, `perf doctor: ${doctor.stdout}${doctor.stderr}`);

  const scenario = join(pkg, 'scenarios', 'list-scroll.yaml');
  const validate = await sh('npx', ['perf', 'validate', scenario], project, RUN_MS);
  assert.equal(validate.code, 0, `perf validate: ${validate.stdout}${validate.stderr}`);

  const run = await sh('npx', ['perf', 'run', scenario, '--variant', 'desktop', '--repeat', '1', '--warmup', '0'], project, RUN_MS);
  assert.equal(run.code, 0, `perf run: ${run.stdout}${run.stderr}`);
  const runFile = join(project, 'build', 'perf', 'list-scroll-desktop-run.json');
  const written = JSON.parse(readFileSync(runFile, 'utf8')) as { scenario?: unknown };
  assert.ok(written.scenario !== undefined, 'the run file is a run');

  // Without better-sqlite3, a history says how to add it: exit 3 (the environment), no stack trace.
  const history = await sh('npx', ['perf', 'history', 'add', runFile], project, RUN_MS);
  assert.equal(history.code, 3, `perf history add: ${history.stdout}${history.stderr}`);
  assert.match(history.stderr, /better-sqlite3/);
  assert.match(history.stderr, /npm i -D better-sqlite3/);
  assert.doesNotMatch(history.stderr, /\n\s+at /, 'no stack trace');
  // A run asked to record: measured and its file kept, then the same advice and how to record the file later.
  const recording = await sh(
    'npx',
    ['perf', 'run', scenario, '--variant', 'desktop', '--repeat', '1', '--warmup', '0', '--history'],
    project,
    RUN_MS,
  );
  assert.equal(recording.code, 3, `perf run --history: ${recording.stdout}${recording.stderr}`);
  assert.match(recording.stderr, /npm i -D better-sqlite3/);
  assert.match(recording.stderr, /perf history add build\/perf\/list-scroll-desktop-run\.json/);
});

/** The README's "Your own app in five minutes": its scenario block (the bundled demo) and its sh commands, verbatim. */
function fiveMinuteGuide(readme: string): { yaml: string; commands: string[] } {
  const start = readme.indexOf('## Your own app in five minutes');
  assert.ok(start >= 0, 'the README has the five-minute guide');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  const blocks = [...section.matchAll(/^ {3}```(\w+)\n([^]*?)^ {3}```$/gm)].map((m) => ({
    lang: m[1],
    body: m[2]!.replace(/^ {3}/gm, ''),
  }));
  const yaml = blocks.find((b) => b.lang === 'yaml')?.body;
  assert.ok(yaml, 'the guide shows its scenario');
  const commands = blocks
    .filter((b) => b.lang === 'sh')
    .flatMap((b) => b.body.split('\n'))
    .map((l) => l.replace(/\s+#.*$/, '').trim())
    .filter(Boolean);
  return { yaml, commands };
}

test("the README's five-minute guide, verbatim, on the demo the package ships", { timeout: 600_000 }, async () => {
  const { yaml, commands } = fiveMinuteGuide(readFileSync(join(ROOT, 'README.md'), 'utf8'));
  assert.ok(existsSync(join(project, 'node_modules', 'rehearse-perf')), 'the tarball is installed (the test above)');
  mkdirSync(join(project, 'perf'), { recursive: true });
  writeFileSync(join(project, 'perf', 'home.yaml'), yaml);
  assert.deepEqual(
    commands.map((c) => c.split(' ').slice(0, 3).join(' ')),
    ['npx perf validate', 'npx perf run', 'npx perf start', 'npx perf snap'],
    'the guide checks, runs, then starts a session and acts on it',
  );
  try {
    for (const command of commands) {
      const r = await sh('sh', ['-c', command], project, RUN_MS);
      assert.equal(r.code, 0, `${command}: exit ${r.code}\n${r.stdout}${r.stderr}`);
      if (command.includes(' snap ')) assert.match(r.stdout, /Open dialog/, 'the snapshot lists the button the guide taps');
    }
  } finally {
    await sh('npx', ['perf', 'stop'], project, RUN_MS);
  }
  const run = JSON.parse(readFileSync(join(project, 'build', 'perf', 'home-run.json'), 'utf8')) as {
    repeats: { status: string; warmup: boolean }[];
  };
  const measured = run.repeats.filter((r) => !r.warmup && r.status === 'measured').length;
  assert.ok(measured >= 5, `every repeat of the guide's scenario ran its steps: ${measured} measured`);
  assert.ok(existsSync(join(project, 'build', 'perf', 'home-run.html')), 'and the HTML report is written');
});
