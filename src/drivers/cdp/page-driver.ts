/**
 * The CDP driver's PageDriver: the page contract (src/drivers/page-driver.ts) over one CDP Page.
 * One driver object per Page, so a host can tell a restarted page from the one it had.
 */
import type { Page } from './browser.js';
import { applyNetwork, applyViewport, clearEmulation, currentNetwork, readViewport } from './emulation.js';
import { evaluateExpression } from './evaluate.js';
import { installPageScripts } from './inject.js';
import { click, clickOverlapped, drag, hover, insertText, pressKey, selectAllKey, typeText, wheel } from './input.js';
import { back, reload, watchNavigation } from './navigation.js';
import { networkActivity, watchNetwork } from './network.js';
import { pendingPageRequests, readConsole, readExceptions } from './page-capture.js';
import { callRuntime } from './page-runtime.js';
import { measureLoad } from './load.js';
import { collectGarbage, takeHeapSnapshot } from './heap.js';
import { markInPage, PerfSession } from './perf-session.js';
import { captureScreenshot, pageGeometry } from './screenshot.js';
import { cdpStorage } from './storage.js';
import type { PageStorage } from '../storage.js';
import type {
  HostPage,
  NetworkConditions,
  PageCapture,
  PageEmulation,
  PageInput,
  PageNavigation,
  PagePerf,
  RuntimeCallOptions,
  UserAgentSpec,
  ViewportSpec,
} from '../page-driver.js';
import type { RuntimeApi, RuntimeMethod } from '../runtime/api.js';

class CdpPageDriver implements HostPage {
  readonly input: PageInput;
  readonly emulation: PageEmulation;
  readonly navigation: PageNavigation;
  readonly capture: PageCapture;
  readonly perf: PagePerf;
  readonly storage: PageStorage;

  constructor(readonly page: Page) {
    this.storage = cdpStorage(page);
    this.input = {
      click: (x, y, opts) => click(page, x, y, opts),
      clickOverlapped: (x, y, opts) => clickOverlapped(page, x, y, opts),
      hover: (x, y) => hover(page, x, y),
      drag: (from, to, opts) => drag(page, from, to, opts),
      wheel: (x, y, dx, dy) => wheel(page, x, y, dx, dy),
      pressKey: (key, modifiers, repeat) => pressKey(page, key, modifiers, repeat),
      typeText: (text) => typeText(page, text),
      insertText: (text) => insertText(page, text),
      selectAll: () => selectAllKey(page),
    };
    this.emulation = {
      applyViewport: (v) => applyViewport(page, v),
      clear: () => clearEmulation(page),
      readViewport: () => readViewport(page),
      viewportOverridden: () => page.emulation.deviceMetricsOverride === true,
      browserUserAgent: () => page.browser.version.userAgent.replace('HeadlessChrome/', 'Chrome/'),
      setUserAgent: (ua) => setUserAgent(page, ua),
      network: { apply: (c) => applyNetwork(page, c), current: () => currentNetwork(page) },
    };
    this.navigation = {
      navigate: (url, timeoutMs) => page.navigate(url, timeoutMs),
      reload: (opts) => reload(page, opts),
      back: (timeoutMs) => back(page, timeoutMs),
      watch: () => watchNavigation(page),
    };
    this.capture = {
      screenshot: (opts) => captureScreenshot(page, opts),
      geometry: () => pageGeometry(page),
      console: (q) => readConsole(page, q),
      exceptions: (q) => readExceptions(page, q),
      pendingRequests: () => pendingPageRequests(page),
      network: () => networkActivity(page),
    };
    this.perf = {
      mark: (name) => markInPage(page, name),
      begin: (opts) => PerfSession.begin(page, opts),
      load: (url, opts) => measureLoad(page, url, opts),
      collectGarbage: () => collectGarbage(page),
      heapSnapshot: (file) => takeHeapSnapshot(page, file),
    };
  }

  get crashReason(): string | undefined {
    return this.page.crashReason;
  }

  onCrash(fn: (reason: string) => void): () => void {
    return this.page.onCrash(fn);
  }

  call<M extends RuntimeMethod>(
    method: M,
    args: Parameters<RuntimeApi[M]>,
    opts?: RuntimeCallOptions,
  ): Promise<Awaited<ReturnType<RuntimeApi[M]>>> {
    return callRuntime(this.page, method, args, opts);
  }

  evaluate<T>(expression: string, opts: { timeoutMs?: number } = {}): Promise<T> {
    return this.page.evaluate<T>(expression, opts);
  }

  evaluateUser(expression: string, opts: { deadline: number; timeoutMs: number }) {
    return evaluateExpression(this.page, expression, opts);
  }

  async bringToFront(): Promise<void> {
    await Promise.all([
      this.page.send('Page.bringToFront').catch(() => undefined),
      this.page.send('Emulation.setFocusEmulationEnabled', { enabled: true }).catch(() => undefined),
    ]);
  }

  async installScripts(opts: { future?: boolean; watchNetwork?: boolean } = {}): Promise<void> {
    await Promise.all([installPageScripts(this.page, opts), opts.watchNetwork && watchNetwork(this.page, opts)]);
  }

  async emulateEnvironment(env: { viewport: ViewportSpec; cpuThrottle: number; network?: NetworkConditions | undefined }): Promise<void> {
    await Promise.all([
      // Off too when a step throttled this page in the last repeat (a reload restart keeps the page);
      // a page nobody throttled is spared the round trip.
      ...(env.network || this.page.emulation.network ? [applyNetwork(this.page, env.network)] : []),
      // The same viewport and touch emulation as resize_viewport (screen = viewport, as device mode does).
      applyViewport(this.page, env.viewport),
      this.page.send('Emulation.setCPUThrottlingRate', { rate: env.cpuThrottle }),
      // Headless pages count as focused only with this; without it some apps skip focus handlers.
      this.page.send('Emulation.setFocusEmulationEnabled', { enabled: true }),
    ]);
  }

  alive(): boolean {
    return !this.page.crashReason && !this.page.isClosed && this.page.browser.isConnected;
  }
}

/** User agent and, when the preset names a platform, its client hints (navigator.userAgentData). */
async function setUserAgent(page: Page, ua: UserAgentSpec): Promise<void> {
  const major = /Chrome\/(\d+)/.exec(ua.userAgent)?.[1];
  await page.send('Emulation.setUserAgentOverride', {
    userAgent: ua.userAgent,
    ...(ua.platform && major
      ? {
          userAgentMetadata: {
            brands: [
              { brand: 'Chromium', version: major },
              { brand: 'Not_A Brand', version: '24' },
            ],
            platform: ua.platform.name,
            platformVersion: ua.platform.version,
            architecture: '',
            model: ua.platform.model,
            mobile: ua.mobile,
          },
        }
      : {}),
  });
}

const drivers = new WeakMap<Page, CdpPageDriver>();

/** The driver of a CDP page: the same object for the same page. */
export function cdpPageDriver(page: Page): HostPage {
  let d = drivers.get(page);
  if (!d) drivers.set(page, (d = new CdpPageDriver(page)));
  return d;
}
