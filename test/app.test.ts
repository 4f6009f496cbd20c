import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { PerfError } from '../src/errors.js';
import { startApp, type RunningApp } from '../src/session/app.js';
import { joinUrl } from '../src/url.js';
import { freePort } from '../src/session/ports.js';
import { isAlive, sleep } from '../src/processes.js';

const node = JSON.stringify(process.execPath);
let tmp: string;
const started: RunningApp[] = [];

before(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rehearse-app-'));
  fs.mkdirSync(path.join(tmp, 'site'));
  fs.writeFileSync(path.join(tmp, 'site', 'index.html'), '<h1>served</h1>');
  fs.writeFileSync(path.join(tmp, 'site', 'list.html'), '<ul></ul>');
});

after(async () => {
  await Promise.all(started.map((a) => a.stop()));
  fs.rmSync(tmp, { recursive: true, force: true });
});

async function start(spec: Parameters<typeof startApp>[0]): Promise<RunningApp> {
  const app = await startApp(spec);
  started.push(app);
  return app;
}

/** Gone, or a zombie waiting for a reaper (PID 1 in a container may never reap it). */
function gone(pid: number): boolean {
  if (!isAlive(pid)) return true;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

async function waitFor(cond: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (cond()) return true;
    await sleep(20);
  }
  return cond();
}

/** A node script file (quoting a script inside `sh -c` is fragile; a file is not). */
function script(name: string, source: string): string {
  const file = path.join(tmp, name);
  fs.writeFileSync(file, source);
  return JSON.stringify(file);
}

const serverScript = (grandchildPidFile: string): string => `
const http = require('node:http');
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
fs.writeFileSync(${JSON.stringify(grandchildPidFile)}, String(child.pid));
const port = Number(process.argv[2] || process.env.PORT);
console.log('booting on ' + port);
console.error('a warning on stderr');
setTimeout(() => {
  http.createServer((req, res) => res.end('hello from ' + req.url)).listen(port, '127.0.0.1', () => {
    console.log('listening on 127.0.0.1:' + port);
  });
}, 200);
`;

test('serve app answers and urlFor joins paths', async () => {
  const app = await start({ kind: 'serve', dir: path.join(tmp, 'site') });
  assert.equal(app.kind, 'serve');
  assert.equal(app.baseUrl, `http://127.0.0.1:${app.port}`);
  const res = await fetch(app.urlFor('/list.html'));
  assert.equal(await res.text(), '<ul></ul>');
  await app.stop();
});

test('joinUrl handles leading slash, none, empty and absolute URLs', () => {
  const base = 'http://127.0.0.1:5000';
  assert.equal(joinUrl(base, '/list.html'), 'http://127.0.0.1:5000/list.html');
  assert.equal(joinUrl(base, 'list.html'), 'http://127.0.0.1:5000/list.html');
  assert.equal(joinUrl(base), 'http://127.0.0.1:5000/');
  assert.equal(joinUrl('http://h/app', 'x.html'), 'http://h/app/x.html');
  assert.equal(joinUrl(base, 'https://example.com/a'), 'https://example.com/a');
});

test('command app with ${PORT} starts, answers, captures logs, and stop() kills the tree', async () => {
  const pidFile = path.join(tmp, 'grandchild-1.pid');
  const file = script('server-1.cjs', serverScript(pidFile));
  const logFile = path.join(tmp, 'logs', 'app.log');
  const app = await start({ kind: 'command', command: `${node} ${file} \${PORT}`, logFile, startTimeoutMs: 10_000 });
  assert.equal(app.kind, 'command');
  assert.equal(app.baseUrl, `http://127.0.0.1:${app.port}`);
  const res = await fetch(app.urlFor('/x'));
  assert.equal(await res.text(), 'hello from /x');

  assert.ok(await waitFor(() => app.logs().some((l) => l.startsWith('listening on')), 2000));
  assert.ok(app.logs().includes(`booting on ${app.port}`));
  assert.ok(app.logs().includes('a warning on stderr'));
  assert.deepEqual(app.logs(1), [`listening on 127.0.0.1:${app.port}`]);

  const pid = app.pid;
  assert.ok(pid !== undefined);
  const grandchild = Number(fs.readFileSync(pidFile, 'utf8'));
  assert.ok(isAlive(grandchild));
  await app.stop();
  assert.ok(gone(pid), 'shell/app process still alive');
  assert.ok(await waitFor(() => gone(grandchild), 2000), 'grandchild still alive');
  assert.ok(fs.readFileSync(logFile, 'utf8').includes(`booting on ${app.port}`));
});

