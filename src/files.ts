/**
 * Writing the files a user or an agent names (screenshots, traces, run files, reports) without being
 * steered elsewhere by a link planted in the way:
 * - `insideWorkdir` keeps a path argument (a step's output, an MCP tool's file or folder) inside the
 *   working folder after resolving symlinks in every existing component of the path; `confinedPath`
 *   checks before and after creating the missing folders of a file to write;
 * - `ensureDir` creates the folders of every file we write, one at a time (never mkdir's `recursive`),
 *   and `ensurePrivateDir` a folder of secrets: 0700, ours, and not a symlink;
 * - `createFileAtomic` (and `writeFileAtomic` on it) is the one writer of what perf produces: a fresh
 *   temporary file (O_EXCL | O_NOFOLLOW, so a planted temp name cannot redirect it) renamed over the
 *   target, so a symlink or a hard link there is replaced, never written through;
 * - `writeFileNoFollow`, for a file a step's argument names, opens the target with O_NOFOLLOW and refuses
 *   a symlink, a hard-linked file or (without `overwrite`) any existing file with a typed error;
 * - `openLogNoFollow` appends to a log the same way.
 * What remains is a race with someone swapping a folder of the path between the check and the open;
 * Node has no openat() to close it.
 *
 * Modes: what holds the app's data as it was (heap snapshots, traces, terminal recordings, state files,
 * tokens, app and browser logs) is SECRET_FILE_MODE (the user only, whatever the umask or a folder's default
 * ACL); what perf derives to be passed on (run files, reports, baselines, screenshots, the history) keeps the
 * umask's mode.
 */
import {
  accessSync,
  chmodSync,
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  ftruncateSync,
  lstatSync,
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

const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_APPEND, W_OK } = constants;

/** A file only its owner may read or write: what holds the app's data (see the top of this file). */
export const SECRET_FILE_MODE = 0o600;
/** A folder only its owner may list or enter: the folder of secret files (heap snapshots, traces). */
export const PRIVATE_DIR_MODE = 0o700;
// What a new ordinary file asks for; the umask narrows it as the user set it.
const ORDINARY_FILE_MODE = 0o644;

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
 * For a file another library opens for writing (SQLite: the database and the -wal, -shm and -journal files it
 * creates beside it, all through a link): each of `files` that is a symlink is a PerfError `path_is_symlink`.
 */
export function refuseSymlinks(files: readonly string[], who: string): void {
  for (const f of files) {
    let link = false;
    try {
      link = lstatSync(f).isSymbolicLink();
    } catch {
      /* absent: created by the writer, O_CREAT in a folder checked by ensureDir */
    }
    if (link)
      throw new PerfError({
        code: 'path_is_symlink',
        message: `${who}: ${f} is a symbolic link; refusing to write through it`,
        suggestion: 'remove the link, or give the real path',
      });
  }
}

/** What an open() for writing failed on, as the typed error a user can act on. */
function openError(e: unknown, who: string, shown: string): PerfError {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'EEXIST')
    return new PerfError({
      code: 'file_exists',
      message: `${who}: ${shown} already exists`,
      suggestion: 'pass overwrite: true, or another path',
      cause: e,
    });
  if (code === 'ELOOP')
    return new PerfError({
      code: 'path_is_symlink',
      message: `${who}: ${shown} is a symbolic link; refusing to write through it`,
      suggestion: 'remove the link, or write to another path',
      cause: e,
    });
  return writeFailed(e, who, shown);
}

function writeFailed(e: unknown, who: string | undefined, shown: string): PerfError {
  return new PerfError({
    code: 'write_failed',
    kind: 'environment',
    message: `${who ? `${who}: ` : ''}could not write ${shown}: ${describeWriteError(e as NodeJS.ErrnoException)}`,
    suggestion: 'free space on that disk or pass --out on another one',
    cause: e,
  });
}

/** Refuse what an fd opened without O_EXCL may be: not a regular file, or a file other paths share. */
function checkOpened(fd: number, who: string, shown: string): void {
  const st = fstatSync(fd);
  if (!st.isFile())
    throw new PerfError({ code: 'not_a_file', message: `${who}: ${shown} is not a regular file`, suggestion: 'write to another path' });
  if (st.nlink > 1)
    throw new PerfError({
      code: 'path_is_hardlink',
      message: `${who}: ${shown} has ${st.nlink} hard links; refusing to overwrite what other paths share`,
      suggestion: 'remove it first, or write to another path',
    });
}

