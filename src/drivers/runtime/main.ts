/**
 * The in-page runtime: accessible roles and names, the snapshot, target resolution, refs, the
 * actionability checks and the effect read-back. It lives IN THE PAGE under
 * Symbol.for('rehearse.runtime') (non-enumerable), so refs minted through one connection keep
 * working from a later connection or CLI invocation on the same document.
 *
 * The runtime is written as modules (one function each, in this folder) that are serialised with
 * Function.prototype.toString and evaluated in the page: no module may reference anything outside
 * its own body (no imports but types, no module constants); what it needs from earlier modules comes
 * in through its parameter. `runtimeMain` installs them: PAGE_RUNTIME_SOURCE calls it with every
 * module's source, so the wiring below is checked by tsc like any call. It uses no protocol-specific
 * binding, so any driver that can evaluate a script can install it.
 */
import type { RuntimeApi } from './api.js';
import type { State, Target } from './types.js';
import { helpersModule } from './helpers.js';
import { rolesModule } from './roles.js';
import { visibilityModule } from './visibility.js';
import { refsModule } from './refs.js';
import { targetsModule } from './targets.js';
import { effectModule } from './effect.js';
import { actionabilityModule } from './actionability.js';
import { snapshotModule } from './snapshot.js';
import { queriesModule } from './queries.js';
import { operationsModule } from './operations.js';
import { expectModule } from './expect.js';

/** The runtime's modules in dependency order: each takes what the ones before it return. */
const MODULES = {
  helpers: helpersModule,
  roles: rolesModule,
  visibility: visibilityModule,
  refs: refsModule,
  targets: targetsModule,
  effect: effectModule,
  actionability: actionabilityModule,
  snapshot: snapshotModule,
  queries: queriesModule,
  operations: operationsModule,
  expect: expectModule,
};
type RuntimeModules = typeof MODULES;
/** What an installed runtime (perhaps an older version) keeps for the next one. */
interface Installed {
  version: string;
  stateVersion: number;
  state: State;
  shadowSeenDocs: WeakSet<Document>;
  scannedDocs: WeakSet<Document>;
}

