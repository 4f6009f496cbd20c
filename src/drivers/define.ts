/**
 * defineDriver: what one driver is, in one literal, read by the loader, the engine, the runner, the
 * session manager and MCP. It is plain data and pure checks over plain data, so the scenario loader
 * may read it without starting (or importing) any protocol code; a driver's heavy parts stay in its
 * own folder. Drivers sit at the bottom: the types here are the narrow views a driver needs, not the
 * scenario's or the session's own types (layers point down).
 */
import type { PageFeature } from './page-driver.js';

/** Every driver's name, as written in run files, session state and messages. */
export type DriverName = 'cdp' | 'webdriver' | 'bidi' | 'pty';

/** How a repeat starts clean: reload the page, a new browser context, or a new browser (session). */
export type RestartMode = 'reload' | 'context' | 'browser';
export const RESTART_MODES: readonly RestartMode[] = ['reload', 'context', 'browser'];

/** What a driver drives: steps run on a page or on a terminal program (a step declares which it supports). */
export type Surface = 'page' | 'terminal';

/**
 * What a driver may lack beyond a step's own needs: the scenario keys and emulation a repeat applies.
 * Step needs (PageFeature) and these are one vocabulary, so a lack is said once.
 */
export type DriverFeature =
  | PageFeature
  | 'cpuThrottle'
  /**
   * A sampling CPU profile in a measured window (attribution mode). Without it every repeat of a run is a timing
   * repeat (runner/records.ts schedulePlan): an attribution repeat would record no profile and explain nothing.
   */
  | 'cpuProfile'
  | 'deviceEmulation'
  | 'jpegScreenshot'
  | 'largeScreenshot'
  | 'restartModes'
  /** A browser state (cookies, web storage) to save after setupOnce and restore at each clean restart. */
  | 'storageState';

/** Path into the scenario document (as written, before a variant is merged): the loader turns it into file:line. */
export type ProblemPath = (string | number)[];

export interface DriverProblem {
  path: ProblemPath;
  message: string;
  suggestion?: string;
}

/**
 * A scenario as a driver sees it: the keys as written (after a variant is merged), no scenario type.
 * `given` says which top-level keys the document (or its variant) writes at all.
 */
export interface DriverScenarioView {
  app: { desktop?: { driver: string }; terminal: boolean };
  browser: { driver?: string; engine?: string; endpoint?: string; restart?: unknown; webdriver?: string };
  viewport: { dpr: number; mobile: boolean; touch: boolean };
  cpuThrottle?: number;
  /** The scenario throttles the network (a profile or numbers). */
  network: boolean;
  given: ReadonlySet<string>;
}

/** The connect modes a driver offers to reach a browser it did not start. */
export interface RemoteEndpoint {
  /** The scenario key (under browser) and the CLI flag that name it. */
  key: string;
  flag: string;
  /** What the endpoint is, for help and messages. */
  what: string;
}

export interface DriverDefinition<N extends DriverName = DriverName> {
  name: N;
  /** One line for help, docs and the drivers table. */
  summary: string;
  surface: Surface;
  /** What the driver lacks, with the reason a user reads: the one place (steps, keys and the page driver derive from it). */
  lacks: Partial<Record<DriverFeature, string>>;
  /** Restart modes a repeat may use, the first being the default (a clean repeat's form). */
  restartModes: readonly RestartMode[];
  /** Whether this driver runs the scenario; the registry asks each in order, the first to claim it wins. */
  claims(view: DriverScenarioView): boolean;
  /** Pure checks beyond the schema: what this driver cannot honour, refused when the scenario loads. */
  validate(view: DriverScenarioView): DriverProblem[];
  /** How it reaches a browser it did not start, if it can. */
  remote: readonly RemoteEndpoint[];
}

/** A driver's one literal: checked by the compiler, returned as is. */
export function defineDriver<N extends DriverName>(def: DriverDefinition<N>): DriverDefinition<N> {
  return def;
}

/** Whether the driver records a CPU profile: only then does a run schedule attribution repeats (it lacks no cpuProfile). */
export function canProfile(driver: DriverDefinition): boolean {
  return driver.lacks.cpuProfile === undefined;
}

/** `X is not available on the <driver> driver: <reason>`, or undefined when the driver has the feature. */
export function lackMessage(driver: DriverDefinition, feature: DriverFeature, what: string): string | undefined {
  const why = driver.lacks[feature];
  return why === undefined ? undefined : `${what} is not available on the ${driver.name} driver: ${why}`;
}