/**
 * Write `data` to `file`, never through a symlink at `file`: for a file a step's argument names, where an
 * existing file is the user's to keep. Without `overwrite` an existing file is `file_exists`; with it, a
 * file that has other hard links is refused too (writing would change them). `shown` is the path as the
 * user wrote it, for messages; `mode` is set on a new or an existing file.
 */
export function writeFileNoFollow(
  file: string,
  data: string | Uint8Array,
  opts: { overwrite: boolean; who: string; shown?: string; mode?: number },
): void {
  const shown = opts.shown ?? file;
  let fd: number;
  try {
    fd = openSync(file, O_WRONLY | O_CREAT | O_NOFOLLOW | (opts.overwrite ? 0 : O_EXCL), opts.mode ?? ORDINARY_FILE_MODE);
  } catch (e) {
    throw openError(e, opts.who, shown);
  }
  try {
    checkOpened(fd, opts.who, shown);
    // An existing file keeps its mode through open(): set it before the data (a secret) goes in.
    if (opts.mode !== undefined) fchmodSync(fd, opts.mode);
    ftruncateSync(fd, 0);
    writeAll(fd, data);
  } catch (e) {
    throw e instanceof PerfError ? e : writeFailed(e, opts.who, shown);
  } finally {
    closeSync(fd);
  }
}

/**
 * Append-only fd of a log (an app's output, the browser's stderr): opened with O_NOFOLLOW, a regular file
 * with no other hard links, SECRET_FILE_MODE (an app may print a token, a dev server its login URL).
 */
export function openLogNoFollow(file: string, who: string): number {
  let fd: number;
  try {
    fd = openSync(file, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW, SECRET_FILE_MODE);
  } catch (e) {
    throw openError(e, who, file);
  }
  try {
    checkOpened(fd, who, file);
    fchmodSync(fd, SECRET_FILE_MODE);
    return fd;
  } catch (e) {
    closeSync(fd);
    throw e instanceof PerfError ? e : writeFailed(e, who, file);
  }
}

/** A file being written by `createFileAtomic`: nothing is at the target until `commit`. */
export interface FileSink {
  /** Append `data` (synchronously: a caller streaming chunks holds one at a time). */
  write(data: string | Uint8Array): void;
  /** Bytes written so far. */
  readonly bytes: number;
  /** Rename the finished file over the target (a symlink or a hard link there is replaced, not followed). */
  commit(): void;
  /** Remove the temporary file; the target stays as it was. Does nothing after `commit`. */
  abort(): void;
}

/**
 * The one writer of what perf produces: `file` written through a fresh temporary file beside it, renamed
 * over it on `commit`, so readers never see half a file and a link at `file` is replaced, never written
 * through. Its folders are created by `ensureDir`. `mode` (SECRET_FILE_MODE for a secret) is set exactly,
 * from the first byte; without it the file is 0644 narrowed by the umask. A failure (a full or read-only
 * disk) is a PerfError `write_failed` (environment) naming `who` and the file.
 */
export function createFileAtomic(file: string, opts: { who?: string; mode?: number } = {}): FileSink {
  const who = opts.who;
  ensureDir(path.dirname(file), who ?? 'write');
  const tmp = `${file}.${process.pid}.${Date.now()}.${Math.random().toString(36).slice(2, 8)}.tmp`;
  let fd: number | undefined;
  try {
    fd = openSync(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, opts.mode ?? ORDINARY_FILE_MODE);
    // The umask cannot widen the mode asked for, but a folder's default ACL could: set it before any data.
    if (opts.mode !== undefined) fchmodSync(fd, opts.mode);
  } catch (e) {
    if (fd !== undefined) closeSync(fd);
    rmSync(tmp, { force: true });
    throw writeFailed(e, who, file);
  }
  let bytes = 0;
  let done = false;
  const close = (): void => {
    const open = fd;
    fd = undefined;
    if (open !== undefined) closeSync(open);
  };
  const fail = (e: unknown): PerfError => {
    try {
      close();
    } catch {
      /* the write's own error is the one to report */
    }
    rmSync(tmp, { force: true });
    done = true;
    return writeFailed(e, who, file);
  };
  return {
    get bytes() {
      return bytes;
    },
    write(data) {
      if (fd === undefined) throw writeFailed(new Error('the file was already closed'), who, file);
      try {
        bytes += writeAll(fd, data);
      } catch (e) {
        throw fail(e);
      }
    },
    commit() {
      if (done) throw writeFailed(new Error('the file was already closed'), who, file);
      try {
        close();
        renameSync(tmp, file);
        done = true;
      } catch (e) {
        throw fail(e);
      }
    },
    abort() {
      if (!done) fail(new Error('aborted'));
    },
  };
}

