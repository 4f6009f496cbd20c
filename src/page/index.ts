/**
 * The page layer the steps use, and all of it: the driver contract (PageDriver: input, emulation,
 * navigation, capture, measurement, the in-page runtime) and what is built on it here (targets and
 * refs, the action pipeline and its effect, snapshots). Steps import this and nothing below it.
 */
export type {
  CommitKind,
  HostPage,
  NetworkActivity,
  NetworkConditions,
  PageDriver,
  PageFeature,
  ViewportReadBack,
  ViewportSpec,
} from '../drivers/page-driver.js';
export type {
  TerminalActionTiming,
  TerminalDriver,
  TerminalResolved,
  TerminalSnapshot,
  TerminalTargetSpec,
} from '../drivers/terminal-driver.js';
export type { PageRow, PageSelector, PageTabs } from '../drivers/tabs.js';
export { CONSOLE_LEVELS } from '../drivers/page-driver.js';
export { MIN_DRAG_STEPS, assertNotBrowserShortcut, keyDefinition, parseKeyCombo } from '../drivers/keys.js';
export type { AriaOption, AriaOptions, Stale } from '../drivers/runtime/api.js';
export { remaining, takeWarnings } from './context.js';
export * from './targets.js';
export * from './actions.js';
export * from './snapshot.js';
export * from './target-schema.js';