/* eslint-disable @typescript-eslint/no-explicit-any */
function runtimeMain(version: string, m: RuntimeModules): void {
  const KEY = Symbol.for('rehearse.runtime');
  const prev: Partial<Installed> | undefined = Reflect.get(globalThis, KEY);
  if (prev && prev.version === version) return;

  // An older runtime's state, shadow-root bookkeeping and refs carry over to this one.
  const state: State =
    prev && prev.stateVersion === 1
      ? prev.state!
      : {
          docId: Math.random().toString(36).slice(2, 10),
          nextRef: 1,
          refs: new Map(),
          byEl: new WeakMap(),
          nextQ: 1,
          queries: new Map(),
          queryKeys: new Map(),
          lastLines: null,
          action: null,
          lastResolved: null,
        };
  const shadowSeenDocs: WeakSet<Document> = prev?.shadowSeenDocs ?? new WeakSet();
  const scannedDocs: WeakSet<Document> = prev?.scannedDocs ?? new WeakSet();

  // Each step adds one module's returns to everything before it. A spread copies references: the
  // mutable parts (state, the shadow-root sets, the scan flag) are objects every module shares, and
  // the only primitives are constants.
  const upToHelpers = { state, shadowSeenDocs, scannedDocs, ...m.helpers() };
  const upToRoles = { ...upToHelpers, ...m.roles(upToHelpers) };
  const upToVisibility = { ...upToRoles, ...m.visibility(upToRoles) };
  const upToRefs = { ...upToVisibility, ...m.refs(upToVisibility) };
  const upToTargets = { ...upToRefs, ...m.targets(upToRefs) };
  const upToEffect = { ...upToTargets, ...m.effect(upToTargets) };
  const upToActionability = { ...upToEffect, ...m.actionability(upToEffect) };
  const upToSnapshot = { ...upToActionability, ...m.snapshot(upToActionability) };
  const upToQueries = { ...upToSnapshot, ...m.queries(upToSnapshot) };
  const upToOperations = { ...upToQueries, ...m.operations(upToQueries) };
  const all = { ...upToOperations, ...m.expect(upToOperations) };
  const {
    resolve,
    waitResolve,
    gate,
    settle,
    endAction,
    beginAction,
    snapshot,
    find,
    observe,
    box,
    focusEl,
    blurEl,
    selectContent,
    commitChange,
    checkState,
    selectNative,
    ariaOptions,
    scrollContainer,
    awaitScroll,
    scrollByFallback,
    scrollIntoViewRef,
    expectWait,
    visibleText,
    framesAlive,
    withEl,
    elementOf,
    deepActive,
    roleOf,
    accName,
    refFor,
    isVisible,
    readText,
    describeRef,
  } = all;

  // Checked against RuntimeApi, each method's name and result (a type only: erased before this
  // function is serialised). The arguments are not: the Node side types them at callRuntime.
  const api: { [M in keyof RuntimeApi]: (...args: any[]) => ReturnType<RuntimeApi[M]> } = {
    resolve,
    waitResolve,
    gate,
    settle,
    abortAction: () => {
      endAction();
      return { status: 'ok' };
    },
    snapshot,
    find,
    observe,
    box,
    focus: focusEl,
    blur: blurEl,
    selectContent,
    commitChange,
    checkState,
    selectNative,
    ariaOptions,
    scrollContainer,
    awaitScroll,
    scrollByFallback,
    scrollIntoView: scrollIntoViewRef,
    expect: expectWait,
    visibleText,
    framesAlive,
    defineQuery: (q: string, locator: Target) => {
      state.queries.set(q, { locator });
      state.queryKeys.set(JSON.stringify(locator), q);
      const n = Number(q.slice(1));
      if (n >= state.nextQ) state.nextQ = n + 1;
      return { status: 'ok' };
    },
    begin: (ref: string, read: string) =>
      withEl(ref, (el) => {
        beginAction(ref, el, read);
        return { status: 'ok' };
      }),
    /** Observe an action aimed at whatever has focus (press_key without a target). */
    beginActive: () => {
      const a = deepActive() ?? document.body;
      const role = roleOf(a);
      const ref = refFor(a, role, accName(a, role));
      beginAction(ref, a, 'none');
      return { status: 'ok', ref };
    },
    /** A visible label of a control that is itself hidden (custom checkboxes): clicking it toggles the control. */
    labelFor: (ref: string) =>
      withEl(ref, (el) => {
        const labels = [...((el as HTMLInputElement).labels ?? [])].filter((l) => isVisible(l));
        const l = labels[0];
        if (!l) return { status: 'none' };
        return { status: 'ok', ref: refFor(l, roleOf(l), accName(l, roleOf(l))) };
      }),
    readValue: (ref: string) => withEl(ref, (el) => ({ status: 'ok', value: readText(el), focused: deepActive() === el })),
    activeInfo: () => {
      const a = deepActive();
      return {
        status: 'ok',
        active: a && a !== document.body ? describeRef(a) : null,
        value:
          a && (a.localName === 'input' || a.localName === 'textarea' || (a as HTMLElement).isContentEditable) ? readText(a) : undefined,
      };
    },
  };
  const runtime = {
    version,
    stateVersion: 1,
    state,
    shadowSeenDocs,
    scannedDocs,
    api,
    element: elementOf,
    /** One entry point for the Node side: never throws, so a page exception is a value. */
    call(method: string, args: unknown[]): unknown {
      const fn = (api as Record<string, ((...a: unknown[]) => unknown) | undefined>)[method];
      if (!fn) return { status: 'runtime_error', detail: `unknown runtime method ${method}` };
      try {
        const r = fn(...args);
        if (r && typeof (r as Promise<unknown>).then === 'function')
          return (r as Promise<unknown>).catch((e: Error) => ({ status: 'runtime_error', detail: String(e && e.stack ? e.stack : e) }));
        return r;
      } catch (e) {
        return { status: 'runtime_error', detail: String(e && (e as Error).stack ? (e as Error).stack : e) };
      }
    },
  };
  Object.defineProperty(globalThis, KEY, { value: runtime, configurable: true, enumerable: false, writable: true });
}

/** Changes whenever the runtime source changes, so a newer harness replaces an older runtime (keeping its refs). */
function hash(s: string): string {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return (h >>> 0).toString(36);
}
// The modules as one object literal of function expressions, in dependency order.
const MODULES_SOURCE = `{ ${Object.entries(MODULES)
  .map(([name, fn]) => `${name}: (${fn.toString()})`)
  .join(', ')} }`;
const MAIN_SOURCE = runtimeMain.toString();
export const RUNTIME_VERSION = hash(MAIN_SOURCE + MODULES_SOURCE);
export const PAGE_RUNTIME_SOURCE = `(${MAIN_SOURCE})(${JSON.stringify(RUNTIME_VERSION)}, ${MODULES_SOURCE});`;
