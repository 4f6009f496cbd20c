/**
 * `node test/with-cpu.mjs ARGS…` runs `node ARGS…` (a lanes job's `node --test`), passes its exit code on, and then
 * prints the CPU seconds it and everything it started used (test file processes, browsers, servers, Java: every
 * descendant that was reaped), read from this process's own /proc/self/stat. The lanes runner sums them, so a slow
 * suite says where its CPU went. Linux only; elsewhere it prints no figure. It shares the job's process group, so
 * the runner's kill reaches it and its child alike.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

// The kernel's clock tick (USER_HZ) in which /proc reports CPU time: 100 on every Linux Node supports.
const TICKS_PER_S = 100;

function cpuSeconds() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // Fields after the command name (which may hold spaces): state is [0]; utime, stime, cutime, cstime are [11..14].
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ').map(Number);
    return (f[11] + f[12] + f[13] + f[14]) / TICKS_PER_S;
  } catch {
    return undefined;
  }
}

const child = spawn(process.execPath, process.argv.slice(2), { stdio: 'inherit' });
child.on('exit', (code, signal) => {
  const cpu = cpuSeconds();
  if (cpu !== undefined) process.stdout.write(`# cpu-seconds ${cpu.toFixed(1)}\n`);
  if (signal) process.kill(process.pid, signal);
  process.exit(code ?? 1);
});
