#!/usr/bin/env node
/**
 * The tests use the optional dependencies a user may leave out: better-sqlite3 (the SQLite history: a native addon
 * that builds from source when no prebuilt binary can be downloaded, a minute or more) and tauri-driver (Linux x64).
 * The README's quick start installs without them (`npm ci --omit=optional`), so `npm test` runs this first: on first
 * use it installs them from the lockfile, changing neither package.json nor package-lock.json.
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(ROOT, 'package.json'));

/** The optional dependencies this platform can have, each with a check that it is installed and usable. */
const wanted = [
  {
    name: 'better-sqlite3',
    // Extracted but never built (its install script skipped) is as missing as absent: open a database to know.
    ready: () => {
      const Database = require('better-sqlite3');
      new Database(':memory:').close();
    },
  },
  ...(process.platform === 'linux' && process.arch === 'x64'
    ? [{ name: '@crabnebula/tauri-driver-linux-x64-gnu', ready: () => require.resolve('@crabnebula/tauri-driver-linux-x64-gnu') }]
    : []),
];

const missing = wanted.filter((d) => {
  try {
    d.ready();
    return false;
  } catch {
    return true;
  }
});
if (missing.length) {
  console.error(
    `test: installing the optional dependencies the tests use: ${missing.map((d) => d.name).join(', ')} ` +
      '(better-sqlite3 builds from source where no prebuilt binary is reachable: a minute or more)',
  );
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  execFileSync(npm, ['install', '--no-save', '--include=optional', '--no-audit', '--no-fund'], { cwd: ROOT, stdio: 'inherit' });
}
