/**
 * `perf state save FILE` / `perf state load FILE`: the `perf start` session's browser state (cookies,
 * HttpOnly included, and the web storage of the origins it visited: PageStorage.origins) to a file, or a saved one into it. The file
 * is a secret: written 0600 and atomically; nothing printed carries a value.
 */
import { relative, resolve } from 'node:path';
import { PerfError } from '../errors.js';
import { readStorageState, writeStorageState } from '../drivers/storage.js';
import { connectSession } from '../session/manager.js';
import { describeState, loadSessionState, readSessionState } from '../session/storage-state.js';
import { defineCommand, info, JSON_FLAG, printJson } from './command.js';

const ACTIONS = ['save', 'load'] as const;

export const STORAGE_STATE_FLAG = {
  storageState: {
    type: 'string',
    value: 'FILE',
    description:
      'A saved browser state (perf state save) restored at every clean restart before the app opens, then setupOnce ' +
      '(overrides browser.storageState).',
  },
} as const;

export const stateCommand = defineCommand({
  name: 'state',
  summary: "Save the perf start session's browser state (cookies, web storage) to a file, or load one into it",
  usage: 'state save FILE | state load FILE [--state-dir DIR] [--json]',
  details:
    "save writes every cookie (HttpOnly included), the localStorage of every origin the session's tab visited (CDP;\n" +
    "WebDriver: the current origin's) and the current origin's sessionStorage, mode 0600; load puts a saved state into\n" +
    'the session (each origin) and reloads the page. Use the file with perf run --storage-state FILE or browser.storageState.\n' +
    'IndexedDB is not saved.',
  flags: {
    stateDir: { type: 'string', value: 'DIR', description: 'Folder of the session state file. Default ./.perf' },
    ...JSON_FLAG,
  },
  async run(f, positionals) {
    const [action, file, ...extra] = positionals;
    if (!ACTIONS.some((a) => a === action) || file === undefined || extra.length) {
      throw new PerfError({
        code: 'missing_argument',
        message: `state: expected save FILE or load FILE, got ${positionals.length ? positionals.join(' ') : 'nothing'}`,
        suggestion: 'perf state save .perf/signed-in.json',
      });
    }
    const abs = resolve(file);
    const shown = relative(process.cwd(), abs) || abs;
    // A bad file is exit 2 before the session is touched.
    const loading = action === 'load' ? readStorageState(abs, shown) : undefined;
    const conn = await connectSession(f.stateDir as string | undefined);
    try {
      if (loading) {
        const url = await loadSessionState(conn.driver, loading);
        const summary = { loaded: shown, ...describeState(loading), url };
        if (f.json) printJson(summary);
        else info(`state: loaded ${summary.cookies} cookies and ${summary.origins.length} origins' storage from ${shown}; reloaded ${url}`);
      } else {
        const state = await readSessionState(conn.driver);
        writeStorageState(abs, state, 'state save');
        const summary = { saved: shown, ...describeState(state), mode: '0600' };
        if (f.json) printJson(summary);
        else
          info(`state: saved ${summary.cookies} cookies and ${summary.origins.length} origins' storage to ${shown} (mode 0600; a secret)`);
      }
    } finally {
      await conn.close().catch(() => undefined);
    }
    return 0;
  },
});

/** `--storage-state FILE` on the scenario: resolved against the working folder, as the user wrote it. */
export function withStorageStateFlag<T extends { browser: { storageState?: string } }>(sc: T, flag: unknown): T {
  if (typeof flag !== 'string') return sc;
  return { ...sc, browser: { ...sc.browser, storageState: resolve(flag) } };
}
