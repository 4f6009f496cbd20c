/**
 * Each request of a measured load carries what a diagnosis needs (issue 59, item 2): the real CLI on real Chromium
 * loads the fixture app (test/fixtures/load, its own server) and the run file's waterfall says each request's HTTP
 * status, protocol, where it came from and its Cache-Control, what asked for it, its priority, its render-blocking
 * behaviour and whose it is, and every bar runs start ≤ first byte ≤ end, a font answered 404 included (its Resource
 * Timing entry ends before its headers). Values and order only, never the size of a time.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { freePort } from '../src/session/ports.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LoadRequest } from '../src/drivers/measure.js';
import type { RunFile } from '../src/perf/run-file.js';
import { FIXTURES_DIR, ROOT } from './helpers.js';
import { stdioServer } from './mcp-client.js';

const work = mkdtempSync(join(tmpdir(), 'rehearse-load-requests-'));
after(() => rmSync(work, { recursive: true, force: true }));
cpSync(join(FIXTURES_DIR, 'load'), join(work, 'app'), { recursive: true });
const PERF = join(ROOT, 'bin/perf');
const FILES = ['index.html', 'app.css', 'app.js', 'hero.png', 'font.woff'];

type Measured = Extract<RunFile['repeats'][number], { status: 'measured' }>;

/** One measured load of the fixture server started with `flags`; its repeat. */
function loadOnce(name: string, flags: string, extra = ''): Measured {
  const app = `app: { command: "node app/server.mjs ${flags}", url: "http://127.0.0.1:\${PORT}/index.html" }\n`;
  writeFileSync(join(work, `${name}.yaml`), `name: ${name}\n${app}${extra}measure: load\nrepeat: 1\nwarmup: 0\ntiming: false\nsteps: []\n`);
  const r = spawnSync(process.execPath, [PERF, 'run', `${name}.yaml`, '--out', 'out'], { cwd: work, encoding: 'utf8', timeout: 180_000 });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  const run = JSON.parse(readFileSync(join(work, 'out', `${name}-run.json`), 'utf8')) as RunFile;
  const [rep] = run.repeats.filter((x): x is Measured => x.status === 'measured');
  assert.ok(rep, JSON.stringify(run.repeats));
  return rep;
}

function byFile(rep: Measured): Map<string, LoadRequest> {
  const wf = rep.report.load?.requests ?? [];
  return new Map(wf.map((r) => [`${new URL(r.url).host.startsWith('localhost') ? 'localhost/' : ''}${r.url.split('/').pop()}`, r]));
}

/** Every bar runs forwards and has its first byte (the network saw every response). */
function assertOrdered(requests: readonly LoadRequest[]): void {
  for (const x of requests) {
    const at = `${x.url}: ${x.startMs} / ${x.responseStartMs} / ${x.endMs}`;
    assert.ok(x.responseStartMs !== null, `a first byte: ${at}`);
    assert.ok(x.startMs <= x.responseStartMs && x.responseStartMs <= x.endMs, at);
  }
}

test(
  'a cold load: every request 200 over h1 from the network, no-store, first-party; the stylesheet blocks, the font follows it',
  {
    timeout: 200_000,
  },
  () => {
    const rep = loadOnce('cold', '');
    const wf = rep.report.load!.requests!;
    const ctx = JSON.stringify(wf);
    assert.deepEqual([...byFile(rep).keys()].sort(), [...FILES].sort(), ctx);
    for (const r of wf) {
      assert.equal(r.status, 200, ctx);
      assert.equal(r.protocol, 'h1', ctx);
      assert.equal(r.servedFrom, 'network', ctx);
      assert.equal(r.cacheControl, 'no-store', ctx);
      assert.equal(r.entity, 'first-party', ctx);
      assert.match(r.priority ?? '', /^(VeryHigh|High|Medium|Low|VeryLow)$/, ctx);
    }
    const f = byFile(rep);
    const css = f.get('app.css')!;
    const font = f.get('font.woff')!;
    assert.equal(css.renderBlocking, true);
    assert.equal(css.renderBlockingStatus, 'blocking', 'the stylesheet in the head holds the first paint');
    assert.equal(f.get('app.js')!.renderBlockingStatus, 'non_blocking', 'a deferred script does not');
    assert.equal(css.priority, 'VeryHigh');
    for (const file of ['app.css', 'app.js', 'hero.png'])
      assert.deepEqual(f.get(file)!.initiator, { type: 'parser', url: f.get('index.html')!.url });
    // The font is found in the stylesheet: asked for by it, after its first byte came.
    assert.deepEqual(font.initiator, { type: 'parser', url: css.url });
    assert.ok(css.responseStartMs !== null && font.startMs >= css.responseStartMs, ctx);
    assertOrdered(wf);
    // The top list of the report (perf_end's and perf_load's replies) keeps its own fields: the detail is the waterfall's.
    for (const t of rep.report.load!.top)
      assert.deepEqual(Object.keys(t).sort(), ['endMs', 'renderBlocking', 'responseStartMs', 'startMs', 'transferBytes', 'type', 'url']);
  },
);