test('command app gets PORT in its environment and node -e works', async () => {
  const app = await start({
    kind: 'command',
    command: `${node} -e "require('node:http').createServer((q, s) => s.end('env-port')).listen(Number(process.env.PORT), '127.0.0.1')"`,
    startTimeoutMs: 10_000,
  });
  const res = await fetch(app.urlFor());
  assert.equal(await res.text(), 'env-port');
  await app.stop();
  assert.ok(gone(app.pid!));
});

test('command app honours an explicit port and ${PORT} in the url', async () => {
  const port = await freePort();
  const app = await start({
    kind: 'command',
    command: `${node} -e "require('node:http').createServer((q, s) => s.end(q.url)).listen(Number(process.env.PORT), '127.0.0.1')"`,
    url: 'http://127.0.0.1:${PORT}/app/',
    port,
    startTimeoutMs: 10_000,
  });
  assert.equal(app.port, port);
  assert.equal(app.baseUrl, `http://127.0.0.1:${port}/app`);
  assert.equal(app.urlFor('list.html'), `http://127.0.0.1:${port}/app/list.html`);
  await app.stop();
});

test('command that exits early is app_exited (environment) with its last output lines', async () => {
  const file = script(
    'crash.cjs',
    `for (let i = 1; i <= 30; i++) console.log('line ' + i);\nconsole.error('Error: boom');\nprocess.exit(7);\n`,
  );
  await assert.rejects(startApp({ kind: 'command', command: `${node} ${file}`, startTimeoutMs: 10_000 }), (e: unknown) => {
    assert.ok(e instanceof PerfError);
    assert.equal(e.code, 'app_exited');
    assert.equal(e.kind, 'environment');
    assert.match(e.message, /exited with code 7/);
    assert.ok(e.message.includes('Error: boom'));
    assert.ok(e.message.includes('line 30'));
    // Only the last 20 lines: line 10 and earlier are cut.
    assert.ok(!e.message.includes('line 10\n'));
    return true;
  });
});

test('command that never answers is app_start_timeout with a suggestion and leaves no process', async () => {
  const pidFile = path.join(tmp, 'silent.pid');
  const file = script(
    'silent.cjs',
    `require('node:fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid));\nconsole.log('not listening');\nsetInterval(() => {}, 1000);\n`,
  );
  const startedAt = Date.now();
  await assert.rejects(startApp({ kind: 'command', command: `${node} ${file}`, startTimeoutMs: 800 }), (e: unknown) => {
    assert.ok(e instanceof PerfError);
    assert.equal(e.code, 'app_start_timeout');
    assert.equal(e.kind, 'environment');
    assert.ok(e.message.includes('not listening'));
    assert.match(e.suggestion ?? '', /127\.0\.0\.1:\d+/);
    return true;
  });
  assert.ok(Date.now() - startedAt < 5000);
  const pid = Number(fs.readFileSync(pidFile, 'utf8'));
  assert.ok(await waitFor(() => gone(pid), 2000));
});

test('explicit port already taken is port_taken before anything starts', async () => {
  const blocker: Server = createServer();
  await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
  const port = (blocker.address() as AddressInfo).port;
  try {
    await assert.rejects(startApp({ kind: 'command', command: 'true', port }), (e: unknown) => {
      assert.ok(e instanceof PerfError);
      assert.equal(e.code, 'port_taken');
      assert.equal(e.kind, 'environment');
      return true;
    });
  } finally {
    await new Promise((r) => blocker.close(r));
  }
});

test('url app that answers is reachable and stop() is a no-op', async () => {
  const srv = createServer((_q, s) => {
    s.statusCode = 404;
    s.end();
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as AddressInfo).port;
  try {
    const app = await startApp({ kind: 'url', url: `http://127.0.0.1:${port}/` });
    assert.equal(app.baseUrl, `http://127.0.0.1:${port}`);
    assert.equal(app.port, port);
    assert.equal(app.urlFor('/a.html'), `http://127.0.0.1:${port}/a.html`);
    await app.stop();
    assert.equal(app.exited(), undefined);
  } finally {
    srv.closeAllConnections();
    await new Promise((r) => srv.close(r));
  }
});

test('url app that does not answer is app_unreachable (environment)', async () => {
  const port = await freePort();
  await assert.rejects(startApp({ kind: 'url', url: `http://127.0.0.1:${port}` }), (e: unknown) => {
    assert.ok(e instanceof PerfError);
    assert.equal(e.code, 'app_unreachable');
    assert.equal(e.kind, 'environment');
    assert.ok(e.message.includes(String(port)));
    return true;
  });
});
