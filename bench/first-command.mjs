#!/usr/bin/env node
/**
 * The README's first command on a fresh clone of this checkout's HEAD, timed part by part (issue 58: <= 45 s here, root
 * node_modules <= 250 MB). The command is read from the README's quick start, so the figure is of what a reader runs.
 * npm's cache is the machine's own (a stranger's first install also downloads; that is the network's time, not ours).
 * Run: npm run bench:first-command [-- --hog] (--hog: a core spinning beside it, as on a shared CI runner).
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const quickStart = readFileSync(join(ROOT, 'README.md'), 'utf8').split('## Quick start')[1] ?? '';
const command = quickStart.split('\n').find((l) => l.startsWith('npm ci'));
if (!command) throw new Error('README.md: no first command starting with `npm ci` under "## Quick start"');

const work = mkdtempSync(join(tmpdir(), 'rehearse-first-command-'));
const hog = process.argv.includes('--hog') ? spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }) : undefined;
const load = () => loadavg()[0].toFixed(2);
try {
  execFileSync('git', ['clone', '-q', ROOT, work]);
  console.log(`first command (${hog ? 'a core spinning beside it' : 'no hog'}; load ${load()} before):\n  ${command}`);
  const started = performance.now();
  for (const part of command.split(' && ')) {
    const t = performance.now();
    const [file, ...args] = part.split(' ');
    const r = spawnSync(file, args, { cwd: work, encoding: 'utf8', shell: false });
    const s = ((performance.now() - t) / 1000).toFixed(1);
    console.log(`  ${s.padStart(6)} s  exit ${r.status}  ${part}`);
    if (r.status !== 0) throw new Error(`${part} exited ${r.status}: ${(r.stderr ?? '').slice(-2000)}`);
  }
  const total = ((performance.now() - started) / 1000).toFixed(1);
  const mb = execFileSync('du', ['-sm', join(work, 'node_modules')], { encoding: 'utf8' }).split('\t')[0];
  console.log(`  ${total.padStart(6)} s  total (target <= 45 s); root node_modules ${mb} MB (target <= 250); load ${load()} after`);
} finally {
  hog?.kill();
  rmSync(work, { recursive: true, force: true });
}
