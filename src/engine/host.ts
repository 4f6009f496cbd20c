/**
 * The StepHost over a BrowserSession: what the runner, the MCP server and the CLI verbs hand to
 * runStep(). The session's page changes on every restart; steps always get the current one.
 */
import { HostState } from '../host-state.js';
import type { Page } from '../drivers/cdp/browser.js';
import { installPageScripts } from '../drivers/cdp/inject.js';
import { PerfError } from '../errors.js';
import type { StepHost } from '../steps/define.js';

export interface PageSource {
  readonly page: Page;
}

export class SessionHost implements StepHost {
  state = new HostState();
  /** The page the host last handed out (a restart replaces it). */
  lastPage: Page | undefined;

  constructor(
    private source: PageSource | undefined,
    private baseUrl: string | undefined,
    public cwd: string = process.cwd(),
  ) {}

  /** Point the host at another session / app (MCP app_start replaces the running app). */
  rebind(source: PageSource | undefined, baseUrl: string | undefined): void {
    this.source = source;
    this.baseUrl = baseUrl;
    this.state.clear();
  }

  async page(): Promise<Page> {
    if (!this.source) {
      throw new PerfError({
        code: 'no_app',
        kind: 'environment',
        message: 'no app: nothing is running to act on',
        suggestion: 'call app_start (MCP) or run `perf start --serve DIR | --url URL` first',
      });
    }
    const page = this.source.page;
    if (page !== this.lastPage) {
      // A new page (restart): per-page state such as the last snapshot belongs to the old one.
      this.lastPage = page;
      this.state.clear();
    }
    if (page.crashReason) {
      throw new PerfError({ code: 'page_crashed', kind: 'environment', message: page.crashReason, suggestion: 'restart the app (app_restart / perf restart)' });
    }
    await installPageScripts(page);
    return page;
  }

  appUrl(): string | undefined {
    return this.baseUrl;
  }
}
