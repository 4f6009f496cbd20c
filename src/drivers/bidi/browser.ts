/**
 * A Firefox with its one BiDi session, and its pages: the first tab of the default user context, or a tab
 * in a new user context (the `context` restart: cookies, storage and cache of its own, like a CDP browser
 * context). close() ends the session and the browser.
 */
import { launchFirefox, type Firefox } from './firefox.js';
import { BidiSocket } from '../bidi-socket.js';
import { BidiPageClient } from './client.js';
import { CONTEXT_EVENTS } from './tabs.js';

export interface FirefoxSession {
  firefox: Firefox;
  socket: BidiSocket;
  sessionId: string;
  capabilities: { browserName?: string; browserVersion?: string; userAgent?: string };
  close(): Promise<void>;
}

/** Launch Firefox and open its BiDi session (ws://127.0.0.1:PORT/session). */
export async function startFirefoxSession(opts: { headless: boolean }): Promise<FirefoxSession> {
  const firefox = await launchFirefox(opts);
  let socket: BidiSocket | undefined;
  try {
    socket = await BidiSocket.connect(`${firefox.endpoint}/session`, { peer: 'Firefox' });
    const s = await socket.send<{ sessionId: string; capabilities: FirefoxSession['capabilities'] }>('session.new', {
      capabilities: { alwaysMatch: { acceptInsecureCerts: true, unhandledPromptBehavior: { default: 'ignore' } } },
    });
    const sock = socket;
    // Once for the session, every context: tabs and popups (src/drivers/bidi/tabs.ts) are learnt from these events,
    // in this process and, through the relay, in every verb of a `perf start` session.
    await sock.subscribe(CONTEXT_EVENTS);
    return {
      firefox,
      socket: sock,
      sessionId: s.sessionId,
      capabilities: s.capabilities,
      close: async () => {
        await sock.send('session.end', {}, 2000).catch(() => undefined);
        sock.close();
        await firefox.close();
      },
    };
  } catch (e) {
    socket?.close();
    await firefox.close();
    throw e;
  }
}

export interface FirefoxPage {
  client: BidiPageClient;
  /** Close the tab, and its user context when it has its own. */
  close(): Promise<void>;
}

/** The browser's first tab (the default user context), or a new tab in a new user context. */
export async function openFirefoxTab(session: FirefoxSession, opts: { newUserContext: boolean }): Promise<FirefoxPage> {
  const { socket, capabilities } = session;
  const caps = {
    browserName: capabilities.browserName ?? 'firefox',
    ...(capabilities.browserVersion ? { browserVersion: capabilities.browserVersion } : {}),
  };
  if (!opts.newUserContext) {
    const { contexts } = await socket.send<{ contexts: { context: string; userContext?: string }[] }>('browsingContext.getTree', {
      maxDepth: 0,
    });
    const first = contexts.find((c) => (c.userContext ?? 'default') === 'default');
    const context = first?.context ?? (await socket.send<{ context: string }>('browsingContext.create', { type: 'tab' })).context;
    const client = new BidiPageClient(socket, context, 'default', caps);
    return { client, close: async () => client.newTabs.dispose() };
  }
  const { userContext } = await socket.send<{ userContext: string }>('browser.createUserContext', {});
  const { context } = await socket.send<{ context: string }>('browsingContext.create', { type: 'tab', userContext });
  const client = new BidiPageClient(socket, context, userContext, caps);
  return {
    client,
    // Removing the user context closes its tabs and drops its preload scripts, cookies and cache.
    close: async () => {
      client.newTabs.dispose();
      await socket.send('browser.removeUserContext', { userContext }).catch(() => undefined);
    },
  };
}

/** A page of a running session, from another process (a `perf start` session's verbs), through the daemon's relay. */
export async function attachFirefoxTab(
  relayUrl: string,
  context: string,
  capabilities: { browserName?: string; browserVersion?: string },
): Promise<{ client: BidiPageClient; close(): void }> {
  const socket = await BidiSocket.connect(relayUrl, { peer: 'the session daemon' });
  return { client: new BidiPageClient(socket, context, 'default', capabilities), close: () => socket.close() };
}
