/**
 * `npx -y rehearse-perf mcp` from anywhere (issue 58 item 1), as a stranger's MCP client runs it once the package is
 * published: a registry of our own on 127.0.0.1 serves the packument and the `npm pack` tarball of this checkout and
 * redirects every other package to the upstream registry (`npm config get registry`); npx runs in an empty folder
 * with no package.json, a fresh npm cache and HOME (nothing of this checkout to find), without optional packages
 * (better-sqlite3 would compile here; a user gets it prebuilt or skips it). The client speaks MCP to what npx started:
 * the default tools, a real app_start + snap + app_stop, then stdin closes and every process it started must be gone.
 *
 * npx picks the command of a package with several bins by npm's rule (libnpmexec getBinFromManifest): all bins the
 * same file, or one named like the package, else "could not determine executable to run". `perf` and `rehearse` are
 * one file; this test fails if they ever diverge (measured: a manifest with `rehearse` on another file fails so).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { serveStatic, type StaticServer } from '../src/session/static-server.js';
import { CAPS } from '../src/mcp/caps.js';
import { childOutput, DEMO_DIR, refOf, ROOT } from './helpers.js';
import { childStdio } from './mcp-client.js';

// Generous: a cold npx install of ~100 packages through the upstream registry on a shared 2-core CI machine.
const INSTALL_MS = 300_000;
// A tool call that starts Chromium on a loaded host.
const CALL_MS = 120_000;
// The server ends within a second of its stdin closing; the rest is slack for a loaded host.
const EXIT_MS = 30_000;

interface Manifest {
  name: string;
  version: string;
  bin: Record<string, string>;
}

/** What the local registry served of our package, for the figures this test reports. */
interface Served {
  packumentBytes: number;
  tarballs: number;
}

let work: string;
let empty: string;
let manifest: Manifest;
let tarball: Buffer;
let registry: Server;
let registryUrl: string;
let demo: StaticServer;
let npx: ChildProcessWithoutNullStreams | undefined;
const served: Served = { packumentBytes: 0, tarballs: 0 };

function packument(base: string): string {
  const { name, version } = manifest;
  const dist = {
    tarball: `${base}${name}/-/${name}-${version}.tgz`,
    shasum: createHash('sha1').update(tarball).digest('hex'),
    integrity: `sha512-${createHash('sha512').update(tarball).digest('base64')}`,
  };
  return JSON.stringify({
    _id: name,
    name,
    'dist-tags': { latest: version },
    versions: { [version]: { ...manifest, _id: `${name}@${version}`, dist } },
  });
}

