/**
 * A browser's saved sign-in: cookies (HttpOnly included) and each origin's localStorage and
 * sessionStorage, in the shape of Playwright's storageState (version, cookies, origins) so a user can
 * bring one. IndexedDB is left out (no driver-neutral way to read it over WebDriver classic).
 * Each page driver restores it before the app page opens (src/drivers/<name>/storage.ts); the file
 * is a secret: written 0600, atomically, and read with the same checks as every other JSON input.
 */
import { PerfError } from '../errors.js';
import { SECRET_FILE_MODE, writeFileAtomic } from '../files.js';
import { checkJson, list, readJsonFile, record, text, type JsonFileKind, type Schema } from '../json-input.js';

export interface StateCookie {
  name: string;
  value: string;
  domain: string;
  path: string;
  /** Seconds since the epoch; -1: a session cookie. */
  expires: number;
  httpOnly: boolean;
  secure: boolean;
  sameSite: 'Strict' | 'Lax' | 'None';
}

/** A cookie as W3C WebDriver reads and writes it: over WebDriver classic, and over BiDi by the bidi driver's client. */
export interface WebDriverCookie {
  name: string;
  value: string;
  domain?: string;
  path?: string;
  secure?: boolean;
  httpOnly?: boolean;
  /** Seconds since the epoch; absent for a session cookie. */
  expiry?: number;
  sameSite?: 'Strict' | 'Lax' | 'None';
}

export interface StorageItem {
  name: string;
  value: string;
}

export interface OriginStorage {
  origin: string;
  localStorage: StorageItem[];
  sessionStorage: StorageItem[];
}

export interface StorageState {
  version: 1;
  cookies: StateCookie[];
  origins: OriginStorage[];
}

/** What a page driver does with a saved state; every page driver has one (HostPage.storage). */
export interface PageStorage {
  /** The cookies the browser holds for this page, HttpOnly included (CDP: its whole context; WebDriver: the current document's). */
  cookies(): Promise<StateCookie[]>;
  /**
   * The web storage of each origin the page's browser visited. CDP: the current document's (sessionStorage
   * included) and the localStorage of every other origin in the tab's history and the context's other tabs,
   * read in a background tab that loads a blank page at each origin from memory (no request leaves, the
   * page stays where it is). sessionStorage belongs to the tab: another origin's is out of reach without
   * navigating the tab itself, so only the current origin's is read. WebDriver: the current document's only.
   */
  origins(): Promise<OriginStorage[]>;
  /** Put `state` in place for the next document the page opens (the app page): cookies now, storage as each origin's document starts. */
  restore(state: StorageState): Promise<void>;
  /**
   * Put `state` into a running session's browser (perf state load, storage_load) before its page reloads:
   * as restore, and every saved origin's localStorage written at once (CDP: in a background tab; WebDriver:
   * restore already visits each origin), so origins the page opens later in the session find theirs.
   */
  load(state: StorageState): Promise<void>;
  /** The app page opened: later documents of the repeat get no seeded storage (the app's own changes stand). */
  restored(): Promise<void>;
}

export const EMPTY_STATE: StorageState = { version: 1, cookies: [], origins: [] };

// Caps: a real sign-in holds tens of cookies and a few origins; these bound a mistaken or hostile file.
const MAX_COOKIES = 1000;
const MAX_ORIGINS = 200;
const MAX_ITEMS = 5000;
// 4 KB is a browser's cookie size limit; 5 MB is localStorage's per-origin quota.
const MAX_COOKIE_CHARS = 8192;
const MAX_ITEM_CHARS = 5 * 2 ** 20;
// 16 MiB: a few origins at full localStorage quota.
const MAX_STATE_BYTES = 16 * 2 ** 20;

const item: Schema = record(
  'One stored key and its value.',
  { name: text('The key.', 4096), value: text('The value (a secret: redacted in every output).', MAX_ITEM_CHARS) },
  ['name', 'value'],
);

export const STORAGE_STATE_SCHEMA: Schema = record(
  "A saved browser state (Playwright's storageState shape): cookies and each origin's storage.",
  {
    version: { const: 1, description: 'The format version: 1.' },
    cookies: list(
      'Cookies, HttpOnly included.',
      record(
        'One cookie.',
        {
          name: text('Cookie name.', 4096),
          value: text('Cookie value (a secret: redacted in every output).', MAX_COOKIE_CHARS),
          domain: text('Domain; a leading dot makes it a domain cookie.', 253),
          path: text('Path, e.g. /.', 4096),
          expires: { type: 'number', description: 'Expiry in seconds since the epoch; -1 for a session cookie.' },
          httpOnly: { type: 'boolean', description: 'Hidden from page scripts.' },
          secure: { type: 'boolean', description: 'Sent over HTTPS only.' },
          sameSite: { enum: ['Strict', 'Lax', 'None'], description: 'SameSite policy.' },
        },
        ['name', 'value', 'domain', 'path'],
      ),
      MAX_COOKIES,
    ),
    origins: list(
      "Each origin's web storage.",
      record(
        "One origin's storage.",
        {
          origin: text('The origin, e.g. http://127.0.0.1:8080.', 2048),
          localStorage: list('localStorage items.', item, MAX_ITEMS),
          sessionStorage: list('sessionStorage items (restored into each new tab).', item, MAX_ITEMS),
        },
        ['origin'],
      ),
      MAX_ORIGINS,
    ),
  },
  ['cookies', 'origins'],
);

