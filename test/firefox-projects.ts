/**
 * Throwaway projects for the Firefox tests: each a temp folder with its own TMPDIR (Firefox's profile goes there, so
 * "nothing left behind" is checked for this test's Firefox alone), the built CLI run in it, and at the end of the
 * file a `perf stop` in each (a session a failed test left running) before the folder goes.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after } from 'node:test';
import { ROOT } from './helpers.js';

export const PERF = path.join(ROOT, 'bin', 'perf');

export interface Project {
  dir: string;
  tmp: string;
}

/** A project factory (`prefix` names the temp folders) and `perf` run in a project, each call bounded by `timeoutMs`. */
export function firefoxProjects(
  prefix: string,
  timeoutMs: number,
): { create: () => Project; perf: (p: Project, args: string[]) => { code: number; stdout: string; stderr: string } } {
  const dirs: string[] = [];
  after(() => {
    for (const d of dirs) {
      spawnSync(process.execPath, [PERF, 'stop'], { timeout: 60_000, cwd: d });
      fs.rmSync(d, { recursive: true, force: true });
    }
  });
  return {
    create: () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
      dirs.push(dir);
      fs.mkdirSync(path.join(dir, 'tmp'));
      return { dir, tmp: path.join(dir, 'tmp') };
    },
    perf: (p, args) => {
      const r = spawnSync(process.execPath, [PERF, ...args], {
        cwd: p.dir,
        encoding: 'utf8',
        timeout: timeoutMs,
        env: { ...process.env, TMPDIR: p.tmp },
      });
      return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
    },
  };
}
