/**
 * The WebKit settle-report listener (src/drivers/webdriver/settle-reports.ts) over real HTTP: a
 * report as the page's beacon sends it is taken, an upload over 64 KiB is cut off without being read,
 * and no answer carries a CORS header.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { SettleReports } from '../src/drivers/webdriver/settle-reports.js';

const reports = await SettleReports.start();
after(() => reports.close());

const MAX_REPORT_BYTES = 64 * 1024;
const ONE_MIB = 2 ** 20;

interface Answer {
  status?: number;
  headers?: Record<string, unknown>;
  /** The connection was cut before an answer came (reset, broken pipe). */
  error?: string;
}

/** POST `body` as `chunks` writes; with `declare`, a content-length header (else chunked). */
function post(url: string, opts: { body: Buffer; chunks?: number; declare?: boolean; method?: string }): Promise<Answer> {
  const u = new URL(url);
  return new Promise((resolve) => {
    let done = false;
    const finish = (a: Answer): void => {
      if (!done) resolve(a);
      done = true;
    };
    const req = request({
      host: u.hostname,
      port: u.port,
      path: u.pathname,
      method: opts.method ?? 'POST',
      agent: false,
      // What sendBeacon sends for a string.
      headers: {
        'content-type': 'text/plain;charset=UTF-8',
        ...(opts.declare === false ? {} : { 'content-length': String(opts.body.length) }),
      },
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => finish({ status: res.statusCode, headers: res.headers }));
      res.on('error', () => finish({ status: res.statusCode, headers: res.headers }));
    });
    req.on('error', (e: NodeJS.ErrnoException) => finish({ error: e.code ?? e.message }));
    const n = opts.chunks ?? 1;
    const size = Math.ceil(opts.body.length / n);
    for (let i = 0; i < n; i++) req.write(opts.body.subarray(i * size, (i + 1) * size));
    req.end();
  });
}

const SETTLE = { mutations: 1, noFrames: false, framesWaited: 2, detached: false };

test('a settle sent as the page sends it (text/plain) is taken: 204, no CORS header', { timeout: 60_000 }, async () => {
  const wait = reports.wait(7);
  const before = reports.received;
  const a = await post(reports.url(7), { body: Buffer.from(JSON.stringify(SETTLE)) });
  assert.equal(a.status, 204);
  assert.equal(a.headers?.['access-control-allow-origin'], undefined);
  assert.deepEqual(await wait.report, SETTLE);
  assert.equal(reports.received, before + 1);
});

test('another path, another method or a preflight: 404, no CORS header', { timeout: 60_000 }, async () => {
  const wrong = reports.url(1).replace(/\/[0-9a-f]{24}\//, '/000000000000000000000000/');
  for (const [url, method] of [
    [wrong, 'POST'],
    [reports.url(1), 'GET'],
    [reports.url(1), 'OPTIONS'],
  ] as const) {
    const a = await post(url, { body: Buffer.alloc(0), method });
    assert.equal(a.status, 404, `${method} ${url}`);
    assert.equal(a.headers?.['access-control-allow-origin'], undefined);
  }
});

for (const declare of [true, false]) {
  const how = declare ? 'with its content-length' : 'sent chunked';
  test(`a 1 MiB upload ${how} is cut off (413 or a closed connection), not read`, { timeout: 60_000 }, async () => {
    const readBefore = reports.bodyBytesRead;
    const receivedBefore = reports.received;
    const a = await post(reports.url(9), { body: Buffer.alloc(ONE_MIB, 0x20), chunks: 64, declare });
    assert.ok(a.error !== undefined || a.status === 413, JSON.stringify(a));
    if (a.headers) assert.equal(a.headers['access-control-allow-origin'], undefined);
    // At most the cap and one more read from the socket (64 KiB): the rest was never taken in.
    const read = reports.bodyBytesRead - readBefore;
    assert.ok(read <= 2 * MAX_REPORT_BYTES, `read ${read} bytes of ${ONE_MIB}`);
    assert.equal(reports.received, receivedBefore);
  });
}
