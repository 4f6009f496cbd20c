/** The scaling-out flags of perf run / gate (SCALE_OPTIONS in runner/options.ts): a Grid, the serve address. */
import { PerfError } from '../errors.js';
import { SCALE_OPTIONS } from '../runner/options.js';
import { checkGridUrl } from '../session/grid.js';
import type { FlagSpecs, FlagValues } from './args.js';
import { info } from './command.js';
import { flagsOf } from './args.js';

export const SCALE_FLAGS = {
  grid: { ...flagsOf(SCALE_OPTIONS, 'grid').grid!, value: 'URL' },
  serveHost: { ...flagsOf(SCALE_OPTIONS, 'serveHost').serveHost!, value: 'ADDRESS' },
} as const satisfies FlagSpecs;

export interface ScaleFlags {
  grid?: string;
  serveHost?: string;
}

/** Read and check SCALE_FLAGS; says on stderr when the served app is exposed beyond this machine. */
export function scaleFlags(f: FlagValues, command: string): ScaleFlags {
  const grid = typeof f.grid === 'string' ? checkGridUrl(f.grid, command) : undefined;
  const serveHost = f.serveHost as string | undefined;
  if (serveHost !== undefined) {
    if (!/^[A-Za-z0-9.:-]+$/.test(serveHost))
      throw new PerfError({
        code: 'invalid_flag',
        message: `${command}: --serve-host must be an address or host name, got "${serveHost}"`,
        suggestion: "e.g. --serve-host 0.0.0.0, or this machine's address on the Grid's network",
      });
    if (serveHost !== '127.0.0.1')
      info(`perf ${command}: app.serve listens on ${serveHost}: the served folder is exposed there (--serve-host), not on 127.0.0.1 only`);
  }
  return { ...(grid !== undefined ? { grid } : {}), ...(serveHost !== undefined ? { serveHost } : {}) };
}
