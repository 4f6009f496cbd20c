/**
 * Sign in once (scenario `setupOnce`, `browser.storageState`, `perf run --storage-state`): the saved
 * state a run's repeats start from. The state file (if any) is restored in a fresh clean page, the
 * setupOnce steps run there, and the browser state they leave is read back: every cookie the driver
 * sees (HttpOnly included) and the web storage of each origin a step ended on. IndexedDB is left out.
 * Each repeat's clean restart restores the result before the app page opens (RepeatContext.state).
 */
import { relative } from 'node:path';
import type { SessionHost } from '../engine/host.js';
import { runStep } from '../engine/run-step.js';
import { PerfError } from '../errors.js';
import type { HostPage } from '../drivers/page-driver.js';
import {
  EMPTY_STATE,
  mergeStates,
  READ_ORIGIN_STORAGE,
  readStorageState,
  stateSecrets,
  type OriginStorage,
  type StateCookie,
  type StorageState,
} from '../drivers/storage.js';
import type { Scenario } from '../scenario/load.js';
import { redactText } from '../scenario/redact.js';
import type { RepeatBrowser, RepeatContext } from './repeat-browser.js';

/** Where the setupOnce steps run: the arm's own browser and step host, opened like a repeat. */
export interface SignInTarget {
  browser: RepeatBrowser;
  host: SessionHost;
  sc: Scenario;
}

/** What the steps left, gathered after each step: a later read of an origin or a cookie replaces an earlier one. */
class StateReader {
  private readonly origins = new Map<string, OriginStorage>();
  private readonly cookies = new Map<string, StateCookie>();

  async read(page: HostPage): Promise<void> {
    const o = await page.evaluate<OriginStorage>(READ_ORIGIN_STORAGE).catch(() => undefined);
    // about:blank and error pages have no origin to restore (an opaque "null").
    if (o && /^https?:\/\//.test(o.origin)) this.origins.set(o.origin, o);
    for (const c of await page.storage.cookies()) this.cookies.set(`${c.name}\u0000${c.domain}\u0000${c.path}`, c);
  }

  state(): StorageState {
    return { version: 1, cookies: [...this.cookies.values()], origins: [...this.origins.values()] };
  }
}

/**
 * Run `target.sc.setupOnce` in a fresh page opened from `rc` (restoring `base` first) and return the
 * state to restore at every clean restart: `base` with what the steps left laid over it. A step that
 * fails throws setup_once_failed (exit 1): no repeat could start signed in.
 */
export async function signIn(target: SignInTarget, rc: RepeatContext, base: StorageState | undefined): Promise<StorageState> {
  const { browser, host, sc } = target;
  const state = base ?? EMPTY_STATE;
  if (sc.setupOnce.length === 0) return state;
  const failed = (what: string): PerfError =>
    new PerfError({
      code: 'setup_once_failed',
      kind: 'failed',
      message: redactText(`setupOnce: ${what}`, sc.secrets),
    });
  try {
    await browser.open({ ...rc, ...(base ? { state: base } : {}) }, () => undefined);
  } catch (e) {
    throw failed(`could not open the app page: ${(e as Error).message}`);
  }
  const reader = new StateReader();
  for (let i = 0; i < sc.setupOnce.length; i++) {
    const call = sc.setupOnce[i]!;
    rc.onStep('setup', `setupOnce ${String(call.args.label ?? `${i}-${call.name}`)}`);
    const r = await runStep(host, call.name, call.args, { index: i, validated: true, ...(rc.signal ? { signal: rc.signal } : {}) });
    if (r.status === 'failed') throw failed(`step ${i} (${r.label}) failed: ${r.error.message}`);
    // After every step: the sign-in may pass through other origins (an identity provider) whose storage only a page there can read.
    await reader.read(await host.page());
  }
  return mergeStates(state, reader.state());
}

/** The scenario's state file (browser.storageState or --storage-state), read and checked: a bad one is exit 2 before anything starts. */
export function readStateFile(sc: Scenario, cwd: string): StorageState | undefined {
  const file = sc.browser.storageState;
  return file ? readStorageState(file, relative(cwd, file) || file) : undefined;
}

/** The scenario with the state's values added to its secrets: redacted like ${env.*} values in every file and output. */
export function withStateSecrets(sc: Scenario, state: StorageState): Scenario {
  const added = stateSecrets(state).filter((s) => !sc.secrets.some((x) => x.value === s.value));
  return added.length ? { ...sc, secrets: [...sc.secrets, ...added] } : sc;
}
