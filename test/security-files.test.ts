/**
 * Issue 57, findings 3, 8 and 9, against the real things (the built CLI, the MCP server, Chromium, git,
 * SQLite):
 * - 3: files perf writes are never written through a planted link, and its secrets are the user's alone:
 *   `perf leaks` with a symlink at a snapshot leaves the link's target untouched and writes 0600 snapshots
 *   in a 0700 folder; a symlinked snapshots folder is refused (CLI and MCP) before the app starts; the one
 *   writer in src/files.ts (atomic, exact modes), logs, traces and state files the same;
 * - 8: a folder under /proc (`--history`, `--out`) is refused at once with exit 2 naming the flag, never a
 *   recursive mkdir that spins at 100% CPU deaf to SIGTERM;
 * - 9: no text perf prints or writes as text carries a control character from its inputs: every reporter
 *   over a run file with escape sequences in every string the schema allows, the trends, leaks, gate and
 *   bisect texts, `perf history show|changes` on a commit whose subject retitles the terminal, `perf
 *   compare` on hostile files, and `--json`.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RUN_FILE_SCHEMA, type RunFile } from '../src/perf/run-file.js';
import { compareRuns, validateRunFile } from '../src/perf/compare-runs.js';
import { precompiledValidator } from '../src/precompiled.js';
import { oneLine, plainText, printable } from '../src/printable.js';
import {
  createFileAtomic,
  ensureDir,
  ensurePrivateDir,
  openLogNoFollow,
  SECRET_FILE_MODE,
  writeFileAtomic,
  writeFileNoFollow,
} from '../src/files.js';
import { isPerfError } from '../src/errors.js';
import { REPORTERS } from '../reporters/index.js';
import { changesText, trendsHtml, trendText } from '../reporters/trends.js';
import { renderLeaksMarkdown, renderLeaksText } from '../reporters/leaks.js';
import { buildTrend } from '../src/perf/trends.js';
import { DEFAULT_LEAK_THRESHOLDS, type LeaksResult } from '../src/perf/leaks-result.js';
import type { LeakGroup } from '../src/perf/heap/leaks.js';
import { renderBisectMarkdown, renderBisectText } from '../src/cli/bisect.js';
import type { BisectResult, Comparison } from '../src/runner/bisect.js';
import { renderGateJunit, renderGateMarkdown, renderGateText, type GateEntry } from '../src/cli/gate.js';
import { PerfError } from '../src/errors.js';
import { FIXTURES_DIR, ROOT } from './helpers.js';
import { stdioServer } from './mcp-client.js';

const PERF = path.join(ROOT, 'bin', 'perf');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'rehearse-secfiles-'));
after(() => fs.rmSync(work, { recursive: true, force: true }));

/** A fresh folder under the test's own temporary folder. */
function dir(name: string): string {
  const d = path.join(work, name);
  fs.mkdirSync(d, { recursive: true });
  return d;
}

interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** The built CLI; `timeoutMs` ends it with SIGKILL (SIGTERM is what finding 8's spin ignored). */
function perf(args: string[], cwd: string, timeoutMs = 120_000, env: NodeJS.ProcessEnv = {}): Ran {
  const t = Date.now();
  const r = spawnSync(process.execPath, [PERF, ...args], {
    cwd,
    encoding: 'utf8',
    timeout: timeoutMs,
    killSignal: 'SIGKILL',
    env: { ...process.env, GITHUB_STEP_SUMMARY: '', PERF_HISTORY: '', ...env },
  });
  return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr, ms: Date.now() - t };
}

const modeOf = (p: string): number => fs.lstatSync(p).mode & 0o777;
const octal = (m: number): string => `0${m.toString(8)}`;

// ─── 3: one safe writer ───────────────────────────────────────────────────────────────────────────────

