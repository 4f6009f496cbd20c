/**
 * What the Grid test files share: the CLI in the background with a deadline, polling with a deadline,
 * and the committed baselines marked as recorded on another CPU.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunFile } from '../src/perf/run-file.js';
import { ROOT } from './helpers.js';
import { javaAvailable } from './grid-server.js';
/** This test process's working folder (each test file runs in its own process). */
export const work = mkdtempSync(join(tmpdir(), 'rehearse-grid-test-'));
export const PERF = join(ROOT, 'bin/perf');
export const LIST = join(ROOT, 'scenarios/list-scroll.yaml');
export const DIALOG = join(ROOT, 'scenarios/dialog.yaml');
export const SMALL = ['--repeat', '3', '--warmup', '0', '--fixed'];
export const skip = javaAvailable() ? false : 'needs java and /usr/bin/chromedriver (.ci/run installs them)';

export function perf(args: string[], timeoutMs = 300_000): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [PERF, ...args], {
    cwd: work,
    encoding: 'utf8',
    env: { ...process.env, GITHUB_STEP_SUMMARY: '' },
    timeout: timeoutMs,
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/**
 * `perf ARGS` in the background. `done` fails (and the process is killed) when it has not exited within
 * `timeoutMs`: a hung harness fails its test, it never holds the suite. `stderrAt` tells when a line
 * matching a pattern was first printed (ms since the epoch).
 */
export function perfAsync(
  args: string[],
  timeoutMs = 300_000,
): {
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
  kill(sig: NodeJS.Signals): void;
  stderrAt(re: RegExp): number | undefined;
} {
  const child = spawn(process.execPath, [PERF, ...args], { cwd: work, env: { ...process.env, GITHUB_STEP_SUMMARY: '' } });
  let stdout = '';
  let stderr = '';
  const lines: { at: number; text: string }[] = [];
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
    lines.push({ at: Date.now(), text: d.toString() });
  });
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`perf ${args.join(' ')} did not exit within ${timeoutMs} ms; stderr: ${stderr.slice(-1000)}`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
  return { done, kill: (sig) => child.kill(sig), stderrAt: (re) => lines.find((l) => re.test(l.text))?.at };
}

export async function until(what: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Run before a file's tests. */
export function copyBaselinesFromAnotherCpu(): void {
  // The committed baselines, as from another CPU: only the app's own work is gated, so verdicts do not
  // depend on this machine's timing (or on which node ran).
  mkdirSync(join(work, 'baselines'));
  for (const f of readdirSync(join(ROOT, 'baselines'))) {
    const run = JSON.parse(readFileSync(join(ROOT, 'baselines', f), 'utf8')) as RunFile;
    run.env.host.cpuModel = 'Another CPU @ 3.1GHz';
    writeFileSync(join(work, 'baselines', f), JSON.stringify(run));
  }
}
