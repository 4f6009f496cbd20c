/**
 * What a bisect may run, checked before it runs (issue 57). Each commit is measured with its own copy of the
 * scenario, so a policy checked on today's file let an older commit's `app.command` run under `perf mcp --no-commands`:
 * - `vetRange`, before anything is checked out: every commit's scenario as git holds it (one `git cat-file --batch`)
 *   goes through `vet` (the MCP server's command policy), which refuses the bisect there, naming the commit, instead of
 *   an hour into it; and the programs the commits' scenarios start, where they differ from HEAD's, for the CLI to say;
 * - `vetCheckout`, at each checkout before its build or app starts: the scenario must lie in the checkout (not lead out
 *   of it through a link: the bisect would measure a file no commit holds) and serve a folder inside it, and `vet` sees
 *   the file that will run (git's filters may have changed it from the blob).
 * A refusal stops the bisect (`isRefusal`): skipping the commit would search around it and still answer.
 */
import { execFile } from 'node:child_process';
import { isPerfError, PerfError } from '../errors.js';
import { insideWorkdir } from '../files.js';
import { revParseCommit } from '../history/git.js';
import { MAX_SCENARIO_BYTES, type Scenario } from '../scenario/load.js';
import { scenarioProgram, type ScenarioProgram } from '../scenario/program.js';
import { git, GIT_TIMEOUT_MS, short } from './bisect-checkouts.js';

/** A policy on the scenario of one commit: throws a PerfError naming the commit to refuse the bisect. */
export type Vet = (sc: Scenario, commit: string) => void;

const refusals = new WeakSet<Error>();

/** Whether an error is a refusal by policy, which stops the bisect instead of skipping the commit. */
export const isRefusal = (e: unknown): boolean => e instanceof Error && refusals.has(e);

/** `e` as a refusal, its message naming the commit. */
function refusal(e: unknown, commit: string): unknown {
  if (!isPerfError(e)) return e;
  const named = e.message.includes(short(commit))
    ? e
    : new PerfError({
        code: e.code,
        message: `bisect: at commit ${short(commit)}: ${e.message}`,
        ...(e.suggestion ? { suggestion: e.suggestion } : {}),
        cause: e,
      });
  refusals.add(named);
  return named;
}

function refusing<T>(commit: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw refusal(e, commit);
  }
}

/** The checkout of `commit` in `dir`, vetted before anything of it runs; `load` reads its scenario (a failure skips it). */
export function vetCheckout(dir: string, commit: string, rel: string, load: () => Scenario, vet: Vet | undefined): void {
  refusing(commit, () =>
    insideWorkdir(dir, rel, {
      who: `bisect: the scenario at ${short(commit)}`,
      use: 'read',
      suggestion: "keep the scenario a file of the repository: a bisect measures each commit's own copy",
    }),
  );
  let sc: Scenario;
  try {
    sc = load();
  } catch (e) {
    // Serving a folder out of the checkout is the server's confinement, not a scenario this commit cannot load.
    throw isPerfError(e) && e.code === 'serve_outside_project' ? refusal(e, commit) : e;
  }
  if (vet) refusing(commit, () => vet(sc, commit));
}

/** What the commits' scenarios start: HEAD's program, and each commit whose program is another one. */
export interface RangePrograms {
  head: ScenarioProgram | undefined;
  differ: { commit: string; program: ScenarioProgram }[];
}

const sameProgram = (a: ScenarioProgram | undefined, b: ScenarioProgram | undefined): boolean => a?.key === b?.key && a?.line === b?.line;

/**
 * Every commit's scenario (at `rel`) from git, through `vet`; `load` parses a copy's text. A copy that does not load is
 * passed over here: its checkout fails the same way, and the commit is skipped there.
 */
export async function vetRange(
  q: { repo: string; rel: string; load: (text: string) => Scenario; vet: Vet | undefined },
  commits: string[],
): Promise<RangePrograms> {
  const head = await git(q.repo, ...revParseCommit('HEAD')).catch(() => undefined);
  const texts = await blobs(q.repo, [...commits, ...(head ? [head] : [])], q.rel);
  const loaded = new Map<string, Scenario | undefined>();
  const at = (i: number): Scenario | undefined => {
    const text = texts[i];
    if (text === undefined) return undefined;
    if (!loaded.has(text)) {
      try {
        loaded.set(text, q.load(text));
      } catch (e) {
        if (!isPerfError(e)) throw e;
        loaded.set(text, undefined);
      }
    }
    return loaded.get(text);
  };
  const headScenario = head ? at(commits.length) : undefined;
  const headProgram = headScenario ? scenarioProgram(headScenario) : undefined;
  const differ: RangePrograms['differ'] = [];
  commits.forEach((commit, i) => {
    const sc = at(i);
    if (!sc) return;
    if (q.vet) refusing(commit, () => q.vet!(sc, commit));
    const program = scenarioProgram(sc);
    if (program && !sameProgram(program, headProgram)) differ.push({ commit, program });
  });
  return { head: headProgram, differ };
}

/** Each commit's blob at `rel` (undefined where there is none, or one too large to be a scenario): one `git cat-file --batch`. */
function blobs(repo: string, commits: string[], rel: string): Promise<(string | undefined)[]> {
  // One object name a line: a path with a line break would split it.
  if (/[\r\n]/.test(rel)) return Promise.resolve(commits.map(() => undefined));
  return new Promise((resolveBlobs, reject) => {
    const child = execFile(
      'git',
      ['cat-file', '--batch'],
      { cwd: repo, timeout: GIT_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024, encoding: 'buffer' },
      (err, stdout) => {
        if (err)
          return reject(new PerfError({ code: 'bisect_git', message: `bisect: git cat-file --batch failed in ${repo}: ${err.message}` }));
        resolveBlobs(parseBatch(stdout, commits.length));
      },
    );
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(commits.map((c) => `${c}:${rel}\n`).join(''));
  });
}

/** `git cat-file --batch` output: "<oid> <type> <size>\n<content>\n" per object found, "<name> missing\n" otherwise. */
function parseBatch(out: Buffer, count: number): (string | undefined)[] {
  const texts: (string | undefined)[] = [];
  let at = 0;
  for (let i = 0; i < count; i++) {
    const nl = out.indexOf(10, at);
    if (nl < 0) break;
    const [, type, size] = /^[0-9a-f]+ (\w+) (\d+)$/.exec(out.subarray(at, nl).toString('utf8')) ?? [];
    at = nl + 1;
    if (size === undefined) {
      texts.push(undefined);
      continue;
    }
    const n = Number(size);
    texts.push(type === 'blob' && n <= MAX_SCENARIO_BYTES ? out.subarray(at, at + n).toString('utf8') : undefined);
    at += n + 1;
  }
  return texts;
}