/** Our package from memory; any other to `upstream` (a redirect: npm follows it with its own proxy and CA settings). */
function startRegistry(upstream: string): Promise<string> {
  registry = createServer((req, res) => {
    const base = `http://127.0.0.1:${(registry.address() as { port: number }).port}/`;
    const path = decodeURIComponent((req.url ?? '/').split('?')[0]!);
    if (path === `/${manifest.name}`) {
      const body = packument(base);
      served.packumentBytes = Buffer.byteLength(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    } else if (path === `/${manifest.name}/-/${manifest.name}-${manifest.version}.tgz`) {
      served.tarballs++;
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(tarball);
    } else {
      res.writeHead(302, { location: upstream + (req.url ?? '/').slice(1) }).end();
    }
  });
  return new Promise((resolve) =>
    registry.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(registry.address() as { port: number }).port}/`)),
  );
}

/** This environment without npm's (`npm test` exports its config) or this checkout's bins on PATH: a stranger's shell. */
function strangerEnv(): NodeJS.ProcessEnv {
  // Undefined, not left out: childOutput spreads process.env under what it is given, and spawn skips undefined.
  const env: NodeJS.ProcessEnv = { ...process.env, INIT_CWD: undefined };
  for (const k of Object.keys(env)) if (/^npm_/i.test(k)) env[k] = undefined;
  const path = (process.env.PATH ?? '').split(delimiter).filter((p) => !p.includes('node_modules'));
  return {
    ...env,
    PATH: path.join(delimiter),
    HOME: join(work, 'home'),
    // Chromium's profile and the server's temp files land here, so a survivor is found by its command line.
    TMPDIR: join(work, 'tmp'),
    GITHUB_STEP_SUMMARY: '',
    npm_config_cache: join(work, 'npm-cache'),
    npm_config_registry: registryUrl,
    npm_config_omit: 'optional',
    npm_config_update_notifier: 'false',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
  };
}

/** Processes whose command line names the work folder (the npx cache, Chromium's profile, the watchdog), as `pid cmd`. */
function survivors(): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    let cmd = '';
    try {
      cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
    } catch {
      continue; // ended while we looked
    }
    if (cmd.includes(work)) found.push(`${pid} ${cmd.slice(0, 200)}`);
  }
  return found;
}

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'perf-npx-'));
  empty = join(work, 'empty');
  for (const d of [empty, join(work, 'home'), join(work, 'tmp')]) mkdirSync(d);
  // Scripts skipped: `prepack` would rebuild dist/ under the other tests; the suite has built it.
  const packed = await childOutput('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], {
    cwd: ROOT,
    timeoutMs: INSTALL_MS,
  });
  assert.equal(packed.code, 0, packed.stderr);
  const file = join(work, (JSON.parse(packed.stdout) as { filename: string }[])[0]!.filename);
  tarball = readFileSync(file);
  // The manifest publish would send is the packed package.json.
  const untar = await childOutput('tar', ['-xzf', file, '-C', work, 'package/package.json'], { cwd: work, timeoutMs: 60_000 });
  assert.equal(untar.code, 0, untar.stderr);
  manifest = JSON.parse(readFileSync(join(work, 'package', 'package.json'), 'utf8')) as Manifest;
  const upstream = await childOutput('npm', ['config', 'get', 'registry'], { cwd: ROOT, timeoutMs: 60_000 });
  registryUrl = await startRegistry(upstream.stdout.trim().replace(/\/?$/, '/'));
  demo = await serveStatic({ root: DEMO_DIR });
});

after(async () => {
  // A safety net only (the test asserts they ended by themselves): npx's group, then anything naming our folder.
  const pids = [...(npx?.pid !== undefined ? [-npx.pid] : []), ...(work ? survivors().map((l) => Number(l.split(' ')[0])) : [])];
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await demo?.close();
  registry?.close();
  rmSync(work, { recursive: true, force: true, maxRetries: 3 });
});

test(
  'npx -y rehearse-perf mcp in an empty folder: the default tools, app_start + snap + app_stop, gone when stdin closes',
  { timeout: 900_000 },
  async (t) => {
    assert.equal(manifest.name, 'rehearse-perf');
    const started = Date.now();
    // Its own process group: one signal sweeps whatever is left if an assertion fails.
    npx = spawn('npx', ['-y', manifest.name, 'mcp'], { cwd: empty, env: strangerEnv(), detached: true, stdio: 'pipe' });
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      npx!.once('exit', (code, signal) => resolve({ code, signal })),
    );
    let stderr = '';
    npx.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const mcp = await childStdio(npx, { name: 'npx-registry-test', connectTimeoutMs: INSTALL_MS, callTimeoutMs: CALL_MS }).catch(
      (e: Error) => {
        throw new Error(`no MCP reply from npx: ${e.message}; stderr: ${stderr.slice(-3000)}`);
      },
    );
    const firstReplyMs = Date.now() - started;
    assert.equal(served.tarballs, 1, 'npx installed the tarball from the local registry');

    const defaults = CAPS.filter((c) => c.byDefault).flatMap((c) => c.tools);
    assert.deepEqual((await mcp.names()).sort(), [...defaults].sort());

    const start = await mcp.call('app_start', { url: `${demo.url}/list.html` });
    assert.equal(start.isError, false, start.text + mcp.stderr());
    // The sweep below must see what it sweeps: the server from the npx cache and its Chromium.
    const running = survivors();
    assert.ok(running.some((l) => l.includes('_npx')) && running.some((l) => /chrom/i.test(l)), running.join('\n'));
    const snap = await mcp.call('snap', { interactiveOnly: true });
    assert.equal(snap.isError, false, snap.text);
    refOf(String(snap.json.data.snapshot), 'button', 'Add item');
    const stop = await mcp.call('app_stop');
    assert.equal(stop.isError, false, stop.text);

    await mcp.close(); // ends stdin, nothing else
    const exit = await Promise.race([exited, sleep(EXIT_MS).then(() => undefined)]);
    assert.deepEqual(exit, { code: 0, signal: null }, `npx exits by itself when stdin closes; stderr: ${stderr.slice(-2000)}`);
    // Orphans are reaped by init, not at once.
    let left = survivors();
    for (let i = 0; i < 50 && left.length > 0; i++) {
      await sleep(200);
      left = survivors();
    }
    assert.deepEqual(left, [], 'no process npx started outlives it');

    t.diagnostic(`cold npx to the first MCP reply: ${firstReplyMs} ms`);
    t.diagnostic(`packument ${served.packumentBytes} B, tarball ${tarball.length} B`);
  },
);

test('npx -y rehearse-perf --version answers the packed version, from the npx cache', { timeout: INSTALL_MS + 60_000 }, async () => {
  const version = await childOutput('npx', ['-y', manifest.name, '--version'], { cwd: empty, env: strangerEnv(), timeoutMs: INSTALL_MS });
  assert.equal(version.code, 0, version.stderr);
  assert.equal(version.stdout.trim(), manifest.version);
  assert.equal(served.tarballs, 1, 'the second npx reuses the installed package');
});
