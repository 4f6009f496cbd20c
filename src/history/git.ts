/**
 * Where a run's code came from, read with `git` (each call with a deadline); every field null outside a
 * checkout or without git. Also the project name a run is recorded under.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { GitInfo } from './types.js';

// 5 s per git call: each reads a few objects and takes milliseconds; a hung one (a network filesystem) must not hold the run.
const GIT_TIMEOUT_MS = 5_000;

export const NO_GIT: GitInfo = { commit: null, branch: null, mergeBase: null, subject: null, authorDate: null };

/** One git command's trimmed stdout, or null when it fails, times out or git is missing. */
export function git(cwd: string, args: string[]): string | null {
  try {
    const out = execFileSync('git', args, { cwd, timeout: GIT_TIMEOUT_MS, stdio: ['ignore', 'pipe', 'ignore'], encoding: 'utf8' });
    return out.trim() || null;
  } catch {
    return null;
  }
}

/** The repository's default branch: origin's HEAD, else a local main or master. */
export function defaultBranch(cwd: string): string | null {
  const remote = git(cwd, ['symbolic-ref', '--short', 'refs/remotes/origin/HEAD']);
  if (remote) return remote;
  for (const b of ['main', 'master']) if (git(cwd, ['rev-parse', '--verify', '--quiet', `refs/heads/${b}`])) return b;
  return null;
}

/** Git facts of HEAD (or of `commit`, for `perf history add --commit`); the branch given wins over HEAD's. */
export function gitInfo(cwd: string, opts: { commit?: string; branch?: string } = {}): GitInfo {
  const commit = git(cwd, ['rev-parse', '--verify', '--quiet', `${opts.commit ?? 'HEAD'}^{commit}`]);
  if (!commit) return { ...NO_GIT, commit: opts.commit ?? null, branch: opts.branch ?? null };
  const head = opts.commit === undefined ? git(cwd, ['symbolic-ref', '--short', '-q', 'HEAD']) : null;
  // A CI checkout is a detached HEAD: the CI's own variables name the branch.
  const branch =
    opts.branch ?? head ?? process.env.GITHUB_HEAD_REF ?? process.env.GITHUB_REF_NAME ?? process.env.CI_COMMIT_REF_NAME ?? null;
  const log = git(cwd, ['log', '-1', '--format=%aI%n%s', commit]);
  const [authorDate, ...subject] = (log ?? '').split('\n');
  const base = defaultBranch(cwd);
  return {
    commit,
    branch: branch || null,
    mergeBase: base ? git(cwd, ['merge-base', commit, base]) : null,
    subject: subject.join('\n') || null,
    authorDate: authorDate || null,
  };
}

/** The first-parent history of `from`, newest first (`from` itself first): where an earlier baseline is looked for. */
export function firstParents(cwd: string, from: string, max: number): string[] {
  return (git(cwd, ['rev-list', '--first-parent', `--max-count=${max}`, from]) ?? '').split('\n').filter(Boolean);
}

/** package.json's name, else the folder's name: the project runs are recorded under. */
export function projectName(cwd: string): string {
  const pkg = join(cwd, 'package.json');
  if (existsSync(pkg)) {
    try {
      const name = (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: unknown }).name;
      if (typeof name === 'string' && name) return name;
    } catch {
      /* not JSON: the folder's name */
    }
  }
  return basename(cwd);
}
