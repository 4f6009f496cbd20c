/**
 * Driving a terminal program, side by side in one run: our pty driver against tmux doing the same
 * (a detached session on a socket of its own, `send-keys`, then `capture-pane -p` polled back to back
 * until the screen shows the change, as a tmux-scraping tool does). Same programs, same 100x30 size:
 * - keystroke → screen shows it, in bash's readline (one letter at an empty `$ ` prompt);
 * - PageDown → the new page's last line is shown, in less on a numbered file;
 * - snapshot: our snapshot({}) (screen text with refs) against one `capture-pane -p`.
 * Rounds are interleaved (and which side goes first alternates) so drift on this shared machine
 * hits both alike. Ours is timed from writing the key to pty.waitFor({ text }) resolving; the
 * driver's own latencyMs (written → last byte of the response) is reported too.
 *
 * Usage: npm run bench:terminal [ROUNDS]
 */
import { execFile as execFileCb, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PtyTerminalDriver } from '../src/drivers/pty/index.js';
import { median, printTable, type Row, sleep, timed } from './common.js';

const execFile = promisify(execFileCb);

const ROUNDS = Number(process.argv[2] ?? 30);
// Untimed first rounds: JIT, xterm's parser, tmux's and the programs' first pages in memory.
const WARMUP_ROUNDS = 3;
const COLS = 100;
const ROWS = 30;
const TARGET = 0.5;
const WAIT_MS = 5000;
// Lines in the paged file: far more than the rounds page through (it rewinds with `g` if reached).
const FILE_LINES = 20_000;
const SOCKET = `rehearse-bench-${process.pid}`;
// The same environment for both sides' programs: no rc files, a plain prompt, no history written.
const PROGRAM_ENV: Record<string, string> = { PS1: '$ ', HISTFILE: '', LESSHISTFILE: '-', LESS: '' };
const BASH = ['bash', '--norc', '--noprofile'];

function p90(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(s.length * 0.9) - 1)]!;
}

/** The tmux client's environment: never the user's server (TMUX unset), a socket of our own (-L). */
const tmuxEnv = (): NodeJS.ProcessEnv => {
  const env = { ...process.env };
  delete env.TMUX;
  delete env.TMUX_PANE;
  return env;
};
const tmux = async (...args: string[]): Promise<string> => (await execFile('tmux', ['-L', SOCKET, ...args], { env: tmuxEnv() })).stdout;

/** send-keys, then capture-pane back to back until `seen(screen)`: ms from send to seen, and the captures it took. */
async function tmuxUntil(
  target: string,
  keys: string[],
  seen: (screen: string) => boolean,
): Promise<{ ms: number; sendMs: number; polls: number }> {
  const t0 = performance.now();
  await tmux('send-keys', '-t', target, ...keys);
  const sendMs = performance.now() - t0;
  for (let polls = 1; ; polls++) {
    const screen = await tmux('capture-pane', '-p', '-t', target);
    if (seen(screen)) return { ms: performance.now() - t0, sendMs, polls };
    if (performance.now() - t0 > WAIT_MS)
      throw new Error(
        `tmux ${target}: the screen did not change as expected within ${WAIT_MS} ms after send-keys ${keys.join(' ')}; it shows:\n${screen}`,
      );
  }
}

/** The numbered lines less shows: the last one and how many (its page height). */
function page(lines: string[]): { last: number; count: number } {
  const nums = lines.flatMap((l) => [...l.matchAll(/line (\d{6})/g)].map((m) => Number(m[1])));
  return { last: Math.max(0, ...nums), count: nums.length };
}
const lineLabel = (n: number): string => `line ${String(n).padStart(6, '0')}`;

