/**
 * What an agent reads, in bytes: our snapshots against Playwright's AI snapshot (ariaSnapshot mode
 * "ai", what Playwright MCP's browser_snapshot returns) of the same pages in the same Chromium, on
 * the demo app and two third-party pages built from npm packages; and the size of an action's reply.
 * Sizes are deterministic, so they are asserted; times are not (bench/mcp-economy.ts prints both
 * sides with Playwright MCP itself).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium, type Browser as PwBrowser } from 'playwright-core';
import { runStep } from '../src/engine/run-step.js';
import { findChrome } from '../src/drivers/cdp/chrome.js';
import { serveStatic, type StaticServer } from '../src/session/static-server.js';
import { DEMO_DIR, fresh } from './helpers.js';
import { ok } from './step-helpers.js';
import { buildThirdPartySite, refsMissing, THIRD_PARTY_PAGES } from './third-party.js';
import { CAPS } from '../src/mcp/caps.js';

// Issue 13's targets: a default snapshot at most 0.6x Playwright's bytes, interactive-only 0.25x.
const SNAP_MAX_RATIO = 0.6;
const INTERACTIVE_MAX_RATIO = 0.25;
// An action's reply without a snapshot, median over the common actions.
const ACTION_REPLY_MAX_BYTES = 600;

let site: StaticServer;
let dir: string;
let pw: PwBrowser;

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rehearse-economy-'));
  fs.cpSync(DEMO_DIR, dir, { recursive: true });
  buildThirdPartySite(dir);
  site = await serveStatic({ root: dir });
  const bin = findChrome().path;
  pw = await chromium.launch({
    executablePath: bin === '/usr/bin/chromium' ? '/usr/lib/chromium/chromium' : bin,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    headless: true,
  });
});

after(async () => {
  await pw?.close();
  await site?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const PAGES = [
  { name: 'demo list', path: '/list.html', ready: 'Add item' },
  { name: 'demo form', path: '/form.html', ready: 'Submit' },
  { name: THIRD_PARTY_PAGES[0].name, path: THIRD_PARTY_PAGES[0].path, ready: 'Find pets by status' },
  { name: THIRD_PARTY_PAGES[1].name, path: THIRD_PARTY_PAGES[1].path, ready: 'The HTML Presentation Framework' },
];

describe("snapshots against Playwright's AI snapshot", () => {
  for (const p of PAGES) {
    test(`${p.name}: snap <= ${SNAP_MAX_RATIO}x, interactiveOnly <= ${INTERACTIVE_MAX_RATIO}x, and a ref on every actionable element Playwright refs`, async () => {
      const page = await pw.newPage({ viewport: { width: 1280, height: 800 } });
      let peer: string;
      try {
        await page.goto(`${site.url}${p.path}`);
        await page.getByText(p.ready).first().waitFor();
        peer = await page.ariaSnapshot({ mode: 'ai' });
      } finally {
        await page.close();
      }
      const { host } = await fresh(`${site.url}${p.path}`);
      ok(await runStep(host, 'wait_for', { text: p.ready }));
      const snap = String(ok(await runStep(host, 'snap', {})).data!.snapshot);
      const inter = String(ok(await runStep(host, 'snap', { interactiveOnly: true })).data!.snapshot);
      assert.ok(snap.length <= SNAP_MAX_RATIO * peer.length, `snap ${snap.length} bytes vs Playwright ${peer.length}`);
      console.log(`${p.name}: snap ${snap.length}, interactiveOnly ${inter.length}, Playwright ${peer.length} bytes`);
      assert.ok(
        inter.length <= INTERACTIVE_MAX_RATIO * peer.length,
        `interactiveOnly ${inter.length} bytes vs Playwright ${peer.length}:\n${inter}`,
      );
      assert.deepEqual(refsMissing(peer, snap), [], `actionable elements Playwright refs that our snap does not:\n${snap.slice(0, 3000)}`);
    });
  }
});

test(`an action's reply without a snapshot is at most ${ACTION_REPLY_MAX_BYTES} bytes (median over the common actions)`, async () => {
  const { host } = await fresh(`${site.url}/form.html`);
  const calls: [string, Record<string, unknown>][] = [
    ['fill', { target: { label: 'Name' }, text: 'Ada' }],
    ['type', { target: { label: 'Email' }, text: 'ada@example.com' }],
    ['press_key', { key: 'Tab' }],
    ['select_option', { target: { label: 'Country' }, option: 'France' }],
    ['tap', { target: { label: 'Pro' } }],
    ['set_checkbox', { target: { label: 'Subscribe to newsletter' }, value: true }],
    ['hover', { target: { role: 'button', name: 'Submit' } }],
  ];
  const sizes: number[] = [];
  for (const [name, args] of calls) {
    const r = ok(await runStep(host, name, args));
    // What the MCP reply carries (format.ts stepResultJson): step, status, durationMs, data, effect, warnings.
    sizes.push(
      JSON.stringify({
        step: r.step,
        status: r.status,
        durationMs: Math.round(r.durationMs * 10) / 10,
        data: r.data,
        effect: r.effect,
        warnings: r.warnings,
      }).length,
    );
  }
  const median = [...sizes].sort((a, b) => a - b)[Math.floor(sizes.length / 2)]!;
  assert.ok(median <= ACTION_REPLY_MAX_BYTES, `median reply ${median} bytes: ${sizes.join(' ')}`);
});

test('the README lists every cap with exactly its tools', () => {
  const readme = fs.readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  for (const cap of CAPS) {
    const row = readme.split('\n').find((l) => l.startsWith(`| \`${cap.name}\``));
    assert.ok(row, `README has a row for cap ${cap.name}`);
    const listed = [...row.split('|')[2]!.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]);
    assert.deepEqual(listed, [...cap.tools], `README row of ${cap.name}`);
  }
});
