/**
 * `node test/with-cpu.mjs ARGS…` runs `node ARGS…` (a lanes job's `node --test`), passes its exit code on, and then
 * prints the CPU seconds it and everything it started used (test file processes, browsers, servers, Java: every
 * descendant that was reaped), read from this process's own /proc entry. The lanes runner sums them, so a slow
 * suite says where its CPU went. Linux only; elsewhere it prints no figure. It shares the job's process group, so
 * the runner's kill reaches it and its child alike.
 */
import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';
import { MS_PER_TICK, readProcStat } from '../dist/src/proc-stat.js';

// LANES_NICE: the runner's lower priority for a job beside the timing files, set here before the test process
// starts so that it and everything it starts inherit it (a renice after the spawn would race the first fork).
const { LANES_NICE, ...env } = process.env;
if (LANES_NICE !== undefined) setPriority(Number(LANES_NICE));
const child = spawn(process.execPath, process.argv.slice(2), { stdio: 'inherit', env });
child.on('exit', (code, signal) => {
  // The pty driver's /proc reader: utime + stime + cutime + cstime, so the reaped descendants count too.
  const ticks = readProcStat(process.pid)?.cpuTicks;
  const cpu = ticks === undefined ? undefined : (ticks * MS_PER_TICK) / 1000;
  if (cpu !== undefined) process.stdout.write(`# cpu-seconds ${cpu.toFixed(1)}\n`);
  if (signal) process.kill(process.pid, signal);
  process.exit(code ?? 1);
});
