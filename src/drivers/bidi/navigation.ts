/**
 * Navigation of one Firefox tab told by BiDi's browsingContext events, never by reading `location` in a loop:
 * a navigate's own reply and its fragmentNavigated say whether the document stayed; a step through the history
 * (browsingContext.traverseHistory) is committed when its reply comes, and navigationStarted, fragmentNavigated
 * and historyUpdated say what kind of entry it was; a new document is waited for by its load event. The events
 * are the session's subscription (CONTEXT_EVENTS, src/drivers/bidi/tabs.ts), filtered here by context.
 *
 * What Firefox 153 sends (probed headless): a navigate to `#x` on the same document, fragmentNavigated with the
 * reply's navigation id and nothing else; a pushState, historyUpdated; a traverseHistory onto a new document,
 * navigationStarted before its reply (then load after the reply, or no load when the page comes back from the
 * back/forward cache, complete already); onto a pushState entry, historyUpdated; onto a fragment, fragmentNavigated;
 * from `#x` back onto its own document without the fragment, no event at all (so no navigationStarted means the
 * document stayed); past the ends of the history, the error "no such history entry".
 */
import { within } from '../../deadline.js';
import { PerfError } from '../../errors.js';
import type { CommitKind, NavigationWatch } from '../page-driver.js';
import type { BidiSocket } from '../bidi-socket.js';
import { WebDriverError } from '../errors.js';

// 5 s past a wait's own deadline: the socket's timeout is for a browser that stopped answering at all (it marks
// the page gone), so a slow navigation must meet our deadline, which says what it waited for, first.
const SOCKET_SLACK_MS = 5000;

/** The navigation events this file reads; the session subscribes to them with the tab events (CONTEXT_EVENTS). */
export const NAVIGATION_EVENTS = [
  'browsingContext.navigationStarted',
  'browsingContext.fragmentNavigated',
  'browsingContext.historyUpdated',
] as const;

export type TraverseResult = { status: 'committed'; kind: CommitKind; loaded?: true } | { status: 'no_history' };

/** The timeout of a wait on Firefox's events, saying what was waited for (the command is left to end on its own). */
const notWithin = (what: string, ms: number) => (): PerfError =>
  new PerfError({ code: 'timeout', kind: 'failed', message: `${what} did not happen within ${ms} ms` });

/** The events of one tab as they come: which navigation started, whether the document stayed, and its next load. */
class TabEvents {
  started: { navigation: string | undefined; url: string } | undefined;
  sameDocument = false;
  readonly fragments = new Set<string>();
  private loadSeen = false;
  private wakeLoad: (() => void) | undefined;
  private readonly offs: (() => void)[];

  constructor(socket: BidiSocket, context: string) {
    const mine = (p: Record<string, unknown>): boolean => p.context === context;
    const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
    this.offs = [
      socket.on('browsingContext.navigationStarted', (p) => {
        if (mine(p)) this.started = { navigation: text(p.navigation), url: text(p.url) ?? '' };
      }),
      socket.on('browsingContext.fragmentNavigated', (p) => {
        if (!mine(p)) return;
        this.sameDocument = true;
        const id = text(p.navigation);
        if (id) this.fragments.add(id);
      }),
      socket.on('browsingContext.historyUpdated', (p) => {
        if (mine(p)) this.sameDocument = true;
      }),
      socket.on('browsingContext.load', (p) => {
        if (!mine(p)) return;
        this.loadSeen = true;
        this.wakeLoad?.();
      }),
    ];
  }

  get loaded(): boolean {
    return this.loadSeen;
  }

  /** Resolves at the tab's next load event (at once if one came since these events were first listened to). */
  nextLoad(): Promise<void> {
    if (this.loadSeen) return Promise.resolve();
    return new Promise((resolve) => (this.wakeLoad = resolve));
  }

  stop(): void {
    for (const off of this.offs.splice(0)) off();
  }
}

export class BidiNavigation {
  constructor(
    private readonly socket: BidiSocket,
    private readonly context: string,
  ) {}

  /** Open `url` and wait for its load (browsingContext.navigate, wait complete); a same-document one is its fragmentNavigated. */
  async navigate(url: string, timeoutMs: number): Promise<{ newDocument: boolean }> {
    const events = new TabEvents(this.socket, this.context);
    try {
      const go = this.socket.send<{ navigation?: string | null }>(
        'browsingContext.navigate',
        { context: this.context, url, wait: 'complete' },
        timeoutMs + SOCKET_SLACK_MS,
      );
      // Its timeout is the WebDriverError a W3C navigate times out with (the page driver words it as navigation_failed).
      const r = await within(
        go,
        timeoutMs,
        () => new WebDriverError('navigate to', 'timeout', `the load of ${url} did not happen within ${timeoutMs} ms`),
      );
      const stayed = r.navigation ? events.fragments.has(r.navigation) : events.fragments.size > 0;
      return { newDocument: !stayed };
    } finally {
      events.stop();
    }
  }

  /**
   * `delta` entries through the session history (-1: the Back button, 1: Forward), resolved once committed and,
   * onto a new document, loaded; `no_history` past either end.
   */
  async traverse(delta: number, timeoutMs: number): Promise<TraverseResult> {
    const deadline = Date.now() + timeoutMs;
    const step = delta < 0 ? 'back' : 'forward';
    const events = new TabEvents(this.socket, this.context);
    try {
      const go = this.socket.send('browsingContext.traverseHistory', { context: this.context, delta }, timeoutMs + SOCKET_SLACK_MS);
      try {
        await within(go, timeoutMs, notWithin(`the history step ${step} (browsingContext.traverseHistory's reply)`, timeoutMs));
      } catch (e) {
        if (e instanceof WebDriverError && e.error === 'no such history entry') return { status: 'no_history' };
        throw e;
      }
      const started = events.started;
      if (!started) return { status: 'committed', kind: 'same-document' };
      if (!events.loaded) {
        // A page restored from the back/forward cache fires no load event: it is complete already.
        const state = await this.readyState(Math.max(1, deadline - Date.now()));
        if (state !== 'complete') {
          const left = Math.max(1, deadline - Date.now());
          await within(events.nextLoad(), left, notWithin(`the load event of ${started.url} after the step ${step}`, left));
        }
      }
      return { status: 'committed', kind: 'new-document', loaded: true };
    } finally {
      events.stop();
    }
  }

  private async readyState(ms: number): Promise<string> {
    const r = await this.socket.send<{ type: string; result?: { value?: unknown } }>(
      'script.evaluate',
      { expression: 'document.readyState', target: { context: this.context }, awaitPromise: false, resultOwnership: 'none' },
      ms + SOCKET_SLACK_MS,
    );
    return r.type === 'success' && typeof r.result?.value === 'string' ? r.result.value : 'loading';
  }

  /** What the tab does while an action runs: a new document it started, a same-document route change, a load. */
  watch(): NavigationWatch {
    const events = new TabEvents(this.socket, this.context);
    return {
      get requested() {
        return events.started?.url;
      },
      get sameDocument() {
        return events.sameDocument;
      },
      get loaded() {
        return events.loaded;
      },
      stop: () => events.stop(),
    };
  }
}