describe('the one writer (src/files.ts)', () => {
  test('writeFileAtomic replaces a link at the target, never writes through it; mode exact whatever the umask', () => {
    const d = dir('atomic');
    const victim = path.join(d, 'victim.txt');
    fs.writeFileSync(victim, 'precious');
    fs.symlinkSync(victim, path.join(d, 'out.json'));
    fs.linkSync(victim, path.join(d, 'hard.json'));
    const umask = process.umask(0);
    try {
      writeFileAtomic(path.join(d, 'out.json'), 'new', { mode: SECRET_FILE_MODE });
      writeFileAtomic(path.join(d, 'hard.json'), 'new', { mode: SECRET_FILE_MODE });
      writeFileAtomic(path.join(d, 'plain.json'), 'x');
    } finally {
      process.umask(umask);
    }
    assert.equal(fs.readFileSync(victim, 'utf8'), 'precious', 'the link target is untouched');
    assert.equal(fs.lstatSync(path.join(d, 'out.json')).isSymbolicLink(), false);
    assert.equal(fs.readFileSync(path.join(d, 'out.json'), 'utf8'), 'new');
    assert.equal(octal(modeOf(path.join(d, 'out.json'))), '0600');
    assert.equal(octal(modeOf(path.join(d, 'hard.json'))), '0600');
    assert.equal(fs.statSync(victim).nlink, 1, 'the hard link was replaced, not written');
    assert.equal(octal(modeOf(path.join(d, 'plain.json'))), '0644', 'an ordinary file: 0644 under umask 0');
    assert.deepEqual(
      fs.readdirSync(d).filter((f) => f.endsWith('.tmp')),
      [],
      'no temporary file left',
    );
  });

  test('createFileAtomic streams into a temporary file: nothing at the target until commit, nothing left on abort', () => {
    const d = dir('stream');
    const file = path.join(d, 'snap.heapsnapshot');
    const sink = createFileAtomic(file, { who: 'test', mode: SECRET_FILE_MODE });
    sink.write('{"a":');
    sink.write(Buffer.from('1}'));
    assert.equal(fs.existsSync(file), false);
    sink.commit();
    sink.abort();
    assert.equal(fs.readFileSync(file, 'utf8'), '{"a":1}');
    assert.equal(sink.bytes, 7);
    const dropped = createFileAtomic(path.join(d, 'other'), { who: 'test' });
    dropped.write('x');
    dropped.abort();
    assert.deepEqual(fs.readdirSync(d), ['snap.heapsnapshot']);
  });

  test('ensurePrivateDir: 0700, an existing 0755 narrowed; a symlink or a file refused, creating nothing behind it', () => {
    const d = dir('private');
    const outside = dir('private-outside');
    const made = ensurePrivateDir(path.join(d, 'a', 'snaps'), 'test');
    assert.equal(octal(modeOf(made)), '0700');
    fs.mkdirSync(path.join(d, 'wide'), { mode: 0o755 });
    ensurePrivateDir(path.join(d, 'wide'), 'test');
    assert.equal(octal(modeOf(path.join(d, 'wide'))), '0700');
    fs.symlinkSync(outside, path.join(d, 'link'));
    const e = catchError(() => ensurePrivateDir(path.join(d, 'link'), 'perf leaks'));
    assert.equal(e.code, 'path_is_symlink');
    assert.equal(e.kind, 'usage');
    assert.match(e.message, /^perf leaks: .*link is a symbolic link/);
    assert.equal(catchError(() => ensurePrivateDir(path.join(d, 'link'), 'x', { create: false })).code, 'path_is_symlink');
    assert.equal(ensurePrivateDir(path.join(d, 'absent'), 'x', { create: false }), path.join(d, 'absent'));
    assert.equal(fs.existsSync(path.join(d, 'absent')), false, 'create: false creates nothing');
    fs.writeFileSync(path.join(d, 'file'), '');
    assert.equal(catchError(() => ensurePrivateDir(path.join(d, 'file'), 'x')).code, 'out_unusable');
    assert.equal(octal(modeOf(outside)), '0755', "the link's target was not chmod'ed");
  });

  test('logs and step outputs: a link is refused, never appended to or written through', () => {
    const d = dir('logs');
    const victim = path.join(d, 'victim');
    fs.writeFileSync(victim, 'precious');
    fs.symlinkSync(victim, path.join(d, 'app.log'));
    assert.equal(catchError(() => openLogNoFollow(path.join(d, 'app.log'), 'app log')).code, 'path_is_symlink');
    const fd = openLogNoFollow(path.join(d, 'chrome.log'), 'perf start');
    fs.closeSync(fd);
    assert.equal(octal(modeOf(path.join(d, 'chrome.log'))), '0600', 'a log is a secret: an app may print a token');
    const e = catchError(() => writeFileNoFollow(path.join(d, 'app.log'), 'x', { overwrite: true, who: 'perf_trace' }));
    assert.equal(e.code, 'path_is_symlink');
    assert.equal(fs.readFileSync(victim, 'utf8'), 'precious');
  });
});

