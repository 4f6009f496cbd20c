/** A terminal program's window (pty driver): screen updates, bytes written, input → settled latency. */
import * as M from '../metrics.js';
import { quantile } from '../stats.js';
import { defineSource, type Emit } from './source.js';

export const terminalSource = defineSource<null>({
  name: 'terminal',
  emits: [M.framesCount, M.terminalBytesOut, M.terminalLatencyP50, M.terminalLatencyP90, M.terminalLatencyWorst],
  cover: ({ raw }) => (raw.terminal ? { terminal: raw.missing.terminal ?? null } : {}),
  measure({ raw: { terminal } }) {
    if (!terminal) return { emits: [], findings: null };
    const emits: Emit[] = [
      { def: M.framesCount, value: terminal.frames },
      { def: M.terminalBytesOut, value: terminal.bytesOut },
    ];
    const l = terminal.latenciesMs;
    if (l.length) {
      emits.push(
        { def: M.terminalLatencyP50, value: quantile(l, 0.5) },
        { def: M.terminalLatencyP90, value: quantile(l, 0.9) },
        { def: M.terminalLatencyWorst, value: Math.max(...l) },
      );
    }
    return { emits, findings: null };
  },
});
