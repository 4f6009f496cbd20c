/**
 * Shared test fixtures: one Chromium per test file, the demo app served on 127.0.0.1, and a
 * StepHost over them. Fixture pages live in test/fixtures/.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after } from 'node:test';
import { spawn, spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BrowserSession } from '../src/drivers/cdp/session.js';
import { serveStatic, type StaticServer } from '../src/session/static-server.js';
import { SessionHost } from '../src/engine/host.js';

/** Repo root (tests run from dist/test). */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const DEMO_DIR = `${ROOT}scenarios/app`;
export const FIXTURES_DIR = `${ROOT}test/fixtures`;

let shared: Promise<{ session: BrowserSession; demo: StaticServer; fixtures: StaticServer }> | undefined;

// Registered at import time, so it belongs to the file (root) rather than to whichever test first
// asked for the browser.
after(async () => {
  if (!shared) return;
  const { session, demo, fixtures } = await shared;
  await session.close();
  await demo.close();
  await fixtures.close();
});

/**
 * One browser + servers for the whole test file, closed after the file's tests. Each test should
 * call `fresh()` to get a clean page (a context restart) on a URL.
 */
export function sharedBrowser(): Promise<{ session: BrowserSession; demo: StaticServer; fixtures: StaticServer }> {
  shared ??= (async () => {
    const [session, demo, fixtures] = await Promise.all([
      BrowserSession.open({}),
      serveStatic({ root: DEMO_DIR }),
      serveStatic({ root: FIXTURES_DIR }),
    ]);
    return { session, demo, fixtures };
  })();
  return shared;
}

/**
 * A blank page in a browser of its own with a DevTools port, as `perf start` launches one, and a StepHost over
 * it on `baseUrl`: for a test of a second connection to the same page (the CLI verbs' way); the shared
 * browser's pipe takes no second client.
 */
export async function onPortBrowser<T>(baseUrl: string, fn: (host: SessionHost, session: BrowserSession) => Promise<T>): Promise<T> {
  const session = await BrowserSession.open({ devtools: 'port', prewarm: 'none' });
  try {
    return await fn(new SessionHost(session, baseUrl), session);
  } finally {
    await session.close();
  }
}

/** A clean page (new context) on `url` and a StepHost over it. */
export async function fresh(url: string, baseUrl?: string): Promise<{ host: SessionHost; session: BrowserSession }> {
  const { session } = await sharedBrowser();
  await session.restart('context');
  await session.page.navigate(url);
  const host = new SessionHost(session, baseUrl ?? new URL(url).origin);
  return { host, session };
}

/** The ref on a snapshot line with this role and name: `- role "name" … [ref=eN]`, or interactiveOnly's `eN role name`. */
export function refOf(snapshot: string, role: string, name: string): string {
  for (const l of snapshot.split('\n')) {
    if (l.includes(role) && l.includes(`"${name}"`) && /\[ref=e\d+\]/.test(l)) return /\[ref=(e\d+)\]/.exec(l)![1]!;
    const compact = /^\s*(e\d+) (\w+) (.*?)(?: \[|$)/.exec(l);
    if (compact && compact[2] === role && compact[3] === name) return compact[1]!;
  }
  assert.fail(`a ${role} "${name}" line with a ref in:\n${snapshot.slice(0, 2000)}`);
}

/**
 * Processes below `ancestor` (by default this test process), read from /proc, whose command name is
 * `comm` or whose command line (arguments joined by spaces) contains `cmdline`.
 */
export function processesBelow(match: { comm?: string; cmdline?: string }, ancestor = process.pid): number[] {
  const procs = new Map<number, { ppid: number; comm: string }>();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      procs.set(Number(d), { ppid: Number(stat.slice(close + 2).split(' ')[1]), comm: stat.slice(stat.indexOf('(') + 1, close) });
    } catch {
      /* gone */
    }
  }
  const below = (pid: number): boolean => {
    for (let p = procs.get(pid)?.ppid; p !== undefined && p > 1; p = procs.get(p)?.ppid) if (p === ancestor) return true;
    return false;
  };
  const matches = (pid: number, comm: string): boolean => {
    if (match.comm !== undefined && comm !== match.comm) return false;
    if (match.cmdline === undefined) return true;
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').includes(match.cmdline);
    } catch {
      return false;
    }
  };
  return [...procs].filter(([pid, p]) => below(pid) && matches(pid, p.comm)).map(([pid]) => pid);
}

/**
 * `cmd ARGS` in `cwd` without blocking the event loop (so several run side by side), its output read to the end;
 * killed (and failing) after `timeoutMs`, naming what it waited for: a hung child fails its test.
 */
export function childOutput(
  cmd: string,
  args: string[],
  o: { cwd: string; timeoutMs: number; env?: NodeJS.ProcessEnv; what?: string },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(cmd, args, { cwd: o.cwd, env: { ...process.env, ...o.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${o.what ?? `${cmd} ${args.join(' ')}`} did not exit within ${o.timeoutMs} ms; stderr: ${stderr.slice(-2000)}`));
    }, o.timeoutMs);
    // 'close', not 'exit': the pipes are read to their end.
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** `perf ARGS` in `cwd`, killed (and failing) after `timeoutMs`: a hung harness fails its test. */
export function perfCli(
  cwd: string,
  args: string[],
  timeoutMs: number,
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return childOutput(process.execPath, [join(ROOT, 'bin/perf'), ...args], {
    cwd,
    timeoutMs,
    env: { GITHUB_STEP_SUMMARY: '', ...env },
    what: `perf ${args.join(' ')}`,
  });
}

/** A throwaway git repository for tests that bisect or compare commits: see gitRepo(). */
export interface GitRepo {
  /** The repository's folder (its work tree). */
  dir: string;
  /** `git ARGS` in the repository; fails the test on a non-zero exit; stdout, trimmed. */
  git(...args: string[]): string;
  /** Writes `files` (path relative to the repository → content, or null to delete), commits everything, returns the commit id. */
  commit(message: string, files?: Record<string, string | null>): string;
}

// Git answers locally in milliseconds; a minute covers a cold disk on a loaded host.
const GIT_TIMEOUT_MS = 60_000;

/**
 * A new git repository at `dir` (created, with parents) on branch main, with a committer configured
 * locally and `files` written but not committed (commit() takes them in with its own).
 */
export function gitRepo(dir: string, files: Record<string, string> = {}): GitRepo {
  const git = (...args: string[]): string => {
    const r = spawnSync('git', args, { cwd: dir, encoding: 'utf8', timeout: GIT_TIMEOUT_MS });
    assert.equal(r.status, 0, `git ${args.join(' ')} in ${dir}: ${r.error?.message ?? r.stderr}`);
    return r.stdout.trim();
  };
  const write = (entries: Record<string, string | null>): void => {
    for (const [path, content] of Object.entries(entries)) {
      const file = join(dir, path);
      if (content === null) fs.rmSync(file, { force: true });
      else {
        fs.mkdirSync(dirname(file), { recursive: true });
        fs.writeFileSync(file, content);
      }
    }
  };
  fs.mkdirSync(dir, { recursive: true });
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 'perf@example.com');
  git('config', 'user.name', 'perf');
  write(files);
  return {
    dir,
    git,
    commit(message, changed = {}) {
      write(changed);
      git('add', '-A');
      git('commit', '-q', '--allow-empty', '-m', message);
      return git('rev-parse', 'HEAD');
    },
  };
}
