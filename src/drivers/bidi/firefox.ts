/**
 * Firefox for the bidi driver: `--headless --remote-debugging-port=0` on a fresh profile. Firefox then
 * serves WebDriver BiDi itself (no geckodriver) on a port it picks and prints on stderr; the server binds
 * 127.0.0.1 only. The process group and the profile folder are tracked, so the watchdog removes both if
 * the harness dies without closing.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PerfError } from '../../errors.js';
import { findExecutable } from '../../files.js';
import { isAlive, terminate, trackFolder, trackProcess } from '../../processes.js';

// 30 s: a cold Firefox on a loaded 2-core machine takes 2-6 s to open its BiDi port; beyond this it hung.
const START_TIMEOUT_MS = 30_000;
// 8 kB of stderr: enough for the last lines of a failed start in the error message.
const LOG_TAIL_BYTES = 8192;
// 1.5 s: Firefox flushes its profile and exits in well under a second when asked nicely.
const CLOSE_GRACE_MS = 1500;
const LISTENING = /WebDriver BiDi listening on (ws:\/\/127\.0\.0\.1:\d+)/;

/** Prefs for a measuring browser: nothing of Firefox's own runs in the background or pops up. */
const USER_PREFS = [
  ['app.update.disabledForTesting', true],
  ['browser.shell.checkDefaultBrowser', false],
  ['browser.startup.homepage_override.mstone', '"ignore"'],
  ['browser.startup.page', 0],
  ['datareporting.policy.dataSubmissionEnabled', false],
  ['toolkit.telemetry.reportingpolicy.firstRun', false],
  ['browser.safebrowsing.update.enabled', false],
  ['network.captive-portal-service.enabled', false],
  ['extensions.update.enabled', false],
  ['browser.tabs.warnOnClose', false],
] as const;

export interface Firefox {
  /** ws://127.0.0.1:PORT: the BiDi server's root (session.new at /session). */
  endpoint: string;
  pid: number;
  executablePath: string;
  /** Resolves when the browser exits (a crash, or close()). */
  exited: Promise<void>;
  logTail(): string;
  close(): Promise<void>;
}

/** The Firefox binary: $FIREFOX_PATH, else firefox-esr or firefox on PATH. */
export function firefoxBinary(): string | undefined {
  if (process.env.FIREFOX_PATH) return process.env.FIREFOX_PATH;
  return findExecutable('firefox-esr') ?? findExecutable('firefox');
}

export async function launchFirefox(opts: { headless: boolean }): Promise<Firefox> {
  const bin = firefoxBinary();
  if (!bin)
    throw new PerfError({
      code: 'firefox_not_found',
      kind: 'environment',
      message: 'no Firefox found (firefox-esr, firefox or FIREFOX_PATH)',
    });
  const profile = mkdtempSync(join(tmpdir(), 'rehearse-firefox-'));
  const untrackFolder = trackFolder(profile);
  writeFileSync(join(profile, 'user.js'), USER_PREFS.map(([k, v]) => `user_pref("${k}", ${String(v)});`).join('\n') + '\n');
  const args = [...(opts.headless ? ['--headless'] : []), '--remote-debugging-port=0', '--no-remote', '--profile', profile, 'about:blank'];
  const proc = spawn(bin, args, {
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, MOZ_CRASHREPORTER_DISABLE: '1' },
  });
  proc.unref();
  const pid = proc.pid;
  if (pid === undefined) {
    rmSync(profile, { recursive: true, force: true });
    untrackFolder();
    throw new PerfError({ code: 'firefox_launch_failed', kind: 'environment', message: `could not start ${bin}` });
  }
  const untrack = trackProcess(pid, { group: true });
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  let tail = '';
  const close = async (): Promise<void> => {
    if (isAlive(pid)) await terminate(pid, { group: true, graceMs: CLOSE_GRACE_MS });
    untrack();
    rmSync(profile, { recursive: true, force: true });
    untrackFolder();
  };
  const endpoint = await new Promise<string | undefined>((resolve) => {
    const timer = setTimeout(() => resolve(undefined), START_TIMEOUT_MS);
    proc.stderr?.on('data', (d: Buffer) => {
      tail = (tail + d.toString()).slice(-LOG_TAIL_BYTES);
      const m = LISTENING.exec(tail);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      resolve(undefined);
    });
  });
  if (!endpoint) {
    await close();
    throw new PerfError({
      code: 'firefox_launch_failed',
      kind: 'environment',
      message:
        `${bin} did not open its WebDriver BiDi port within ${START_TIMEOUT_MS / 1000} s` +
        `${proc.exitCode !== null ? ` (exit ${proc.exitCode})` : ''}: ${tail.trim().split('\n').pop() ?? 'no output'}`,
    });
  }
  return { endpoint, pid, executablePath: bin, exited, logTail: () => tail, close };
}
