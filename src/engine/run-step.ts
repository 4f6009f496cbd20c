/**
 * runStep(): the ONE place a step is validated, executed, timed and turned into a result. The
 * runner, the MCP server and the CLI verbs all call it.
 */
import { recordStepSpan } from '../perf/state.js';
import { PerfError, isPerfError, type ErrorInfo } from '../errors.js';
import { TargetClosedError, WebDriverTimeoutError } from '../drivers/errors.js';
import type { HostPage, PageDriver, PageSelector } from '../page/index.js';
import { DEFAULT_STEP_TIMEOUT_MS, type Effect, type StepDefinition, type StepHost, type StepOutput } from '../steps/define.js';
import { getStep, stepArgsSchema } from '../steps/registry.js';
import { bestErrors, compile, describeAjvError } from './validate.js';
import { surfaceError } from './driver-steps.js';

export type StepErrorInfo = ErrorInfo;

interface StepResultBase {
  step: string;
  label: string;
  durationMs: number;
  /** ms since the epoch when the step started, for attributing interactions to steps. */
  startedAt: number;
}
export type StepResult =
  | (StepResultBase & { status: 'ok' } & StepOutput)
  | (StepResultBase & { status: 'failed'; error: StepErrorInfo })
  /** An `optional: true` step that failed: recorded, does not fail the repeat. */
  | (StepResultBase & { status: 'skipped'; error: StepErrorInfo });

const STEP_TIMEOUT_GRACE_MS = 1000;

/**
 * Normalise and validate raw arguments: a string shorthand becomes its object form, ajv checks it
 * against the step's full schema. Throws PerfError (usage) naming the property on bad input.
 */
export function prepareArgs(name: string, raw: unknown): { def: StepDefinition<any>; args: Record<string, unknown> } {
  const def = getStep(name);
  let args: unknown = raw ?? {};
  if (typeof args === 'string' || typeof args === 'number' || typeof args === 'boolean') {
    if (!def.shorthand) {
      throw new PerfError({
        code: 'invalid_arguments',
        message: `${name}: takes an object of arguments, not ${typeof args} ${JSON.stringify(args)}`,
        suggestion: `write ${name}: { … }; see \`perf ${name} --help\``,
      });
    }
    args = def.shorthand(String(args));
  }
  const validate = compile(stepArgsSchema(def));
  if (!validate(args)) {
    const errs = bestErrors(validate.errors ?? []);
    const first = describeAjvError(errs[0]!, name);
    throw new PerfError({ code: 'invalid_arguments', message: first.message, suggestion: `see \`perf ${name} --help\` for its arguments` });
  }
  return { def, args: args as Record<string, unknown> };
}

export function toErrorInfo(e: unknown): StepErrorInfo {
  if (isPerfError(e)) return e.toJSON();
  // No suggestion here: what to do (restart the session, or run again) depends on the door, which adds its own.
  if (e instanceof WebDriverTimeoutError) return { kind: 'environment', code: 'webdriver_timeout', message: e.message };
  if (e instanceof TargetClosedError) return { kind: 'environment', code: 'target_closed', message: e.message };
  const err = e as Error;
  return { kind: 'internal', code: 'internal_error', message: err?.message ?? String(e) };
}

export interface RunStepOptions {
  /** Position in a scenario, for the default label `<index>-<name>`. */
  index?: number;
  /** Overrides the step default when the step itself gives no timeoutMs. */
  defaultTimeoutMs?: number;
  signal?: AbortSignal;
  /**
   * The door already checked these arguments against the step's schema (prepareArgs at scenario
   * load or before a CLI verb runs, the MCP tool's inputSchema): they are not checked again.
   */
  validated?: boolean;
}

