/**
 * perf leaks through the real CLI on a fixture page (test/fixtures/leaks-cli): a details panel opened and
 * closed; variant leaky keeps every closed panel alive through a window resize listener, variant fixed
 * removes the listener. Real Chromium, real heap snapshots, the real analysis.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { judgeLeaks, judgeRss, DEFAULT_LEAK_THRESHOLDS, type LeakGroup, type LeaksResult } from '../src/perf/leaks-result.js';
import { renderLeaksHtml, renderLeaksMarkdown, shortPath } from '../reporters/leaks.js';
import { leaksBrief } from '../src/mcp/perf-tools.js';
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