function catchError(fn: () => unknown): PerfError {
  try {
    fn();
  } catch (e) {
    if (isPerfError(e)) return e;
    throw e;
  }
  assert.fail('expected a PerfError');
}

// ─── 8: no recursive mkdir ────────────────────────────────────────────────────────────────────────────

describe('a folder under /proc is refused at once (finding 8)', () => {
  test('ensureDir: /proc, /sys and a link into /proc are usage errors naming who asked', () => {
    const d = dir('proc-link');
    fs.symlinkSync('/proc/self', path.join(d, 'self'));
    for (const p of ['/proc/self/nonexist', '/sys/nonexist/x', path.join(d, 'self', 'nonexist')]) {
      const e = catchError(() => ensureDir(p, '--history'));
      assert.equal(e.code, 'out_unusable', p);
      assert.equal(e.kind, 'usage', p);
      assert.match(e.message, /^--history: cannot use .* kernel file system/, p);
    }
    fs.writeFileSync(path.join(d, 'file'), '');
    const e = catchError(() => ensureDir(path.join(d, 'file', 'sub'), '--out'));
    assert.equal(e.kind, 'environment', 'exit 3 as before: the history-trends contract');
    assert.match(e.message, /is a file, not a folder/);
  });

  test('perf history show|add --history /proc/self/nonexist/h.sqlite, perf leaks --out /proc/…: exit 2 in seconds, naming it', () => {
    const cwd = dir('proc-cli');
    fs.copyFileSync(path.join(ROOT, 'baselines', 'dialog.json'), path.join(cwd, 'run.json'));
    const runs: [string[], RegExp][] = [
      // A read opens nothing that is not there (issue 57 finding 7): it says so before any folder is touched.
      [['history', 'show', '--history=/proc/self/nonexist/h.sqlite'], /no history at \/proc\/self\/nonexist\/h\.sqlite/],
      [['history', 'add', 'run.json', '--commit', 'abc', '--history', '/proc/self/nonexist/h.sqlite'], /kernel file system/],
      [
        ['leaks', path.join(FIXTURES_DIR, 'leaks-cli', 'leaks.yaml'), '--variant', 'leaky', '--out', '/proc/self/nonexist'],
        /perf leaks: cannot use/,
      ],
    ];
    for (const [args, message] of runs) {
      // 60 s with SIGKILL: the old spin never ends, and SIGTERM does not stop it.
      const r = perf(args, cwd, 60_000);
      assert.equal(r.signal, null, `${args.join(' ')}: still running after 60 s`);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, message);
      assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
    }
  });
});

// ─── 3: perf leaks (Chromium) ────────────────────────────────────────────────────────────────────────

