/**
 * Writing the files a user or an agent names (screenshots, traces, run files, reports) without being
 * steered elsewhere by a link planted in the way:
 * - `insideWorkdir` keeps a path argument (a step's output, an MCP tool's file or folder) inside the
 *   working folder after resolving symlinks in every existing component of the path; `confinedPath`
 *   checks before and after creating the missing folders of a file to write;
 * - `writeFileNoFollow` opens the target with O_NOFOLLOW, so a symlink at the target is refused with a
 *   typed error instead of followed, and refuses to overwrite a file with other hard links;
 * - `writeFileAtomic` writes a fresh temporary file (O_EXCL | O_NOFOLLOW, so a planted temp name cannot
 *   redirect it) and renames it over the target: a symlink there is replaced, never written through.
 * What remains is a race with someone swapping a folder of the path between the check and the open;
 * Node has no openat() to close it.
 */
import {
  accessSync,
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { PerfError } from './errors.js';

const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, W_OK } = constants;

/**
 * What a variant name or a run label may hold: both become parts of file names (run files, baselines,
 * reports), so a separator or `..` in one could place a file outside its folder. One definition for
 * the scenario loader, the JSON Schemas, the CLI flags and MCP.
 */
export const NAME_PART = { pattern: '^[a-z0-9_-]+$', allowed: 'a-z, 0-9, _ and -' } as const;
const NAME_PART_RE = new RegExp(NAME_PART.pattern);

export function isNamePart(name: string): boolean {
  return NAME_PART_RE.test(name);
}

/**
 * `dir/fileName`, checked on the resolved path to lie directly in `dir`: a name built from a scenario
 * name, a variant, a label or a shard id that would lead elsewhere is a PerfError `path_outside_folder`
 * (usage) naming `who`, never a write somewhere else.
 */
export function fileInFolder(dir: string, fileName: string, who: string): string {
  const folder = path.resolve(dir);
  const file = path.resolve(folder, fileName);
  if (path.dirname(file) !== folder || path.basename(file) !== fileName) {
    throw new PerfError({
      code: 'path_outside_folder',
      message: `${who}: the file name "${fileName}" would not lie in ${folder}`,
      suggestion: `scenario names may use letters, digits, _, . and -; variant names and labels ${NAME_PART.allowed}`,
    });
  }
  return file;
}

function isOutside(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel === '' || rel.startsWith('..') || path.isAbsolute(rel);
}

/**
 * What a path argument names, which decides what is resolved before the check: a file to `write` (its
 * folders; a link at the file itself is for the writer to refuse), a file to `read` (the whole path), or
 * a `folder` (the whole path; the working folder itself counts as inside).
 */
export type PathUse = 'read' | 'write' | 'folder';

/**
 * `target` resolved against `cwd`, or a PerfError `path_outside_workdir` (usage) naming `who` when it lands
 * outside the working folder: by `..`, an absolute path, or a symlink in a part of the path that exists.
 * Creates nothing. Returns the path as written, resolved against `cwd` (a `write` path: its folder's real path).
 */
export function insideWorkdir(cwd: string, target: string, opts: { who: string; use: PathUse; suggestion?: string }): string {
  const root = realpathSync(cwd);
  const inside = (p: string): boolean => !isOutside(root, opts.use === 'folder' ? path.join(p, 'x') : p);
  const refuse = (how: string): PerfError =>
    new PerfError({
      code: 'path_outside_workdir',
      message: `${opts.who}: "${target}" ${how} the working folder ${root}`,
      suggestion: opts.suggestion ?? 'give a relative path inside the working folder, e.g. "build/perf/out.json"',
    });
  const abs = path.resolve(root, target);
  if (!inside(abs)) throw refuse('is outside');
  const real = opts.use === 'write' ? path.join(realpathAsFar(path.dirname(abs)), path.basename(abs)) : realpathAsFar(abs);
  if (!inside(real)) throw refuse('leads (through a symlink) outside');
  return opts.use === 'write' ? real : path.resolve(cwd, target);
}

/**
 * `target` resolved inside `cwd` with its folders created, or a PerfError `path_outside_workdir`: by
 * `..`, an absolute path, or a symlinked folder that leads elsewhere. `who` names the step in messages.
 */
