import assert from 'node:assert/strict';
import fs from 'node:fs';
import { request } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { PerfError } from '../src/errors.js';
import { serveStatic, type StaticServer } from '../src/session/static-server.js';
import { assertPortFree, freePort } from '../src/session/ports.js';

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request with the path sent byte for byte (fetch would normalize `..` away before sending). */
function raw(baseUrl: string, rawPath: string, opts: { method?: string; accept?: string; host?: string } = {}): Promise<RawResponse> {
  const u = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: rawPath,
        method: opts.method ?? 'GET',
        agent: false,
        headers: { ...(opts.accept ? { accept: opts.accept } : {}), ...(opts.host !== undefined ? { host: opts.host } : {}) },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const SECRET = 'TOP-SECRET-OUTSIDE-ROOT';

let tmp: string;
let root: string;
let server: StaticServer;

before(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rehearse-static-'));
  root = path.join(tmp, 'site');
  fs.mkdirSync(path.join(root, 'dir'), { recursive: true });
  fs.mkdirSync(path.join(root, 'empty'), { recursive: true });
  fs.writeFileSync(path.join(root, 'index.html'), '<h1>home</h1>');
  fs.writeFileSync(path.join(root, 'app.js'), 'console.log(1)');
  fs.writeFileSync(path.join(root, 'mod.mjs'), 'export {}');
  fs.writeFileSync(path.join(root, 'style.css'), 'body{}');
  fs.writeFileSync(path.join(root, 'data.json'), '{"a":1}');
  fs.writeFileSync(path.join(root, 'logo.svg'), '<svg/>');
  fs.writeFileSync(path.join(root, 'img.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
  fs.writeFileSync(path.join(root, 'mod.wasm'), Buffer.from([0, 0x61, 0x73, 0x6d]));
  fs.writeFileSync(path.join(root, 'dir', 'index.html'), '<h1>dir</h1>');
  fs.writeFileSync(path.join(root, '.env'), `TOKEN=${SECRET}`);
  fs.mkdirSync(path.join(root, '.git'));
  fs.writeFileSync(path.join(root, '.git', 'config'), SECRET);
  fs.mkdirSync(path.join(root, 'dir', '.hidden'));
  fs.writeFileSync(path.join(root, 'dir', '.hidden', 'x.txt'), SECRET);
  fs.mkdirSync(path.join(root, '.well-known'));
  fs.writeFileSync(path.join(root, '.well-known', 'security.txt'), 'Contact: x');
  // Next to the root, not inside it: must never be served.
  fs.writeFileSync(path.join(tmp, 'secret.txt'), SECRET);
  fs.symlinkSync(path.join(tmp, 'secret.txt'), path.join(root, 'link.txt'));
  server = await serveStatic({ root });
});

after(async () => {
  await server.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('serveStatic content types', () => {
  const cases: Array<[string, string]> = [
    ['/index.html', 'text/html; charset=utf-8'],
    ['/app.js', 'text/javascript; charset=utf-8'],
    ['/mod.mjs', 'text/javascript; charset=utf-8'],
    ['/style.css', 'text/css; charset=utf-8'],
    ['/data.json', 'application/json; charset=utf-8'],
    ['/logo.svg', 'image/svg+xml; charset=utf-8'],
    ['/img.png', 'image/png'],
    ['/mod.wasm', 'application/wasm'],
  ];
  for (const [p, type] of cases) {
    test(`${p} is served as ${type}`, async () => {
      const res = await raw(server.url, p);
      assert.equal(res.status, 200);
      assert.equal(res.headers['content-type'], type);
    });
  }
});

test('url is http://127.0.0.1:PORT and the port is the bound one', () => {
  assert.equal(server.url, `http://127.0.0.1:${server.port}`);
  assert.ok(server.port > 0);
});

test('responses carry Cache-Control: no-store', async () => {
  const res = await raw(server.url, '/app.js');
  assert.equal(res.headers['cache-control'], 'no-store');
});

test('file body is served unchanged', async () => {
  const res = await raw(server.url, '/data.json');
  assert.equal(res.body, '{"a":1}');
});

test('/ serves index.html', async () => {
  const res = await raw(server.url, '/');
  assert.equal(res.status, 200);
  assert.equal(res.body, '<h1>home</h1>');
});

test('/dir/ serves dir/index.html', async () => {
  const res = await raw(server.url, '/dir/');
  assert.equal(res.status, 200);
  assert.equal(res.body, '<h1>dir</h1>');
});

test('/dir redirects to /dir/ keeping the query', async () => {
  const res = await raw(server.url, '/dir?x=1');
  assert.equal(res.status, 301);
  assert.equal(res.headers.location, '/dir/?x=1');
});

test('a folder without index.html is 404', async () => {
  const res = await raw(server.url, '/empty/');
  assert.equal(res.status, 404);
});

test('unknown file is 404 with a small text body', async () => {
  const res = await raw(server.url, '/nope.js');
  assert.equal(res.status, 404);
  assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
  assert.equal(res.body, 'Not found: /nope.js\n');
});

test('query strings are ignored when finding the file', async () => {
  const res = await raw(server.url, '/app.js?v=123');
  assert.equal(res.status, 200);
  assert.equal(res.body, 'console.log(1)');
});

test('POST is 405 with Allow', async () => {
  const res = await raw(server.url, '/index.html', { method: 'POST' });
  assert.equal(res.status, 405);
  assert.equal(res.headers.allow, 'GET, HEAD');
});

test('HEAD returns headers with length and no body', async () => {
  const res = await raw(server.url, '/data.json', { method: 'HEAD' });
  assert.equal(res.status, 200);
  assert.equal(res.headers['content-length'], '7');
  assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
  assert.equal(res.body, '');
});

describe('path traversal never serves a file outside the root', () => {
  const attempts = [
    '/../secret.txt',
    '/dir/../../secret.txt',
    '/%2e%2e/secret.txt',
    '/%2E%2E/secret.txt',
    '/..%2fsecret.txt',
    '/dir/..%2f..%2fsecret.txt',
    '/..%5csecret.txt',
    '/dir\\..\\..\\secret.txt',
    '/link.txt',
  ];
  for (const attempt of attempts) {
    test(`${attempt} → 403/404 without the secret`, async () => {
      const res = await raw(server.url, attempt);
      assert.ok(res.status === 403 || res.status === 404, `status ${res.status}`);
      assert.ok(!res.body.includes(SECRET));
    });
  }
});

describe('dotfiles are never served (.env, .git), .well-known is', () => {
  for (const p of ['/.env', '/.git/config', '/dir/.hidden/x.txt', '/%2eenv', '/.git/']) {
    test(`${p} → 404 without the secret`, async () => {
      const res = await raw(server.url, p);
      assert.equal(res.status, 404);
      assert.ok(!res.body.includes(SECRET));
    });
  }
  test('/.well-known/security.txt → 200', async () => {
    const res = await raw(server.url, '/.well-known/security.txt');
    assert.equal(res.status, 200);
    assert.equal(res.body, 'Contact: x');
  });
});

test('a Host other than this server (DNS rebinding) is 403; 127.0.0.1 and localhost with the port are served', async () => {
  for (const host of ['evil.example:80', `evil.example:${server.port}`, '127.0.0.1', `127.0.0.1:${server.port + 1}`]) {
    const res = await raw(server.url, '/index.html', { host });
    assert.equal(res.status, 403, `Host "${host}"`);
    assert.match(res.body, /^Forbidden: Host/);
  }
  for (const host of [`127.0.0.1:${server.port}`, `localhost:${server.port}`, `LOCALHOST:${server.port}`]) {
    assert.equal((await raw(server.url, '/index.html', { host })).status, 200, `Host "${host}"`);
  }
});

test('--serve-host 0.0.0.0 answers loopback, the host name and its addresses with the port; another Host is 403', async () => {
  const exposed = await serveStatic({ root, host: '0.0.0.0' });
  try {
    const port = exposed.port;
    const local = `http://127.0.0.1:${port}`;
    assert.equal(exposed.url, `http://${os.hostname()}:${port}`);
    const name = os.hostname();
    const others = [`evil.example:${port}`, 'evil.example', `${name}:${port + 1}`, `${name}.evil.example:${port}`, `[::2]:${port}`];
    for (const host of others) {
      const res = await raw(local, '/index.html', { host });
      assert.equal(res.status, 403, `Host "${host}"`);
      const loopback = `127.0.0.1:${port}, localhost:${port}, [::1]:${port}`;
      assert.ok(res.body.startsWith(`Forbidden: Host "${host}" is not this server; accepted: ${loopback}, `), res.body);
      assert.ok(res.body.includes(`${os.hostname().toLowerCase()}:${port}`), res.body);
    }
    const interfaces = Object.values(os.networkInterfaces()).flatMap((l) => l ?? []);
    const addresses = interfaces.map((a) => (a.family === 'IPv6' ? `[${a.address}]` : a.address));
    const names = ['127.0.0.1', 'localhost', '[::1]', os.hostname(), os.hostname().toUpperCase(), ...addresses];
    for (const name of names) {
      const res = await raw(local, '/index.html', { host: `${name}:${port}` });
      assert.equal(res.status, 200, `Host "${name}:${port}": ${res.body}`);
    }
  } finally {
    await exposed.close();
  }
});

test('malformed percent-encoding is 400', async () => {
  const res = await raw(server.url, '/%E0%A4%A');
  assert.equal(res.status, 400);
});

describe('SPA fallback', () => {
  let spa: StaticServer;
  before(async () => {
    spa = await serveStatic({ root, spaFallback: true });
  });
  after(() => spa.close());

  test('extension-less HTML request gets index.html with 200', async () => {
    const res = await raw(spa.url, '/users/42', { accept: 'text/html,application/xhtml+xml' });
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(res.body, '<h1>home</h1>');
  });

  test('a missing asset with an extension stays 404', async () => {
    const res = await raw(spa.url, '/missing.js', { accept: 'text/html' });
    assert.equal(res.status, 404);
  });

  test('a non-HTML request stays 404', async () => {
    const res = await raw(spa.url, '/api/users', { accept: 'application/json' });
    assert.equal(res.status, 404);
  });

  test('a custom fallback file relative to root is served', async () => {
    const custom = await serveStatic({ root, spaFallback: 'dir/index.html' });
    try {
      const res = await raw(custom.url, '/deep/link', { accept: 'text/html' });
      assert.equal(res.body, '<h1>dir</h1>');
    } finally {
      await custom.close();
    }
  });

  test('a fallback that does not exist is a usage error', async () => {
    await assert.rejects(serveStatic({ root, spaFallback: 'nope.html' }), (e: unknown) => {
      assert.ok(e instanceof PerfError);
      assert.equal(e.code, 'serve_fallback_missing');
      assert.equal(e.kind, 'usage');
      return true;
    });
  });
});

test('missing root is PerfError usage serve_root_missing naming the path', async () => {
  const missing = path.join(tmp, 'does-not-exist');
  await assert.rejects(serveStatic({ root: missing }), (e: unknown) => {
    assert.ok(e instanceof PerfError);
    assert.equal(e.code, 'serve_root_missing');
    assert.equal(e.kind, 'usage');
    assert.ok(e.message.includes(missing));
    return true;
  });
});

test('a file as root is serve_root_missing', async () => {
  await assert.rejects(serveStatic({ root: path.join(tmp, 'secret.txt') }), (e: unknown) => {
    assert.ok(e instanceof PerfError);
    assert.equal(e.code, 'serve_root_missing');
    return true;
  });
});

test('close() resolves promptly with a keep-alive connection open', async () => {
  const s = await serveStatic({ root });
  const res = await fetch(`${s.url}/index.html`);
  await res.text();
  const started = Date.now();
  await s.close();
  assert.ok(Date.now() - started < 1000, `close took ${Date.now() - started} ms`);
});

test('serving on a taken port is PerfError environment port_taken', async () => {
  await assert.rejects(serveStatic({ root, port: server.port }), (e: unknown) => {
    assert.ok(e instanceof PerfError);
    assert.equal(e.code, 'port_taken');
    assert.equal(e.kind, 'environment');
    return true;
  });
});

test('freePort returns a port that assertPortFree accepts', async () => {
  const port = await freePort();
  assert.ok(port > 0 && port < 65536);
  await assertPortFree(port);
});

test('assertPortFree on a listening port throws port_taken', async () => {
  await assert.rejects(assertPortFree(server.port), (e: unknown) => {
    assert.ok(e instanceof PerfError);
    assert.equal(e.code, 'port_taken');
    assert.equal(e.kind, 'environment');
    return true;
  });
});
