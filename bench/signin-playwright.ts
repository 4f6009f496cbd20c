/**
 * bench:signin's reference: the same flow in Playwright, as a test suite would write it, run as its own
 * process (start-up included, as `perf run`'s is). `once` signs in once, saves `storageState()` and opens
 * every repeat in a new context with it; `every` signs in in each new context. Warmup + repeats contexts,
 * each: open /app, see "Signed in as alice", tap Load items, see 300 items. No tracing, profiling or
 * memory reading: what the same flow costs in the tool users would otherwise write it in.
 *
 *   node dist/bench/signin-playwright.js URL once|every REPEATS
 */
import { chromium, type BrowserContextOptions, type Page } from 'playwright-core';
import { playwrightLaunchOptions } from './common.js';

// 30 s per wait, as perf's own step deadlines: a hung page ends the bench instead of stalling it.
const WAIT_MS = 30_000;

async function signIn(page: Page, url: string): Promise<void> {
  await page.goto(`${url}/app`, { timeout: WAIT_MS });
  await page.getByLabel('User').fill('alice', { timeout: WAIT_MS });
  await page.getByLabel('Password').fill(process.env.APP_PASSWORD ?? '', { timeout: WAIT_MS });
  await page.getByRole('button', { name: 'Sign in' }).click({ timeout: WAIT_MS });
  await page.getByText('Signed in as alice').waitFor({ timeout: WAIT_MS });
}

async function steps(page: Page): Promise<void> {
  await page.getByTestId('who').getByText('Signed in as alice').waitFor({ timeout: WAIT_MS });
  await page.getByRole('button', { name: 'Load items' }).click({ timeout: WAIT_MS });
  await page.getByRole('listitem').nth(299).waitFor({ timeout: WAIT_MS });
}

async function main(): Promise<void> {
  const [url, mode, repeats] = process.argv.slice(2);
  if (!url || (mode !== 'once' && mode !== 'every')) throw new Error('usage: signin-playwright URL once|every REPEATS');
  const browser = await chromium.launch(playwrightLaunchOptions());
  try {
    let storageState: BrowserContextOptions['storageState'];
    if (mode === 'once') {
      const context = await browser.newContext();
      await signIn(await context.newPage(), url);
      storageState = await context.storageState();
      await context.close();
    }
    // One warmup, as perf's default.
    for (let i = 0; i < Number(repeats) + 1; i++) {
      const context = await browser.newContext({ storageState });
      const page = await context.newPage();
      if (mode === 'every') await signIn(page, url);
      else await page.goto(`${url}/app`, { timeout: WAIT_MS });
      await steps(page);
      await context.close();
    }
  } finally {
    await browser.close();
  }
}

await main();
