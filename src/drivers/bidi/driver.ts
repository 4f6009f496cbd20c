/**
 * The bidi driver: Firefox (ESR 128 or later) over WebDriver BiDi, served by Firefox itself (no geckodriver).
 * The page side is the W3C page driver's (the in-page runtime, Actions input), its commands sent over BiDi.
 * What it cannot do is said here once; the loader, the steps and the page driver's refusals read it.
 */
import { defineDriver, type DriverProblem, type DriverScenarioView } from '../define.js';

export const bidiDriver = defineDriver({
  name: 'bidi',
  summary: 'WebDriver BiDi: Firefox ESR, launched headless on a fresh profile (browser.engine: firefox)',
  surface: 'page',
  lacks: {
    networkEmulation: 'Firefox over BiDi cannot throttle the network',
    trace: 'Firefox records no Chromium trace (no CDP)',
    cpuThrottle: 'Firefox over BiDi cannot throttle the CPU',
    cpuProfile: 'Firefox over BiDi records no CPU profile (no function is named): every repeat is a timing repeat',
    deviceEmulation: 'Firefox over BiDi sets the viewport and pixel ratio, not a device: it has no mobile or touch emulation',
    jpegScreenshot: 'the bidi driver captures PNG only',
    largeScreenshot: 'the bidi driver captures the viewport, and a larger clip would need stitching',
  },
  // context first: a new user context per repeat is clean (cookies, storage, cache) and costs no browser start.
  restartModes: ['context', 'reload', 'browser'],
  claims: (view) => view.browser.driver === 'bidi' || (view.browser.driver === undefined && view.browser.engine === 'firefox'),
  validate: (view) => problems(view),
  remote: [],
});

/** What a repeat would apply and Firefox over BiDi cannot honour: refused, not ignored. */
function problems(view: DriverScenarioView): DriverProblem[] {
  const out: DriverProblem[] = [];
  const lacks = bidiDriver.lacks;
  if (view.browser.engine !== undefined && view.browser.engine !== 'firefox')
    out.push({
      path: ['browser', 'engine'],
      message: `the bidi driver drives Firefox: engine must be firefox, got ${view.browser.engine}`,
    });
  if (view.browser.driver !== undefined && view.browser.driver !== 'bidi')
    out.push({
      path: ['browser', 'driver'],
      message: `engine firefox is driven over BiDi: driver must be bidi, got ${view.browser.driver}`,
      suggestion: 'drop browser.driver',
    });
  if (view.app.desktop)
    out.push({ path: ['app', 'desktop'], message: 'a desktop app runs on WebKitGTK, not Firefox', suggestion: 'drop browser.engine' });
  for (const key of ['endpoint', 'webdriver'] as const)
    if (view.browser[key] !== undefined)
      out.push({
        path: ['browser', key],
        message: `browser.${key} is not used by the bidi driver: it launches its own Firefox`,
        suggestion: `drop browser.${key}`,
      });
  if (view.network)
    out.push({ path: ['network'], message: `network: ${lacks.networkEmulation}`, suggestion: 'drop network, or use Chromium' });
  if (view.cpuThrottle !== undefined && view.cpuThrottle !== 1)
    out.push({ path: ['cpuThrottle'], message: `cpuThrottle: ${lacks.cpuThrottle}`, suggestion: 'drop cpuThrottle, or use Chromium' });
  if (view.viewport.mobile || view.viewport.touch)
    out.push({
      path: ['viewport'],
      message: `${lacks.deviceEmulation}: mobile and touch need Chromium`,
      suggestion: 'drop them (width, height and dpr are emulated)',
    });
  return out;
}
