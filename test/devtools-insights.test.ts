/**
 * DevTools' insights of a load over MCP, end to end on real Chromium (issue 59): perf_load of the planted page
 * (test/fixtures/insights: a stylesheet held 700 ms, an unsized LCP image found late through a fetch, a font without
 * font-display, a 2.5 MB image without cache headers) lists them one line each under their DevTools names, with the stylesheet's URL, and
 * perf_insight {id} answers each within 2 KB. The engine's time per trace is measured and reported, never asserted.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { freePort } from '../src/session/ports.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PAGE_RUNTIME_URL, type TraceEvent } from '../src/drivers/measure.js';
import { devtoolsInsights } from '../src/perf/devtools-insights.js';
import type { RunFile } from '../src/perf/run-file.js';
import { PERF_END_SUMMARY_MAX_BYTES } from '../src/steps/perf-end.js';
import { INSIGHTS_REPLY_MAX_BYTES } from '../src/steps/perf-insight.js';
import { PERF_LOAD_REPLY_MAX_BYTES } from '../src/steps/perf-load.js';
import { FIXTURES_DIR, ROOT } from './helpers.js';
import { stdioServer } from './mcp-client.js';

const work = mkdtempSync(join(tmpdir(), 'rehearse-insights-'));
after(() => rmSync(work, { recursive: true, force: true }));

// perf_insight's bound per insight (issue 59), the whole reply included.
const INSIGHT_REPLY_MAX_BYTES = 2048;

test(
  'perf_load of the planted page names RenderBlocking with its stylesheet, CLSCulprits, FontDisplay; perf_insight within 2 KB',
  { timeout: 240_000 },
  async (t) => {
    const port = await freePort();
    const app = spawn(process.execPath, [join(FIXTURES_DIR, 'insights', 'server.mjs')], {
      env: { ...process.env, PORT: String(port) },
      stdio: 'ignore',
    });
    const s = await stdioServer(work, { name: 'insights-test', args: ['--caps', 'all'], callTimeoutMs: 180_000 });
    try {
      const base = `http://127.0.0.1:${port}/`;
      // The replies write the page's own URLs as paths (/slow.css): the page's URL is said once.
      const started = await s.call('app_start', { url: base });
      assert.equal(started.isError, false, started.text);
      const r = await s.call('perf_load', { cache: 'cold' });
      assert.equal(r.isError, false, r.text);
      const bytes = Buffer.byteLength(r.text);
      assert.ok(bytes <= PERF_LOAD_REPLY_MAX_BYTES, `${bytes} bytes`);
      const lines = r.json.data.insights as string[];
      const line = (id: string): string | undefined => lines.find((l) => l.startsWith(`${id}: `));
      assert.match(line('RenderBlocking') ?? '', new RegExp(`est\\. savings FCP \\d+ ms — /slow\\.css$`), lines.join('\n'));
      // The engine ran, so its line is the one place render-blocking is said: no top row repeats it with our flag.
      const top = r.json.data.top as { url: string; renderBlocking?: boolean }[];
      assert.ok(
        top.some((q) => q.url === `/slow.css`),
        JSON.stringify(top),
      );
      assert.deepEqual(
        top.filter((q) => q.renderBlocking !== undefined),
        [],
      );
      // The culprit in the line: the kind of shift and its element.
      assert.match(
        line('CLSCulprits') ?? '',
        new RegExp(`worst cluster CLS [\\d.]+ — Unsized image element /hero\\.png$`),
        lines.join('\n'),
      );
      // The checks that failed are named in the line (no fetchpriority=high; not in the HTML: the page's script reads the
      // image's URL from hero.json), with the fetch the image was found after.
      assert.match(
        line('LCPDiscovery') ?? '',
        new RegExp(`— /hero\\.png; failed: priorityHinted, requestDiscoverable; found after fetch /hero\\.json$`),
        lines.join('\n'),
      );
      assert.match(line('FontDisplay') ?? '', new RegExp(`/font\\.woff$`), lines.join('\n'));
      assert.match(line('Cache') ?? '', new RegExp(`/hero\\.png$`), lines.join('\n'));
      assert.match(line('ImageDelivery') ?? '', /KiB/, lines.join('\n'));
      // The script served from localhost (another site than 127.0.0.1) is named by its file.
      assert.match(line('ThirdParties') ?? '', /localhost:\d+\/third-party\.js$/, lines.join('\n'));
      assert.equal(r.json.warnings, undefined, 'the engine ran without an error');

      const sizes: Record<string, number> = {};
      for (const l of lines) {
        const id = l.slice(0, l.indexOf(':'));
        const d = await s.call('perf_insight', { id });
        assert.equal(d.isError, false, d.text);
        sizes[id] = Buffer.byteLength(d.text);
        assert.ok(sizes[id]! <= INSIGHT_REPLY_MAX_BYTES, `${id}: ${sizes[id]} bytes`);
        assert.equal(d.json.data.id, id);
      }
      // Every listed insight in one call, one envelope: within 6 KB, each with the rows its own call gave.
      const ids = lines.map((l) => l.slice(0, l.indexOf(':')));
      const all = await s.call('perf_insight', { id: ids.join(',') });
      assert.equal(all.isError, false, all.text);
      assert.ok(Buffer.byteLength(all.text) <= INSIGHTS_REPLY_MAX_BYTES, `${Buffer.byteLength(all.text)} bytes`);
      const parts = all.json.data.insights as { id: string; rows: unknown[]; title?: string }[];
      assert.deepEqual([...parts.map((p) => p.id), ...((all.json.data.left as string[] | undefined) ?? [])], ids);
      assert.ok(parts.length >= 3, `${parts.length} of ${ids.length} fit`);
      for (const p of parts) {
        assert.deepEqual(p.rows, (await s.call('perf_insight', { id: p.id })).json.data.rows, p.id);
        assert.equal(p.title, undefined, 'the title is the listing line the agent already has');
      }
      const bad = await s.call('perf_insight', { id: 'RenderBlocking,RenderBlockng' });
      assert.equal(bad.json.code, 'unknown_insight', bad.text);
      const rb = await s.call('perf_insight', { id: 'RenderBlocking' });
      assert.deepEqual(
        rb.json.data.rows.map((row: { url: string }) => row.url),
        [`/slow.css`],
      );
      // perf_insight's rows: the image, DevTools' failed check, and the fetch it was found after.
      const lcpd = await s.call('perf_insight', { id: 'LCPDiscovery' });
      const lcpRows = lcpd.json.data.rows as { url?: string; check?: string; ok?: boolean; foundAfter?: string }[];
      assert.equal(lcpRows[0]?.url, `/hero.png`, lcpd.text);
      assert.ok(
        lcpRows.some((row) => row.check === 'requestDiscoverable' && row.ok === false),
        lcpd.text,
      );
      assert.deepEqual(
        lcpRows.filter((row) => row.foundAfter).map((row) => row.foundAfter),
        [`/hero.json`],
      );
      const cls = await s.call('perf_insight', { id: 'CLSCulprits' });
      // One CLS, two readers: our load.clsScore (the page's Layout Instability entries, on every repeat and every
      // Chromium driver) is the engine's worst cluster (the trace's shifts), so the metric stays ours and the engine
      // adds the culprit, which we do not compute.
      const worst = (cls.json.data.rows as { worstClusterScore?: number }[]).find((row) => row.worstClusterScore !== undefined);
      assert.ok(Math.abs((worst?.worstClusterScore ?? -1) - r.json.data.metrics['load.clsScore']) < 0.005, cls.text);
      assert.ok(
        cls.json.data.rows.some(
          (row: { culprit?: string; url?: string }) => row.culprit === 'Unsized image element' && row.url === `/hero.png`,
        ),
        cls.text,
      );
      // A DevTools name that did not fire is known, and said so; a misspelt one gets the nearest names.
      const quiet = await s.call('perf_insight', { id: 'DOMSize' });
      assert.equal(quiet.json.code, 'insight_not_fired', quiet.text);
      const typo = await s.call('perf_insight', { id: 'RenderBlockng' });
      assert.equal(typo.json.code, 'unknown_insight', typo.text);
      assert.match(typo.json.message, /RenderBlocking/);

      // The engine's time per trace, on the trace perf_load recorded: the first run pays the library's import.
      const saved = await s.call('perf_trace', { out: 'load-trace.json' });
      assert.equal(saved.isError, false, saved.text);
      const file = JSON.parse(readFileSync(join(work, 'load-trace.json'), 'utf8')) as { traceEvents?: TraceEvent[] } | TraceEvent[];
      const events = Array.isArray(file) ? file : (file.traceEvents ?? []);
      // The fetch's initiator is the page's inline script, in the trace and in our request records: the in-page request
      // counter stands down where the harness watches the network (its wrapper was the whole initiator stack). The run
      // test below holds our request records.
      const sent = events.filter((e) => e.name === 'ResourceSendRequest');
      const json = sent.find((e) => (e.args?.data as { url?: string } | undefined)?.url === `${base}hero.json`);
      type Initiator = { fetchType?: string; stack?: { callFrames: { url: string; functionName: string }[] } };
      const init = (json?.args?.data as { initiator?: Initiator } | undefined)?.initiator;
      assert.equal(init?.fetchType, 'fetch', JSON.stringify(json));
      assert.equal(init?.stack?.callFrames[0]?.url, base, JSON.stringify(init));
      assert.deepEqual(
        sent.filter((e) => JSON.stringify(e.args).includes(PAGE_RUNTIME_URL)).map((e) => (e.args?.data as { url?: string }).url),
        [],
      );
      const runs: number[] = [];
      for (let i = 0; i < 3; i++) {
        const t0 = performance.now();
        const e = await devtoolsInsights(events);
        runs.push(Math.round(performance.now() - t0));
        assert.ok(
          e.insights.some((x) => x.id === 'RenderBlocking'),
          'the saved trace gives the same insight',
        );
      }
      t.diagnostic(
        `perf_load reply ${bytes} bytes; insights ${lines.length}: ${Object.entries(sizes)
          .map(([k, v]) => `${k} ${v} B`)
          .join(', ')}`,
      );
      t.diagnostic(`engine ms per trace (${events.length} events): first ${runs[0]} (with the import), then ${runs.slice(1).join(', ')}`);
    } finally {
      await s.close();
      app.kill();
    }
  },
);

test('perf run of a load scenario: the run file keeps DevTools insights with their rows, the HTML shows them', { timeout: 300_000 }, () => {
  const dir = join(work, 'run');
  cpSync(join(FIXTURES_DIR, 'insights'), join(dir, 'app'), { recursive: true });
  writeFileSync(
    join(dir, 'load.yaml'),
    'name: planted\napp:\n  command: "node app/server.mjs"\n  url: "http://127.0.0.1:${PORT}/"\n' +
      'measure: load\ncache: cold\nrepeat: 1\nwarmup: 0\nsteps: []\n',
  );
  const r = spawnSync(process.execPath, [join(ROOT, 'bin/perf'), 'run', 'load.yaml', '--out', 'out', '--reporter', 'html'], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 240_000,
  });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  const run = JSON.parse(readFileSync(join(dir, 'out', 'planted-run.json'), 'utf8')) as RunFile;
  // The insights are the attribution repeat's: only it records DevTools' categories (the timing repeat stays lean).
  assert.equal(run.insightsFrom?.mode, 'attribution');
  const insights = run.insights as { id: string; title: string; rows?: { url?: string }[] }[];
  const rb = insights.find((i) => i.id === 'RenderBlocking');
  assert.match(rb?.title ?? '', /slow\.css$/, JSON.stringify(insights.map((i) => i.title)));
  assert.ok(rb?.rows?.some((row) => row.url?.endsWith('/slow.css')));
  for (const id of ['CLSCulprits', 'FontDisplay', 'Cache', 'ImageDelivery'])
    assert.ok(
      insights.some((i) => i.id === id),
      id,
    );
  // Our request record of the page's fetch names the page as its initiator (a run watches the network from the browser,
  // so the in-page counter, whose wrapper was the initiator, stands down).
  const records: { url?: string; initiator?: { type: string; url?: string } }[] = [];
  JSON.stringify(run, (_k, v: unknown) => {
    const r = v as { url?: unknown; initiator?: { type: string; url?: string } } | null;
    if (r && typeof r === 'object' && typeof r.url === 'string' && r.url.endsWith('/hero.json') && r.initiator) records.push(r as never);
    return v;
  });
  assert.ok(records.length > 0, 'the run file keeps the fetch of hero.json');
  for (const r of records) assert.deepEqual(r.initiator, { type: 'script', url: r.url!.replace(/hero\.json$/, '') });
  const html = readFileSync(join(dir, 'out', 'planted-run.html'), 'utf8');
  // The title in bold, the id beside it: once each.
  assert.match(html, /<b>Render-blocking requests[^<]*<\/b> <code class="muted">RenderBlocking<\/code>/);
  assert.doesNotMatch(html, /RenderBlocking: /);
  assert.match(html, /\/slow\.css/);
});

test(
  'perf compare of two loads: the stylesheet held 700 ms is RenderBlocking new or grown, in the table, JSON, Markdown, JUnit, HTML, MCP',
  { timeout: 300_000 },
  async () => {
    const dir = join(work, 'compare');
    cpSync(join(FIXTURES_DIR, 'insights'), join(dir, 'app'), { recursive: true });
    // Only the stylesheet's hold changes; the font is answered at once in both arms. Held 400 ms, the font (loaded by
    // the stylesheet, text invisible until it comes) is charged to the stylesheet by the engine's FCP estimate: with the
    // LCP image found late through a fetch, RenderBlocking read 373-419 ms of savings with the stylesheet not held and
    // 575-590 ms held 700 ms (3 runs), under the compare's +50 % to call it grown; with the font at once, none and 638.
    writeFileSync(
      join(dir, 'load.yaml'),
      'name: planted\napp:\n  command: "node app/server.mjs --css-delay-ms ${cssMs} --font-delay-ms 0"\n' +
        '  url: "http://127.0.0.1:${PORT}/"\n' +
        'vars: { cssMs: 0 }\nmeasure: load\ncache: cold\nrepeat: 1\nwarmup: 0\nsteps: []\n',
    );
    const perf = (args: string[]): ReturnType<typeof spawnSync> =>
      spawnSync(process.execPath, [join(ROOT, 'bin/perf'), ...args], { cwd: dir, encoding: 'utf8', timeout: 240_000 });
    for (const [label, ms] of [
      ['before', '0'],
      ['after', '700'],
    ] as const) {
      const r = perf(['run', 'load.yaml', '--out', 'out', '--label', label, '--var', `cssMs=${ms}`]);
      assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
    }
    const files = ['out/planted-before.json', 'out/planted-after.json'];
    const json = perf(['compare', ...files, '--json']);
    const c = JSON.parse(String(json.stdout)) as { insights?: { id: string; change: string; culprit?: string; line: string }[] };
    const rb = c.insights?.find((i) => i.id === 'RenderBlocking');
    assert.ok(rb && ['new', 'grew'].includes(rb.change), JSON.stringify(c.insights));
    assert.match(rb.culprit ?? '', /\/slow\.css$/);
    const table = String(perf(['compare', ...files]).stdout);
    assert.match(table, /Insights that changed:\n(  .*\n)*  RenderBlocking (new in the candidate|grew)/, table);
    const md = String(perf(['compare', ...files, '--reporter', 'markdown']).stdout);
    assert.match(md, /\*\*Insights that changed\*\*[\s\S]*- RenderBlocking (new in the candidate|grew)/, md);
    const junit = String(perf(['compare', ...files, '--reporter', 'junit']).stdout);
    assert.match(junit, /RenderBlocking (new in the candidate|grew)[^\n]*\/slow\.css/, junit);
    assert.equal(perf(['compare', ...files, '--reporter', 'html', '--out', 'compare.html']).status, 0);
    const html = readFileSync(join(dir, 'compare.html'), 'utf8');
    assert.match(html, /<td><code>RenderBlocking<\/code><\/td><td>(new|grew)<\/td>.*?\/slow\.css/);
    // And over MCP: perf_compare's brief lists it, one line.
    const s = await stdioServer(dir, { name: 'insights-compare-test', callTimeoutMs: 60_000 });
    try {
      const r = await s.call('perf_compare', { a: files[0], b: files[1] });
      assert.equal(r.isError, false, r.text);
      const brief = JSON.parse(r.text) as { insights?: string[] };
      assert.ok(
        brief.insights?.some((l) => /^RenderBlocking (new in the candidate|grew).*\/slow\.css/.test(l)),
        r.text,
      );
    } finally {
      await s.close();
    }
  },
);

test(
  'a slow click with phases: perf_end lists every insight, one line each within its bound; INPBreakdown by perf_insight',
  { timeout: 240_000 },
  async (t) => {
    const dir = join(work, 'window');
    cpSync(join(FIXTURES_DIR, 'perf-slow-click.html'), join(dir, 'fx', 'perf-slow-click.html'));
    const s = await stdioServer(dir, { name: 'insights-window-test', args: ['--caps', 'all'], callTimeoutMs: 180_000 });
    try {
      assert.equal((await s.call('app_start', { serve: 'fx', path: '/perf-slow-click.html' })).isError, false);
      assert.equal((await s.call('perf_begin', { mode: 'attribution', phases: true })).isError, false);
      assert.equal((await s.call('tap', { target: { role: 'button', name: 'Slow' } })).isError, false);
      const end = await s.call('perf_end');
      assert.equal(end.isError, false, end.text.slice(0, 400));
      // The summary (issue 59): figures and one line per insight, every one listed, within its bound.
      const bytes = Buffer.byteLength(end.text);
      assert.ok(bytes <= PERF_END_SUMMARY_MAX_BYTES + 100, `${bytes} bytes`);
      const lines = end.json.data.insights as string[];
      const ids = lines.map((l) => l.slice(0, l.indexOf(':')));
      assert.equal(end.json.data.insightsOmitted, undefined, end.text);
      // Our longInteraction is DevTools' INPBreakdown's twin: one line, the DevTools name, with the element ours names.
      assert.ok(ids.includes('INPBreakdown') && !ids.includes('longInteraction'), end.text);
      assert.match(lines.find((l) => l.startsWith('INPBreakdown: ')) ?? '', / on button#slow "Slow" \(step tap\); also longInteraction$/);
      assert.equal((await s.call('perf_insight', { id: 'longInteraction' })).isError, false, 'its rows are still there');
      assert.equal(typeof end.json.data.metrics['interactions.latencyMs.worst'], 'number', end.text);
      assert.equal(end.json.data.summary, undefined, 'the ranked lists are the full report');
      // INPBreakdown's line names the phase the interaction spent its time in.
      assert.match(lines.find((l) => l.startsWith('INPBreakdown: ')) ?? '', /— \w+ [\d.]+ ms, mostly \w+ [\d.]+ ms on /, end.text);
      t.diagnostic(`perf_end summary ${bytes} bytes: ${lines.join(' | ')}`);
      const inp = await s.call('perf_insight', { id: 'INPBreakdown' });
      assert.equal(inp.isError, false, inp.text);
      assert.ok(Buffer.byteLength(inp.text) <= INSIGHT_REPLY_MAX_BYTES, inp.text);
      const rows = inp.json.data.rows as { interaction?: string; phase?: string; ms: number }[];
      assert.deepEqual(
        rows.filter((r) => r.phase).map((r) => r.phase),
        ['inputDelay', 'processing', 'presentationDelay'],
      );
      assert.ok(rows[0]?.interaction, inp.text);
    } finally {
      await s.close();
    }
  },
);

test(
  "perf_load records the scripts' sources: LegacyJavaScript names the registry's Swagger UI bundle and what it carries",
  { timeout: 240_000 },
  async () => {
    // Swagger UI's bundle (swagger-ui-dist, a devDependency) ships polyfills and transforms a modern browser does not need.
    const dir = join(work, 'legacy');
    const dist = join(ROOT, 'node_modules', 'swagger-ui-dist');
    cpSync(join(dist, 'swagger-ui-bundle.js'), join(dir, 'app', 'swagger-ui-bundle.js'));
    writeFileSync(
      join(dir, 'app', 'index.html'),
      '<!doctype html><title>legacy</title><h1>Bundle</h1><script src="swagger-ui-bundle.js"></script>\n',
    );
    const s = await stdioServer(dir, { name: 'insights-legacy-test', args: ['--caps', 'all'], callTimeoutMs: 180_000 });
    try {
      assert.equal((await s.call('app_start', { serve: 'app' })).isError, false);
      const r = await s.call('perf_load', { cache: 'cold' });
      assert.equal(r.isError, false, r.text);
      const lines = r.json.data.insights as string[];
      assert.match(
        lines.find((l) => l.startsWith('LegacyJavaScript: ')) ?? '',
        /est\. savings \d+ KiB — \/swagger-ui-bundle\.js$/,
        lines.join('\n'),
      );
      const detail = await s.call('perf_insight', { id: 'LegacyJavaScript' });
      assert.equal(detail.isError, false, detail.text);
      const rows = detail.json.data.rows as { url: string; wastedBytes: number; found: string[] }[];
      // One script, one row: the previous document's copy, which the source rundown replays as tracing starts, is not one.
      assert.equal(rows.length, 1, detail.text);
      const row = rows[0];
      assert.match(row?.url ?? '', /swagger-ui-bundle\.js$/);
      assert.ok(row!.wastedBytes > 10_000 && row!.found.length > 0, JSON.stringify(row));
    } finally {
      await s.close();
    }
  },
);
