/**
 * The CDP side of the page runtime (src/drivers/runtime): install it on a page and call its methods
 * over Runtime.evaluate, checked against RuntimeApi.
 */
import type { Page } from './browser.js';
import { ProtocolError, TargetClosedError } from './browser.js';
import { registerPageScript } from './inject.js';
import { PerfError } from '../../errors.js';
import type { RuntimeApi, RuntimeMethod } from '../runtime/api.js';
import { PAGE_RUNTIME_SOURCE, RUNTIME_VERSION } from '../runtime/main.js';
import { PAGE_RUNTIME_URL } from '../measure.js';

export type * from '../runtime/api.js';

// Named, so a CPU profile tells the harness's functions from the page's (perf/profile.ts isPageWork).
const RUNTIME_SOURCE = `${PAGE_RUNTIME_SOURCE}\n//# sourceURL=${PAGE_RUNTIME_URL}`;

registerPageScript('rehearse.runtime', RUNTIME_SOURCE);

const RUNTIME_EXPR = `globalThis[Symbol.for('rehearse.runtime')]`;
const MISSING = '__rehearse_runtime_missing__';

/** Install the runtime in the current document (idempotent). */
export async function installRuntime(page: Page): Promise<void> {
  await page.send('Runtime.evaluate', { expression: RUNTIME_SOURCE, returnByValue: true });
}

function navigatedError(method: string, cause: unknown): PerfError {
  return new PerfError({
    code: 'page_navigated',
    kind: 'failed',
    message: `the page navigated or reloaded while ${method} was running`,
    suggestion: 'wait for the navigation (wait_for) and run snap again',
    cause,
  });
}

/**
 * Call a runtime method in the page and return its JSON result. Installs the runtime when the
 * document has none yet (a fresh document of a connection that never installed it).
 */
export async function callRuntime<M extends RuntimeMethod>(
  page: Page,
  method: M,
  args: Parameters<RuntimeApi[M]>,
  opts: { awaitPromise?: boolean; timeoutMs?: number } = {},
): Promise<Awaited<ReturnType<RuntimeApi[M]>>> {
  const expression =
    `(() => { const r = ${RUNTIME_EXPR}; return r && r.version === ${JSON.stringify(RUNTIME_VERSION)}` +
    ` ? r.call(${JSON.stringify(method)}, ${JSON.stringify(args)}) : ${JSON.stringify(MISSING)}; })()` +
    `\n//# sourceURL=${PAGE_RUNTIME_URL}`;
  for (let attempt = 0; ; attempt++) {
    let res;
    try {
      res = await page.send(
        'Runtime.evaluate',
        { expression, returnByValue: true, awaitPromise: opts.awaitPromise ?? false },
        opts.timeoutMs,
      );
    } catch (e) {
      if (e instanceof ProtocolError && /context was destroyed|navigated|Cannot find context/i.test(e.message))
        throw navigatedError(method, e);
      throw e;
    }
    if (res.exceptionDetails) {
      const d = res.exceptionDetails;
      const text = String(d.exception?.description ?? d.text);
      if (/Execution context was destroyed|Inspected target navigated/i.test(text)) throw navigatedError(method, text);
      throw new PerfError({ code: 'runtime_error', kind: 'failed', message: `page runtime ${method} threw: ${text.split('\n')[0]}` });
    }
    const value = res.result.value as unknown;
    if (value === MISSING) {
      if (attempt > 0)
        throw new PerfError({
          code: 'runtime_missing',
          kind: 'environment',
          message: 'could not install the page runtime in this document',
          suggestion: 'the page may block script evaluation (CSP does not apply to CDP; check for a crashed renderer)',
        });
      await installRuntime(page);
      continue;
    }
    if (value && typeof value === 'object' && (value as { status?: string }).status === 'runtime_error') {
      throw new PerfError({
        code: 'runtime_error',
        kind: 'failed',
        message: `page runtime ${method} failed: ${String((value as { detail?: string }).detail).split('\n')[0]}`,
      });
    }
    return value as Awaited<ReturnType<RuntimeApi[M]>>;
  }
}

/**
 * The element the last resolve picked, as a remote object. Sent right behind the resolve call
 * (CDP runs a session's commands in order), it costs no extra round trip.
 */
export function lastResolvedObjectId(page: Page, objectGroup: string): Promise<string | undefined> {
  return page
    .send('Runtime.evaluate', { expression: `${RUNTIME_EXPR}?.state.lastResolved`, returnByValue: false, objectGroup })
    .then((r) => r.result.objectId);
}

export async function releaseObjects(page: Page, objectGroup: string): Promise<void> {
  await page.send('Runtime.releaseObjectGroup', { objectGroup }).catch(() => undefined);
}

export { TargetClosedError };
