/**
 * The StepHost over a BrowserSession: what the runner, the MCP server and the CLI verbs hand to
 * runStep(). The session's page changes on every restart; steps always get the current one.
 */
import { HostState } from '../host-state.js';
import { PerfError } from '../errors.js';
import type { HostPage, PageTabs, TerminalDriver } from '../page/index.js';
import type { StepHost } from '../steps/define.js';

/** Where the host's page comes from: a browser session (whose page a restart replaces), one attached page, or a terminal program. */
export type PageSource =
  | {
      readonly driver: HostPage;
      /** The browser's open pages (tabs, popups) and the selected one, made on first use when `create`. */
      tabs?(create: boolean): PageTabs | undefined;
    }
  | { readonly terminal: TerminalDriver };

/** A host over a connection to a running session (perf start / app_start): its page, app URL and folder. */
export function connectedHost(
  conn: {
    driver: HostPage;
    tabs?(create: boolean): PageTabs | undefined;
    state: { appUrl?: string; options: { cwd?: string } };
  },
  opts: HostOptions = {},
): SessionHost {
  return new SessionHost(conn, conn.state.appUrl, conn.state.options.cwd ?? process.cwd(), opts);
}

export interface HostOptions {
  /**
   * The host stays connected to its pages (a run, an MCP server; not a one-shot CLI verb): it may watch their
   * requests from the browser for their life, so the page keeps its own fetch (HostPage.installScripts).
   */
  watchNetwork?: boolean;
}

export class SessionHost implements StepHost {
  state = new HostState();
  /** The app page the host last saw (a restart replaces it); the selected tab may be another. */
  lastPage: HostPage | undefined;
  private lastTerminal: TerminalDriver | undefined;
  /** HostOptions.watchNetwork, for the pages opened from now on (a run sets it per repeat). */
  watchNetwork: boolean;

  constructor(
    private source: PageSource | undefined,
    private baseUrl: string | undefined,
    public cwd: string = process.cwd(),
    opts: HostOptions = {},
  ) {
    this.watchNetwork = opts.watchNetwork === true;
  }

  /** Point the host at another session / app (MCP app_start replaces the running app). */
  rebind(source: PageSource | undefined, baseUrl: string | undefined): void {
    this.source = source;
    this.baseUrl = baseUrl;
    this.state.clear();
  }

  surface(): 'page' | 'terminal' {
    return this.source && 'terminal' in this.source ? 'terminal' : 'page';
  }

  async terminal(): Promise<TerminalDriver> {
    const source = this.live();
    if (!('terminal' in source))
      throw new PerfError({ code: 'unsupported_on_driver', message: 'this app is a web page, not a terminal program' });
    const t = source.terminal;
    if (t !== this.lastTerminal) {
      this.lastTerminal = t;
      this.state.clear();
    }
    if (t.crashReason)
      throw new PerfError({
        code: 'page_crashed',
        kind: 'environment',
        message: t.crashReason,
      });
    return t;
  }

  private live(): PageSource {
    if (!this.source) {
      throw new PerfError({
        code: 'no_app',
        kind: 'environment',
        message: 'no app: nothing is running to act on',
      });
    }
    return this.source;
  }

  /** The session's pages, or undefined on a source without them (a terminal program). */
  pages(create = true): PageTabs | undefined {
    const source = this.live();
    return 'driver' in source ? source.tabs?.(create) : undefined;
  }

  async page(): Promise<HostPage> {
    const source = this.live();
    if (!('driver' in source))
      throw new PerfError({ code: 'unsupported_on_driver', message: 'this app is a terminal program, not a web page' });
    const main = source.driver;
    if (main !== this.lastPage) {
      // A new page (restart): per-page state such as the last snapshot belongs to the old one.
      this.lastPage = main;
      this.state.clear();
    }
    // Once pages are tracked, steps act on the selected one (back on its opener if it closed itself).
    // A perf window stays open across a switch; refs are per page (src/page/targets.ts refuses another page's).
    const tabs = source.tabs?.(false);
    await tabs?.settle();
    const page = tabs?.driver ?? main;
    if (page.crashReason) {
      throw new PerfError({
        code: 'page_crashed',
        kind: 'environment',
        message: page.crashReason,
      });
    }
    await page.installScripts({ watchNetwork: this.watchNetwork });
    return page;
  }

  appUrl(): string | undefined {
    return this.baseUrl;
  }
}
