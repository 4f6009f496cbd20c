/**
 * The cdp driver: Chromium over the Chrome DevTools Protocol, launched here or reached at an endpoint.
 * A Selenium Grid is a connect mode of this driver, not a driver of its own: the browser it hands out
 * is Chromium driven over CDP (through the Grid's se:cdp), with every step, metric and lack of cdp;
 * only how the browser is obtained differs, which is what `remote` describes.
 */
import { defineDriver, type DriverProblem } from '../define.js';

export const cdpDriver = defineDriver({
  name: 'cdp',
  summary:
    'Chromium over the Chrome DevTools Protocol: launched, an existing Chrome (ws:// or http://), or a Selenium Grid 4 (selenium+http://)',
  surface: 'page',
  lacks: {},
  // context first: the default clean repeat (a fresh browser context, the browser kept).
  restartModes: ['context', 'reload', 'browser'],
  claims: (view) =>
    view.browser.driver === 'cdp' ||
    (view.browser.driver === undefined && view.browser.engine !== 'webkit' && view.browser.engine !== 'firefox' && !view.app.desktop),
  validate(view) {
    const problems: DriverProblem[] = [];
    if (view.app.desktop)
      problems.push({
        path: ['browser', 'driver'],
        message: 'app.desktop is driven over WebDriver, not cdp',
        suggestion: 'drop browser.driver',
      });
    else if (view.browser.engine === 'webkit')
      problems.push({
        path: ['browser', 'driver'],
        message: 'engine webkit is driven over WebDriver, not cdp',
        suggestion: 'drop browser.driver, or set it to webdriver',
      });
    // Else Chromium ran a scenario that said Firefox, and the run file called it a Chromium run without a word.
    else if (view.browser.engine === 'firefox')
      problems.push({
        path: ['browser', 'driver'],
        message: 'engine firefox is driven over BiDi, not cdp',
        suggestion: 'drop browser.driver, or set it to bidi',
      });
    return problems;
  },
  remote: [
    { key: 'endpoint', flag: '--endpoint', what: 'an existing Chrome: ws://… or http://127.0.0.1:PORT' },
    { key: 'endpoint', flag: '--grid', what: 'a Selenium Grid 4: selenium+http://HOST:4444, each browser a new Grid session' },
  ],
});