test(
  'a font answered 404 and an image from another site: status 404 with its bar in order, the other site by its domain',
  {
    timeout: 200_000,
  },
  () => {
    const rep = loadOnce('missing', '--font-404 --third-party');
    const f = byFile(rep);
    const ctx = JSON.stringify(rep.report.load!.requests);
    const font = f.get('font.woff')!;
    assert.equal(font.status, 404, ctx);
    assert.ok(font.transferBytes > 0, `the 404's bytes crossed the wire: ${ctx}`);
    assertOrdered(rep.report.load!.requests!);
    assert.doesNotMatch(JSON.stringify(rep.report.warnings ?? []), /first byte outside/, 'the network gave the font its times');
    const elsewhere = f.get('localhost/hero.png')!;
    assert.equal(elsewhere.entity, 'localhost', ctx);
    assert.equal(elsewhere.status, 200, ctx);
    // Resource Timing hides another site's size without Timing-Allow-Origin (0); the network saw every byte.
    assert.ok(elsewhere.transferBytes > statSync(join(work, 'app', 'hero.png')).size, ctx);
    assert.equal(f.get('hero.png')!.entity, 'first-party');
  },
);

test(
  'a warm load of cacheable assets: each asset from the browser cache with its Cache-Control, the page from the network',
  {
    timeout: 200_000,
  },
  () => {
    const rep = loadOnce('warm', '--cache', 'browser: { restart: reload }\ncache: warm\n');
    const ctx = JSON.stringify(rep.report.load!.requests);
    for (const [file, r] of byFile(rep)) {
      if (file === 'index.html') {
        assert.deepEqual([r.servedFrom, r.cacheControl], ['network', 'no-store'], ctx);
        continue;
      }
      assert.match(r.servedFrom ?? '', /^(memory|disk)-cache$/, `${file}: ${ctx}`);
      assert.equal(r.cacheControl, 'public, max-age=3600', ctx);
      assert.equal(r.transferBytes, 0, ctx);
      assert.equal(r.status, 200, ctx);
    }
    assertOrdered(rep.report.load!.requests!);
  },
);

test(
  'over MCP: perf_load names where the requests are; perf_insight requests lists the 404 first, then the stylesheet, in 2 KB',
  {
    timeout: 200_000,
  },
  async () => {
    const port = await freePort();
    const app = spawn(process.execPath, [join(work, 'app', 'server.mjs'), '--font-404'], {
      env: { ...process.env, PORT: String(port) },
      stdio: 'ignore',
    });
    const s = await stdioServer(work, { name: 'load-requests-test', callTimeoutMs: 120_000 });
    try {
      const started = await s.call('app_start', { url: `http://127.0.0.1:${port}/index.html` });
      assert.equal(started.isError, false, started.text);
      const load = await s.call('perf_load', { cache: 'cold' });
      assert.equal(load.isError, false, load.text);
      assert.equal(load.json.data.requests, "perf_insight { id: 'requests' }");
      for (const t of load.json.data.top as Record<string, unknown>[])
        assert.equal(t.status, undefined, 'the facts are not in the summary');
      const d = await s.call('perf_insight', { id: 'requests' });
      assert.equal(d.isError, false, d.text);
      assert.ok(Buffer.byteLength(d.text) <= 2048, `${Buffer.byteLength(d.text)} bytes`);
      const rows = d.json.data.rows as Record<string, unknown>[];
      assert.match(String(d.json.data.title), /^5 requests: 1 failed \(HTTP 4xx\/5xx\), 2 render-blocking, 0 third-party$/);
      assert.deepEqual(
        rows.map((r) => [r.url, r.status, r.renderBlockingStatus ?? null]),
        [
          ['/font.woff', 404, 'non_blocking'],
          ['/app.css', 200, 'blocking'],
          ['/index.html', 200, null],
          ['/hero.png', 200, null],
          ['/app.js', 200, 'non_blocking'],
        ],
      );
      assert.equal(rows[1]!.initiator, 'parser ← /index.html');
      assert.equal(rows[0]!.initiator, 'parser ← /app.css');
    } finally {
      await s.close();
      app.kill();
    }
  },
);
