/** The environment a run was measured in: compare warns when two runs differ here. */
import { cpus, hostname, loadavg, totalmem } from 'node:os';
import { readFileSync } from 'node:fs';
import type { RunEnv } from '../perf/run-file.js';

export function toolVersion(): string {
  try {
    return (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

export function hostInfo(): RunEnv['host'] {
  const c = cpus();
  return {
    platform: process.platform,
    arch: process.arch,
    cpuModel: c[0]?.model.trim() ?? 'unknown',
    cpus: c.length,
    memoryBytes: totalmem(),
    loadAverage: loadavg().map((x) => Math.round(x * 100) / 100),
    node: process.version,
    hostname: hostname(),
  };
}
