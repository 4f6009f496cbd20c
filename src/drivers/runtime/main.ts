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
import type { State } from './types.js';
import { helpersModule } from './helpers.js';
import { rolesModule } from './roles.js';
import { namesModule } from './names.js';
import { visibilityModule } from './visibility.js';
import { refsModule } from './refs.js';
import { textMatchModule } from './text-match.js';
import { matchModule } from './match.js';
import { targetsModule } from './targets.js';
import { elementReadModule } from './element-read.js';
import { settleModule } from './settle.js';
import { effectModule } from './effect.js';
import { elementStateModule } from './element-state.js';
import { actionabilityModule } from './actionability.js';
import { snapshotStatesModule } from './snapshot-states.js';
import { snapshotNodeModule } from './snapshot-node.js';
import { snapshotWalkModule } from './snapshot-walk.js';
import { snapshotTextModule } from './snapshot-text.js';
import { snapshotDiffModule } from './snapshot-diff.js';
import { snapshotModule } from './snapshot.js';
import { queriesModule } from './queries.js';
import { operationsModule } from './operations.js';
import { scrollModule } from './scroll.js';
import { expectModule } from './expect.js';
import { surfaceModule } from './surface.js';

/** The runtime's modules in dependency order: each takes what the ones before it return. */
export const RUNTIME_MODULES = {
  helpers: helpersModule,
  roles: rolesModule,
  names: namesModule,
  visibility: visibilityModule,
  refs: refsModule,
  textMatch: textMatchModule,
  match: matchModule,
  targets: targetsModule,
  elementRead: elementReadModule,
  settle: settleModule,
  effect: effectModule,
  elementState: elementStateModule,
  actionability: actionabilityModule,
  snapshotStates: snapshotStatesModule,
  snapshotNode: snapshotNodeModule,
  snapshotWalk: snapshotWalkModule,
  snapshotText: snapshotTextModule,
  snapshotDiff: snapshotDiffModule,
  snapshot: snapshotModule,
  queries: queriesModule,
  operations: operationsModule,
  scroll: scrollModule,
  expect: expectModule,
  surface: surfaceModule,
};
type RuntimeModules = typeof RUNTIME_MODULES;
/** What an installed runtime (perhaps an older version) keeps for the next one. */
interface Installed {
  version: string;
  stateVersion: number;
  state: State;
  shadowSeenDocs: WeakSet<Document>;
  scannedDocs: WeakSet<Document>;
}

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
  const upToRoles = { ...upToHelpers, ...m.roles() };
  const upToNames = { ...upToRoles, ...m.names(upToRoles) };
  const upToVisibility = { ...upToNames, ...m.visibility(upToNames) };
  const upToRefs = { ...upToVisibility, ...m.refs(upToVisibility) };
  const upToTextMatch = { ...upToRefs, ...m.textMatch(upToRefs) };
  const upToMatch = { ...upToTextMatch, ...m.match(upToTextMatch) };
  const upToTargets = { ...upToMatch, ...m.targets(upToMatch) };
  const upToElementRead = { ...upToTargets, ...m.elementRead(upToTargets) };
  const upToSettle = { ...upToElementRead, ...m.settle(upToElementRead) };
  const upToEffect = { ...upToSettle, ...m.effect(upToSettle) };
  const upToElementState = { ...upToEffect, ...m.elementState(upToEffect) };
  const upToActionability = { ...upToElementState, ...m.actionability(upToElementState) };
  const upToSnapshotStates = { ...upToActionability, ...m.snapshotStates(upToActionability) };
  const upToSnapshotNode = { ...upToSnapshotStates, ...m.snapshotNode(upToSnapshotStates) };
  const upToSnapshotWalk = { ...upToSnapshotNode, ...m.snapshotWalk(upToSnapshotNode) };
  const upToSnapshotText = { ...upToSnapshotWalk, ...m.snapshotText(upToSnapshotWalk) };
  const upToSnapshotDiff = { ...upToSnapshotText, ...m.snapshotDiff(upToSnapshotText) };
  const upToSnapshot = { ...upToSnapshotDiff, ...m.snapshot(upToSnapshotDiff) };
  const upToQueries = { ...upToSnapshot, ...m.queries(upToSnapshot) };
  const upToOperations = { ...upToQueries, ...m.operations(upToQueries) };
  const upToScroll = { ...upToOperations, ...m.scroll(upToOperations) };
  const upToExpect = { ...upToScroll, ...m.expect(upToScroll) };
  const all = { ...upToExpect, ...m.surface(upToExpect) };
  const { api, elementOf } = all;
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
const MODULES_SOURCE = `{ ${Object.entries(RUNTIME_MODULES)
  .map(([name, fn]) => `${name}: (${fn.toString()})`)
  .join(', ')} }`;
const MAIN_SOURCE = runtimeMain.toString();
export const RUNTIME_VERSION = hash(MAIN_SOURCE + MODULES_SOURCE);
export const PAGE_RUNTIME_SOURCE = `(${MAIN_SOURCE})(${JSON.stringify(RUNTIME_VERSION)}, ${MODULES_SOURCE});`;
