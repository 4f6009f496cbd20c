/**
 * What `perf mcp` lets a client do, end to end on the built CLI: `--http` needs the bearer token of
 * `.perf/mcp-token` (node fetch against a spawned `bin/perf mcp --http 0`); a project's
 * `.perf/mcp.json` can narrow but not turn on evaluate, and can turn off programs; tool arguments naming
 * files stay inside the working folder unless `--allow-outside`; the Grid perf_run and perf_bisect use is `--grid`'s alone.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { allTools } from '../src/mcp/tools.js';
import { DEMO_DIR, ROOT } from './helpers.js';
import { stdioServer as mcpStdio, type Stdio } from './mcp-client.js';

const PERF = path.join(ROOT, 'bin', 'perf');
const PROTOCOL = '2025-06-18';

const tmpDirs: string[] = [];
function tmpDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'rehearse-mcp-sec-'));
  tmpDirs.push(d);
  return d;
}
after(() => {
  for (const d of tmpDirs) fs.rmSync(d, { recursive: true, force: true });
});

function writeProjectConfig(cwd: string, config: unknown): void {
  fs.mkdirSync(path.join(cwd, '.perf'), { recursive: true });
  fs.writeFileSync(path.join(cwd, '.perf', 'mcp.json'), JSON.stringify(config));
}

function stdioServer(cwd: string, args: string[] = []): Promise<Stdio> {
  return mcpStdio(cwd, { args, name: 'rehearse-security-test' });
}

describe('--http needs the bearer token', () => {
  /** The spawned server, its URL once it listens, and everything it wrote on stderr so far. */
  async function httpServer(cwd: string): Promise<{ child: ChildProcessWithoutNullStreams; url: string; stderr: () => string }> {
    const child = spawn(process.execPath, [PERF, 'mcp', '--http', '0'], { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let err = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (d: Buffer) => {
        err += d.toString();
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err);
        if (m) resolve(m[1]!);
      });
      child.once('exit', (code) => reject(new Error(`exited ${code}: ${err}`)));
    });
    return { child, url, stderr: () => err };
  }

  /** One JSON-RPC message over POST; the answer may come as JSON or as one server-sent event. */
  type Answer = { status: number; headers: Headers; json: any };
  async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
    const r = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify(body),
    });
    const text = await r.text();
    const data = /^data: (.*)$/m.exec(text)?.[1] ?? text;
    let json: unknown;
    try {
      json = data ? JSON.parse(data) : undefined;
    } catch {
      json = undefined;
    }
    return { status: r.status, headers: r.headers, json };
  }

  const clientInfo = { name: 'fetch', version: '1' };
  const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo } };

  test('no or a wrong token: 401 saying where it is; the token of .perf/mcp-token works; gone on exit', { timeout: 120_000 }, async () => {
    const cwd = tmpDir();
    const { child, url, stderr } = await httpServer(cwd);
    const tokenFile = path.join(cwd, '.perf', 'mcp-token');
    try {
      const token = fs.readFileSync(tokenFile, 'utf8');
      assert.match(token, /^[A-Za-z0-9_-]{43}$/, '32 random bytes, base64url');
      assert.equal(fs.statSync(tokenFile).mode & 0o777, 0o600);
      assert.equal(stderr().split(token).length - 1, 1, 'the token is printed once');

      const none = await post(url, initialize);
      assert.equal(none.status, 401);
      assert.equal(none.headers.get('www-authenticate'), 'Bearer');
      assert.equal(none.json.jsonrpc, '2.0');
      assert.match(none.json.error.message, /Authorization: Bearer <token>.*\.perf\/mcp-token/);
      assert.equal(JSON.stringify(none.json).includes(token), false);
      const flipped = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
      assert.equal((await post(url, initialize, { authorization: `Bearer ${flipped}` })).status, 401, 'wrong token, same length');
      assert.equal((await post(url, initialize, { authorization: `Bearer ${token}x` })).status, 401, 'wrong token, longer');
      assert.equal((await post(url, initialize, { authorization: token })).status, 401, 'no Bearer scheme');
      // The Origin check runs first: a foreign page is refused even with the token.
      assert.equal((await post(url, initialize, { authorization: `Bearer ${token}`, origin: 'http://evil.example' })).status, 403);

      const auth = { authorization: `Bearer ${token}` };
      const init = await post(url, initialize, auth);
      assert.equal(init.status, 200);
      assert.equal(init.json.result.serverInfo.name.length > 0, true);
      const session = { ...auth, 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': PROTOCOL };
      assert.equal((await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, session)).status, 202);
      const list = await post(url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, session);
      assert.ok((list.json.result.tools as { name: string }[]).some((t) => t.name === 'app_status'));
      const call = await post(url, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'app_status', arguments: {} } }, session);
      assert.equal(JSON.parse(call.json.result.content[0].text).data.running, false);
      // A known session id is no substitute for the token.
      const { authorization: _dropped, ...noToken } = session;
      assert.equal((await post(url, { jsonrpc: '2.0', id: 4, method: 'tools/list' }, noToken)).status, 401);
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    assert.equal(fs.existsSync(tokenFile), false, 'removed on a clean exit');
  });

  test('the token file is never written through a symlink', { timeout: 60_000 }, async () => {
    const cwd = tmpDir();
    const victim = path.join(tmpDir(), 'victim');
    fs.writeFileSync(victim, 'keep me');
    fs.mkdirSync(path.join(cwd, '.perf'));
    fs.symlinkSync(victim, path.join(cwd, '.perf', 'mcp-token'));
    const child = spawn(process.execPath, [PERF, 'mcp', '--http', '0'], { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    assert.equal(code, 2, err);
    assert.match(err, /\.perf\/mcp-token is a symbolic link; refusing to write through it/);
    assert.equal(fs.readFileSync(victim, 'utf8'), 'keep me');
  });
});

