/**
 * The one list of drivers. Adding a driver = its folder under src/drivers/<name>/ with a driver.ts
 * entry (defineDriver) + one line here. Order matters: the first driver to claim a scenario runs it.
 */
import { PerfError } from '../errors.js';
import type { DriverDefinition, DriverName, DriverScenarioView, Surface } from './define.js';
import { bidiDriver } from './bidi/driver.js';
import { cdpDriver } from './cdp/driver.js';
import { ptyDriver } from './pty/driver.js';
import { webdriverDriver } from './webdriver/driver.js';

// pty first: app.terminal is the whole app, whatever else is written (pty refuses the rest).
export const DRIVERS: readonly DriverDefinition[] = [ptyDriver, webdriverDriver, bidiDriver, cdpDriver];

/** The driver of this name; an unknown name is a bug (names come from the schema's enum or session state). */
export function getDriver(name: DriverName | string): DriverDefinition {
  const d = DRIVERS.find((x) => x.name === name);
  if (!d)
    throw new PerfError({
      code: 'internal_error',
      kind: 'internal',
      message: `no driver named ${name}; drivers are ${driverNames().join(', ')}`,
    });
  return d;
}

export function driverNames(): DriverName[] {
  return DRIVERS.map((d) => d.name);
}

/** The driver that runs this scenario: the first that claims it (cdp claims what no other does). */
export function driverFor(view: DriverScenarioView): DriverDefinition {
  return DRIVERS.find((d) => d.claims(view)) ?? cdpDriver;
}

/** The drivers of a surface by name, sorted: `browser.driver` and `--driver` choose among the page drivers. */
export function driversOn(surface: Surface): DriverName[] {
  return DRIVERS.filter((d) => d.surface === surface)
    .map((d) => d.name)
    .sort();
}
