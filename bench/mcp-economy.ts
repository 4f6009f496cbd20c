/**
 * What an agent pays to use rehearse over MCP, against Playwright MCP (the named peer) in one run,
 * with chrome-devtools-mcp's tool list beside it: tools/list bytes (default and every capability),
 * the bytes of an action's reply, and snapshots (default and interactive-only) against Playwright
 * MCP's browser_snapshot (ariaSnapshot mode "ai", with refs) on the demo app and two third-party
 * pages built from npm packages (Swagger UI, the reveal.js demo). Sizes are deterministic, so one
 * round suffices; both servers drive the same Chromium binary.
 *
 * Usage: npm run bench:mcp-economy   (ECONOMY_DUMP=DIR also writes every snapshot there)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findChrome } from '../src/drivers/cdp/chrome.js';
import { fileURLToPath } from 'node:url';
import { actionableRefs, buildThirdPartySite, refsMissing, THIRD_PARTY_PAGES } from '../test/third-party.js';
import { connectMcp as connect, median } from './common.js';
import { BENCH_MODULES } from './modules.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DEMO_DIR = path.join(ROOT, 'scenarios', 'app');
const PERF = path.join(ROOT, 'bin', 'perf');
const chrome = findChrome().path;
const PW_MCP = path.join(BENCH_MODULES, '@playwright', 'mcp', 'cli.js');
const CDT_MCP = path.join(BENCH_MODULES, 'chrome-devtools-mcp', 'build', 'src', 'bin', 'chrome-devtools-mcp.js');
const pwArgs = [PW_MCP, '--headless', '--isolated', '--browser', 'chromium', '--executable-path', chrome, '--no-sandbox'];
// Every capability Playwright MCP 0.0.83 has (its --caps list).
const PW_ALL_CAPS = 'vision,pdf,testing,tracing,devtools,network,storage,config';

/** The snapshot text inside a Playwright MCP reply: its yaml block. */
function pwSnapshot(text: string): string {
  const m = /```yaml\n([\s\S]*?)```/.exec(text);
  return m ? m[1]! : '';
}

function row(what: string, ours: number, peer: number | undefined, target?: number): string {
  const ratio = peer ? ours / peer : undefined;
  return `${what.padEnd(52)} ${String(ours).padStart(8)}  ${peer === undefined ? '       -' : String(peer).padStart(8)}  ${ratio === undefined ? '     -' : ratio.toFixed(2).padStart(6)}  ${target !== undefined ? `<= ${target}x ${ratio !== undefined && ratio <= target ? 'met' : 'NOT met'}` : ''}`;
}

