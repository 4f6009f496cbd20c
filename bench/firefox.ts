/**
 * `tap` by ref in Firefox against Puppeteer driving the same Firefox over WebDriver BiDi (issue 60's target: at most
 * 0.6× its time), in one run on one small page served here on 127.0.0.1 whose button changes a text:
 * - ours: the MCP server as an agent uses it (`app_start {url, engine: firefox}`, `snap` once for the ref, then per
 *   iteration `tap {ref, snapshot: diff}`, whose reply shows the text that changed, checked);
 * - Puppeteer (puppeteer-core, bench/'s pinned version): `browser: 'firefox'`, protocol webDriverBiDi, the same
 *   firefox binary; per iteration `page.click('#go')`, then the changed text read back (`$eval`), checked.
 * Blocks interleave A B B A so drift on this shared machine hits both alike; medians, their ratio and the load average
 * (before and after) are printed together. Then our tap's time phase by phase, in-process on the same driver.
 *
 * Usage: npm run bench:firefox [-- ROUNDS]   (under the shared lock: flock /work/bench.lock node dist/bench/firefox.js)
 */
import http from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer from 'puppeteer-core';
import { firefoxBinary } from '../src/drivers/bidi/firefox.js';
import { connectMcp, median, p25p75, printTable, timed } from './common.js';
import { tapPhases } from './firefox-phases.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PERF = path.join(ROOT, 'bin', 'perf');
const ROUNDS = Number(process.argv[2] ?? 8);
// Taps per block: enough samples per round for a median, short enough that four blocks interleave finely.
const PER_BLOCK = 10;
// Untimed taps on each side first: JIT, the in-page runtime's install, Puppeteer's first realm lookup.
const WARMUP = 5;
// Issue 60's target.
const TARGET = 0.6;
// Tool calls start Firefox (app_start) on a loaded 2-core machine: the SDK's 60 s default is tight.
const CALL_TIMEOUT_MS = 120_000;

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>tap bench</title><link rel="icon" href="data:,"></head>
<body><main><h1>Counter</h1><button id="go" type="button">Count</button><p id="out">clicked 0</p></main>
<script>let n = 0; document.getElementById('go').addEventListener('click', () => {
  document.getElementById('out').textContent = 'clicked ' + ++n; });</script></body></html>`;

/** The page, on 127.0.0.1 at a port the OS picks. */
async function servePage(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    if (req.url === '/' || req.url?.startsWith('/?')) res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((r) => server.close(() => r())) };
}

interface Side {
  name: string;
  /** One tap and the changed text read; returns the count the page now shows. */
  tap(): Promise<number>;
  close(): Promise<void>;
}

/** Ours: a `perf mcp` server (its own project folder), Firefox started by app_start; the button's ref from one snap. */
async function ours(url: string): Promise<Side & { stepMs: number[] }> {
  const cwd = fs.mkdtempSync(path.join(tmpdir(), 'rehearse-bench-firefox-'));
  const m = await connectMcp(process.execPath, [PERF, 'mcp'], cwd, CALL_TIMEOUT_MS);
  const close = async (): Promise<void> => {
    await m.call('app_stop', {}).catch(() => undefined);
    await m.client.close();
    fs.rmSync(cwd, { recursive: true, force: true });
  };
  let ref: string | undefined;
  // The step's own time as the MCP server reports it (durationMs): the rest of a call is the stdio round trip.
  const stepMs: number[] = [];
  try {
    const start = await m.call('app_start', { url, engine: 'firefox' });
    if (start.isError) throw new Error(`app_start: ${start.text}`);
    const snap = await m.call('snap', {});
    const snapshot = String((JSON.parse(snap.text) as { data?: { snapshot?: string } }).data?.snapshot);
    ref = /button "Count" \[ref=([a-z0-9]+)\]/.exec(snapshot)?.[1];
    if (!ref) throw new Error(`no ref for the button in:\n${snapshot}`);
  } catch (e) {
    // A failed start must not leave the session (and this bench, holding the shared lock) running.
    await close();
    throw e;
  }
  return {
    name: 'rehearse MCP tap {ref, snapshot: diff}',
    stepMs,
    async tap() {
      const r = await m.call('tap', { ref, snapshot: 'diff' });
      const reply = r.isError ? undefined : (JSON.parse(r.text) as { durationMs?: number; data?: { snapshot?: string } });
      if (reply?.durationMs !== undefined) stepMs.push(reply.durationMs);
      const diff = String(reply?.data?.snapshot ?? '');
      // The diff's added line: "+  - paragraph: clicked N".
      const n = /^\+.*clicked (\d+)/m.exec(diff)?.[1];
      if (n === undefined) throw new Error(`tap: the reply shows no changed text:\n${r.text}`);
      return Number(n);
    },
    close,
  };
}

/** Puppeteer over BiDi on the same binary: click by selector, then read the text that changed. */
async function peer(url: string, executablePath: string): Promise<Side & { version: string; clickMs: number[] }> {
  const browser = await puppeteer.launch({ browser: 'firefox', executablePath, headless: true, protocol: 'webDriverBiDi' });
  const page = await browser.newPage();
  await page.goto(url);
  const version = await browser.version();
  // The click's own share of each tap (the rest is the read), for the report.
  const clickMs: number[] = [];
  return {
    name: 'Puppeteer page.click(sel) + $eval(text)',
    version,
    clickMs,
    async tap() {
      clickMs.push(await timed(() => page.click('#go')));
      const text = await page.$eval('#out', (e) => e.textContent ?? '');
      const n = /clicked (\d+)/.exec(text)?.[1];
      if (n === undefined) throw new Error(`Puppeteer read "${text}"`);
      return Number(n);
    },
    close: () => browser.close(),
  };
}

/** `n` taps on `side`, each timed; each must show the next count (a tap that did not land is a failure, not a sample). */
async function block(side: Side, n: number, into: number[] | undefined, seen: { count: number }): Promise<void> {
  for (let i = 0; i < n; i++) {
    let count = 0;
    const ms = await timed(async () => (count = await side.tap()));
    if (count !== seen.count + 1) throw new Error(`${side.name}: the page shows ${count} after tap ${seen.count + 1}`);
    seen.count = count;
    into?.push(ms);
  }
}

async function main(): Promise<void> {
  const bin = firefoxBinary();
  if (!bin) throw new Error('no Firefox (apt-get install firefox-esr)');
  const executablePath = fs.realpathSync(bin) === fs.realpathSync('/usr/lib/firefox-esr/firefox-esr') ? '/usr/bin/firefox-esr' : bin;
  const loadBefore = loadavg();
  const site = await servePage();
  const seenA = { count: 0 };
  const seenB = { count: 0 };
  const r = { ours: [] as number[], peer: [] as number[] };
  let a: Awaited<ReturnType<typeof ours>> | undefined;
  let b: Awaited<ReturnType<typeof peer>> | undefined;
  try {
    a = await ours(site.url);
    b = await peer(site.url, executablePath);
    await block(a, WARMUP, undefined, seenA);
    await block(b, WARMUP, undefined, seenB);
    for (let i = 0; i < ROUNDS; i++) {
      await block(a, PER_BLOCK, r.ours, seenA);
      await block(b, PER_BLOCK, r.peer, seenB);
      await block(b, PER_BLOCK, r.peer, seenB);
      await block(a, PER_BLOCK, r.ours, seenA);
    }
  } finally {
    await a?.close();
    await b?.close();
  }
  const loadAfter = loadavg();
  const pptrVersion = (
    JSON.parse(fs.readFileSync(path.join(ROOT, 'bench', 'node_modules', 'puppeteer-core', 'package.json'), 'utf8')) as {
      version: string;
    }
  ).version;
  printTable(`tap by ref in ${b.version} (${executablePath}), ${site.url}`, [
    {
      what: 'tap (click + changed text) vs Puppeteer',
      ours: r.ours,
      peer: r.peer,
      peerName: `puppeteer-core ${pptrVersion}`,
      target: TARGET,
    },
  ]);
  const ratio = median(r.ours) / median(r.peer);
  const [o1, o3] = p25p75(r.ours);
  const [p1, p3] = p25p75(r.peer);
  console.log(
    `\nmedians: rehearse ${median(r.ours).toFixed(1)} ms (p25-p75 ${o1.toFixed(1)}-${o3.toFixed(1)}), Puppeteer ` +
      `${median(r.peer).toFixed(1)} ms (${p1.toFixed(1)}-${p3.toFixed(1)}); ratio ${ratio.toFixed(3)}, target <= ${TARGET}x ` +
      `${ratio <= TARGET ? 'met' : 'NOT met'} (${r.ours.length} taps each, blocks of ${PER_BLOCK} in A B B A rounds)`,
  );
  console.log(
    `  (our step in the MCP server, its reply's durationMs: median ${median(a.stepMs.slice(WARMUP)).toFixed(1)} ms; each of its ` +
      'BiDi commands goes through the session daemon, which holds the one WebSocket Firefox serves the session on)',
  );
  console.log(`  (Puppeteer's page.click alone: median ${median(b.clickMs.slice(WARMUP)).toFixed(1)} ms, the rest its $eval read)`);
  console.log(`loadavg before ${loadBefore.map((x) => x.toFixed(2)).join(' ')}, after ${loadAfter.map((x) => x.toFixed(2)).join(' ')}`);
  await tapPhases(site.url, PER_BLOCK * ROUNDS);
}

main().then(
  // The page's server and anything a failure left open must not keep this process, which holds the bench lock.
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