async function main(): Promise<void> {
  const version = execFileSync('tmux', ['-V'], { timeout: 120_000, encoding: 'utf8' }).trim();
  const dir = mkdtempSync(path.join(tmpdir(), 'rehearse-bench-terminal-'));
  const file = path.join(dir, 'numbered.txt');
  writeFileSync(
    file,
    Array.from(
      { length: FILE_LINES },
      (_, i) => `${lineLabel(i + 1)}  the quick brown fox jumps over the lazy dog  0123456789 ~!@#$%^&*()`,
    ).join('\n') + '\n',
  );
  // No status line (the pane is then the full 100x30), nothing else from a user config.
  const conf = path.join(dir, 'tmux.conf');
  writeFileSync(conf, 'set -g status off\n');

  const drivers: PtyTerminalDriver[] = [];
  let tmuxStarted = false;
  // tmux 3.3 leaves its socket file behind on kill-server: removed at the end.
  let socketPath = path.join(process.env.TMUX_TMPDIR || '/tmp', `tmux-${process.getuid?.() ?? 0}`, SOCKET);
  const tmuxPids: number[] = [];
  // Ctrl-C or a kill still ends the tmux server and the programs.
  const onSignal = (sig: NodeJS.Signals) => {
    try {
      execFileSync('tmux', ['-L', SOCKET, 'kill-server'], { timeout: 120_000, env: tmuxEnv(), stdio: 'ignore' });
    } catch {
      /* not started or already gone */
    }
    rmSync(socketPath, { force: true });
    for (const d of drivers) {
      try {
        process.kill(-d.pty.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
    rmSync(dir, { recursive: true, force: true });
    process.exit(sig === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  try {
    const envArgs = Object.entries(PROGRAM_ENV).map(([k, v]) => `${k}=${v}`);
    // Ours.
    const bash = PtyTerminalDriver.spawn({ command: BASH[0]!, args: BASH.slice(1), cols: COLS, rows: ROWS, env: PROGRAM_ENV });
    drivers.push(bash);
    const less = PtyTerminalDriver.spawn({ command: 'less', args: [file], cols: COLS, rows: ROWS, env: PROGRAM_ENV });
    drivers.push(less);
    // tmux: one server on its own socket, a session per program; `env` sets the same variables and execs the program.
    tmuxStarted = true;
    await tmux('-f', conf, 'new-session', '-d', '-s', 'bash', '-x', String(COLS), '-y', String(ROWS), 'env', ...envArgs, ...BASH);
    await tmux('new-session', '-d', '-s', 'less', '-x', String(COLS), '-y', String(ROWS), 'env', ...envArgs, 'less', file);
    for (const s of ['bash', 'less']) {
      const size = (await tmux('display-message', '-p', '-t', s, '#{pane_width}x#{pane_height}')).trim();
      if (size !== `${COLS}x${ROWS}`) throw new Error(`tmux pane ${s} is ${size}, not ${COLS}x${ROWS}`);
    }
    tmuxPids.push(...(await tmux('list-panes', '-a', '-F', '#{pane_pid}')).trim().split('\n').map(Number));
    socketPath = (await tmux('display-message', '-p', '#{socket_path}')).trim();
    const tmuxTerm = (await tmux('show-options', '-gv', 'default-terminal')).trim();

    // Both sides ready: the prompt and the first page on screen, output quiet.
    await bash.pty.waitFor({ text: '$ ', timeoutMs: WAIT_MS });
    await less.pty.waitFor({ text: lineLabel(1), timeoutMs: WAIT_MS });
    await bash.pty.waitIdle({ timeoutMs: WAIT_MS });
    await less.pty.waitIdle({ timeoutMs: WAIT_MS });
    // capture-pane drops the prompt's trailing space.
    await tmuxUntil('bash', [], (s) => s.split('\n').some((l) => l.startsWith('$')));
    await tmuxUntil('less', [], (s) => s.includes(lineLabel(1)));

    const r = {
      keyOurs: [] as number[],
      keyOursLatency: [] as number[],
      keyTmux: [] as number[],
      keyTmuxPolls: [] as number[],
      keyTmuxSend: [] as number[],
      pageOurs: [] as number[],
      pageOursLatency: [] as number[],
      pageTmux: [] as number[],
      pageTmuxPolls: [] as number[],
      pageTmuxSend: [] as number[],
      snapBashOurs: [] as number[],
      snapBashTmux: [] as number[],
      snapLessOurs: [] as number[],
      snapLessTmux: [] as number[],
    };
    let oursSnapBytes = 0;
    let tmuxCaptureBytes = 0;

    // ---- one measurement each, per side ----
    const oursKey = async (ch: string): Promise<{ ms: number; latencyMs: number }> => {
      const t0 = performance.now();
      const action = bash.type(ch);
      await bash.pty.waitFor({ text: `$ ${ch}`, timeoutMs: WAIT_MS });
      const ms = performance.now() - t0;
      const t = await action;
      if (t.latencyMs === undefined || !t.settled) throw new Error(`ours: bash did not answer "${ch}" (settled ${t.settled})`);
      // Untimed: empty the line again and let it go quiet.
      await bash.pressKey('u', ['control'], 1);
      await bash.pty.waitFor({ textGone: `$ ${ch}`, timeoutMs: WAIT_MS });
      await bash.pty.waitIdle({ timeoutMs: WAIT_MS });
      return { ms, latencyMs: t.latencyMs };
    };
    const tmuxKey = async (ch: string): Promise<{ ms: number; sendMs: number; polls: number }> => {
      const line = `$ ${ch}`;
      const t = await tmuxUntil('bash', ['-l', ch], (s) => s.includes(line));
      await tmuxUntil('bash', ['C-u'], (s) => !s.includes(line));
      return t;
    };
    const oursPage = async (): Promise<{ ms: number; latencyMs: number }> => {
      let p = page((await less.screen()).lines);
      if (p.last + 2 * p.count > FILE_LINES) {
        await less.type('g');
        await less.pty.waitFor({ text: lineLabel(1), timeoutMs: WAIT_MS });
        await less.pty.waitIdle({ timeoutMs: WAIT_MS });
        p = page((await less.screen()).lines);
      }
      const want = lineLabel(p.last + p.count);
      const t0 = performance.now();
      const action = less.pressKey('PageDown', [], 1);
      await less.pty.waitFor({ text: want, timeoutMs: WAIT_MS });
      const ms = performance.now() - t0;
      const t = await action;
      if (t.latencyMs === undefined || !t.settled) throw new Error(`ours: less did not answer PageDown (settled ${t.settled})`);
      await less.pty.waitIdle({ timeoutMs: WAIT_MS });
      return { ms, latencyMs: t.latencyMs };
    };
    const tmuxPage = async (): Promise<{ ms: number; sendMs: number; polls: number }> => {
      let p = page((await tmux('capture-pane', '-p', '-t', 'less')).split('\n'));
      if (p.last + 2 * p.count > FILE_LINES) {
        await tmuxUntil('less', ['-l', 'g'], (s) => s.includes(lineLabel(1)));
        p = page((await tmux('capture-pane', '-p', '-t', 'less')).split('\n'));
      }
      const want = lineLabel(p.last + p.count);
      return tmuxUntil('less', ['NPage'], (s) => s.includes(want));
    };

    for (let i = 0; i < WARMUP_ROUNDS + ROUNDS; i++) {
      const keep = i >= WARMUP_ROUNDS;
      const ch = String.fromCharCode(97 + (i % 26));
      const oursFirst = i % 2 === 0;
      const pair = async <A, B>(ours: () => Promise<A>, peer: () => Promise<B>): Promise<[A, B]> => {
        if (oursFirst) {
          const a = await ours();
          return [a, await peer()];
        }
        const b = await peer();
        return [await ours(), b];
      };
      const [ko, kt] = await pair(
        () => oursKey(ch),
        () => tmuxKey(ch),
      );
      const [po, pt] = await pair(oursPage, tmuxPage);
      let snapBytes = 0;
      let captureBytes = 0;
      const [sbo, sbt] = await pair(
        () => timed(() => bash.snapshot({})),
        () => timed(() => tmux('capture-pane', '-p', '-t', 'bash')),
      );
      const [slo, slt] = await pair(
        () =>
          timed(async () => {
            snapBytes = (await less.snapshot({})).bytes;
          }),
        () =>
          timed(async () => {
            captureBytes = Buffer.byteLength(await tmux('capture-pane', '-p', '-t', 'less'));
          }),
      );
      if (!keep) continue;
      r.keyOurs.push(ko.ms);
      r.keyOursLatency.push(ko.latencyMs);
      r.keyTmux.push(kt.ms);
      r.keyTmuxPolls.push(kt.polls);
      r.keyTmuxSend.push(kt.sendMs);
      r.pageOurs.push(po.ms);
      r.pageOursLatency.push(po.latencyMs);
      r.pageTmux.push(pt.ms);
      r.pageTmuxPolls.push(pt.polls);
      r.pageTmuxSend.push(pt.sendMs);
      r.snapBashOurs.push(sbo);
      r.snapBashTmux.push(sbt);
      r.snapLessOurs.push(slo);
      r.snapLessTmux.push(slt);
      oursSnapBytes = snapBytes;
      tmuxCaptureBytes = captureBytes;
    }

    const peerName = `${version}, send-keys + capture-pane -p polled back to back`;
    const rows: (Row & { target: number })[] = [
      { what: 'bash: keystroke -> screen shows it', ours: r.keyOurs, peer: r.keyTmux, peerName, target: TARGET },
      { what: 'less: PageDown -> new page shown', ours: r.pageOurs, peer: r.pageTmux, peerName, target: TARGET },
      { what: 'snapshot, bash prompt (vs capture-pane -p)', ours: r.snapBashOurs, peer: r.snapBashTmux, peerName, target: TARGET },
      { what: 'snapshot, less page (vs capture-pane -p)', ours: r.snapLessOurs, peer: r.snapLessTmux, peerName, target: TARGET },
    ];
    const load = loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
    console.log(
      `terminal: ours = PtyTerminalDriver (node-pty + @xterm/headless, TERM=xterm-256color); peer = ${version} (TERM=${tmuxTerm}, socket -L ${SOCKET}, status off)`,
    );
    console.log(
      `programs: ${BASH.join(' ')} (PS1='$ ') and less on a ${FILE_LINES}-line file, ${COLS}x${ROWS} both sides; ${ROUNDS} rounds + ${WARMUP_ROUNDS} warmups, interleaved, first side alternating; load average ${load}`,
    );
    printTable(`Terminal driving: rehearse vs tmux (ms)`, rows);

    console.log('\np90s and ratios');
    console.log(
      `${'measure'.padEnd(44)} ${'ours p50'.padStart(9)} ${'ours p90'.padStart(9)} ${'tmux p50'.padStart(9)} ${'tmux p90'.padStart(9)} ${'p50 ratio'.padStart(9)} ${'p90 ratio'.padStart(9)}  target ${TARGET}x`,
    );
    for (const row of rows) {
      const ratio50 = median(row.ours) / median(row.peer!);
      const ratio90 = p90(row.ours) / p90(row.peer!);
      console.log(
        `${row.what.padEnd(44)} ${median(row.ours).toFixed(2).padStart(9)} ${p90(row.ours).toFixed(2).padStart(9)} ${median(row.peer!).toFixed(2).padStart(9)} ${p90(row.peer!).toFixed(2).padStart(9)} ${ratio50.toFixed(2).padStart(9)} ${ratio90.toFixed(2).padStart(9)}  ${ratio50 <= TARGET ? 'met' : 'NOT met'}`,
      );
    }

    console.log('\ndetail');
    const info = (what: string, xs: number[], unit = 'ms') =>
      console.log(`${what.padEnd(60)} median ${median(xs).toFixed(2).padStart(7)} ${unit}, p90 ${p90(xs).toFixed(2).padStart(7)} ${unit}`);
    info('ours, bash keystroke: driver latencyMs (written -> last byte)', r.keyOursLatency);
    info('ours, less PageDown: driver latencyMs (written -> last byte)', r.pageOursLatency);
    info('tmux, bash keystroke: the send-keys call alone', r.keyTmuxSend);
    info('tmux, less PageDown: the send-keys call alone', r.pageTmuxSend);
    info('tmux, bash keystroke: capture-pane polls until seen', r.keyTmuxPolls, 'polls');
    info('tmux, less PageDown: capture-pane polls until seen', r.pageTmuxPolls, 'polls');
    console.log(`less page: our snapshot ${oursSnapBytes} bytes (text + refs), capture-pane ${tmuxCaptureBytes} bytes (text only)`);
  } finally {
    for (const d of drivers) await d.pty.close().catch((e: unknown) => console.error(`closing ${d.pty.command}: ${String(e)}`));
    if (tmuxStarted) await tmux('kill-server').catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    // Nothing outlives the bench: the server's socket answers no more, no pane's program runs.
    let serverGone = false;
    try {
      execFileSync('tmux', ['-L', SOCKET, 'ls'], { timeout: 120_000, env: tmuxEnv(), stdio: 'ignore' });
    } catch {
      serverGone = true;
    }
    if (serverGone && tmuxStarted) rmSync(socketPath, { force: true });
    const alive = (pid: number): boolean => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    // A pane's program gets SIGHUP from the ending server: give it a moment to act on it.
    const pids = [...tmuxPids, ...drivers.map((d) => d.pty.pid)];
    for (let waited = 0; waited < 2000 && pids.some(alive); waited += 20) await sleep(20);
    const left = pids.filter(alive);
    console.log(
      `\ncleanup: tmux -L ${SOCKET} ls ${serverGone ? 'fails (server gone)' : 'STILL ANSWERS'}; programs still running: ${left.length ? left.join(', ') : 'none'}`,
    );
    if (!serverGone || left.length) process.exitCode = 1;
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