describe('a project file narrows, never widens', () => {
  const allowsEvaluate = { tools: { caps: ['core', 'perf', 'devtools'], allow: ['*', 'evaluate'] } };

  test('.perf/mcp.json allowing evaluate: a warning naming --allow, evaluate not listed and refused', { timeout: 60_000 }, async () => {
    const cwd = tmpDir();
    writeProjectConfig(cwd, allowsEvaluate);
    const s = await stdioServer(cwd);
    try {
      const names = await s.names();
      assert.ok(names.includes('console'), 'the file may pick caps');
      assert.equal(names.includes('evaluate'), false);
      const r = await s.call('evaluate', { expression: '1' });
      assert.equal(r.isError, true);
      assert.equal(r.json.code, 'tool_denied');
      assert.match(r.json.suggestion, /--allow evaluate/);
      assert.match(s.stderr(), /warning: .*mcp\.json: "evaluate" stays off: .*pass --allow evaluate/);
    } finally {
      await s.close();
    }
  });

  test('--allow evaluate on the command line turns it on; so does a file named with --config', { timeout: 60_000 }, async () => {
    const cwd = tmpDir();
    writeProjectConfig(cwd, allowsEvaluate);
    const flag = await stdioServer(cwd, ['--allow', 'evaluate']);
    try {
      assert.ok((await flag.names()).includes('evaluate'));
      assert.equal(flag.stderr().includes('stays off'), false);
    } finally {
      await flag.close();
    }
    fs.writeFileSync(path.join(cwd, 'chosen.json'), JSON.stringify(allowsEvaluate));
    const chosen = await stdioServer(cwd, ['--config', 'chosen.json']);
    try {
      assert.ok((await chosen.names()).includes('evaluate'));
    } finally {
      await chosen.close();
    }
  });

  test('"commands": false: app_start refuses command, terminal, desktop; perf_run a scenario with one', { timeout: 60_000 }, async () => {
    const cwd = tmpDir();
    writeProjectConfig(cwd, { tools: { commands: false } });
    const command = `node -e "require('fs').writeFileSync('ran-scenario', '')"`;
    const yaml = ['name: x', 'app:', `  command: ${JSON.stringify(command)}`, '  url: "http://127.0.0.1:${PORT}"', 'steps:', '- snap: {}'];
    fs.writeFileSync(path.join(cwd, 'cmd.yaml'), yaml.join('\n'));
    const s = await stdioServer(cwd);
    try {
      const tries: Record<string, unknown>[] = [
        { command: "node -e \"require('fs').writeFileSync('ran-command', '')\"", url: 'http://127.0.0.1:${PORT}' },
        { terminal: { command: 'sh', args: ['-c', ': > ran-terminal'] } },
        { desktop: { binary: '/bin/true' } },
      ];
      for (const args of tries) {
        const r = await s.call('app_start', args);
        assert.equal(r.isError, true, JSON.stringify(args));
        assert.equal(r.json.code, 'commands_denied', r.text);
        assert.match(r.json.message, /^app_start: (command|terminal|desktop) runs a program, and the MCP config .*mcp\.json/);
        assert.match(r.json.message, /\(tools\.commands: false\) turned that off$/);
      }
      const run = await s.call('perf_run', { scenario: 'cmd.yaml', repeat: 1, warmup: 0 });
      assert.equal(run.json.code, 'commands_denied', run.text);
      assert.match(run.json.message, /^perf_run scenario: cmd\.yaml: app\.command runs a program/);
      assert.deepEqual(
        fs.readdirSync(cwd).filter((f) => f.startsWith('ran-')),
        [],
        'no program ran',
      );
    } finally {
      await s.close();
    }
  });

  test('--no-commands on the command line: a file saying "commands": true cannot undo it', { timeout: 60_000 }, async () => {
    const cwd = tmpDir();
    writeProjectConfig(cwd, { tools: { commands: true } });
    const s = await stdioServer(cwd, ['--no-commands']);
    try {
      const r = await s.call('app_start', { terminal: { command: 'sh', args: ['-c', ': > ran-terminal'] } });
      assert.equal(r.json.code, 'commands_denied', r.text);
      assert.match(r.json.message, /perf mcp --no-commands turned that off/);
      assert.equal(fs.existsSync(path.join(cwd, 'ran-terminal')), false);
    } finally {
      await s.close();
    }
  });
});

