/**
 * CPU and peak memory from /proc: a WebDriver server's web content processes (one this harness started)
 * or a terminal program's tree. Only a driver that tried it reports it: CDP has its counters instead.
 */
import * as M from '../metrics.js';
import { defineSource } from './source.js';

export const processSource = defineSource<null>({
  name: 'process',
  emits: [M.webProcessCpuMs, M.webProcessMaxRssBytes],
  cover: ({ raw }) => (raw.process !== undefined || raw.missing.process !== undefined ? { process: raw.missing.process ?? null } : {}),
  measure: ({ raw: { process } }) => ({
    emits: process
      ? [
          { def: M.webProcessCpuMs, value: process.cpuMs },
          { def: M.webProcessMaxRssBytes, value: process.maxRssBytes },
        ]
      : [],
    findings: null,
  }),
});
