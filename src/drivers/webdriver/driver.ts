/**
 * The webdriver driver: a browser or desktop app over W3C WebDriver (WebKit's MiniBrowser through
 * WebKitWebDriver, Chromium through chromedriver, a Tauri/WebKitGTK app through tauri-driver or
 * WebKitWebDriver). What it cannot do is said here once; the loader, the steps and the page driver's
 * refusals read it.
 */
import { defineDriver, lackMessage, type DriverProblem, type DriverScenarioView } from '../define.js';

export const webdriverDriver = defineDriver({
  name: 'webdriver',
  summary: 'W3C WebDriver: WebKit (MiniBrowser), Chromium via chromedriver, desktop apps (Tauri/WebKitGTK via tauri-driver)',
  surface: 'page',
  lacks: {
    network: 'WebDriver classic reports no network requests',
    userAgent: 'WebDriver cannot override the user agent',
    networkEmulation: "WebDriver cannot throttle the network (that is Chromium's Network.emulateNetworkConditions, over CDP)",
    trace: 'WebDriver records no Chromium trace',
    cpuThrottle: 'WebDriver cannot throttle the CPU',
    cpuProfile: 'WebDriver records no CPU profile (no function is named): every repeat is a timing repeat',
    deviceEmulation: 'over WebDriver the viewport is the window size only',
    jpegScreenshot: 'WebDriver captures PNG only',
    largeScreenshot: 'WebDriver captures the viewport, and a larger clip would need stitching',
    restartModes: 'over WebDriver every repeat is a new browser session',
  },
  // browser only: a new WebDriver session is the clean restart (a desktop app starts anew).
  restartModes: ['browser'],
  claims: (view) =>
    view.browser.driver === 'webdriver' || (view.browser.driver === undefined && (view.browser.engine === 'webkit' || !!view.app.desktop)),
  validate: (view) => [...desktopProblems(view), ...environmentProblems(view)],
  remote: [{ key: 'webdriver', flag: '--webdriver', what: 'a running WebDriver server: http://HOST:PORT' }],
});

function desktopProblems(view: DriverScenarioView): DriverProblem[] {
  // Firefox speaks BiDi only (no geckodriver here): the bidi driver drives it.
  if (view.browser.engine === 'firefox')
    return [
      {
        path: ['browser', 'driver'],
        message: 'engine firefox is driven over BiDi, not webdriver',
        suggestion: 'drop browser.driver, or set it to bidi',
      },
    ];
  if (!view.app.desktop || view.browser.engine !== 'chromium') return [];
  return [
    {
      path: ['browser', 'engine'],
      message: "app.desktop runs on WebKitGTK (Tauri's engine on Linux): engine must be webkit",
      suggestion: 'drop browser.engine',
    },
  ];
}

/** What a repeat would apply and WebDriver cannot honour: refused, not ignored. */
function environmentProblems(view: DriverScenarioView): DriverProblem[] {
  const problems: DriverProblem[] = [];
  const lacks = webdriverDriver.lacks;
  if (view.browser.endpoint !== undefined)
    problems.push({
      path: ['browser', 'endpoint'],
      message: 'browser.endpoint attaches to a Chrome over CDP; with driver webdriver give browser.webdriver (a WebDriver server URL)',
    });
  if (view.browser.restart !== undefined && !webdriverDriver.restartModes.some((m) => m === view.browser.restart))
    problems.push({
      path: ['browser', 'restart'],
      message: `${lacks.restartModes}: restart must be browser, got ${String(view.browser.restart)}`,
      suggestion: 'drop browser.restart',
    });
  const network = lackMessage(webdriverDriver, 'networkEmulation', 'network');
  if (view.network && network)
    problems.push({ path: ['network'], message: network, suggestion: 'drop network, or use browser.driver: cdp (Chromium)' });
  if (view.cpuThrottle !== undefined && view.cpuThrottle !== 1)
    problems.push({
      path: ['cpuThrottle'],
      message: `cpuThrottle needs the cdp driver (${lacks.cpuThrottle})`,
      suggestion: 'drop cpuThrottle, or use browser.driver: cdp',
    });
  if (view.viewport.mobile || view.viewport.touch || view.viewport.dpr !== 1)
    problems.push({
      path: ['viewport'],
      message: `${lacks.deviceEmulation}: mobile, touch and dpr other than 1 need the cdp driver`,
      suggestion: 'drop them, or use browser.driver: cdp',
    });
  return problems;
}
