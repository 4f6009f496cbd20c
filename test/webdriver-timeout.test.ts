/**
 * A real WebDriver request timeout: chromedriver frozen (SIGSTOP) while a step waits on it. The step
 * fails as webdriver_timeout naming the command, the server and the wait, and the advice to restart
 * the app appears at the session and MCP doors only, never in `perf run`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { SessionHost } from '../src/engine/host.js';
import { runStep } from '../src/engine/run-step.js';
import { infoAt } from '../src/errors.js';
import { openWebDriverPage } from '../src/drivers/webdriver/session.js';
import { findChrome } from '../src/drivers/cdp/chrome.js';

test(
  'WebDriver: a frozen chromedriver fails the step as webdriver_timeout (command, server, ms); restart advice only in session and MCP',
  { timeout: 120_000, skip: existsSync('/usr/bin/chromedriver') ? false : 'needs chromedriver (apt-get install chromium-driver)' },
  async () => {
    const chrome = findChrome().path;
    const page = await openWebDriverPage({
      kind: 'chromedriver',
      chromePath: chrome === '/usr/bin/chromium' ? '/usr/lib/chromium/chromium' : chrome,
    });
    const pid = page.driver.serverPid!;
    try {
      const host = new SessionHost({ driver: page.driver }, undefined);
      assert.equal((await runStep(host, 'evaluate', { expression: '1 + 1' })).status, 'ok');
      process.kill(pid, 'SIGSTOP');
      // The command's own deadline (the step's 1500 ms) passes before the step's timer (plus its grace).
      const r = await runStep(host, 'evaluate', { expression: '1 + 1', timeoutMs: 1500 });
      assert.equal(r.status, 'failed');
      if (r.status !== 'failed') return;
      assert.equal(r.error.code, 'webdriver_timeout', r.error.message);
      assert.equal(r.error.kind, 'environment');
      assert.match(r.error.message, /^execute script: no answer from the WebDriver server in \d+ ms \(http:\/\/127\.0\.0\.1:\d+\)/);
      // What a run file keeps: no advice of the engine's own.
      assert.equal(r.error.suggestion, undefined);
      assert.doesNotMatch(infoAt(r.error, 'run').suggestion!, /restart/);
      assert.match(infoAt(r.error, 'session').suggestion!, /perf restart/);
      assert.match(infoAt(r.error, 'mcp').suggestion!, /app_restart/);
      // The page now counts as gone: the next step says so at once instead of waiting again.
      const next = await runStep(host, 'evaluate', { expression: '1' });
      assert.equal(next.status, 'failed');
      if (next.status === 'failed') assert.equal(next.error.code, 'page_crashed');
    } finally {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        /* gone */
      }
      await page.close();
    }
  },
);