describe('file arguments stay inside the working folder', () => {
  test('perf_run out/scenario/against, perf_compare a/b, doctor outDir: outside is refused naming it', { timeout: 60_000 }, async () => {
    const root = tmpDir();
    const cwd = path.join(root, 'project');
    fs.mkdirSync(cwd);
    fs.copyFileSync(path.join(ROOT, 'scenarios', 'form-submit.yaml'), path.join(cwd, 'tiny.yaml'));
    fs.cpSync(DEMO_DIR, path.join(cwd, 'app'), { recursive: true });
    fs.copyFileSync(path.join(ROOT, 'scenarios', 'form-submit.yaml'), path.join(root, 'outside.yaml'));
    fs.symlinkSync('/etc/passwd', path.join(cwd, 'passwd.json'));
    const s = await stdioServer(cwd, ['--caps', 'core,perf,lifecycle-extra']);
    try {
      const refused = async (tool: string, args: Record<string, unknown>, who: string): Promise<void> => {
        const r = await s.call(tool, args);
        assert.equal(r.isError, true, `${tool} ${JSON.stringify(args)}: ${r.text}`);
        assert.equal(r.json.code, 'path_outside_workdir', r.text);
        assert.equal(r.json.kind, 'usage');
        assert.ok(r.json.message.startsWith(`${who}: `), r.json.message);
        assert.match(r.json.suggestion, /--allow-outside/);
      };
      await refused('perf_run', { scenario: 'tiny.yaml', out: '../outside' }, 'perf_run out');
      assert.equal(fs.existsSync(path.join(root, 'outside')), false, 'nothing created outside');
      await refused('perf_run', { scenario: '../outside.yaml' }, 'perf_run scenario');
      await refused('perf_run', { scenario: 'tiny.yaml', against: path.join(root, 'outside.yaml') }, 'perf_run against');
      await refused('perf_compare', { a: '/etc/passwd', b: 'b.json' }, 'perf_compare a');
      await refused('perf_compare', { a: 'a.json', b: 'passwd.json' }, 'perf_compare b');
      await refused('doctor', { outDir: '../doctor-out' }, 'doctor outDir');
      assert.equal(fs.existsSync(path.join(root, 'doctor-out')), false);
    } finally {
      await s.close();
    }
  });

  test('with --allow-outside, perf_compare of /etc/passwd fails without quoting a line of it', { timeout: 60_000 }, async () => {
    const cwd = tmpDir();
    const s = await stdioServer(cwd, ['--allow-outside']);
    try {
      const r = await s.call('perf_compare', { a: '/etc/passwd', b: '/etc/passwd' });
      assert.equal(r.isError, true);
      assert.notEqual(r.json.code, 'path_outside_workdir', r.text);
      const lines = fs
        .readFileSync('/etc/passwd', 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '');
      for (const line of lines) assert.equal(r.text.includes(line), false, `the error quotes "${line}"`);
    } finally {
      await s.close();
    }
  });
});

describe("the Grid is the server's, not the agent's", () => {
  test(
    'perf mcp --grid takes a Grid URL (bad input: exit 2 naming it); perf_run and perf_bisect take no Grid argument',
    { timeout: 60_000 },
    () => {
      const r = spawnSync(process.execPath, [PERF, 'mcp', '--grid', 'ftp://example.org'], {
        cwd: tmpDir(),
        encoding: 'utf8',
        timeout: 30_000,
      });
      assert.equal(r.status, 2, r.stderr);
      assert.match(r.stderr, /perf mcp: --grid must be a Selenium Grid URL/);
      assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
      // perf_run and perf_bisect measure on the server's Grid: where measurements run is the user's choice, not the agent's.
      for (const name of ['perf_run', 'perf_bisect']) {
        const props = Object.keys(allTools().find((t) => t.name === name)!.inputSchema.properties ?? {});
        assert.deepEqual(
          props.filter((p) => /grid|endpoint|url|host/i.test(p)),
          [],
          `${name}: ${props.join(', ')}`,
        );
      }
    },
  );
});
