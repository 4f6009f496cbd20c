/**
 * The pty driver: a terminal program in a pseudo-terminal (node-pty), its screen read by a headless
 * xterm. It has no browser: what only a browser honours is refused when the scenario loads.
 */
import { defineDriver } from '../define.js';

// The keys of a web app's environment; a terminal's screen is app.terminal.cols and rows.
const BROWSER_KEYS = ['browser', 'viewport', 'cpuThrottle', 'network'] as const;
// A page load's keys (measure: load, its cache state, its quiet rule).
const LOAD_KEYS = ['measure', 'cache', 'loadQuietMs'] as const;

export const ptyDriver = defineDriver({
  name: 'pty',
  summary: 'a terminal program in a pseudo-terminal (node-pty), its screen read by a headless xterm',
  surface: 'terminal',
  // Which steps run on a terminal is the steps' own say (a `terminal` handler), not a lack of page features.
  lacks: {
    storageState: 'a terminal program has no browser state (cookies, web storage) to save or restore',
    pages: 'a terminal program has one screen, no browser pages (tabs, popups) to switch between',
    cpuProfile: 'a terminal program is not profiled (its process CPU time is read; no function is named): every repeat is a timing repeat',
  },
  // browser: every repeat starts the program anew (what the run file's env.restartMode has always said).
  restartModes: ['browser'],
  claims: (view) => view.app.terminal,
  validate: (view) => [
    ...BROWSER_KEYS.filter((key) => view.given.has(key)).map((key) => ({
      path: [key],
      message: `${key} is for web apps; a terminal program's screen is app.terminal.cols and rows`,
      suggestion: `drop ${key}`,
    })),
    ...LOAD_KEYS.filter((key) => view.given.has(key)).map((key) => ({
      path: [key],
      message: `${key} is for web pages: a terminal program has no page load to measure`,
      suggestion: `drop ${key}; the steps after the program starts are the measured window`,
    })),
  ],
  remote: [],
});
