/**
 * Which steps a driver runs, derived from the step registry and the driver's entry, never typed by
 * hand: a step runs on a page driver unless it is terminal-only, on a terminal driver when it has a
 * terminal form, and on neither when it needs a feature the driver lacks. The loader (at load) and
 * runStep (at run, for MCP and the CLI verbs) both ask here, so their lists cannot drift.
 */
import type { DriverDefinition, Surface } from '../drivers/define.js';
import { PerfError } from '../errors.js';
import type { StepDefinition } from '../steps/define.js';
import { STEPS } from '../steps/registry.js';

/** Why a step cannot run on this driver, in the user's words; undefined when it can. */
export interface StepRefusal {
  message: string;
  suggestion: string;
}

export function runsOnSurface(def: StepDefinition<any>, surface: Surface): boolean {
  switch (surface) {
    case 'page':
      return def.terminalOnly !== true;
    case 'terminal':
      return def.terminal !== undefined;
  }
}

/** The steps this surface runs, in registry order. */
export function stepsOnSurface(surface: Surface): string[] {
  return STEPS.filter((s) => runsOnSurface(s, surface)).map((s) => s.name);
}

/** Why `def` cannot run on `driver` at load time (file:line added by the loader), or undefined. */
export function stepRefusal(def: StepDefinition<any>, driver: DriverDefinition, args?: Record<string, unknown>): StepRefusal | undefined {
  const noPages = args?.page !== undefined ? driver.lacks.pages : undefined;
  if (noPages) return { message: `${def.name}: page: is not available on the ${driver.name} driver: ${noPages}`, suggestion: 'drop page:' };
  if (!runsOnSurface(def, driver.surface)) {
    switch (driver.surface) {
      case 'terminal':
        return {
          message: `${def.name} acts on a web page: it is not available for a terminal program (app.terminal)`,
          suggestion: `on a terminal: ${stepsOnSurface('terminal').join(', ')}`,
        };
      case 'page':
        return { message: `${def.name} acts on a terminal program: it needs app.terminal`, suggestion: 'drop the step' };
    }
  }
  for (const need of def.needs ?? []) {
    const why = driver.lacks[need];
    if (why)
      return {
        message: `${def.name} is not available on the ${driver.name} driver: ${why}`,
        suggestion: 'drop the step, or run this scenario on the cdp driver (Chromium)',
      };
  }
  return undefined;
}

/** The run-time refusal when a host's surface cannot run the step (an MCP or CLI session, where no loader checked). */
export function surfaceError(def: StepDefinition<any>, surface: Surface): PerfError | undefined {
  if (runsOnSurface(def, surface)) return undefined;
  switch (surface) {
    case 'terminal':
      return new PerfError({
        code: 'unsupported_on_driver',
        message: `${def.name} acts on a web page; this app is a terminal program`,
        suggestion: `on a terminal: ${stepsOnSurface('terminal').join(', ')}`,
      });
    case 'page':
      return new PerfError({ code: 'unsupported_on_driver', message: `${def.name} acts on a terminal program; this app is a web page` });
  }
}
