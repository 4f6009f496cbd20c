#!/usr/bin/env node
/**
 * The benches' peers (Lighthouse, memlab, Playwright MCP, chrome-devtools-mcp, webdriverio, tabulator-tables,
 * puppeteer-core) are bench/'s own package, so the root install (the README's first command, the tests) never
 * downloads them. Every `npm run bench:*` runs this first: on first use, or when a pinned peer is not installed at its
 * pinned version, it installs them from bench/package-lock.json.
 *
 * The compiled benches run from dist/bench/, where Node's resolution would never look in bench/node_modules:
 * dist/bench/node_modules links there, so a bench imports its peers by name like any dependency.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BENCH = dirname(fileURLToPath(import.meta.url));
const MODULES = join(BENCH, 'node_modules');
const LINK = join(BENCH, '..', 'dist', 'bench', 'node_modules');

/** The pinned peers not installed at their pinned version (a peer added or re-pinned since the first install). */
function stalePeers() {
  const pinned = JSON.parse(readFileSync(join(BENCH, 'package.json'), 'utf8')).devDependencies ?? {};
  return Object.entries(pinned).filter(([name, version]) => {
    try {
      return JSON.parse(readFileSync(join(MODULES, name, 'package.json'), 'utf8')).version !== version;
    } catch {
      return true;
    }
  });
}

const stale = existsSync(MODULES) ? stalePeers() : [];
if (!existsSync(MODULES) || stale.length > 0) {
  console.error(
    stale.length > 0
      ? `bench: ${stale.map(([n, v]) => `${n}@${v}`).join(', ')} not installed as pinned, reinstalling (npm ci --prefix bench)`
      : 'bench: first use, installing the peers the benches measure against (npm ci --prefix bench)',
  );
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  execFileSync(npm, ['ci', '--prefix', BENCH, '--no-audit', '--no-fund'], { stdio: 'inherit' });
}
let linked = false;
try {
  linked = lstatSync(LINK).isSymbolicLink();
} catch {
  // Not there yet (a fresh dist/).
}
if (!linked) {
  rmSync(LINK, { recursive: true, force: true });
  mkdirSync(dirname(LINK), { recursive: true });
  symlinkSync(MODULES, LINK, 'dir');
}