describe('perf leaks writes its secrets where it means to (finding 3)', { timeout: 300_000 }, () => {
  const scenarioIn = (cwd: string): string => {
    fs.cpSync(path.join(FIXTURES_DIR, 'leaks-cli'), path.join(cwd, 'leaks-cli'), { recursive: true });
    return path.join('leaks-cli', 'leaks.yaml');
  };

  test('a symlink planted at baseline.heapsnapshot: its target untouched; snapshots 0600 in a 0700 folder', () => {
    const cwd = dir('leaks-link');
    const scenario = scenarioIn(cwd);
    const snaps = path.join(cwd, 'out', 'leaks-cli-fixed-leaks-snapshots');
    fs.mkdirSync(snaps, { recursive: true, mode: 0o755 });
    const victim = path.join(cwd, 'victim.txt');
    fs.writeFileSync(victim, 'precious');
    fs.symlinkSync(victim, path.join(snaps, 'baseline.heapsnapshot'));
    const r = perf(['leaks', scenario, '--variant', 'fixed', '--iterations', '2', '--out', 'out'], cwd, 240_000);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.equal(fs.readFileSync(victim, 'utf8'), 'precious', 'the link was followed');
    assert.equal(octal(modeOf(snaps)), '0700');
    for (const name of ['baseline', 'first', 'last']) {
      const file = path.join(snaps, `${name}.heapsnapshot`);
      const st = fs.lstatSync(file);
      assert.ok(st.isFile() && st.size > 100_000, `${name}: a real snapshot`);
      assert.equal(octal(st.mode & 0o777), '0600', name);
    }
    assert.deepEqual(fs.readdirSync(snaps).sort(), ['baseline.heapsnapshot', 'first.heapsnapshot', 'last.heapsnapshot']);
  });

  test('a symlinked snapshots folder: refused before the app starts (CLI exit 2; MCP isError), nothing written outside', async () => {
    const root = dir('leaks-folder');
    const cwd = path.join(root, 'project');
    fs.mkdirSync(path.join(cwd, 'build', 'perf'), { recursive: true });
    const scenario = scenarioIn(cwd);
    const outside = path.join(root, 'outside');
    fs.mkdirSync(outside);
    fs.symlinkSync(outside, path.join(cwd, 'build', 'perf', 'leaks-cli-leaky-leaks-snapshots'));
    const r = perf(['leaks', scenario, '--variant', 'leaky', '--out', 'build/perf'], cwd, 60_000);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /perf leaks: .*leaks-cli-leaky-leaks-snapshots is a symbolic link/);
    const s = await stdioServer(cwd, { name: 'security-files', args: ['--caps', 'core,perf,devtools'], callTimeoutMs: 60_000 });
    try {
      const reply = await s.call('perf_leaks', { scenario, variant: 'leaky' });
      assert.equal(reply.isError, true, reply.text);
      assert.equal(reply.json.code, 'path_is_symlink', reply.text);
    } finally {
      await s.close();
    }
    assert.deepEqual(fs.readdirSync(outside), [], 'nothing went through the link');
  });
});

describe('perf run keeps its traces where it means to (finding 3, the same family)', { timeout: 300_000 }, () => {
  test('traces 0600; a link at a trace is replaced, a linked traces folder is not written through', () => {
    const root = dir('run-traces');
    const cwd = path.join(root, 'project');
    const out = path.join(cwd, 'out');
    fs.mkdirSync(out, { recursive: true });
    const outside = path.join(root, 'outside');
    fs.mkdirSync(outside);
    // Named as the repeats' traces are: written through the link, they would be replaced, then moved away.
    for (const f of ['repeat0.json', 'repeat1.json']) fs.writeFileSync(path.join(outside, f), 'keep');
    const victim = path.join(root, 'victim.txt');
    fs.writeFileSync(victim, 'precious');
    fs.symlinkSync(victim, path.join(out, 'dialog-a-median.trace.json'));
    const scenario = path.join(ROOT, 'scenarios', 'dialog.yaml');
    const a = perf(['run', scenario, '--repeat', '2', '--warmup', '0', '--label', 'a', '--out', 'out'], cwd, 240_000);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(fs.readFileSync(victim, 'utf8'), 'precious', 'the link at the trace was followed');
    for (const which of ['median', 'slowest']) {
      const file = path.join(out, `dialog-a-${which}.trace.json`);
      assert.ok(fs.lstatSync(file).isFile(), which);
      assert.equal(octal(modeOf(file)), '0600', `${which} trace`);
    }
    assert.equal(octal(modeOf(path.join(out, 'dialog-a.json'))) !== '0600', true, 'a run file is not a secret');
    fs.symlinkSync(outside, path.join(out, '.dialog-b-traces'));
    const b = perf(['run', scenario, '--repeat', '2', '--warmup', '0', '--label', 'b', '--out', 'out'], cwd, 240_000);
    assert.equal(b.code, 0, b.stderr);
    for (const f of ['repeat0.json', 'repeat1.json'])
      assert.equal(fs.readFileSync(path.join(outside, f), 'utf8'), 'keep', `${f}: written through the linked traces folder`);
  });
});

describe('a history file is not written through a link (finding 3, the same family)', () => {
  test('a symlink at the SQLite file (dangling: SQLite would create its target) or at its -wal: exit 2 naming it', () => {
    const cwd = dir('history-link');
    fs.copyFileSync(path.join(ROOT, 'baselines', 'dialog.json'), path.join(cwd, 'run.json'));
    const elsewhere = path.join(cwd, 'elsewhere.db');
    for (const link of ['h.sqlite', 'h.sqlite-wal']) {
      const folder = path.join(cwd, link.replace('.', '-'));
      fs.mkdirSync(folder);
      fs.symlinkSync(elsewhere, path.join(folder, link));
      const r = perf(['history', 'add', 'run.json', '--commit', 'abc', '--history', path.join(folder, 'h.sqlite')], cwd);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, new RegExp(`--history: .*${link} is a symbolic link`));
      assert.equal(fs.existsSync(elsewhere), false, `${link}: nothing created where the link points`);
    }
  });
});