const STATE_FILE: JsonFileKind = {
  what: 'storage state file',
  noun: 'storage state file',
  invalidCode: 'storage_state_invalid',
  unreadableCode: 'storage_state_invalid',
  tooLargeCode: 'storage_state_invalid',
  maxBytes: MAX_STATE_BYTES,
  suggestion: 'pass a file written by `perf state save` or MCP storage_save (or a Playwright storageState file)',
};

type LooseState = {
  version?: 1;
  cookies: (Pick<StateCookie, 'name' | 'value' | 'domain' | 'path'> & Partial<StateCookie>)[];
  origins: { origin: string; localStorage?: StorageItem[]; sessionStorage?: StorageItem[] }[];
};

/** A state checked against the schema, its optional fields filled in; `shown` names it in messages. */
export function parseStorageState(data: unknown, shown: string): StorageState {
  const loose = checkJson<LooseState>(STORAGE_STATE_SCHEMA, data, shown, STATE_FILE);
  for (const o of loose.origins) {
    if (!/^https?:\/\/[^/]+$/.test(o.origin))
      throw new PerfError({
        code: 'storage_state_invalid',
        message: `${shown}: not a storage state file: origin ${JSON.stringify(o.origin.slice(0, 80))} is not http(s)://HOST[:PORT]`,
        suggestion: STATE_FILE.suggestion,
      });
  }
  return {
    version: 1,
    cookies: loose.cookies.map((c) => ({
      name: c.name,
      value: c.value,
      domain: c.domain,
      path: c.path,
      expires: c.expires ?? -1,
      httpOnly: c.httpOnly ?? false,
      secure: c.secure ?? false,
      sameSite: c.sameSite ?? 'Lax',
    })),
    origins: loose.origins.map((o) => ({ origin: o.origin, localStorage: o.localStorage ?? [], sessionStorage: o.sessionStorage ?? [] })),
  };
}

/** Read a state file (`shown` as the user wrote it); a missing or bad file is a usage error naming it. */
export function readStorageState(file: string, shown = file): StorageState {
  return parseStorageState(readJsonFile(file, { ...STATE_FILE }), shown);
}

/**
 * Write a state file: a fresh temporary file created 0600 (a secret from its first byte), renamed
 * over `file`; a failure leaves `file` as it was.
 */
export function writeStorageState(file: string, state: StorageState, who: string): void {
  writeFileAtomic(file, JSON.stringify(state, null, 2) + '\n', { who, mode: SECRET_FILE_MODE });
}

/** `over` laid on `base`: a cookie (name, domain, path) or an origin's key in `over` replaces the one in `base`. */
export function mergeStates(base: StorageState, over: StorageState): StorageState {
  const key = (c: StateCookie): string => `${c.name}\u0000${c.domain.replace(/^\./, '')}\u0000${c.path}`;
  const cookies = new Map(base.cookies.map((c) => [key(c), c]));
  for (const c of over.cookies) cookies.set(key(c), c);
  const origins = new Map(base.origins.map((o) => [o.origin, o]));
  for (const o of over.origins) {
    const was = origins.get(o.origin);
    origins.set(o.origin, {
      origin: o.origin,
      localStorage: mergeItems(was?.localStorage ?? [], o.localStorage),
      sessionStorage: mergeItems(was?.sessionStorage ?? [], o.sessionStorage),
    });
  }
  return { version: 1, cookies: [...cookies.values()], origins: [...origins.values()] };
}

function mergeItems(base: StorageItem[], over: StorageItem[]): StorageItem[] {
  const m = new Map(base.map((i) => [i.name, i.value]));
  for (const i of over) m.set(i.name, i.value);
  return [...m].map(([name, value]) => ({ name, value }));
}

// 8 characters: a session token or id is longer; shorter values ("1", "true", "en") are settings, and
// replacing them as whole tokens would rewrite numbers and words all over a run file.
const MIN_SECRET_CHARS = 8;

/** The state's values to redact in every output, each with what stands in its place. */
export function stateSecrets(state: StorageState): { name: string; value: string; shown: string }[] {
  const out: { name: string; value: string; shown: string }[] = [];
  for (const c of state.cookies) out.push({ name: `cookie ${c.name}`, value: c.value, shown: `[storage-state cookie ${c.name}]` });
  for (const o of state.origins)
    for (const i of [...o.localStorage, ...o.sessionStorage])
      out.push({ name: `storage ${i.name}`, value: i.value, shown: `[storage-state ${i.name}]` });
  return out.filter((s) => s.value.length >= MIN_SECRET_CHARS);
}

/** The script that reads the current document's origin and storage (run by any driver's evaluate). */
export const READ_ORIGIN_STORAGE =
  '(() => { const items = (s) => { const out = []; try { for (let i = 0; i < s.length; i++) { const k = s.key(i); ' +
  'out.push({ name: k, value: s.getItem(k) ?? "" }); } } catch {} return out; }; ' +
  'let l = [], ss = []; try { l = items(localStorage); ss = items(sessionStorage); } catch {} ' +
  'return { origin: location.origin, localStorage: l, sessionStorage: ss }; })()';

/**
 * The script that puts `items` into the current document's storage when its origin has any: a
 * CDP script on each new document, a WebDriver script on a page of that origin.
 */
export function seedStorageSource(origins: readonly OriginStorage[]): string {
  const table = Object.fromEntries(origins.map((o) => [o.origin, [o.localStorage, o.sessionStorage]]));
  return (
    `(() => { const s = (${JSON.stringify(table)})[location.origin]; if (!s) return; ` +
    'try { for (const i of s[0]) localStorage.setItem(i.name, i.value); for (const i of s[1]) sessionStorage.setItem(i.name, i.value); ' +
    '} catch {} })()'
  );
}