/** Validate, run and time one step. Never throws for a step failure: returns status 'failed'. */
export async function runStep(host: StepHost, name: string, raw: unknown, opts: RunStepOptions = {}): Promise<StepResult> {
  const startedAt = Date.now();
  const t0 = performance.now();
  const fallbackLabel = opts.index === undefined ? name : `${opts.index}-${name}`;
  let label = fallbackLabel;
  let optional = false;
  try {
    const { def, args } = opts.validated ? { def: getStep(name), args: (raw ?? {}) as Record<string, unknown> } : prepareArgs(name, raw);
    label = typeof args.label === 'string' ? args.label : fallbackLabel;
    optional = args.optional === true;
    const timeoutMs = (args.timeoutMs as number | undefined) ?? opts.defaultTimeoutMs ?? def.defaultTimeoutMs ?? DEFAULT_STEP_TIMEOUT_MS;
    const out = await withTimeout(name, timeoutMs, opts.signal, async (signal) => {
      // From when the step's timer starts: getting the page (installing page scripts) counts too.
      const deadline = Date.now() + timeoutMs;
      const surface = host.surface?.() ?? 'page';
      const refused = surfaceError(def, surface);
      if (refused) throw refused;
      if (surface === 'terminal' && def.terminal) {
        const terminal = await host.terminal!();
        return def.terminal({ host, terminal, timeoutMs, deadline, label, signal }, args as never);
      }
      // `page:` selects the page first (switch_page reads its own `page`); the selection stays.
      if (args.page !== undefined && def.name !== 'switch_page') await selectPage(host, name, args.page as PageSelector, deadline);
      if (def.needsPage !== false) {
        const page = await host.page();
        const ran = await def.run({ host, page, timeoutMs, deadline, label, signal }, args as never).catch(async (e: unknown) => {
          const closed = def.readOnly ? undefined : await closedByAction(host, page);
          if (closed === undefined) throw e;
          return { warnings: [closed] };
        });
        return withPageNotice(host, ran);
      }
      // A step that may run without an app (device_profile list): the page is looked up only if the
      // step touches it, and then fails with the host's own error (no_app).
      const page = await host.page().then(
        (p) => ({ p }),
        (e: unknown) => ({ e }),
      );
      const ctx = {
        host,
        timeoutMs,
        deadline,
        label,
        signal,
        get page(): PageDriver {
          if ('e' in page) throw page.e;
          return page.p;
        },
      };
      return def.run(ctx, args as never);
    });
    const durationMs = performance.now() - t0;
    recordStepSpan(host, { step: name, label, startedAt, durationMs, status: 'ok' });
    return { step: name, label, durationMs, startedAt, status: 'ok', ...out };
  } catch (e) {
    const error = toErrorInfo(e);
    const durationMs = performance.now() - t0;
    recordStepSpan(host, { step: name, label, startedAt, durationMs, status: optional ? 'skipped' : 'failed' });
    return { step: name, label, durationMs, startedAt, status: optional ? 'skipped' : 'failed', error };
  }
}

async function selectPage(host: StepHost, step: string, sel: PageSelector, deadline: number): Promise<void> {
  const tabs = host.pages?.();
  if (!tabs) throw new PerfError({ code: 'unsupported_on_driver', message: `${step}: page: names a browser page, and this app has none` });
  await tabs.select(sel, deadline);
}

/**
 * An action whose page went away under it (a popup's button calling window.close()) did what it was
 * asked: the selection goes back to the opener and the step says so. Never the app's own page.
 */
async function closedByAction(host: StepHost, page: HostPage): Promise<string | undefined> {
  const tabs = host.pages?.(false);
  if (!tabs || page === tabs.main) return undefined;
  await tabs.settle();
  return tabs.driver !== page ? tabs.takeNotice() : undefined;
}

/** The step's output, saying so when the selected page closed by itself and the selection went back to its opener. */
function withPageNotice(host: StepHost, out: StepOutput): StepOutput {
  let notice: string | undefined;
  try {
    notice = host.pages?.(false)?.takeNotice();
  } catch {
    // No app any more (a step that stopped it): nothing to say about its pages.
  }
  return notice ? { ...out, warnings: [...(out.warnings ?? []), notice] } : out;
}

async function withTimeout<T>(
  name: string,
  timeoutMs: number,
  outer: AbortSignal | undefined,
  fn: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const ctl = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let rejectInterrupted: ((e: PerfError) => void) | undefined;
  // One listener per step, removed when the step ends: a long run must not pile them up.
  const onAbort = (): void => {
    ctl.abort(outer?.reason);
    rejectInterrupted?.(new PerfError({ code: 'interrupted', kind: 'failed', message: `${name}: interrupted` }));
  };
  outer?.addEventListener('abort', onAbort, { once: true });
  try {
    return await Promise.race([
      fn(ctl.signal),
      new Promise<never>((_, reject) => {
        rejectInterrupted = reject;
        // A grace past the step's own deadline lets polling steps report their own, more specific
        // failure ("not actionable: receives events…") first; 1 s covers one slow page round trip
        // on a loaded 2-core machine, where 250 ms did not.
        timer = setTimeout(() => {
          ctl.abort();
          reject(
            new PerfError({
              code: 'timeout',
              kind: 'failed',
              message: `${name}: did not finish within ${timeoutMs} ms`,
              suggestion: 'raise timeoutMs, or check what the page is waiting for',
            }),
          );
        }, timeoutMs + STEP_TIMEOUT_GRACE_MS);
      }),
    ]);
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener('abort', onAbort);
  }
}

export type { Effect };
