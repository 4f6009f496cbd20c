/**
 * Every process a terminal program started is gone after it is closed, also those that left its
 * process group and session (setsid, a double fork): a real shell script (test/fixtures/double-fork.sh)
 * started every way a terminal program is (`perf start` then `perf stop`, the same with its daemon
 * killed outright, `perf run`, MCP `app_start {terminal}` with the server killed outright). They are
 * found by the environment mark they carry and by their command line, not by parentage: a
 * reparented process is no longer below anything of ours.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { markedPids } from '../src/process-mark.js';
import { isAlive, sleep } from '../src/processes.js';
import type { TerminalSessionState } from '../src/session/state.js';
import { FIXTURES_DIR, ROOT } from './helpers.js';

const PERF = path.join(ROOT, 'bin/perf');
const FIXTURE = path.join(FIXTURES_DIR, 'double-fork.sh');
const linuxOnly = process.platform === 'linux' ? false : 'the environment mark is swept from /proc: Linux only';
let runs = 0;

function perf(args: string[], cwd: string): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [PERF, ...args], { cwd, encoding: 'utf8', timeout: 90_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** A fresh folder and a `sleep` duration no other process on the machine uses: its command line finds them. */
function fixture(): { dir: string; secs: string; pidFile: string; command: string } {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'rehearse-orphans-')));
  const secs = `${600 + ++runs}.${process.pid}`;
  return { dir, secs, pidFile: path.join(dir, 'pids'), command: `sh ${FIXTURE} ${secs} ${path.join(dir, 'pids')}` };
}

/** Pids whose command line is exactly `sleep SECS`, wherever they are in the process tree. */
function sleepers(secs: string): number[] {
  const out: number[] = [];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (fs.readFileSync(`/proc/${d}/cmdline`, 'utf8') === `sleep\0${secs}\0`) out.push(Number(d));
    } catch {
      /* gone */
    }
  }
  return out;
}

async function until(what: string, ok: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** Once the fixture's three escapees run: its mark, checked to be on all of them. */
async function escapeesRunning(f: { secs: string; pidFile: string }): Promise<string> {
  const started = (): boolean => fs.existsSync(f.pidFile) && fs.readFileSync(f.pidFile, 'utf8').trim().split('\n').length === 3;
  await until('the fixture to start its three processes', started);
  await until('the three to become sleep', () => sleepers(f.secs).length === 3);
  const mark = fs.readFileSync(`${f.pidFile}.mark`, 'utf8').trim();
  assert.match(mark, /^REHEARSE_RUN=[0-9a-f]{24}$/);
  const marked = markedPids(mark);
  for (const pid of sleepers(f.secs)) assert.ok(marked.includes(pid), `sleep ${pid} carries the mark`);
  return mark;
}

/** Nothing of the fixture runs: no process with its mark, no `sleep SECS`, none of the pids it wrote. */
function noneLeft(f: { secs: string; pidFile: string }, mark: string): void {
  assert.deepEqual(markedPids(mark), [], 'no process carries the mark');
  assert.deepEqual(sleepers(f.secs), [], 'no sleep of the fixture is left');
  for (const pid of fs.readFileSync(f.pidFile, 'utf8').trim().split('\n').map(Number)) assert.equal(isAlive(pid), false, `pid ${pid}`);
}

/** Kill whatever a failed test left, by the pids it found, so one failure does not leak into the next. */
function cleanUp(f: { dir: string; secs: string }, mark: string | undefined): void {
  for (const pid of [...sleepers(f.secs), ...(mark ? markedPids(mark) : [])]) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  fs.rmSync(f.dir, { recursive: true, force: true });
}

test('perf stop ends the terminal program and its setsid and double-forked children', { skip: linuxOnly, timeout: 120_000 }, async () => {
  const f = fixture();
  let mark: string | undefined;
  try {
    const started = perf(['start', '--terminal', f.command, '--json'], f.dir);
    assert.equal(started.code, 0, started.stderr);
    mark = await escapeesRunning(f);
    const stopped = perf(['stop', '--json'], f.dir);
    assert.equal(stopped.code, 0, stopped.stderr);
    noneLeft(f, mark);
  } finally {
    perf(['stop'], f.dir);
    cleanUp(f, mark);
  }
});

test('a perf start daemon killed outright: its watchdog ends them all', { skip: linuxOnly, timeout: 120_000 }, async () => {
  const f = fixture();
  let mark: string | undefined;
  try {
    const started = perf(['start', '--terminal', f.command, '--json'], f.dir);
    assert.equal(started.code, 0, started.stderr);
    const state = JSON.parse(started.stdout) as TerminalSessionState;
    assert.ok(state.watchdogPid, 'the daemon has a watchdog');
    mark = await escapeesRunning(f);
    process.kill(state.daemonPid, 'SIGKILL');
    // The watchdog exits once it has ended everything; perf stop is not what cleans up here.
    await until('the watchdog to finish', () => !isAlive(state.watchdogPid!));
    noneLeft(f, mark);
  } finally {
    perf(['stop'], f.dir);
    cleanUp(f, mark);
  }
});

test("perf run ends each repeat's program with its setsid and double-forked children", { skip: linuxOnly, timeout: 120_000 }, async () => {
  const f = fixture();
  const markFile = `${f.pidFile}.mark`;
  const mark = (): string | undefined => (fs.existsSync(markFile) ? fs.readFileSync(markFile, 'utf8').trim() : undefined);
  try {
    const yaml = [
      'name: escapees',
      'app:',
      `  terminal: { command: sh, args: [${JSON.stringify(FIXTURE)}, ${JSON.stringify(f.secs)}, ${JSON.stringify(f.pidFile)}] }`,
      'repeat: 1',
      'warmup: 0',
      'setup:',
      '  - wait_for: { text: ready, timeoutMs: 20000 }',
      'steps:',
      '  - type: { text: hi }',
      '',
    ].join('\n');
    fs.writeFileSync(path.join(f.dir, 's.yaml'), yaml);
    const run = perf(['run', 's.yaml', '--out', 'out'], f.dir);
    assert.equal(run.code, 0, run.stderr + run.stdout);
    assert.equal(fs.readFileSync(f.pidFile, 'utf8').trim().split('\n').length, 3, 'the fixture started its three');
    noneLeft(f, mark()!);
  } finally {
    cleanUp(f, mark());
  }
});

test('MCP app_start {terminal}: the server killed outright leaves none of them', { skip: linuxOnly, timeout: 120_000 }, async () => {
  const f = fixture();
  let mark: string | undefined;
  const transport = new StdioClientTransport({ command: process.execPath, args: [PERF, 'mcp'], cwd: f.dir, stderr: 'pipe' });
  const client = new Client({ name: 'rehearse-orphans-test', version: '0.0.0' });
  await client.connect(transport);
  try {
    const terminal = { command: 'sh', args: [FIXTURE, f.secs, f.pidFile] };
    type Reply = { isError?: boolean; content: { text: string }[] };
    const res = (await client.callTool({ name: 'app_start', arguments: { terminal } })) as Reply;
    assert.notEqual(res.isError, true, res.content[0]?.text);
    mark = await escapeesRunning(f);
    // The program runs inside the server's process: with it gone, only the watchdog can end them.
    process.kill(transport.pid!, 'SIGKILL');
    await until('everything of the fixture to be gone', () => markedPids(mark!).length === 0 && sleepers(f.secs).length === 0);
    noneLeft(f, mark);
  } finally {
    await client.close().catch(() => undefined);
    cleanUp(f, mark);
  }
});
