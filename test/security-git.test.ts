/**
 * Issue 57, findings 1, 2 and 10, against real git, the built CLI and the MCP server (no browser: each case stops
 * before a page would load):
 * - a ref that starts with "-" is refused (bad_ref) before git sees it: `--output=FILE` as GOOD, --commit or a
 *   baseline branch made `git log` write FILE;
 * - perf_bisect under --no-commands applies the command policy to every commit's own scenario (an older commit's
 *   `app.command` ran), and a scenario that leads out of its checkout is refused; the CLI says what will run;
 * - `kill -9` of perf bisect ends its build and removes its worktree (the watchdog), and a bisect whose watchdog was
 *   killed too leaves a worktree that the next bisect in the repository removes, and nothing of anyone else's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gitRepo, perfCli, processesBelow, ROOT, type GitRepo } from './helpers.js';
import { stdioServer } from './mcp-client.js';

// A CLI call that is refused before anything runs answers in a second or two; 60 s covers a loaded 2-core host.
const CLI_TIMEOUT_MS = 60_000;
// Deadline for the watchdog to end a killed bisect's build and remove its folders: it polls every 25 ms and gives
// 1 s of grace before SIGKILL; 20 s covers a loaded host.
const REAP_DEADLINE_MS = 20_000;

const SERVE = 'app:\n  serve: site\nsteps:\n  - wait_for: "hi"\n';
const command = (marker: string): string => `app:\n  command: "touch ${marker}; exit 1"\nsteps:\n  - wait_for: "hi"\n`;

/** A repository whose first commit's scenario runs `first`, the later two serve a folder. Returns the three commits. */
function history(dir: string, first: string): { repo: GitRepo; commits: string[] } {
  const repo = gitRepo(join(dir, 'repo'), { 'site/index.html': '<h1>hi</h1>\n' });
  const commits = [repo.commit('one', { 's.yaml': first }), repo.commit('two', { 's.yaml': SERVE }), repo.commit('three')];
  return { repo, commits };
}

