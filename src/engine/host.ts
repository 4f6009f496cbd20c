/**
 * The StepHost over a BrowserSession: what the runner, the MCP server and the CLI verbs hand to
 * runStep(). The session's page changes on every restart; steps always get the current one.
 */
import { HostState } from '../host-state.js';
import { PerfError } from '../errors.js';
import type { HostPage, TerminalDriver } from '../page/index.js';
import type { StepHost } from '../steps/define.js';

/** Where the host's page comes from: a browser session (whose page a restart replaces), one attached page, or a terminal program. */
export type PageSource = { readonly driver: HostPage } | { readonly terminal: TerminalDriver };

/** A host over a connection to a running session (perf start / app_start): its page, app URL and folder. */
export function connectedHost(conn: { driver: HostPage; state: { appUrl?: string; options: { cwd?: string } } }): SessionHost {
  return new SessionHost(conn, conn.state.appUrl, conn.state.options.cwd ?? process.cwd());
}

export class SessionHost implements StepHost {
  state = new HostState();
  /** The page the host last handed out (a restart replaces it). */
  lastPage: HostPage | undefined;
  private lastTerminal: TerminalDriver | undefined;

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

  async page(): Promise<HostPage> {
    const source = this.live();
    if (!('driver' in source))
      throw new PerfError({ code: 'unsupported_on_driver', message: 'this app is a terminal program, not a web page' });
    const page = source.driver;
    if (page !== this.lastPage) {
      // A new page (restart): per-page state such as the last snapshot belongs to the old one.
      this.lastPage = page;
      this.state.clear();
    }
    if (page.crashReason) {
      throw new PerfError({
        code: 'page_crashed',
        kind: 'environment',
        message: page.crashReason,
      });
    }
    await page.installScripts();
    return page;
  }

  appUrl(): string | undefined {
    return this.baseUrl;
  }
}
