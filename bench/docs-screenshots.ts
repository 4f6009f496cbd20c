/**
 * `npm run docs:screenshots`: regenerate the README's pictures of the HTML reports (docs/report-run.png,
 * docs/report-compare.png). Runs the list-scroll demo with its jank switch on (the run report) and
 * against the clean build (a small interleaved run, so the compare has something to show), opens
 * each in our own Chromium (BrowserSession, as the harness drives pages) and screenshots the top of it.
 *
 * `node dist/bench/docs-screenshots.js --shoot IN.html OUT.png [WIDTH [HEIGHT]]` screenshots one file only.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BrowserSession } from '../src/drivers/cdp/session.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PERF = join(ROOT, 'bin/perf');
// 1000 CSS px: a laptop browser window; the README shows the picture scaled to its column anyway.
const WIDTH = 1000;
// 1500 CSS px: the verdict, the primary metrics and the first charts; the rest of the page is more of the same.
const HEIGHT = 1500;
// 2300 CSS px for the run report: down to its frame timeline, below the per-metric strip plots.
const RUN_HEIGHT = 2300;

function perf(args: string[], cwd: string): void {
  const r = spawnSync(process.execPath, [PERF, ...args], {
    timeout: 600_000,
    cwd,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, GITHUB_STEP_SUMMARY: '' },
  });
  if (r.status !== 0 && r.status !== 1) throw new Error(`perf ${args.join(' ')} exited ${r.status}`);
}

async function shoot(session: BrowserSession, html: string, png: string, width = WIDTH, height = HEIGHT): Promise<void> {
  const page = session.page;
  await page.send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile: false });
  await page.navigate(pathToFileURL(resolve(html)).href);
  // Charts draw on load, synchronously; one frame later they are on screen.
  await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
  const shot = await page.send('Page.captureScreenshot', {
    format: 'png',
    clip: { x: 0, y: 0, width, height, scale: 1 },
    captureBeyondViewport: true,
  });
  writeFileSync(png, Buffer.from(shot.data, 'base64'));
  process.stderr.write(`wrote ${png}\n`);
}

async function main(argv: string[]): Promise<void> {
  const session = await BrowserSession.open({ prewarm: 'none' });
  try {
    if (argv[0] === '--shoot') {
      await shoot(session, argv[1]!, argv[2]!, argv[3] ? Number(argv[3]) : WIDTH, argv[4] ? Number(argv[4]) : HEIGHT);
      return;
    }
    const work = mkdtempSync(join(tmpdir(), 'rehearse-docs-'));
    try {
      const scenario = join(ROOT, 'scenarios/list-scroll.yaml');
      // Run from the scratch folder so the reports name their run files as a project would: build/perf/….
      perf(
        [
          'run',
          scenario,
          '--variant',
          'desktop',
          '--against',
          scenario,
          '--var',
          'jank=1',
          '--baseline-var',
          'jank=0',
          '--repeat',
          '4',
          '--warmup',
          '1',
          '--fixed',
          '--reporter',
          'html',
          '--quiet',
        ],
        work,
      );
      // The run report from a plain run of the janky build: `perf run` saves the traces its frame timeline
      // is read from (an interleaved --against run saves none).
      perf(
        [
          'run',
          scenario,
          '--variant',
          'desktop',
          '--var',
          'jank=1',
          '--repeat',
          '4',
          '--warmup',
          '1',
          '--label',
          'jank',
          '--reporter',
          'html',
          '--quiet',
        ],
        work,
      );
      const out = join(work, 'build/perf');
      perf(
        [
          'report',
          join(out, 'list-scroll-desktop-baseline.json'),
          join(out, 'list-scroll-desktop-candidate.json'),
          '--out',
          join(out, 'compare.html'),
        ],
        work,
      );
      const docs = join(ROOT, 'docs');
      mkdirSync(docs, { recursive: true });
      await shoot(session, join(out, 'list-scroll-desktop-jank.html'), join(docs, 'report-run.png'), WIDTH, RUN_HEIGHT);
      await shoot(session, join(out, 'compare.html'), join(docs, 'report-compare.png'));
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  } finally {
    await session.close();
  }
}

main(process.argv.slice(2)).catch((e: unknown) => {
  process.stderr.write(`docs:screenshots: ${(e as Error).stack ?? String(e)}\n`);
  process.exitCode = 1;
});