async function main(): Promise<void> {
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'rehearse-economy-'));
  const site = path.join(cwd, 'site');
  fs.cpSync(DEMO_DIR, site, { recursive: true });
  buildThirdPartySite(site);
  const lines: string[] = [];
  const header = `${'measure'.padEnd(52)} ${'rehearse'.padStart(8)}  ${'peer'.padStart(8)}  ${'ratio'.padStart(6)}  target`;

  // 1. Tool lists.
  const ours = await connect(process.execPath, [PERF, 'mcp'], cwd);
  const oursAll = await connect(process.execPath, [PERF, 'mcp', '--caps', 'all'], cwd);
  const pw = await connect(process.execPath, pwArgs, cwd);
  const pwAll = await connect(process.execPath, [...pwArgs, '--caps', PW_ALL_CAPS], cwd);
  const cdt = await connect(process.execPath, [CDT_MCP, '--headless', '--isolated', '--executablePath', chrome], cwd);
  const [lo, loa, lp, lpa, lc] = await Promise.all([
    ours.listBytes(),
    oursAll.listBytes(),
    pw.listBytes(),
    pwAll.listBytes(),
    cdt.listBytes(),
  ]);
  lines.push('\ntools/list bytes (JSON, as the SDK client receives it); peer = Playwright MCP 0.0.83');
  lines.push(header);
  lines.push(row(`default: ${lo.count} tools vs ${lp.count}`, lo.bytes, lp.bytes, 1.0));
  lines.push(row(`every capability: ${loa.count} tools vs ${lpa.count}`, loa.bytes, lpa.bytes, 1.0));
  lines.push(row(`default vs chrome-devtools-mcp 1.11.0 (${lc.count} tools)`, lo.bytes, lc.bytes));
  await Promise.all([oursAll.client.close(), pwAll.client.close(), cdt.client.close(), ours.client.close()]);
  // The app work needs tools outside the default caps (type, scroll, wait_for_network_idle).
  const app = await connect(process.execPath, [PERF, 'mcp', '--caps', 'all'], cwd);

  // 2. One app, both servers on it.
  const started = await app.call('app_start', { serve: 'site', path: '/form.html' });
  if (started.isError) throw new Error(`app_start: ${started.text}`);
  const appUrl = (JSON.parse(started.text) as { data: { appUrl: string } }).data.appUrl;

  // Action replies without a snapshot, on the demo form.
  const oursActions: [string, Record<string, unknown>][] = [
    ['fill', { target: { label: 'Name' }, text: 'Ada' }],
    ['type', { target: { label: 'Email' }, text: 'ada@example.com' }],
    ['press_key', { key: 'Tab' }],
    ['select_option', { target: { label: 'Country' }, option: 'France' }],
    ['tap', { target: { label: 'Pro' } }],
    ['tap', { target: { label: 'Subscribe to newsletter' } }],
    ['scroll', { direction: 'down', pixels: 200 }],
  ];
  const oursReplies: number[] = [];
  for (const [name, a] of oursActions) {
    const r = await app.call(name, a);
    if (r.isError) throw new Error(`${name}: ${r.text}`);
    oursReplies.push(r.text.length);
  }
  await pw.call('browser_navigate', { url: `${appUrl}/form.html` });
  const refOf = (snap: string, role: string, name: string): string | undefined =>
    new RegExp(`${role} "${name}"[^\\n]*\\[ref=([a-z0-9]+)\\]`).exec(snap)?.[1];
  const pwSnap = pwSnapshot((await pw.call('browser_snapshot')).text);
  const pwActions: [string, Record<string, unknown>][] = [
    ['browser_type', { element: 'Name', ref: refOf(pwSnap, 'textbox', 'Name'), text: 'Ada' }],
    ['browser_type', { element: 'Email', ref: refOf(pwSnap, 'textbox', 'Email'), text: 'ada@example.com' }],
    ['browser_press_key', { key: 'Tab' }],
    ['browser_select_option', { element: 'Country', ref: refOf(pwSnap, 'combobox', 'Country'), values: ['France'] }],
    ['browser_click', { element: 'Pro', ref: refOf(pwSnap, 'radio', 'Pro') }],
    ['browser_click', { element: 'Subscribe', ref: refOf(pwSnap, 'checkbox', 'Subscribe to newsletter') }],
    ['browser_mouse_wheel', { deltaX: 0, deltaY: 200 }],
  ];
  const pwReplies: number[] = [];
  for (const [name, a] of pwActions) {
    const r = await pw.call(name, a);
    pwReplies.push(r.text.length);
  }
  lines.push(
    "\naction reply bytes, no snapshot asked (median of fill, type, press_key, select_option, 2 taps, scroll; Playwright MCP: its equivalents, which answer with the page's changes)",
  );
  lines.push(header);
  lines.push(row('median action reply', median(oursReplies), median(pwReplies)));
  lines.push(
    `  rehearse ${oursReplies.join(' ')} | Playwright MCP ${pwReplies.join(' ')}   (target: rehearse <= 600 bytes: ${median(oursReplies) <= 600 ? 'met' : 'NOT met'})`,
  );

  // 3. Snapshots.
  const pages = [
    { name: 'demo list (2,000 rows)', path: '/list.html' },
    { name: 'demo form', path: '/form.html' },
    ...THIRD_PARTY_PAGES.map((p) => ({ name: p.name, path: p.path })),
  ];
  lines.push(
    '\nsnapshot bytes vs Playwright MCP browser_snapshot (ariaSnapshot mode ai); coverage = the actionable elements (links, buttons, fields, options…) Playwright MCP refs that our snapshot refs too',
  );
  lines.push(header);
  for (const p of pages) {
    await app.call('navigate', { url: p.path });
    await app.call('wait_for_network_idle', {}).catch(() => undefined);
    const snap = await app.call('snap');
    const inter = await app.call('snap', { interactiveOnly: true });
    const text = (r: { text: string }): string => (JSON.parse(r.text) as { data: { snapshot?: string } }).data.snapshot ?? '';
    await pw.call('browser_navigate', { url: `${appUrl}${p.path}` });
    await new Promise((r) => setTimeout(r, 500));
    const peer = pwSnapshot((await pw.call('browser_snapshot')).text);
    if (process.env.ECONOMY_DUMP) {
      // The snapshots side by side, to see what each side shows.
      const base = path.join(process.env.ECONOMY_DUMP, p.path.replace(/\W+/g, '_'));
      fs.writeFileSync(`${base}.rehearse.txt`, text(snap));
      fs.writeFileSync(`${base}.rehearse-interactive.txt`, text(inter));
      fs.writeFileSync(`${base}.playwright-mcp.yaml`, peer);
    }
    const peerRefd = actionableRefs(peer).length;
    const covered = peerRefd - refsMissing(peer, text(snap)).length;
    lines.push(row(`${p.name}: snap`, text(snap).length, peer.length, 0.6));
    lines.push(row(`${p.name}: snap interactiveOnly`, text(inter).length, peer.length, 0.25));
    lines.push(
      `  coverage: ${covered} of ${peerRefd} actionable elements Playwright MCP refs (${peerRefd ? Math.round((100 * covered) / peerRefd) : 100}%)`,
    );
  }
  await app.call('app_stop');
  await Promise.all([app.client.close(), pw.client.close()]);
  fs.rmSync(cwd, { recursive: true, force: true });
  console.log(lines.join('\n'));
}

await main();
