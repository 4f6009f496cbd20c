/**
 * perf leaks through the real CLI on a fixture page (test/fixtures/leaks-cli): a details panel opened and
 * closed; variant leaky keeps every closed panel alive through a window resize listener, variant fixed
 * removes the listener. Real Chromium, real heap snapshots, the real analysis.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  judgeLeaks,
  judgeRss,
  resolveThresholds,
  DEFAULT_LEAK_THRESHOLDS,
  type LeakGroup,
  type LeaksResult,
} from '../src/perf/leaks-result.js';
import { renderLeaksHtml, renderLeaksMarkdown, shortPath } from '../reporters/leaks.js';
import { leaksBrief } from '../src/mcp/perf-tools.js';
import { firefoxBinary } from '../src/drivers/bidi/firefox.js';
import { FIXTURES_DIR, ROOT } from './helpers.js';

const work = mkdtempSync(join(tmpdir(), 'rehearse-leaks-'));
after(() => rmSync(work, { recursive: true, force: true }));
cpSync(join(FIXTURES_DIR, 'leaks-cli'), join(work, 'leaks-cli'), { recursive: true });
const PERF = join(ROOT, 'bin/perf');
const SCENARIO = join(work, 'leaks-cli', 'leaks.yaml');

function perf(args: string[]): { code: number; stdout: string; stderr: string } {
  // 240 s: three snapshots, 4 iterations and the analysis take ~10 s alone; a loaded shared 2-core host, several times that.
  const r = spawnSync(process.execPath, [PERF, ...args], { cwd: work, encoding: 'utf8', timeout: 240_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

describe('perf leaks on Chromium', { timeout: 600_000 }, () => {
  test('a panel kept alive by a window listener: exit 1, the constructor named, the listener on its path', () => {
    const out = join(work, 'out-leaky');
    const r = perf(['leaks', SCENARIO, '--variant', 'leaky', '--out', out]);
    assert.equal(r.code, 1, r.stderr + r.stdout);
    assert.match(r.stdout, /^LEAK: leaks-cli \(leaky\), 4 iterations/m);
    assert.match(r.stdout, /DetailsPanel/);
    for (const name of ['baseline', 'first', 'last']) {
      const file = join(out, 'leaks-cli-leaky-leaks-snapshots', `${name}.heapsnapshot`);
      assert.ok(existsSync(file) && statSync(file).size > 100_000, `${file} written`);
    }
  });

  test('--json: the contract { leaks: [{ constructor, countPerIteration, retainedBytes, retainerPath… }] }, reports beside', () => {
    const out = join(work, 'out-json');
    const r = perf(['leaks', SCENARIO, '--variant', 'leaky', '--iterations', '3', '--out', out, '--json', '--reporter', 'markdown,html']);
    assert.equal(r.code, 1, r.stderr);
    const doc = JSON.parse(r.stdout) as { leaks: LeakGroup[]; verdict: string; iterations: number; reports: string[] };
    assert.equal(doc.verdict, 'leak');
    assert.equal(doc.iterations, 3);
    const panel = doc.leaks.find((g) => g.constructor === 'DetailsPanel');
    assert.ok(panel, JSON.stringify(doc.leaks.map((g) => g.constructor)));
    assert.ok(panel.countPerIteration >= 1, `${panel.countPerIteration} per iteration`);
    assert.ok(panel.retainedBytes > 0);
    assert.ok(
      panel.retainerPath.some((p) => /resize|listener/i.test(p)),
      panel.retainerPath.join(' → '),
    );
    assert.deepEqual(doc.reports.map((f) => f.replace(/.*\./, '')).sort(), ['html', 'md']);
    assert.match(
      readFileSync(
        join(
          work,
          doc.reports.find((f) => f.endsWith('.md'))!,
        ),
        'utf8',
      ),
      /DetailsPanel/,
    );
  });

  test('the same page with the listener removed: no leak, exit 0', () => {
    const r = perf(['leaks', SCENARIO, '--variant', 'fixed', '--out', join(work, 'out-fixed')]);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.match(r.stdout, /^no leak: leaks-cli \(fixed\)/m);
    assert.doesNotMatch(r.stdout, /DetailsPanel/);
  });
});

// The leaky fixture keeps ~3.6 MB over 3 iterations (panel, rows, detached table): 50 MB is far above it, 1 KB far below.
const ABOVE_BYTES = 50 * 1024 * 1024;
const BELOW_BYTES = 1024;

describe('thresholds: the flags, the scenario leaks: key, MCP perf_leaks arguments', { timeout: 900_000 }, () => {
  test('--min-retained above the leak: exit 0 (the groups still listed); below it: exit 1', () => {
    const above = perf(['leaks', SCENARIO, '--variant', 'leaky', '--iterations', '3', '--min-retained', '50MB', '--json']);
    assert.equal(above.code, 0, above.stderr);
    const doc = JSON.parse(above.stdout) as { verdict: string; leaks: LeakGroup[]; thresholds: object };
    assert.equal(doc.verdict, 'no_leak');
    assert.deepEqual(doc.thresholds, { minPerIteration: 1, minRetainedBytes: ABOVE_BYTES });
    assert.ok(
      doc.leaks.some((g) => g.constructor === 'DetailsPanel'),
      'the growing groups are still listed',
    );
    const per = perf(['leaks', SCENARIO, '--variant', 'leaky', '--iterations', '3', '--min-retained', '1KB', '--min-per-iteration', '1']);
    assert.equal(per.code, 1, per.stderr + per.stdout);
  });

  test("the scenario's leaks: { minRetainedBytes } sets the verdict; the flag overrides it", () => {
    const text = readFileSync(SCENARIO, 'utf8').replace(/^leaks: .*$/m, `leaks: { iterations: 3, minRetainedBytes: ${ABOVE_BYTES} }`);
    const file = join(work, 'leaks-cli', 'leaks-high.yaml');
    writeFileSync(file, text);
    const fromScenario = perf(['leaks', file, '--variant', 'leaky', '--json']);
    assert.equal(fromScenario.code, 0, fromScenario.stderr);
    assert.equal(
      (JSON.parse(fromScenario.stdout) as { thresholds: { minRetainedBytes: number } }).thresholds.minRetainedBytes,
      ABOVE_BYTES,
    );
    const overridden = perf(['leaks', file, '--variant', 'leaky', '--min-retained', '100KB', '--quiet']);
    assert.equal(overridden.code, 1, overridden.stderr + overridden.stdout);
    writeFileSync(file, text.replace(`minRetainedBytes: ${ABOVE_BYTES}`, 'minRetainedBytes: -1'));
    const bad = perf(['leaks', file, '--variant', 'leaky']);
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /leaks-high\.yaml:\d+.*minRetainedBytes/s);
  });

  test('MCP perf_leaks: vars, out and the thresholds, through the real server', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [PERF, 'mcp', '--caps', 'core,perf,devtools'],
      cwd: work,
      env: { ...(process.env as Record<string, string>) },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'rehearse-leaks-test', version: '0.0.0' });
    await client.connect(transport);
    const call = async (args: Record<string, unknown>): Promise<{ isError: boolean; json: Record<string, any>; text: string }> => {
      // 240 s: one perf leaks run, as perf() above.
      const res = (await client.callTool({ name: 'perf_leaks', arguments: args }, undefined, { timeout: 240_000 })) as {
        isError?: boolean;
        content: { type: string; text: string }[];
      };
      const text = res.content[0]?.text ?? '';
      return { isError: res.isError === true, json: JSON.parse(text) as Record<string, any>, text };
    };
    try {
      const scenario = 'leaks-cli/leaks.yaml';
      const above = await call({ scenario, variant: 'leaky', iterations: 3, minRetainedBytes: ABOVE_BYTES, out: 'mcp-out' });
      assert.equal(above.isError, false, above.text);
      assert.equal(above.json.exitCode, 0, above.text);
      assert.equal(above.json.thresholds.minRetainedBytes, ABOVE_BYTES);
      assert.ok(existsSync(join(work, 'mcp-out', 'leaks-cli-leaky-leaks-snapshots', 'last.heapsnapshot')), 'snapshots under out');
      const below = await call({ scenario, variant: 'leaky', iterations: 3, minRetainedBytes: BELOW_BYTES, minPerIteration: 1 });
      assert.equal(below.json.exitCode, 1, below.text);
      assert.ok(
        (below.json.leaks as LeakGroup[]).some((g) => g.constructor === 'DetailsPanel'),
        below.text,
      );
      // vars override the variant's: the leaky variant with mode=fixed is the fixed page.
      const fixedByVars = await call({ scenario, variant: 'leaky', iterations: 3, vars: { mode: 'fixed' } });
      assert.equal(fixedByVars.json.exitCode, 0, fixedByVars.text);
      const outside = await call({ scenario, variant: 'leaky', out: '/tmp/elsewhere' });
      assert.equal(outside.isError, true, outside.text);
      assert.match(outside.text, /perf_leaks out/);
      const bad = await call({ scenario, minRetainedBytes: -5 });
      assert.equal(bad.isError, true, bad.text);
      assert.match(bad.text, /minRetainedBytes/);
    } finally {
      await client.close();
    }
  });
});

describe("memory.blinkHeapAfterGcBytes: Blink's heap, where a detached DOM tree is", { timeout: 600_000 }, () => {
  test('perf run on the leaky page reads more of it than on the fixed page (one closed panel kept alive)', () => {
    const blink = (variant: string): number[] => {
      const out = join(work, `blink-${variant}`);
      const r = perf(['run', SCENARIO, '--variant', variant, '--repeat', '2', '--warmup', '0', '--out', out, '--quiet']);
      assert.equal(r.code, 0, r.stderr);
      const run = JSON.parse(readFileSync(join(out, `leaks-cli-${variant}-run.json`), 'utf8')) as {
        repeats: { report: { metrics: Record<string, number> } }[];
      };
      return run.repeats.map((x) => x.report.metrics['memory.blinkHeapAfterGcBytes']!);
    };
    const [leaky, fixed] = [blink('leaky'), blink('fixed')];
    assert.ok(
      [...leaky, ...fixed].every((b) => typeof b === 'number' && b > 100_000),
      `${leaky} / ${fixed}`,
    );
    // The kept panel: a 200-row table (1,002 nodes), ~90 KB of Blink heap by memlab's and our snapshot's count.
    assert.ok(Math.min(...leaky) - Math.max(...fixed) > 50 * 1024, `leaky ${leaky} vs fixed ${fixed}`);
  });
});

describe('perf leaks on a terminal program', { timeout: 300_000 }, () => {
  test('no heap over a pty: peak RSS after each iteration, its growth, and what is not measured', () => {
    const out = join(work, 'out-term');
    const r = perf(['leaks', join(work, 'leaks-cli', 'term.yaml'), '--out', out, '--json']);
    assert.equal(r.code, 1, r.stderr);
    const doc = JSON.parse(r.stdout) as {
      kind: string;
      maxRssAfterEachBytes: number[];
      growthPerIterationBytes: number;
      missing: string[];
    };
    assert.equal(doc.kind, 'rss');
    assert.equal(doc.maxRssAfterEachBytes.length, 3);
    assert.ok(doc.growthPerIterationBytes >= 1024 * 1024, `${doc.growthPerIterationBytes} bytes per iteration (2 MB kept per line)`);
    assert.ok(doc.missing.some((m) => /heap snapshots/.test(m)));
    assert.equal(existsSync(join(out, 'term-leak-leaks-snapshots')), false, 'no snapshot folder without snapshots');
  });
});

describe('perf leaks over WebDriver (chromedriver)', { timeout: 300_000 }, () => {
  test("no heap view: the browser's peak RSS after each iteration, with what is not measured", () => {
    const r = perf(['leaks', join(work, 'leaks-cli', 'webdriver.yaml'), '--out', join(work, 'out-wd'), '--json']);
    assert.ok(r.code === 0 || r.code === 1, r.stderr);
    const doc = JSON.parse(r.stdout) as { kind: string; verdict: string; maxRssAfterEachBytes: number[]; missing: string[] };
    assert.equal(doc.kind, 'rss');
    assert.equal(doc.verdict, r.code === 1 ? 'leak' : 'no_leak');
    assert.equal(doc.maxRssAfterEachBytes.length, 3);
    assert.ok(
      doc.maxRssAfterEachBytes.every((b) => b > 10 * 1024 * 1024),
      'a browser is more than 10 MB',
    );
    assert.ok(doc.missing.some((m) => /retainer paths/.test(m)));
  });
});

describe('perf leaks in Firefox (bidi driver)', { timeout: 300_000, skip: firefoxBinary() ? false : 'firefox-esr not installed' }, () => {
  test("no heap snapshot over BiDi: Firefox's peak RSS after each iteration, what is not measured named", () => {
    const file = join(work, 'leaks-cli', 'firefox.yaml');
    writeFileSync(file, `${readFileSync(SCENARIO, 'utf8').trimEnd()}\nbrowser: { engine: firefox }\n`);
    const r = perf(['leaks', file, '--variant', 'leaky', '--iterations', '3', '--out', join(work, 'out-ff'), '--json']);
    assert.ok(r.code === 0 || r.code === 1, r.stderr);
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
    const doc = JSON.parse(r.stdout) as {
      kind: string;
      driver: string;
      verdict: string;
      maxRssAfterEachBytes: number[];
      missing: string[];
    };
    assert.deepEqual([doc.kind, doc.driver], ['rss', 'bidi']);
    assert.equal(doc.verdict, r.code === 1 ? 'leak' : 'no_leak');
    assert.equal(doc.maxRssAfterEachBytes.length, 3);
    assert.ok(
      doc.maxRssAfterEachBytes.every((b) => b > 10 * 1024 * 1024),
      'a Firefox is more than 10 MB',
    );
    assert.ok(
      doc.missing.some((m) => /heap snapshots \(none over the bidi driver/.test(m)),
      JSON.stringify(doc.missing),
    );
    assert.equal(existsSync(join(work, 'out-ff', 'leaks-cli-leaky-leaks-snapshots')), false, 'no snapshot folder without snapshots');
  });
});

describe('perf leaks refuses bad input before starting anything', { timeout: 60_000 }, () => {
  for (const [args, message] of [
    [['--iterations', '1'], /--iterations must be a whole number from 2 to 1000/],
    [['--min-retained', '100 parsecs'], /--min-retained takes a size/],
    [['--reporter', 'junit'], /unknown reporter "junit"/],
    [['--iterashuns', '3'], /unknown flag --iterashuns; did you mean --iterations\?/],
  ] as const) {
    test(`${args.join(' ')}: exit 2`, () => {
      const r = perf(['leaks', SCENARIO, '--variant', 'leaky', ...args]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, message);
    });
  }
  test('a scenario error names file:line, exit 2', () => {
    const r = perf(['leaks', SCENARIO, '--variant', 'nope']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /nope/);
  });
});

describe('the verdict and the reports (pure)', { timeout: 60_000 }, () => {
  const group = (constructor: string, countPerIteration: number, retainedBytes: number): LeakGroup => ({
    constructor,
    countPerIteration,
    count: countPerIteration * 8,
    retainedBytes,
    retainerPath: ['Window', 'listeners', 'resize', '(closure) onResize', constructor, 'div'],
  });
  test('thresholds: the first layer that sets one wins (flag or MCP argument, then the scenario), else the default', () => {
    assert.deepEqual(resolveThresholds(undefined, undefined), DEFAULT_LEAK_THRESHOLDS);
    assert.deepEqual(resolveThresholds({ minRetainedBytes: 5 }, { minRetainedBytes: 7, minPerIteration: 2 }), {
      minPerIteration: 2,
      minRetainedBytes: 5,
    });
    assert.deepEqual(resolveThresholds({}, { minPerIteration: 3 }), { minPerIteration: 3, minRetainedBytes: 100 * 1024 });
  });
  test('a leak is a group growing by >= 1 per iteration with >= 100 KB retained over all such groups', () => {
    const t = DEFAULT_LEAK_THRESHOLDS;
    assert.equal(judgeLeaks([group('A', 1, 60 * 1024), group('B', 2, 50 * 1024)], t).leak, true);
    assert.equal(judgeLeaks([group('A', 1, 60 * 1024)], t).leak, false);
    assert.equal(judgeLeaks([group('A', 0.5, 600 * 1024)], t).leak, false);
    assert.equal(judgeRss([100, 200_000, 400_000], t).leak, true);
    assert.equal(judgeRss([100, 400_000, 400_000], t).leak, false, 'growth in every iteration');
  });
  test('hostile names are escaped in HTML and Markdown; long paths shortened to their ends', () => {
    const evil = group('<img src=x onerror=alert(1)>|`x`', 3, 300 * 1024);
    const r: LeaksResult = {
      kind: 'heap',
      scenario: 's',
      variant: null,
      iterations: 8,
      thresholds: DEFAULT_LEAK_THRESHOLDS,
      verdict: 'leak',
      wallMs: 1,
      snapshotsDir: '/tmp/x',
      analysis: { iterations: 8, groups: [evil], snapshots: [], peakRssBytes: 0 },
      leaking: [evil],
      leakingRetainedBytes: evil.retainedBytes,
    };
    assert.doesNotMatch(renderLeaksHtml(r), /<img/);
    assert.match(renderLeaksMarkdown(r), /\\\|\\`x\\`/);
    assert.equal(shortPath(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']), 'a → b → … → f → g → h');
  });
  test("perf_leaks' reply stays within 6 KB with 200 groups of long paths: the largest kept, the rest counted", () => {
    const many = Array.from({ length: 200 }, (_, i) => ({
      ...group(`Klass${i}${'x'.repeat(120)}`, 2, (300 - i) * 1024),
      retainerPath: Array.from({ length: 30 }, (_, k) => `edge${k}${'y'.repeat(100)}`),
    }));
    const r: LeaksResult = {
      kind: 'heap',
      scenario: 's',
      variant: null,
      iterations: 8,
      thresholds: DEFAULT_LEAK_THRESHOLDS,
      verdict: 'leak',
      wallMs: 1,
      snapshotsDir: '/tmp/x',
      analysis: { iterations: 8, groups: many, snapshots: [], peakRssBytes: 0 },
      leaking: many,
      leakingRetainedBytes: 1,
    };
    const brief = leaksBrief(r);
    assert.ok(Buffer.byteLength(JSON.stringify(brief)) <= 6 * 1024 - 100);
    const kept = brief.leaks as LeakGroup[];
    assert.ok(kept.length >= 5, `${kept.length} groups kept`);
    assert.equal(kept[0]!.retainedBytes, 300 * 1024, 'the largest first');
    assert.ok(kept.every((g) => g.retainerPath.length <= 7 && g.constructor.length <= 80));
    assert.match(String(brief.omitted), /smaller leak group\(s\) left out/);
    assert.equal(brief.exitCode, 1);
  });
});
