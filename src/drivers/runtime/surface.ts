/**
 * The runtime's surface: the methods the Node side calls (RuntimeApi), each a module's function or a
 * few lines over them. The last module: it takes what every other one returns.
 */
import type { RuntimeApi } from './api.js';
import type { State, Target } from './types.js';
import type { helpersModule } from './helpers.js';
import type { rolesModule } from './roles.js';
import type { namesModule } from './names.js';
import type { visibilityModule } from './visibility.js';
import type { refsModule } from './refs.js';
import type { textMatchModule } from './text-match.js';
import type { matchModule } from './match.js';
import type { targetsModule } from './targets.js';
import type { elementReadModule } from './element-read.js';
import type { settleModule } from './settle.js';
import type { effectModule } from './effect.js';
import type { elementStateModule } from './element-state.js';
import type { actionabilityModule } from './actionability.js';
import type { snapshotStatesModule } from './snapshot-states.js';
import type { snapshotNodeModule } from './snapshot-node.js';
import type { snapshotWalkModule } from './snapshot-walk.js';
import type { snapshotTextModule } from './snapshot-text.js';
import type { snapshotDiffModule } from './snapshot-diff.js';
import type { snapshotModule } from './snapshot.js';
import type { queriesModule } from './queries.js';
import type { operationsModule } from './operations.js';
import type { scrollModule } from './scroll.js';
import type { expectModule } from './expect.js';

type Deps = ReturnType<typeof helpersModule> &
  ReturnType<typeof rolesModule> &
  ReturnType<typeof namesModule> &
  ReturnType<typeof visibilityModule> &
  ReturnType<typeof refsModule> &
  ReturnType<typeof textMatchModule> &
  ReturnType<typeof matchModule> &
  ReturnType<typeof targetsModule> &
  ReturnType<typeof elementReadModule> &
  ReturnType<typeof settleModule> &
  ReturnType<typeof effectModule> &
  ReturnType<typeof elementStateModule> &
  ReturnType<typeof actionabilityModule> &
  ReturnType<typeof snapshotStatesModule> &
  ReturnType<typeof snapshotNodeModule> &
  ReturnType<typeof snapshotWalkModule> &
  ReturnType<typeof snapshotTextModule> &
  ReturnType<typeof snapshotDiffModule> &
  ReturnType<typeof snapshotModule> &
  ReturnType<typeof queriesModule> &
  ReturnType<typeof operationsModule> &
  ReturnType<typeof scrollModule> &
  ReturnType<typeof expectModule> & { state: State };

/* eslint-disable @typescript-eslint/no-explicit-any */
export function surfaceModule(dep: Deps) {
  const {
    state,
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
    deepActive,
    roleOf,
    accName,
    refFor,
    isVisible,
    readText,
    describeRef,
  } = dep;

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
  return { api };
}