/** `data` written to `file` by `createFileAtomic` (see there), all at once. */
export function writeFileAtomic(file: string, data: string | Uint8Array, opts: { who?: string; mode?: number } = {}): void {
  const sink = createFileAtomic(file, opts);
  try {
    sink.write(data);
    sink.commit();
  } finally {
    sink.abort();
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

// /proc and /sys: mkdir there fails in ways recursive mkdir never gives up on, and nothing of ours belongs there.
const KERNEL_FS = /^\/(proc|sys)(\/|$)/;

/**
 * Create `dir` and its missing parents, one folder at a time, and check it is a writable folder. Every
 * folder perf creates for a file goes through here: not mkdirSync's `recursive`, which on /proc/nonexistent
 * spins at 100% CPU forever ignoring SIGTERM and Ctrl-C (Node 20; `--history /proc/self/x/h.sqlite` did).
 * A path into /proc or /sys (as written or through a symlink) is a PerfError `out_unusable` (usage, exit 2);
 * one that cannot be created or written (through a file, permissions, a read-only disk) the same code as an
 * environment problem (exit 3). Messages name `who` (the flag or the step) and the path.
 */
export function ensureDir(dir: string, who: string): string {
  const abs = path.resolve(dir);
  const refuse = (reason: string, cause?: unknown, kind: 'usage' | 'environment' = 'environment'): PerfError =>
    new PerfError({
      code: 'out_unusable',
      kind,
      message: `${who}: cannot use ${abs} as an output folder: ${reason}`,
      suggestion: 'pass a writable folder, e.g. --out build/perf',
      ...(cause ? { cause } : {}),
    });
  if (KERNEL_FS.test(abs) || KERNEL_FS.test(realpathAsFar(abs)))
    throw refuse('it is inside a kernel file system (/proc, /sys)', undefined, 'usage');
  const parts = abs.split(path.sep).filter(Boolean);
  let at: string = path.sep;
  for (const part of parts) {
    at = path.join(at, part);
    let isDir: boolean;
    try {
      isDir = statSync(at).isDirectory();
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') throw refuse(`${at}: ${code ?? (e as Error).message}`, e);
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

/**
 * A folder for secret files (heap snapshots, traces): created PRIVATE_DIR_MODE by `ensureDir` for its
 * parent and one mkdir for itself, or an existing one narrowed to that mode. A symlink there is a PerfError
 * `path_is_symlink` (usage), whatever it points at: perf creates the folder itself, so a link is planted,
 * and following it would put the files wherever it leads (outside the folder `--out` or MCP's `out` was
 * confined to). One that is not a folder, or belongs to another user, is `out_unusable` (usage).
 * `create: false` only checks a folder that exists (nothing is created before a run knows it needs it).
 */
export function ensurePrivateDir(dir: string, who: string, opts: { create?: boolean } = {}): string {
  const abs = path.resolve(dir);
  const refuse = (reason: string): PerfError =>
    new PerfError({
      code: 'out_unusable',
      kind: 'usage',
      message: `${who}: cannot use ${abs} for its files: ${reason}`,
      suggestion: 'remove it (perf creates this folder itself), or pass another --out',
    });
  if (opts.create !== false) {
    ensureDir(path.dirname(abs), who);
    try {
      mkdirSync(abs, PRIVATE_DIR_MODE);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST')
        throw new PerfError({
          code: 'out_unusable',
          kind: 'environment',
          message: `${who}: cannot create ${abs}: ${describeWriteError(e as NodeJS.ErrnoException)}`,
          suggestion: 'pass a writable folder, e.g. --out build/perf',
          cause: e,
        });
    }
  }
  let st;
  try {
    st = lstatSync(abs);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' && opts.create === false) return abs;
    throw refuse((e as NodeJS.ErrnoException).code ?? (e as Error).message);
  }
  if (st.isSymbolicLink())
    throw new PerfError({
      code: 'path_is_symlink',
      message: `${who}: ${abs} is a symbolic link; refusing to write its files through it`,
      suggestion: 'remove the link: perf creates this folder itself (mode 0700)',
    });
  if (!st.isDirectory()) throw refuse('it is not a folder');
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) throw refuse(`it belongs to another user (uid ${st.uid})`);
  if ((st.mode & 0o777) !== PRIVATE_DIR_MODE) chmodSync(abs, PRIVATE_DIR_MODE);
  return abs;
}

/** Every byte of `data` to `fd` (writeSync may write fewer than asked); returns how many. */
function writeAll(fd: number, data: string | Uint8Array): number {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  for (let off = 0; off < bytes.length;) off += writeSync(fd, bytes, off, bytes.length - off);
  return bytes.length;
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
