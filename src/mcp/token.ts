/**
 * The bearer token of `perf mcp --http`: any local process (another user's too) can reach a loopback
 * port, so every request must show a secret that only whoever can read the token file knows. A fresh
 * token per start, in a file of mode 0600 that the server removes when it exits cleanly.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ensureDir, insideWorkdir, writeFileNoFollow } from '../files.js';

// 32 bytes: 256 bits, far beyond guessing at any rate a socket allows.
const TOKEN_BYTES = 32;
export const DEFAULT_TOKEN_PATH = path.join('.perf', 'mcp-token');

export function newToken(): string {
  return randomBytes(TOKEN_BYTES).toString('base64url');
}

/**
 * Whether an Authorization header is `Bearer <token>`. Compared in constant time: both sides are hashed
 * first, so the buffers timingSafeEqual compares have one length whatever the client sent.
 */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const given = /^Bearer +(\S+) *$/i.exec(header ?? '')?.[1];
  const digest = (s: string): Buffer => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(given ?? ''), digest(token)) && given !== undefined;
}

/**
 * Write the token to `file` (default `.perf/mcp-token`, which must stay inside the working folder) with
 * mode 0600, never through a symlink. Returns the absolute path.
 */
export function writeTokenFile(cwd: string, token: string, file: string | undefined): string {
  const who = '--http token file';
  // The default path must not lead out through a planted .perf link; a --token-file is the user's choice.
  const suggestion = 'pass --token-file FILE';
  const abs = file !== undefined ? path.resolve(cwd, file) : insideWorkdir(cwd, DEFAULT_TOKEN_PATH, { who, use: 'write', suggestion });
  ensureDir(path.dirname(abs), who);
  writeFileNoFollow(abs, token, { overwrite: true, who, shown: file ?? DEFAULT_TOKEN_PATH, mode: 0o600 });
  return abs;
}

/** Remove the token file if it still holds this server's token (another server may have replaced it since). */
export function removeTokenFile(abs: string, token: string): void {
  try {
    if (fs.readFileSync(abs, 'utf8') === token) fs.unlinkSync(abs);
  } catch {
    // Already gone, or unreadable: nothing of ours to remove.
  }
}
