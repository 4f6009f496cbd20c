/**
 * expect's checks (url, count, visible/hidden, text, value, checked) polled until they pass or time
 * out, and the frame and visible-text checks of wait_for.
 */
import type { helpersModule } from './helpers.js';
import type { rolesModule } from './roles.js';
import type { namesModule } from './names.js';
import type { visibilityModule } from './visibility.js';
import type { refsModule } from './refs.js';
import type { matchModule } from './match.js';
import type { targetsModule } from './targets.js';
import type { elementReadModule } from './element-read.js';
import type { settleModule } from './settle.js';
import type { effectModule } from './effect.js';
import type { elementStateModule } from './element-state.js';
import type { actionabilityModule } from './actionability.js';
import type { State, Target } from './types.js';
import type { RuntimeApi } from './api.js';

type Deps = ReturnType<typeof helpersModule> &
  ReturnType<typeof rolesModule> &
  ReturnType<typeof namesModule> &
  ReturnType<typeof visibilityModule> &
  ReturnType<typeof refsModule> &
  ReturnType<typeof matchModule> &
  ReturnType<typeof targetsModule> &
  ReturnType<typeof elementReadModule> &
  ReturnType<typeof settleModule> &
  ReturnType<typeof effectModule> &
  ReturnType<typeof elementStateModule> &
  ReturnType<typeof actionabilityModule> & { state: State };

export function expectModule(dep: Deps) {
  const {
    POLL_MS,
    collectRoots,
    controlValue,
    describe,
    invisibleReason,
    isVisible,
    matchTarget,
    nextFrame,
    norm,
    readChecked,
    resolve,
    sleep,
    subtreeText,
    state,
  } = dep;

  function expectOnce(spec: ExpectSpecIn): {
    pass: boolean;
    failures: { check: string; expected: unknown; actual: unknown }[];
    invalid?: string;
  } {
    const failures: { check: string; expected: unknown; actual: unknown }[] = [];
    if (spec.url !== undefined) {
      const want = spec.url;
      const here = location.href;
      const path = location.pathname + location.search + location.hash;
      const okUrl = here === want || path === want || location.pathname + location.search === want || location.pathname === want;
      if (!okUrl) failures.push({ check: 'url', expected: want, actual: here });
    }
    if (spec.locator) {
      const loc = spec.locator as { ref?: string; target?: Target };
      if (spec.count !== undefined) {
        let n: number;
        if (loc.ref) n = resolve(loc).status === 'ok' ? 1 : 0;
        else {
          try {
            n = matchTarget({ ...(loc.target ?? {}), nth: undefined }).length;
          } catch (e) {
            return { pass: false, failures, invalid: (e as Error).message };
          }
        }
        if (n !== spec.count) failures.push({ check: 'count', expected: spec.count, actual: n });
      }
      const needsOne =
        spec.visible !== undefined ||
        spec.hidden !== undefined ||
        spec.text !== undefined ||
        spec.textContains !== undefined ||
        spec.value !== undefined ||
        spec.checked !== undefined;
      if (needsOne) {
        const r = resolve(loc);
        if (r.status === 'ambiguous')
          return {
            pass: false,
            failures,
            invalid: `the target matches ${r.count} elements: ${r.candidates.join(', ')}; add nth or narrow it`,
          };
        if (r.status === 'invalid') return { pass: false, failures, invalid: r.detail };
        const el = r.status === 'ok' ? state.lastResolved : null;
        const vis = !!el && isVisible(el);
        const wantHidden = spec.hidden === true || spec.visible === false;
        const wantVisible = spec.visible === true || spec.hidden === false;
        if (wantVisible && !vis)
          failures.push({ check: 'visible', expected: true, actual: el ? invisibleReason(el) : 'no element matches' });
        if (wantHidden && vis) failures.push({ check: 'hidden', expected: true, actual: `visible: ${describe(el)}` });
        if (spec.text !== undefined || spec.textContains !== undefined) {
          const t = el
            ? el.localName === 'input' || el.localName === 'textarea'
              ? (el as HTMLInputElement).value
              : norm(subtreeText(el.shadowRoot ?? el, null))
            : null;
          if (spec.text !== undefined && t !== norm(spec.text))
            failures.push({ check: 'text', expected: norm(spec.text), actual: t ?? 'no element matches' });
          if (spec.textContains !== undefined && (t === null || !t.toLowerCase().includes(spec.textContains.toLowerCase())))
            failures.push({ check: 'textContains', expected: spec.textContains, actual: t ?? 'no element matches' });
        }
        if (spec.value !== undefined) {
          const v = el
            ? el.localName === 'select'
              ? (el as HTMLSelectElement).value
              : 'value' in el
                ? String((el as HTMLInputElement).value)
                : (el.getAttribute('aria-valuenow') ?? norm(el.textContent))
            : null;
          const label = el && el.localName === 'select' ? controlValue(el) : null;
          if (v !== spec.value && label !== spec.value)
            failures.push({ check: 'value', expected: spec.value, actual: v ?? 'no element matches' });
        }
        if (spec.checked !== undefined) {
          const c = el ? readChecked(el) : null;
          if (c !== spec.checked) failures.push({ check: 'checked', expected: spec.checked, actual: el ? c : 'no element matches' });
        }
      }
    }
    return { pass: failures.length === 0, failures };
  }
  interface ExpectSpecIn {
    locator?: { ref?: string; target?: Target };
    visible?: boolean;
    hidden?: boolean;
    text?: string;
    textContains?: string;
    value?: string;
    checked?: boolean;
    count?: number;
    url?: string;
  }
  async function expectWait(spec: ExpectSpecIn, timeoutMs: number): ReturnType<RuntimeApi['expect']> {
    const deadline = Date.now() + timeoutMs;
    const t0 = Date.now();
    for (;;) {
      const r = expectOnce(spec);
      if (r.pass || r.invalid || Date.now() >= deadline) return { ...r, waitedMs: Date.now() - t0 };
      await sleep(Math.min(POLL_MS, Math.max(1, deadline - Date.now())));
    }
  }

  async function framesAlive(ms: number): ReturnType<RuntimeApi['framesAlive']> {
    const framed = await nextFrame(ms);
    return { framed, visibilityState: document.visibilityState, hasFocus: document.hasFocus() };
  }

  /**
   * wait_for's check. Visible text = innerText (skips display:none and visibility:hidden) of the
   * document, of open shadow roots and of same-origin iframes, whitespace collapsed. The roots come
   * from collectRoots, which walks every element only in documents that have shown a shadow root.
   */
  function visibleText(text: string | null, gone: string | null): { status: 'ok'; hasText: boolean; hasGone: boolean } {
    const parts: string[] = [];
    for (const root of collectRoots(document)) {
      if (root.nodeType === 9) parts.push((root as Document).body?.innerText ?? '');
      else if (root.nodeType === 11)
        for (const child of (root as ShadowRoot).children)
          if ((child as HTMLElement).innerText !== undefined) parts.push((child as HTMLElement).innerText);
    }
    const all = parts.join('\n').replace(/\s+/g, ' ');
    const norm = (t: string): string => t.replace(/\s+/g, ' ').trim();
    return { status: 'ok', hasText: text === null || all.includes(norm(text)), hasGone: gone !== null && all.includes(norm(gone)) };
  }

  return { expectWait, framesAlive, visibleText };
}
