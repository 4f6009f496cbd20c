/**
 * The checkouts of `perf bisect` (issue 32): one git worktree per commit under a temporary folder, checked
 * (`vet`) and built once, served from there, removed at the end; the user's working tree and index are never
 * touched. Nothing of them outlives a killed perf (issue 57):
 * - the temporary folder, each worktree's admin folder under the git dir and each build's process group are
 *   registered with the watchdog (src/processes.ts), as a browser and its profile are: after `kill -9` of perf it
 *   ends the build and removes the folders;
 * - each worktree is locked with a reason naming this process (pid and start time): git's own mark that a
 *   worktree belongs to someone, by which the next bisect in the repository knows one as ours, and removes it
 *   once its owner is gone (`pruneStale`) where the watchdog could not (it was killed too). Others' worktrees,
 *   stale or not, are left alone: no `git worktree prune`.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { PerfError } from '../errors.js';
import { readProcStat } from '../proc-stat.js';
import { isAlive, trackFolder, trackProcess } from '../processes.js';

const run = promisify(execFile);
// Git answers locally in milliseconds; a minute covers a cold disk and a large repository's worktree checkout.
export const GIT_TIMEOUT_MS = 60_000;
// A build has a deadline too (nothing outside the process is waited on forever): 30 minutes fits a real app's build.
const BUILD_TIMEOUT_MS = 30 * 60_000;
// The temporary folder of one bisect: its name is half of the mark `pruneStale` looks for (the lock reason is the other).
const ROOT_PREFIX = 'rehearse-bisect-';

export const short = (sha: string): string => sha.slice(0, 10);

export async function git(cwd: string, ...args: string[]): Promise<string> {
  try {
    const { stdout } = await run('git', args, { cwd, timeout: GIT_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024 });
    return stdout.trim();
  } catch (e) {
    const err = e as { stderr?: string; message: string };
    throw new PerfError({
      code: 'bisect_git',
      message: `bisect: git ${args.join(' ')} failed in ${cwd}: ${(err.stderr ?? err.message).trim().split('\n')[0]}`,
      suggestion: 'run perf bisect inside a git repository, with GOOD and BAD naming commits of it (GOOD an ancestor of BAD)',
    });
  }
}

/** The lock reason of our worktrees: this process, by pid and start time (a recycled pid starts later). */
function ownerReason(): string {
  return `rehearse bisect: pid ${process.pid}, started ${readProcStat(process.pid)?.startTicks ?? '?'}`;
}
const OWNER = /^rehearse bisect: pid (\d+), started (\d+|\?)$/;

/** Whether the process a lock reason names has ended (or its pid now belongs to another process). */
function ownerGone(reason: string): boolean {
  const m = OWNER.exec(reason);
  if (!m) return false;
  const pid = Number(m[1]);
  if (!isAlive(pid)) return true;
  const now = readProcStat(pid)?.startTicks;
  return m[2] !== '?' && now !== undefined && String(now) !== m[2];
}

/**
 * Remove the worktrees an earlier bisect in `repo` left behind (perf and its watchdog killed): those locked with our
 * reason whose owner is gone, in a folder of ours. Returns their paths.
 */
export async function pruneStale(repo: string): Promise<string[]> {
  const removed: string[] = [];
  for (const block of (await git(repo, 'worktree', 'list', '--porcelain')).split('\n\n')) {
    const path = /^worktree (.+)$/m.exec(block)?.[1];
    const reason = /^locked (.+)$/m.exec(block)?.[1];
    if (!path || !reason || !basename(dirname(path)).startsWith(ROOT_PREFIX) || !ownerGone(reason)) continue;
    // Twice --force: the worktree is locked. Its folder may be gone already (git then drops only its admin folder).
    await git(repo, 'worktree', 'remove', '--force', '--force', '--end-of-options', path).catch(() => undefined);
    rmSync(dirname(path), { recursive: true, force: true });
    removed.push(path);
  }
  return removed;
}