export async function confinedPath(cwd: string, target: string, who: string): Promise<string> {
  // Where the write really lands is decided by the nearest folder that exists: check it before creating anything.
  const file = insideWorkdir(cwd, target, { who, use: 'write' });
  ensureDir(path.dirname(file), who);
  // Again once the folders exist: one may have been swapped for a link meanwhile.
  return insideWorkdir(cwd, target, { who, use: 'write' });
}

/** `p` with symlinks resolved as far as it exists (the rest, not yet created, appended as written). */
function realpathAsFar(p: string): string {
  const abs = path.resolve(p);
  const rest: string[] = [];
  for (let dir = abs; ;) {
    try {
      return path.join(realpathSync(dir), ...rest.reverse());
    } catch {
      const up = path.dirname(dir);
      if (up === dir) return abs;
      rest.push(path.basename(dir));
      dir = up;
    }
  }
}

/**
 * Check that the folder a static server will serve lies inside one of `projects` (the scenario's
 * folder, the working folder) after resolving symlinks, unless `allowOutside`: else a PerfError
 * `serve_outside_project` (usage). Serving `/` or a parent of the project would put every file
 * below it (keys, other projects) one request away from any page the browser opens.
 */
export function checkServeFolder(dir: string, projects: string[], opts: { allowOutside: boolean; shown: string }): void {
  if (opts.allowOutside) return;
  const real = realpathAsFar(dir);
  const roots = [...new Set(projects.map(realpathAsFar))];
  if (roots.some((r) => !isOutside(r, path.join(real, 'x')))) return;
  const what =
    real === path.parse(real).root
      ? 'the file system root'
      : roots.some((r) => !isOutside(real, path.join(r, 'x')))
        ? 'a parent of the project'
        : 'outside the project';
  throw new PerfError({
    code: 'serve_outside_project',
    message: `${opts.shown}: ${real} is ${what} (${roots.join(', ')}); refusing to serve it`,
    suggestion:
      'serve the folder that holds the built app, inside the project (e.g. ./dist); pass --allow-outside if you mean to serve this folder',
  });
}

/**
 * Write `data` to `file`, never through a symlink at `file`. Without `overwrite` an existing file is
 * `file_exists`; with it, a file that has other hard links is refused too (writing would change them).
 * `shown` is the path as the user wrote it, for messages; `mode` is set on a new or an existing file.
 */
export function writeFileNoFollow(
  file: string,
  data: string | Uint8Array,
  opts: { overwrite: boolean; who: string; shown?: string; mode?: number },
): void {
  const shown = opts.shown ?? file;
  let fd: number;
  try {
    fd = openSync(file, O_WRONLY | O_CREAT | O_NOFOLLOW | (opts.overwrite ? 0 : O_EXCL), opts.mode ?? 0o644);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST')
      throw new PerfError({
        code: 'file_exists',
        message: `${opts.who}: ${shown} already exists`,
        suggestion: 'pass overwrite: true, or another path',
        cause: e,
      });
    if (code === 'ELOOP')
      throw new PerfError({
        code: 'path_is_symlink',
        message: `${opts.who}: ${shown} is a symbolic link; refusing to write through it`,
        suggestion: 'remove the link, or write to another path',
        cause: e,
      });
    throw new PerfError({
      code: 'write_failed',
      kind: 'environment',
      message: `${opts.who}: could not write ${shown}: ${describeWriteError(e as NodeJS.ErrnoException)}`,
      cause: e,
    });
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile())
      throw new PerfError({
        code: 'not_a_file',
        message: `${opts.who}: ${shown} is not a regular file`,
        suggestion: 'write to another path',
      });
    if (st.nlink > 1)
      throw new PerfError({
        code: 'path_is_hardlink',
        message: `${opts.who}: ${shown} has ${st.nlink} hard links; refusing to overwrite what other paths share`,
        suggestion: 'remove it first, or write to another path',
      });
    // An existing file keeps its mode through open(): set it before the data (a secret) goes in.
    if (opts.mode !== undefined) fchmodSync(fd, opts.mode);
    ftruncateSync(fd, 0);
    writeAll(fd, data);
  } catch (e) {
    if (e instanceof PerfError) throw e;
    throw new PerfError({
      code: 'write_failed',
      kind: 'environment',
      message: `${opts.who}: could not write ${shown}: ${describeWriteError(e as NodeJS.ErrnoException)}`,
      cause: e,
    });
  } finally {
    closeSync(fd);
  }
}

