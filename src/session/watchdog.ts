/**
 * Watchdog: started by processes.ts with a pipe from the harness. Lines "+PID g|p" add a process,
 * "-PID" removes one. When the pipe closes (the harness exited or was killed, even with SIGKILL),
 * everything still listed is killed. Kept dependency-free so it starts in a few ms.
 */
const tracked = new Map<number, boolean>();
let buffer = '';

function kill(pid: number, group: boolean, sig: NodeJS.Signals): void {
  try {
    process.kill(group ? -pid : pid, sig);
  } catch {
    try {
      process.kill(pid, sig);
    } catch {
      /* already gone */
    }
  }
}

function reap(): void {
  for (const [pid, group] of tracked) kill(pid, group, 'SIGTERM');
  // 1 s grace for Chromium to exit cleanly before it is forced.
  setTimeout(() => {
    for (const [pid, group] of tracked) kill(pid, group, 'SIGKILL');
    process.exit(0);
  }, 1000);
}

process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => {
  buffer += chunk;
  let nl: number;
  while ((nl = buffer.indexOf('\n')) >= 0) {
    const line = buffer.slice(0, nl).trim();
    buffer = buffer.slice(nl + 1);
    if (line.startsWith('+')) {
      const [pid, mode] = line.slice(1).split(' ');
      tracked.set(Number(pid), mode === 'g');
    } else if (line.startsWith('-')) {
      tracked.delete(Number(line.slice(1)));
    }
  }
});
process.stdin.on('end', reap);
process.stdin.on('error', reap);
// Ignore the terminal's Ctrl-C: the harness handles it, and we must outlive it to clean up.
process.on('SIGINT', () => undefined);