export interface CheckoutOptions {
  build: string | undefined;
  signal: AbortSignal | undefined;
  onBuild: (commit: string) => void;
  /** Checks the commit's checkout before anything of it runs (its build, its app); throws to refuse it. */
  vet: (dir: string, commit: string) => void;
}

/** One worktree per commit under a temporary folder, built once; all removed at the end. */
export class Checkouts {
  private readonly root = mkdtempSync(join(tmpdir(), ROOT_PREFIX));
  private readonly ready = new Map<string, Promise<string>>();
  /** What the watchdog removes if perf dies: the root, then each worktree's admin folder. */
  private readonly untrack = [trackFolder(this.root)];
  private readonly reason = ownerReason();
  // `git worktree add` takes the repository's locks: with speculation several commits check out at once, so one at a time.
  private adding: Promise<unknown> = Promise.resolve();
  constructor(
    private readonly repo: string,
    private readonly o: CheckoutOptions,
  ) {}

  /** The commit's checked-out (and built) folder; a failed build is a PerfError naming the commit. */
  folder(commit: string): Promise<string> {
    let p = this.ready.get(commit);
    if (!p) {
      p = this.checkout(commit);
      this.ready.set(commit, p);
    }
    return p;
  }

  private async checkout(commit: string): Promise<string> {
    const dir = join(this.root, short(commit));
    const add = this.adding.then(async () => {
      await git(this.repo, 'worktree', 'add', '--detach', '--quiet', '--end-of-options', dir, commit);
      // Locked in a second call: `add --lock --reason` needs git 2.33, `--end-of-options` only 2.24.
      await git(this.repo, 'worktree', 'lock', '--reason', this.reason, '--end-of-options', dir);
      this.untrack.push(trackFolder(await git(dir, 'rev-parse', '--absolute-git-dir')));
    });
    this.adding = add.catch(() => undefined);
    await add;
    this.o.vet(dir, commit);
    if (this.o.build) {
      this.o.onBuild(commit);
      await buildIn(dir, this.o.build, commit, this.o.signal);
    }
    return dir;
  }

  async close(): Promise<void> {
    let left = false;
    for (const dir of [...this.ready.keys()].map((c) => join(this.root, short(c)))) {
      await git(this.repo, 'worktree', 'remove', '--force', '--force', '--end-of-options', dir).catch(() => (left = true));
    }
    rmSync(this.root, { recursive: true, force: true });
    // A worktree git could not remove keeps its admin folder listed: the watchdog removes it when perf exits.
    if (!left) for (const untrack of this.untrack) untrack();
  }
}

/** Run the build command in a checkout (a shell line, as in CI); its last output lines name why it failed. */
function buildIn(dir: string, command: string, commit: string, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolveBuild, reject) => {
    const child = spawn('sh', ['-c', command], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    // Its own process group, registered as a browser is: it ends with perf, even after kill -9.
    const untrack = child.pid === undefined ? () => undefined : trackProcess(child.pid, { group: true });
    let tail = '';
    const keep = (d: Buffer): void => void (tail = (tail + d.toString()).slice(-2000));
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const kill = (): void => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(kill, BUILD_TIMEOUT_MS);
    signal?.addEventListener('abort', kill, { once: true });
    child.once('error', (e) => reject(e));
    child.once('exit', (code, sig) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', kill);
      // The group may hold processes the shell left behind: they go with it.
      kill();
      untrack();
      if (code === 0) return resolveBuild();
      const why = sig
        ? `killed by ${sig}${sig === 'SIGKILL' && !signal?.aborted ? ` after ${BUILD_TIMEOUT_MS / 60_000} min` : ''}`
        : `exit ${code}`;
      reject(
        new PerfError({
          code: 'bisect_build',
          kind: 'environment',
          message: `bisect: --build failed at ${short(commit)} (${why}): ${tail.trim().split('\n').slice(-3).join(' | ')}`,
        }),
      );
    });
  });
}