/**
 * Write `data` to `file` through a fresh temporary file renamed over it: readers never see half a
 * file, and a link at `file` is replaced, not followed. A failure (a full or read-only disk) removes
 * the temporary file, leaves `file` as it was, and is a PerfError `write_failed` (environment).
 */
export function writeFileAtomic(file: string, data: string | Uint8Array): void {
  ensureDir(path.dirname(file), 'write');
  const tmp = `${file}.${process.pid}.${Date.now()}.${Math.random().toString(36).slice(2, 8)}.tmp`;
  try {
    const fd = openSync(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o644);
    try {
      writeAll(fd, data);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
  } catch (e) {
    rmSync(tmp, { force: true });
    const err = e as NodeJS.ErrnoException;
    throw new PerfError({
      code: 'write_failed',
      kind: 'environment',
      message: `could not write ${file}: ${describeWriteError(err)}`,
      suggestion: 'free space on that disk or pass --out on another one',
      cause: e,
    });
  }
}

/** `no space left on device (ENOSPC)`: the reason in words with the code a user can search for. */
export function describeWriteError(e: NodeJS.ErrnoException): string {
  const words: Record<string, string> = {
    ENOSPC: 'no space left on device',
    EROFS: 'read-only file system',
    EDQUOT: 'disk quota exceeded',
    EACCES: 'permission denied',
    EFBIG: 'file too large',
    EIO: 'input/output error',
  };
  return e.code && words[e.code] ? `${words[e.code]} (${e.code})` : e.message;
}

/**
 * Create `dir` and its missing parents, one folder at a time, and check it is a writable folder; else a
 * PerfError `out_unusable` (environment, exit 3) with the path and the reason. Not mkdirSync's
 * `recursive`: on /proc/nonexistent it spins at 100% CPU forever (Node 20), Ctrl-C included.
 */
export function ensureDir(dir: string, who: string): string {
  const abs = path.resolve(dir);
  const refuse = (reason: string, cause?: unknown): PerfError =>
    new PerfError({
      code: 'out_unusable',
      kind: 'environment',
      message: `${who}: cannot use ${abs} as an output folder: ${reason}`,
      suggestion: 'pass a writable folder, e.g. --out build/perf',
      ...(cause ? { cause } : {}),
    });
  if (/^\/(proc|sys)(\/|$)/.test(abs)) throw refuse('it is inside a kernel file system (/proc, /sys)');
  const parts = abs.split(path.sep).filter(Boolean);
  let at: string = path.sep;
  for (const part of parts) {
    at = path.join(at, part);
    let isDir: boolean;
    try {
      isDir = statSync(at).isDirectory();
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT')
        throw refuse(`${at}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, e);
      try {
        mkdirSync(at);
      } catch (e2) {
        if ((e2 as NodeJS.ErrnoException).code !== 'EEXIST')
          throw refuse(`cannot create ${at}: ${(e2 as NodeJS.ErrnoException).code ?? (e2 as Error).message}`, e2);
      }
      isDir = statSync(at).isDirectory();
    }
    if (!isDir) throw refuse(`${at} is a file, not a folder`);
  }
  try {
    accessSync(abs, W_OK);
  } catch (e) {
    throw refuse('it is not writable', e);
  }
  return abs;
}

function writeAll(fd: number, data: string | Uint8Array): void {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  for (let off = 0; off < bytes.length;) off += writeSync(fd, bytes, off, bytes.length - off);
}

/** An executable regular file (not a folder, not a dangling link). */
export function isExecutable(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/**
 * Where a command runs from: a name with a slash is a path (relative to `cwd`), a bare name is looked
 * up on PATH (the given one, else this process's). Undefined when it is not an executable file.
 */
export function findExecutable(command: string, opts: { cwd?: string; envPath?: string } = {}): string | undefined {
  if (command.includes('/')) {
    const p = path.resolve(opts.cwd ?? process.cwd(), command);
    return isExecutable(p) ? p : undefined;
  }
  for (const dir of (opts.envPath ?? process.env.PATH ?? '').split(path.delimiter)) {
    if (dir && isExecutable(path.join(dir, command))) return path.join(dir, command);
  }
  return undefined;
}
