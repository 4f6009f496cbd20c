/**
 * `perf start --terminal CMD`: the program runs in the session's daemon, and step verbs, status,
 * logs, restart, stop and an MCP server that did not start it all work on it from other processes.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { terminalCommand } from '../src/cli/lifecycle.js';
import { isAlive, sleep } from '../src/processes.js';
import type { TerminalSessionState } from '../src/session/state.js';
import { ROOT } from './helpers.js';

const PERF = join(ROOT, 'bin/perf');
const work = mkdtempSync(join(tmpdir(), 'rehearse-term-session-'));
writeFileSync(join(work, 'numbers.txt'), Array.from({ length: 500 }, (_, i) => `line ${i + 1}`).join('\n') + '\n');
after(() => {
  perf(['stop']);
  rmSync(work, { recursive: true, force: true });
});

/** `perf ARGS --json`: every verb and session command here is read as JSON. */
function perf(args: string[]): { code: number; stdout: string; stderr: string } {
  const argv = args.includes('--json') ? args : [...args, '--json'];
  const r = spawnSync(process.execPath, [PERF, ...argv], { cwd: work, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

function json<T = Record<string, any>>(r: { code: number; stdout: string; stderr: string }): T {
  assert.equal(r.code, 0, r.stderr + r.stdout);
  return JSON.parse(r.stdout) as T;
}

function screen(): string {
  return json<{ data: { snapshot: string } }>(perf(['snap'])).data.snapshot;
}

test('--terminal splits plain words itself and hands shell syntax to sh -c', () => {
  assert.deepEqual(terminalCommand('less -f numbers.txt'), { command: 'less', args: ['-f', 'numbers.txt'] });
  assert.deepEqual(terminalCommand(`vim 'my notes.txt' "a \\"b\\""`), { command: 'vim', args: ['my notes.txt', 'a "b"'] });
  assert.deepEqual(terminalCommand('seq 100 | less'), { command: 'sh', args: ['-c', 'seq 100 | less'] });
  assert.throws(() => terminalCommand('vim "open'), /unclosed "/);
});

test('perf start --terminal: step verbs from other processes page through less, status and logs see it, stop leaves nothing', async () => {
  const state = json<TerminalSessionState>(perf(['start', '--terminal', 'less -f numbers.txt', '--cols', '60', '--rows', '10', '--json']));
  assert.equal(state.driver, 'pty');
  assert.deepEqual([state.terminal.command, state.terminal.cols, state.terminal.rows], ['less', 60, 10]);
  assert.ok(isAlive(state.terminal.pid));

  assert.match(screen(), /^0 line 1$/m);
  const key = json<{ status: string; data: { latencyMs: number } }>(perf(['press_key', '--key', 'PageDown']));
  assert.equal(key.status, 'ok');
  assert.ok(key.data.latencyMs > 0, 'the screen answered the key');
  const paged = screen();
  assert.doesNotMatch(paged, /^0 line 1$/m);
  assert.match(paged, /^0 line 10$/m);

  const status = json<{ running: boolean; alive: { terminal: boolean } }>(perf(['status', '--json']));
  assert.equal(status.running, true);
  assert.equal(status.alive.terminal, true);
  const logs = json<{ app: string[] }>(perf(['logs', '--json']));
  assert.ok(
    logs.app.some((l) => l.includes('line 12')),
    'the program output is in perf logs',
  );

  const stopped = json<{ stopped: boolean }>(perf(['stop', '--json']));
  assert.equal(stopped.stopped, true);
  assert.equal(isAlive(state.terminal.pid), false);
  assert.equal(isAlive(state.daemonPid), false);
  assert.equal(existsSync(state.terminal.socket), false, 'the step socket is gone');
  const none = perf(['snap']);
  assert.equal(none.code, 3, 'no session: exit 3');
});

test('a measured window opened and closed by two verbs measures the steps between them', () => {
  json(perf(['start', '--terminal', 'bash --norc --noprofile', '--json']));
  json(perf(['perf_begin']));
  json(perf(['fill', '--target.contains', '#', '--text', 'echo measured-$((6*7))']));
  json(perf(['press_key', '--key', 'Enter']));
  const end = json<{ data: { metrics: Record<string, number> } }>(perf(['perf_end']));
  assert.ok(end.data.metrics['terminal.latencyMs.p50']! > 0);
  assert.ok(end.data.metrics['terminal.bytesOut']! > 0);
  assert.ok('steps.press_key.ms' in end.data.metrics);
  assert.match(screen(), /^ ?\d+ measured-42$/m);
});

test('the program exiting leaves its session: status says so, a step names the exit, restart starts it again', async () => {
  json(perf(['fill', '--target.contains', '#', '--text', 'exit 7']));
  json(perf(['press_key', '--key', 'Enter']));
  let status = json<{ running: boolean; alive: { daemon: boolean; terminal: boolean } }>(perf(['status', '--json']));
  for (let i = 0; i < 40 && status.alive.terminal; i++) {
    await sleep(50);
    status = json(perf(['status', '--json']));
  }
  assert.deepEqual([status.running, status.alive.daemon, status.alive.terminal], [false, true, false]);
  const snap = perf(['snap']);
  assert.equal(snap.code, 3);
  assert.match(snap.stderr, /exited \(code 7\)/);
  const restarted = json<TerminalSessionState>(perf(['restart', '--json']));
  assert.ok(isAlive(restarted.terminal.pid));
  assert.match(screen(), /field/);
});

test('an MCP server that did not start the terminal session drives it through the session', async () => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [PERF, 'mcp'],
    cwd: work,
    env: { ...(process.env as Record<string, string>) },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'rehearse-terminal-session-test', version: '0.0.0' });
  await client.connect(transport);
  try {
    const call = async (name: string, args: Record<string, unknown>): Promise<{ isError?: boolean; text: string }> => {
      const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { text: string }[] };
      return { ...(r.isError ? { isError: true } : {}), text: r.content.map((c) => c.text).join('\n') };
    };
    const filled = await call('fill', { target: { contains: '#' }, text: 'echo from-mcp' });
    assert.equal(filled.isError, undefined, filled.text);
    const ran = await call('run', { steps: [{ press_key: { key: 'Enter' } }], snapshot: 'full' });
    assert.equal(ran.isError, undefined, ran.text);
    assert.match((JSON.parse(ran.text) as { snapshot: string }).snapshot, /^ ?\d+ from-mcp$/m);
    const status = await call('app_status', {});
    assert.match(status.text, /"driver":"pty"/);
    const page = await call('navigate', { url: 'http://127.0.0.1:1/' });
    assert.equal(page.isError, true);
    assert.match(page.text, /terminal/);
  } finally {
    await client.close();
  }
  assert.equal(
    isAlive(json<{ state: TerminalSessionState }>(perf(['status', '--json'])).state.terminal.pid),
    true,
    'the MCP server leaves a session it did not start running',
  );
});