// ─── 9: terminal escape injection ───────────────────────────────────────────────────────────────────

/**
 * What a hostile string carries: OSC 0 (retitle), OSC 8 (a link), OSC 52 (write the clipboard), CSI 2J and a
 * cursor move (clear, overwrite), the conceal and blink SGRs (text hidden on screen; no reporter colours with
 * them), DCS, the 8-bit CSI and OSC (C1), a bare CR (overwrite the line), BEL, NUL, backspace, DEL, NEL.
 */
const HOSTILE =
  '\x1b]0;PWNED\x07\x1b]8;;http://evil/\x1b\\link\x1b]8;;\x1b\\\x1b]52;c;ZWNobyBwd25lZA==\x07\x1b[2J\x1b[1;1H' +
  '\x1b[8mhidden\x1b[5m\x1bP+q544e\x1b\\\x9b2J\x9d0;c1\x9c\rover\x07\x00\x08\x7f\x85end';
/** Every control character but TAB and LF (which reports lay out with). */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/** `out` has no control character; with `sgr`, the reporter's own colours (not the two HOSTILE carries) are allowed. */
function assertClean(what: string, out: string, opts: { sgr?: boolean } = {}): void {
  const sgr = /\x1b\[[58]m/.exec(out);
  const text = opts.sgr && !sgr ? out.replace(/\x1b\[[0-9;]*m/g, '') : out;
  const at = sgr ?? CONTROL.exec(text);
  if (!at) return;
  const around = JSON.stringify(text.slice(Math.max(0, at.index - 80), at.index + 40));
  assert.fail(`${what}: control character U+${at[0].charCodeAt(0).toString(16).padStart(4, '0')} at ${at.index}: ${around}`);
}

const validateRun = precompiledValidator('files', RUN_FILE_SCHEMA)!;

type Path = (string | number)[];
function stringLeaves(x: unknown, at: Path = [], out: Path[] = []): Path[] {
  if (typeof x === 'string') out.push(at);
  else if (Array.isArray(x)) x.forEach((v, i) => stringLeaves(v, [...at, i], out));
  else if (x && typeof x === 'object') for (const [k, v] of Object.entries(x)) stringLeaves(v, [...at, k], out);
  return out;
}
const getAt = (root: unknown, p: Path): unknown => p.reduce<unknown>((n, k) => (n as Record<string | number, unknown>)[k], root);
function setAt(root: unknown, p: Path, v: unknown): void {
  (getAt(root, p.slice(0, -1)) as Record<string | number, unknown>)[p[p.length - 1]!] = v;
}

/**
 * `base` with HOSTILE appended to every string the run file schema lets be any text (enums, dates and
 * patterns the schema refuses are put back one by one, by the validator's own error path), a step labelled
 * HOSTILE (its metric `steps.<label>.ms` too), and a failed and a refused repeat whose messages carry it.
 */
function poisonedRun(base: RunFile): RunFile {
  const run = structuredClone(base) as RunFile;
  const label = `tap${HOSTILE}`;
  const metric = `steps.${label}.ms`;
  run.summary.metrics[metric] = { median: 2, min: 1, max: 3, p25: 1.5, p75: 2.5, n: 2 };
  for (const r of run.repeats) if (r.status === 'measured') r.report.metrics[metric] = 2;
  run.gate = { metrics: [metric, ...(run.gate?.metrics ?? [])] };
  const error = { kind: 'failed', code: 'target_not_found', message: HOSTILE, suggestion: HOSTILE, candidates: [HOSTILE] };
  const common = { mode: 'timing' as const, warmup: false, wallMs: 1 };
  const n = run.repeats.length;
  run.repeats.push(
    {
      ...common,
      index: n,
      steps: [{ phase: 'steps', step: 'tap', label, status: 'failed', durationMs: 1, error, warnings: [HOSTILE] }],
      status: 'failed',
      failure: { phase: 'steps', step: 'tap', label, error },
    },
    { ...common, index: n + 1, steps: [], status: 'refused', reason: HOSTILE },
  );
  const data = JSON.parse(JSON.stringify(run)) as RunFile;
  const poisoned = new Set<string>();
  for (const p of stringLeaves(data)) {
    const v = getAt(data, p) as string;
    if (v.includes(HOSTILE) || p[0] === 'schemaVersion') continue;
    setAt(data, p, v + HOSTILE);
    poisoned.add(JSON.stringify(p));
  }
  for (let tries = 0; !validateRun(data); tries++) {
    assert.ok(tries < 5_000, 'the schema keeps refusing');
    const err = validateRun.errors![0]!;
    const at: Path = err.instancePath
      .split('/')
      .slice(1)
      .map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'));
    const tag = (err.params as { tag?: string }).tag;
    const target = tag ? [...at, tag] : at;
    const key = JSON.stringify(target.map((k, i) => (Array.isArray(getAt(data, target.slice(0, i))) ? Number(k) : k)));
    assert.ok(poisoned.delete(key), `the schema refuses a string that was not poisoned: ${err.instancePath} ${err.message}`);
    const p = JSON.parse(key) as Path;
    setAt(data, p, (getAt(data, p) as string).slice(0, -HOSTILE.length));
  }
  assert.ok(poisoned.size > 100, `${poisoned.size} strings carry the payload`);
  return validateRunFile(data, 'poisoned');
}

const baseline = (name: string): RunFile => validateRunFile(JSON.parse(fs.readFileSync(path.join(ROOT, 'baselines', name), 'utf8')), name);

describe('no control character from an input reaches text output (finding 9)', () => {
  test(
    'the sanitiser: sequences dropped whole, lines joined or kept, controls shown where a message quotes them',
    { timeout: 60_000 },
    () => {
      assert.equal(oneLine(`a${HOSTILE}b`), 'alinkhidden overendb');
      assert.equal(oneLine('  x \r\n y\t z  '), 'x y z');
      assert.equal(oneLine('abcdef', 4), 'abc…');
      assert.equal(plainText('a\r\nb\x1b[31m\tc\rd'), 'a\nb\tc\nd');
      assert.equal(printable('a\x1b]0;t\x07\nb'), 'a\\u001b]0;t\\u0007\nb');
      // Linear on what a regex engine finds hardest, a long run of sequence starts: quadratic would outlast the timeout.
      assert.equal(oneLine('\x1b['.repeat(200_000) + '\x1b]'.repeat(200_000) + 'x'), '');
    },
  );

  test('every reporter, run and compare, over a run file with escape sequences in every string', () => {
    const a = poisonedRun(baseline('dialog.json'));
    const b = poisonedRun(baseline('filter-typing.json'));
    for (const reporter of REPORTERS) {
      if (reporter.name === 'html') continue;
      assertClean(`${reporter.name} run`, reporter.renderRun(a, {}));
      assertClean(`${reporter.name} compare`, reporter.renderCompare(compareRuns(a, a, { force: true }), { a, b: a }, {}));
      assertClean(`${reporter.name} compare a/b`, reporter.renderCompare(compareRuns(a, b, { force: true }), { a, b }, {}));
    }
    const table = REPORTERS.find((r) => r.name === 'table')!;
    assertClean('table run in colour', table.renderRun(a, { color: true }), { sgr: true });
    assertClean('table compare in colour', table.renderCompare(compareRuns(a, b, { force: true }), { a, b }, { color: true }), {
      sgr: true,
    });
  });
});

describe('the other text outputs over hostile names (finding 9)', () => {
  const H = HOSTILE;

  test('perf history show|changes texts: commit subjects, scenario, variant, metric and commit as stored', () => {
    const inputs = Array.from({ length: 24 }, (_, i) => {
      const median = i < 12 ? 100 : 200;
      return {
        runId: i + 1,
        commit: `${H}${i}`,
        subject: `fix ${i}${H}`,
        date: `2026-01-0${1 + (i % 9)}T00:00:00Z${H}`,
        values: [median - 1, median, median + 1],
        median,
      };
    });
    const trend = buildTrend({ scenario: `s${H}`, variant: `v${H}`, metric: `steps.tap${H}.ms` }, inputs);
    assert.ok(trend.changes.length > 0, 'a change point to print');
    assertClean('trendText', trendText(trend));
    assertClean('changesText', changesText([trend]));
    assert.match(changesText([trend]), /fix 12/);
    assert.ok(!trendsHtml([trend]).includes('\x1b'), 'the trends page');
  });

  test('perf leaks text and Markdown: constructor names and retainer paths out of the page heap', () => {
    const group: LeakGroup = {
      constructor: `Panel${H}`,
      countPerIteration: 3,
      count: 9,
      retainedBytes: 300 * 1024,
      retainerPath: ['Window', `listeners${H}`, `(closure) on${H}`, 'Panel'],
      detached: { nodes: 5, retainedBytes: 1024 },
    };
    const r: LeaksResult = {
      kind: 'heap',
      scenario: `s${H}`,
      variant: `v${H}`,
      iterations: 4,
      thresholds: DEFAULT_LEAK_THRESHOLDS,
      verdict: 'leak',
      wallMs: 1,
      snapshotsDir: `/tmp/snaps${H}`,
      analysis: { iterations: 4, groups: [group], snapshots: [], peakRssBytes: 0 },
      leaking: [group],
      leakingRetainedBytes: group.retainedBytes,
    };
    assertClean('leaks text', renderLeaksText(r));
    assertClean('leaks text in colour', renderLeaksText(r, { color: true }), { sgr: true });
    assertClean('leaks markdown', renderLeaksMarkdown(r));
  });

  test('perf bisect text and Markdown: subjects, the metric, why', () => {
    const cmp = (baseline: string, candidate: string): Comparison => ({
      baseline,
      candidate,
      judgement: 'worse',
      repeats: 10,
      metric: `steps.tap${H}.ms`,
      deltaPct: 12.5,
      ci: null,
      why: `because${H}`,
      cached: false,
    });
    const commit = (c: string): { commit: string; subject: string; authorDate: string } => ({
      commit: c,
      subject: `subject ${c}${H}`,
      authorDate: `2026-01-01${H}`,
    });
    const tested = ['a'.repeat(40), 'b'.repeat(40)].map((c) => ({
      ...commit(c),
      verdict: 'bad' as const,
      repeats: 10,
      comparisons: [cmp(c, c)],
    }));
    // What the search followed, and why: a metric name from the scenario, its reason in words.
    const followed = [{ metric: `steps.tap${H}.ms`, deltaPct: 12.5, ci: null, why: `why${H}` }];
    const results: BisectResult[] = [
      { outcome: 'found', metric: 'm', followed, culprit: { ...commit('c'.repeat(40)), delta: cmp('a', 'c') }, tested, durationMs: 1 },
      { outcome: 'not_reproduced', metric: null, followed: [], endpoints: cmp('a', 'b'), tested, durationMs: 1 },
      { outcome: 'ambiguous', metric: 'm', followed, candidates: [commit('d'.repeat(40))], tested, durationMs: 1 },
    ];
    for (const r of results) {
      assertClean(`bisect text ${r.outcome}`, renderBisectText(r));
      assertClean(`bisect markdown ${r.outcome}`, renderBisectMarkdown(r));
    }
    assert.match(renderBisectText(results[0]!), /first bad commit: c{40} subject c{40}/);
  });

  test('perf gate text, Markdown and JUnit: errors, reasons, budgets and the compare tables of hostile runs', () => {
    // A broken budget and a kept one: the gate lists both first, with the expression the scenario wrote.
    const budgets = [
      { expr: 'counters.layouts <= 1', metric: 'counters.layouts', op: '<=' as const, limit: 1, value: 5, pass: false },
      { expr: 'counters.layouts < 99', metric: 'counters.layouts', op: '<' as const, limit: 99, value: 5, pass: true },
    ];
    const run = poisonedRun({ ...baseline('dialog.json'), budgets });
    assert.ok(
      run.budgets.some((b) => b.expr.includes(H)),
      'a budget expression is hostile',
    );
    const base = { scenario: `s${H}`, variant: null, scenarioFile: `s${H}.yaml`, baselineFile: `b${H}.json`, runFile: `r${H}.json` };
    const entries: GateEntry[] = [
      { ...base, id: `one${H}`, run, outcome: { status: 'compared', comparison: compareRuns(run, run, { force: true }), baseline: run } },
      { ...base, id: `two${H}`, run: null, outcome: { status: 'unmeasured', reason: `reason${H}` } },
      {
        ...base,
        id: `three${H}`,
        run: null,
        outcome: { status: 'error', error: new PerfError({ code: 'app_exited', message: `died${H}` }) },
      },
      { ...base, id: `four${H}`, run: null, outcome: { status: 'missing-baseline', why: `why${H}` }, baselineFrom: `abc${H}` },
    ];
    assertClean('gate text', renderGateText(entries));
    assertClean('gate text in colour', renderGateText(entries, true), { sgr: true });
    assertClean('gate markdown', renderGateMarkdown(entries));
    assertClean('gate junit', renderGateJunit(entries));
    assert.match(renderGateText(entries).split('\n')[1]!, /^Budgets: 1 of 2 failed/);
  });
});

describe('the built CLI prints nothing a hostile input carries (finding 9)', () => {
  /** HOSTILE as git keeps it in a commit message: every byte but NUL. */
  const SUBJECT = `release 1.2 ${HOSTILE.replace(/\x00/g, '')} done`;

  function git(cwd: string, ...args: string[]): string {
    const r = spawnSync('git', args, { cwd, encoding: 'utf8', timeout: 30_000 });
    assert.equal(r.status, 0, `git ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  }

  test('perf history show|changes on a commit whose subject retitles, clears and rewrites the terminal', () => {
    const cwd = dir('history-subject');
    git(cwd, 'init', '-q');
    git(cwd, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', SUBJECT);
    assert.ok(git(cwd, 'log', '-1', '--format=%s').includes('\x1b]0;PWNED\x07'), 'git kept the sequences');
    fs.copyFileSync(path.join(ROOT, 'baselines', 'dialog.json'), path.join(cwd, 'run.json'));
    const add = perf(['history', 'add', 'run.json', '--history', 'h.sqlite'], cwd);
    assert.equal(add.code, 0, add.stderr);
    for (const args of [
      ['history', 'show', '--history', 'h.sqlite'],
      ['history', 'show', '--history', 'h.sqlite', '--metric', 'durationMs'],
      ['history', 'changes', '--history', 'h.sqlite'],
    ]) {
      const r = perf(args, cwd);
      assert.equal(r.code, 0, r.stderr);
      assertClean(`${args.join(' ')} stdout`, r.stdout);
      assertClean(`${args.join(' ')} stderr`, r.stderr);
    }
    const show = perf(['history', 'show', '--history', 'h.sqlite', '--metric', 'durationMs'], cwd);
    assert.match(show.stdout, /release 1\.2 linkhidden over/, 'the subject shows, without what it carried');
    const json = perf(['history', 'show', '--history', 'h.sqlite', '--json'], cwd);
    assert.equal(json.code, 0, json.stderr);
    assertClean('history show --json', json.stdout);
    assert.ok(JSON.stringify(JSON.parse(json.stdout)).includes('\\u001b]0;PWNED'), '--json keeps the subject as data');
  });

  test('perf compare, report and history add on hostile run files: stdout, stderr and the files written', () => {
    const cwd = dir('compare-hostile');
    fs.writeFileSync(path.join(cwd, 'a.json'), JSON.stringify(poisonedRun(baseline('dialog.json'))));
    fs.writeFileSync(path.join(cwd, 'b.json'), JSON.stringify(poisonedRun(baseline('filter-typing.json'))));
    const summary = path.join(cwd, 'summary.md');
    const runs: string[][] = [
      ['compare', 'a.json', 'b.json', '--force'],
      ['compare', 'a.json', 'b.json', '--force', '--reporter', 'markdown'],
      ['compare', 'a.json', 'b.json', '--force', '--reporter', 'junit'],
      ['compare', 'a.json', 'b.json', '--force', '--json'],
      ['history', 'add', 'a.json', '--commit', 'abc', '--history', 'h.sqlite'],
      ['history', 'show', '--history', 'h.sqlite'],
    ];
    for (const args of runs) {
      const r = perf(args, cwd, 120_000, { GITHUB_STEP_SUMMARY: summary });
      assert.ok(r.code !== null && r.code <= 1, `${args.join(' ')}: exit ${r.code}: ${r.stderr}`);
      assertClean(`${args.join(' ')} stdout`, r.stdout);
      assertClean(`${args.join(' ')} stderr`, r.stderr);
    }
    assertClean('$GITHUB_STEP_SUMMARY', fs.readFileSync(summary, 'utf8'));
  });
});