const inTemp = async (name: string, f: (dir: string) => Promise<void>): Promise<void> => {
  const dir = mkdtempSync(join(tmpdir(), `rehearse-sec-git-${name}-`));
  try {
    await f(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

const worktrees = (repo: GitRepo): string[] =>
  repo
    .git('worktree', 'list', '--porcelain')
    .split('\n')
    .filter((l) => l.startsWith('worktree '))
    .map((l) => l.slice('worktree '.length))
    .slice(1);

test(
  'a ref that starts with "-" is refused before git sees it: perf bisect, history add --commit, gate --baseline, perf_bisect',
  {
    timeout: 120_000,
  },
  () =>
    inTemp('refs', async (dir) => {
      const { repo } = history(dir, SERVE);
      const planted = (name: string): string => join(dir, name);
      // git log wrote `${ref}^{commit}`'s file: FILE^{commit}.
      const notWritten = (name: string): void =>
        assert.ok(!existsSync(planted(name)) && !existsSync(`${planted(name)}^{commit}`), `git wrote ${planted(name)}`);

      const bisect = await perfCli(repo.dir, ['bisect', '--', `--output=${planted('bisect')}`, 'HEAD', 's.yaml'], CLI_TIMEOUT_MS);
      notWritten('bisect');
      assert.equal(bisect.code, 2, bisect.stderr);
      assert.match(bisect.stderr, /bisect GOOD: "--output=.*" is not a git ref \(it would be read as an option\)/);
      assert.match(bisect.stderr, /hint: .*never starts with "-"/);

      const run = join(ROOT, 'test/fixtures/runs/load-list-run.json');
      const store = join(dir, 'h.sqlite');
      const add = await perfCli(
        repo.dir,
        ['history', 'add', run, `--commit=--output=${planted('add')}`, '--history', store],
        CLI_TIMEOUT_MS,
      );
      notWritten('add');
      assert.equal(add.code, 2, add.stderr);
      assert.match(add.stderr, /--commit: "--output=.*" is not a git ref/);
      // A ref given as a ref is still resolved (rev-parse --verify), and one git does not know is recorded as given.
      const ok = await perfCli(repo.dir, ['history', 'add', run, '--commit=HEAD~1', '--history', store, '--json'], CLI_TIMEOUT_MS);
      assert.equal(ok.code, 0, ok.stderr);
      assert.equal((JSON.parse(ok.stdout) as { commit: string }).commit, repo.git('rev-parse', 'HEAD~1'));

      const gate = await perfCli(
        repo.dir,
        ['gate', 's.yaml', '--baseline', `history:--output=${planted('gate')}`, '--history', store],
        CLI_TIMEOUT_MS,
      );
      notWritten('gate');
      assert.equal(gate.code, 2, gate.stderr);
      assert.match(gate.stderr, /history:BRANCH: "--output=.*" is not a git ref/);

      // Over MCP: without --allow-outside, the file would have been written outside the working folder.
      const mcp = await stdioServer(repo.dir, { args: ['--caps', 'core,history', '--no-commands'], name: 'sec-git-refs' });
      try {
        for (const args of [
          { good: `--output=${planted('mcp')}`, bad: 'HEAD', scenario: 's.yaml' },
          { good: 'HEAD~2', bad: `--output=${planted('mcp')}`, scenario: 's.yaml' },
        ]) {
          const r = await mcp.call('perf_bisect', args);
          notWritten('mcp');
          assert.equal(r.isError, true, r.text);
          assert.equal(r.json.code, 'bad_ref', r.text);
        }
      } finally {
        await mcp.close();
      }
    }),
);

test(
  'perf_bisect --no-commands: an older commit whose scenario runs app.command is refused, naming it; its command never runs',
  {
    timeout: 120_000,
  },
  () =>
    inTemp('commands', async (dir) => {
      const marker = join(dir, 'MARKER');
      const { repo, commits } = history(dir, command(marker));
      // A commit whose blob serves a folder but whose checkout runs a command: git's smudge filter (the user's config)
      // rewrites it, so only the check of the checked-out file sees it.
      const smudged = join(dir, 'SMUDGED');
      const filtered = repo.commit('four', { '.gitattributes': 's.yaml filter=cmd\n' });
      const head = repo.commit('five');
      repo.git('config', 'filter.cmd.smudge', `sed 's|^  serve: site$|  command: "touch ${smudged}; exit 1"|'`);
      repo.git('config', 'filter.cmd.clean', 'cat');
      const mcp = await stdioServer(repo.dir, { args: ['--caps', 'core,history', '--no-commands'], name: 'sec-git-commands' });
      try {
        const old = await mcp.call('perf_bisect', { good: commits[0]!, bad: head, scenario: 's.yaml' });
        assert.equal(old.isError, true, old.text);
        assert.equal(old.json.code, 'commands_denied', old.text);
        assert.match(old.json.message, new RegExp(`perf_bisect scenario at commit ${commits[0]!.slice(0, 10)}: s\\.yaml: app\\.command`));
        const late = await mcp.call('perf_bisect', { good: filtered, bad: head, scenario: 's.yaml' });
        assert.equal(late.isError, true, late.text);
        assert.equal(late.json.code, 'commands_denied', late.text);
        assert.match(late.json.message, new RegExp(`at commit ${filtered.slice(0, 10)}`));
        // The build is a program too.
        const build = await mcp.call('perf_bisect', { good: commits[1]!, bad: commits[2]!, scenario: 's.yaml', build: 'true' });
        assert.equal(build.json.code, 'commands_denied', build.text);
      } finally {
        await mcp.close();
      }
      assert.equal(existsSync(marker), false, 'the old commit ran its app.command');
      assert.equal(existsSync(smudged), false, 'the checkout ran its app.command');
      assert.deepEqual(worktrees(repo), [], 'every checkout removed');

      // The CLI runs them (no policy there), and says so before building: the commit, the command, HEAD's.
      const cli = await perfCli(repo.dir, ['bisect', commits[0]!, commits[2]!, 's.yaml', '--build', 'exit 1'], CLI_TIMEOUT_MS);
      assert.equal(cli.code, 3, cli.stderr);
      const notice = `bisect: at ${commits[0]!.slice(0, 10)} the scenario runs app.command "touch ${marker}; exit 1" (HEAD's: no program)`;
      const at = cli.stderr.indexOf(notice);
      assert.ok(at >= 0, cli.stderr);
      assert.ok(at < cli.stderr.indexOf('bisect: building'), cli.stderr);
      assert.match(cli.stderr, /bisect: --build runs in each checkout, with that commit's files \(up to 3\): "exit 1"/);
    }),
);

test(
  'perf_bisect: a commit whose scenario leads out of its checkout (a link) is refused, naming it; nothing of it runs',
  {
    timeout: 120_000,
  },
  () =>
    inTemp('link', async (dir) => {
      const marker = join(dir, 'MARKER');
      const outside = join(dir, 'outside.yaml');
      writeFileSync(outside, command(marker));
      const repo = gitRepo(join(dir, 'repo'), { 'site/index.html': '<h1>hi</h1>\n' });
      mkdirSync(repo.dir, { recursive: true });
      symlinkSync(outside, join(repo.dir, 's.yaml'));
      const good = repo.commit('one');
      repo.git('rm', '-q', 's.yaml');
      repo.commit('two', { 's.yaml': SERVE });
      const bad = repo.commit('three');
      // Commands on: only the confinement stands between the link and its command.
      const mcp = await stdioServer(repo.dir, { args: ['--caps', 'core,history'], name: 'sec-git-link' });
      try {
        const r = await mcp.call('perf_bisect', { good, bad, scenario: 's.yaml' });
        assert.equal(r.isError, true, r.text);
        assert.equal(r.json.code, 'path_outside_workdir', r.text);
        assert.match(r.json.message, new RegExp(`the scenario at ${good.slice(0, 10)}: "s\\.yaml" leads \\(through a symlink\\) outside`));
      } finally {
        await mcp.close();
      }
      assert.equal(existsSync(marker), false, 'the linked scenario ran its app.command');
      assert.deepEqual(worktrees(repo), []);
    }),
);

/** `perf bisect` with a build that writes its process group's id to `pidFile` and waits; resolves once it has. */
async function slowBisect(repo: GitRepo, commits: string[], pidFile: string): Promise<{ perf: ChildProcess; group: number }> {
  const args = [join(ROOT, 'bin/perf'), 'bisect', commits[1]!, commits[2]!, 's.yaml', '--build', `echo $$ > ${pidFile}; sleep 300`];
  const perf = spawn(process.execPath, args, { cwd: repo.dir, stdio: 'ignore' });
  const group = await until(() => {
    const text = existsSync(pidFile) ? readFileSync(pidFile, 'utf8').trim() : '';
    return text ? Number(text) : undefined;
  }, 'the build to start');
  return { perf, group };
}

async function until<T>(f: () => T | undefined, what: string, ms = REAP_DEADLINE_MS): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = f();
    if (v !== undefined) return v;
    if (Date.now() > deadline) assert.fail(`waited ${ms} ms for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Whether a process of group `pgid` still runs (a zombie, killed and not yet reaped, does not: kill(0) would count it). */
const groupAlive = (pgid: number): boolean =>
  readdirSync('/proc').some((d) => {
    if (!/^\d+$/.test(d)) return false;
    try {
      const f = readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return Number(f[2]) === pgid && f[0] !== 'Z' && f[0] !== 'X';
    } catch {
      return false;
    }
  });

test(
  'kill -9 of perf bisect: the watchdog ends its build and removes its worktree; if the watchdog dies too, the next bisect does',
  {
    timeout: 120_000,
  },
  () =>
    inTemp('kill', async (dir) => {
      const { repo, commits } = history(dir, SERVE);
      const first = await slowBisect(repo, commits, join(dir, 'build1.pid'));
      const [checkout] = worktrees(repo);
      assert.ok(checkout && existsSync(checkout), 'a worktree under the temporary folder');
      first.perf.kill('SIGKILL');
      await until(() => (groupAlive(first.group) ? undefined : true), 'the build to end');
      // The temporary folder, and the worktree's admin folder under .git/worktrees (so git no longer lists it).
      await until(() => (existsSync(checkout) || worktrees(repo).length ? undefined : true), 'the folders to go');

      // Perf and its watchdog killed: the build and the worktree stay (the test ends the build itself).
      const second = await slowBisect(repo, commits, join(dir, 'build2.pid'));
      const [stale] = worktrees(repo);
      const [watchdog] = processesBelow({ cmdline: 'watchdog.js' }, second.perf.pid!);
      assert.ok(watchdog, 'the bisect has a watchdog');
      process.kill(watchdog, 'SIGKILL');
      second.perf.kill('SIGKILL');
      process.kill(-second.group, 'SIGKILL');
      // Someone else's worktrees: a stale one, and one locked by a live process with our reason's words.
      const foreign = join(dir, 'foreign');
      repo.git('worktree', 'add', '-q', '--detach', foreign, 'HEAD');
      rmSync(foreign, { recursive: true });
      const live = join(dir, 'rehearse-bisect-live', 'wt');
      const start = readFileSync(`/proc/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[19];
      repo.git(
        'worktree',
        'add',
        '-q',
        '--detach',
        '--lock',
        '--reason',
        `rehearse bisect: pid ${process.pid}, started ${start}`,
        live,
        'HEAD',
      );
      assert.deepEqual(worktrees(repo).sort(), [stale!, foreign, live].sort());

      const next = await perfCli(repo.dir, ['bisect', 'HEAD', 'HEAD', 's.yaml'], CLI_TIMEOUT_MS);
      assert.equal(next.code, 2, next.stderr);
      assert.match(
        next.stderr,
        new RegExp(`removed 1 checkout\\(s\\) an earlier, killed bisect left: ${stale!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
      );
      assert.deepEqual(worktrees(repo).sort(), [foreign, live].sort(), 'only the stale one of ours is gone');
      assert.equal(existsSync(stale!), false);
    }),
);

test(
  'perf bisect says where its run files go: interrupted during a build (Ctrl-C), it names build/perf/bisect and ends the build',
  {
    timeout: 120_000,
  },
  () =>
    inTemp('out', async (dir) => {
      const { repo, commits } = history(dir, SERVE);
      const pidFile = join(dir, 'build.pid');
      const args = [join(ROOT, 'bin/perf'), 'bisect', commits[1]!, commits[2]!, 's.yaml', '--build', `echo $$ > ${pidFile}; sleep 300`];
      const perf = spawn(process.execPath, args, { cwd: repo.dir, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      perf.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      perf.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<number | null>((r) => perf.once('close', r));
      const group = await until(
        () => (existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim()) || undefined : undefined),
        'the build',
      );
      perf.kill('SIGINT');
      assert.equal(await exited, 130, stderr);
      assert.match(stdout, /^interrupted:/);
      assert.match(stderr, /bisect: run files and the comparison cache are in build\/perf\/bisect\/ \(--out DIR to put them elsewhere\)/);
      await until(() => (groupAlive(group) ? undefined : true), 'the build to end');
      assert.deepEqual(worktrees(repo), []);
    }),
);
