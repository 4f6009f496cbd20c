/**
 * Where a run's code came from, read with `git` (each call with a deadline); every field null outside a
 * checkout or without git. Also the project name a run is recorded under.
 *
 * A ref that reaches git's argv is data, never an option (issue 57): a user's ref (GOOD, BAD, --commit, a branch) is
 * checked by `checkRef`, and every call that takes a ref has `--end-of-options` before it. Without both,
 * `--output=FILE` given as a commit made `git log` write a file of the caller's choosing.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { PerfError } from '../errors.js';
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

/**
 * Refuse a ref given by a user that git would read as an option (it starts with "-") or that is no ref at all (empty,
 * control characters): a PerfError `bad_ref` (usage) naming `who` (e.g. "bisect GOOD").
 */
export function checkRef(ref: string, who: string): void {
  if (ref !== '' && !ref.startsWith('-') && !/[\x00-\x1f\x7f]/.test(ref)) return;
  throw new PerfError({
    code: 'bad_ref',
    message: `${who}: ${JSON.stringify(ref)} is not a git ref${ref.startsWith('-') ? ' (it would be read as an option)' : ''}`,
  });
}

/** git's arguments that resolve `ref` to a commit id: `--verify --quiet`, and the ref after `--end-of-options`. */
export const revParseCommit = (ref: string): string[] => ['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`];

/** The repository's default branch: origin's HEAD, else a local main or master. */
export function defaultBranch(cwd: string): string | null {
  return defaultOf(git(cwd, ['for-each-ref', '--format=%(refname:short) %(symref:short)', ...DEFAULT_REFS]));
}

const DEFAULT_REFS = ['refs/remotes/origin/HEAD', 'refs/heads/main', 'refs/heads/master'];

function defaultOf(refs: string | null): string | null {
  const lines = (refs ?? '').split('\n').map((l) => l.trim().split(' '));
  const origin = lines.find(([name]) => name === 'origin/HEAD' || name === 'origin');
  if (origin?.[1]) return origin[1];
  return lines.find(([name]) => name === 'main')?.[0] ?? lines.find(([name]) => name === 'master')?.[0] ?? null;
}

function gitAsync(cwd: string, args: string[]): Promise<string | null> {
  return new Promise((resolve) => {
    execFile('git', args, { cwd, timeout: GIT_TIMEOUT_MS, encoding: 'utf8' }, (err, out) => resolve(err ? null : out.trim() || null));
  });
}

/**
 * Git facts of HEAD (or of `commit`, for `perf history add --commit`); the branch given wins over HEAD's. Three
 * git calls at once, then the merge-base: recording a run must add milliseconds, not a chain of process starts.
 */
export async function gitInfo(cwd: string, opts: { commit?: string; branch?: string } = {}): Promise<GitInfo> {
  if (opts.commit !== undefined) checkRef(opts.commit, '--commit');
  // HEAD as written: resolving it first would put one more process start before the three.
  const sha = opts.commit === undefined ? 'HEAD' : await gitAsync(cwd, revParseCommit(opts.commit));
  const [log, head, refs] = await Promise.all([
    sha ? gitAsync(cwd, ['log', '-1', '--format=%H%n%aI%n%s', '--end-of-options', sha, '--']) : Promise.resolve(null),
    opts.commit === undefined ? gitAsync(cwd, ['symbolic-ref', '--short', '-q', 'HEAD']) : Promise.resolve(null),
    gitAsync(cwd, ['for-each-ref', '--format=%(refname:short) %(symref:short)', ...DEFAULT_REFS]),
  ]);
  if (!log) return { ...NO_GIT, commit: opts.commit ?? null, branch: opts.branch ?? null };
  const [commit, authorDate, ...subject] = log.split('\n');
  // A CI checkout is a detached HEAD: the CI's own variables name the branch.
  const branch =
    opts.branch ?? head ?? process.env.GITHUB_HEAD_REF ?? process.env.GITHUB_REF_NAME ?? process.env.CI_COMMIT_REF_NAME ?? null;
  const base = defaultOf(refs);
  return {
    commit: commit!,
    branch: branch || null,
    mergeBase: base ? await gitAsync(cwd, ['merge-base', '--end-of-options', commit!, base]) : null,
    subject: subject.join('\n') || null,
    authorDate: authorDate || null,
  };
}

/** The first-parent history of `from`, newest first (`from` itself first): where an earlier baseline is looked for. */
export function firstParents(cwd: string, from: string, max: number): string[] {
  return (git(cwd, ['rev-list', '--first-parent', `--max-count=${max}`, '--end-of-options', from]) ?? '').split('\n').filter(Boolean);
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
