/**
 * Capabilities: named groups of MCP tools. An agent pays for every listed tool's definition on
 * every turn, so the default caps cover driving and measuring an app and the rest is opt-in with
 * `perf mcp --caps NAME,…` or `tools.caps` in .perf/mcp.json. Every tool is in exactly one cap.
 */
import { closest, PerfError } from '../errors.js';

export interface CapDefinition {
  /** kebab-case, as given to --caps. */
  name: string;
  /** One line for --help and the README table. */
  description: string;
  /** On when no caps are given. */
  byDefault: boolean;
  tools: readonly string[];
}

export function defineCap(def: CapDefinition): CapDefinition {
  return def;
}

export const coreCap = defineCap({
  name: 'core',
  description: 'Drive an app: snapshot, find, tap, fill, press a key, wait and expect, navigate, several steps at once, start and stop it.',
  byDefault: true,
  // press_key stays: a terminal program (an editor, a pager, a menu) is driven by keys, and a form is submitted by Enter.
  tools: ['snap', 'find', 'tap', 'fill', 'press_key', 'wait_for', 'expect', 'navigate', 'run', 'app_start', 'app_stop', 'app_status'],
});

export const perfCap = defineCap({
  name: 'perf',
  description: 'Measure: open and close a measured window, measure a page load, read an insight, run a scenario, compare two runs.',
  byDefault: true,
  tools: ['perf_begin', 'perf_end', 'perf_load', 'perf_insight', 'perf_run', 'perf_compare'],
});

export const pointerExtraCap = defineCap({
  name: 'pointer-extra',
  description: 'More pointer actions: hover, double, right and triple click, drag, scroll with the wheel.',
  byDefault: false,
  tools: ['hover', 'dblclick', 'right_click', 'triple_click', 'drag', 'scroll'],
});

export const formsExtraCap = defineCap({
  name: 'forms-extra',
  description: 'More keyboard and form control: type key by key, pick an option, set a checkbox, clear, focus, blur.',
  byDefault: false,
  tools: ['type', 'select_option', 'set_checkbox', 'clear', 'focus', 'blur'],
});

export const navigationExtraCap = defineCap({
  name: 'navigation-extra',
  description:
    'History back, reload, tabs and popups (pages), wait for the network to go idle, list the app routes, close modals and overlays.',
  byDefault: false,
  tools: ['navigate_back', 'reload', 'pages', 'wait_for_network_idle', 'get_routes', 'dismiss_modals', 'reset_overlays'],
});

export const viewportCap = defineCap({
  name: 'viewport',
  description: 'What the page looks like: a screenshot, resize the viewport, emulate a device preset, throttle the network.',
  byDefault: false,
  tools: ['screenshot', 'resize_viewport', 'device_profile', 'network'],
});

export const devtoolsCap = defineCap({
  name: 'devtools',
  description:
    'Console, exceptions, observe interactive elements, user-timing marks, the trace of the last measured window, ' +
    'memory leaks (perf_leaks), evaluate (also needs --allow evaluate).',
  byDefault: false,
  tools: ['console', 'exceptions', 'observe', 'mark', 'perf_trace', 'perf_leaks', 'evaluate'],
});

export const historyCap = defineCap({
  name: 'history',
  description: "Commits and trends: a metric's recorded runs and where it changed (perf_history), the commit that regressed (perf_bisect).",
  byDefault: false,
  tools: ['perf_history', 'perf_bisect'],
});

export const lifecycleExtraCap = defineCap({
  name: 'lifecycle-extra',
  description: 'Restart the app, read its logs, check the machine (doctor).',
  byDefault: false,
  tools: ['app_restart', 'app_logs', 'doctor'],
});

export const desktopCap = defineCap({
  name: 'desktop',
  description: "Call a Tauri desktop app's commands through its IPC.",
  byDefault: false,
  tools: ['tauri_invoke'],
});

export const terminalCap = defineCap({
  name: 'terminal',
  description: 'Send a signal to a terminal program.',
  byDefault: false,
  tools: ['signal'],
});

export const storageCap = defineCap({
  name: 'storage',
  description: "Save the browser's sign-in state (cookies, web storage) to a 0600 file, or load one (storage_save, storage_load).",
  byDefault: false,
  tools: ['storage_save', 'storage_load'],
});

export const CAPS: readonly CapDefinition[] = [
  coreCap,
  perfCap,
  pointerExtraCap,
  formsExtraCap,
  navigationExtraCap,
  viewportCap,
  devtoolsCap,
  historyCap,
  lifecycleExtraCap,
  desktopCap,
  terminalCap,
  storageCap,
];

/** Every cap: `--caps all`. */
export const ALL_CAPS = 'all';

export const DEFAULT_CAPS: readonly string[] = CAPS.filter((c) => c.byDefault).map((c) => c.name);

export function capOf(tool: string): CapDefinition | undefined {
  return CAPS.find((c) => c.tools.includes(tool));
}

/** The caps named (with `all`), checked: an unknown name is a usage error naming the known ones. `where` says which flag or file. */
export function resolveCaps(names: readonly string[], where: string): string[] {
  const out = new Set<string>();
  for (const raw of names) {
    const name = raw.trim();
    if (name === '') continue;
    if (name === ALL_CAPS) {
      for (const c of CAPS) out.add(c.name);
      continue;
    }
    if (!CAPS.some((c) => c.name === name)) {
      const known = [...CAPS.map((c) => c.name), ALL_CAPS];
      const near = closest(name, known);
      throw new PerfError({
        code: 'unknown_cap',
        message: `${where}: unknown cap "${name}"${near.length ? `; did you mean ${near.map((n) => `"${n}"`).join(' or ')}?` : ''}`,
        suggestion: `caps are ${known.join(', ')}`,
        candidates: near,
      });
    }
    out.add(name);
  }
  return [...out];
}
