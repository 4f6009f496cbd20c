/**
 * The one BiDi socket both BiDi-speaking drivers use (Firefox's bidi driver, chromedriver's webSocketUrl), against a
 * real WebSocket server on a unix socket that answers as a browser would: answers matched by id in any order, events
 * to listeners, error answers as the typed errors, a deadline on every command, and a closed connection failing what
 * is pending at once. And the channel: scoped to a tab and its user context, or to the whole session.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type WebSocket from 'ws';
import { BidiSocket, bidiChannel } from '../src/drivers/bidi-socket.js';
import { TargetClosedError, WebDriverError, WebDriverTimeoutError } from '../src/drivers/errors.js';

interface Command {
  id: number;
  method: string;
  params: Record<string, unknown>;
}

/** A WebSocket server whose `answer` decides each command's reply (undefined: no reply); `received` keeps every command. */
async function fakeBrowser(answer: (c: Command, peer: WebSocket) => object | undefined) {
  const ws = await import('ws');
  // ws 7 (the version installed) hangs the server on its CommonJS export as Server; ws 8 exports WebSocketServer too.
  const Server = ws.WebSocketServer ?? (ws.default as typeof ws.default & { Server: typeof ws.WebSocketServer }).Server;
  const dir = mkdtempSync(join(tmpdir(), 'rehearse-bidi-'));
  const path = join(dir, 'bidi.sock');
  const http = createServer((_, res) => res.writeHead(404).end());
  const wss = new Server({ server: http });
  const received: Command[] = [];
  const peers: WebSocket[] = [];
  wss.on('connection', (peer) => {
    peers.push(peer);
    peer.on('message', (data) => {
      const c = JSON.parse(String(data)) as Command;
      received.push(c);
      const reply = answer(c, peer);
      if (reply) peer.send(JSON.stringify({ id: c.id, ...reply }));
    });
  });
  await new Promise<void>((r) => http.listen(path, () => r()));
  return {
    url: `ws+unix://${path}:/session`,
    received,
    dropAll: () => peers.forEach((p) => p.terminate()),
    close: async () => {
      for (const c of wss.clients) c.terminate();
      await new Promise<void>((r) => wss.close(() => r()));
      await new Promise<void>((r) => http.close(() => r()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

test(
  'BiDi socket: answers by id in any order, events to listeners, error answers as WebDriverError / TargetClosedError',
  { timeout: 30_000 },
  async () => {
    let held: Command | undefined;
    const browser = await fakeBrowser((c, peer) => {
      if (c.method === 'slow') return void (held = c);
      if (c.method === 'fast') {
        // Answer the fast one first, then the one held before it, and send an event between them.
        peer.send(JSON.stringify({ type: 'success', id: c.id, result: { which: 'fast' } }));
        peer.send(JSON.stringify({ type: 'event', method: 'network.beforeRequestSent', params: { n: 1 } }));
        peer.send(JSON.stringify({ type: 'success', id: held!.id, result: { which: 'slow' } }));
        return undefined;
      }
      if (c.method === 'refused') return { type: 'error', error: 'javascript error', message: 'boom\nat line 2' };
      if (c.method === 'gone') return { type: 'error', error: 'invalid session id', message: 'session ended' };
      return { type: 'success', result: {} };
    });
    const socket = await BidiSocket.connect(browser.url, { peer: 'the test browser' });
    try {
      const events: unknown[] = [];
      const all: string[] = [];
      const off = socket.on('network.beforeRequestSent', (p) => events.push(p));
      socket.onEvent((e) => all.push(e.method));
      const slow = socket.send<{ which: string }>('slow', {});
      const fast = socket.send<{ which: string }>('fast', {});
      assert.deepEqual(await Promise.all([slow, fast]), [{ which: 'slow' }, { which: 'fast' }]);
      assert.deepEqual(events, [{ n: 1 }]);
      assert.deepEqual(all, ['network.beforeRequestSent']);
      off();

      const refused = await socket.send('refused', {}).catch((e: unknown) => e);
      assert.ok(refused instanceof WebDriverError, String(refused));
      assert.equal(refused.error, 'javascript error');
      assert.equal(refused.message, 'BiDi refused: javascript error: boom');
      const gone = await socket.send('gone', {}).catch((e: unknown) => e);
      assert.ok(gone instanceof TargetClosedError && !(gone instanceof WebDriverError), String(gone));
      assert.match(gone.message, /invalid session id: session ended/);
    } finally {
      socket.close();
      await browser.close();
    }
  },
);

test(
  'BiDi socket: a deadline on every command (its own or the socket default); a dropped connection fails what is pending',
  { timeout: 30_000 },
  async () => {
    const browser = await fakeBrowser((c) => (c.method === 'never' ? undefined : { type: 'success', result: {} }));
    const socket = await BidiSocket.connect(browser.url, { peer: 'the test browser', commandTimeoutMs: 300 });
    const closes: string[] = [];
    socket.onClose((reason) => closes.push(reason));
    try {
      const byDefault = await socket.send('never', {}).catch((e: unknown) => e);
      assert.ok(byDefault instanceof WebDriverTimeoutError, String(byDefault));
      assert.equal(byDefault.timeoutMs, 300);
      assert.equal(byDefault.command, 'BiDi never');
      const own = await socket.send('never', {}, 100).catch((e: unknown) => e);
      assert.ok(own instanceof WebDriverTimeoutError && own.timeoutMs === 100, String(own));
      // A command given up on leaves the socket working.
      assert.deepEqual(await socket.send('ok', {}), {});

      const pending = socket.send('never', {}, 20_000).catch((e: unknown) => e);
      browser.dropAll();
      const dropped = await pending;
      assert.ok(dropped instanceof TargetClosedError, String(dropped));
      assert.match(dropped.message, /the BiDi connection closed \(the test browser exited\?\)/);
      assert.equal(socket.closed, dropped.message);
      const after = await socket.send('ok', {}).catch((e: unknown) => e);
      assert.ok(after instanceof TargetClosedError && after.message === dropped.message, String(after));
      assert.equal(closes.length, 1, 'the close handlers run once');
    } finally {
      socket.close();
      await browser.close();
    }
  },
);

test(
  'BiDi channel: scoped to a tab and its user context (Firefox), or to the whole session (chromedriver)',
  { timeout: 30_000 },
  async () => {
    const browser = await fakeBrowser((c) => ({
      type: 'success',
      result: c.method === 'script.addPreloadScript' ? { script: 'p1' } : c.method === 'session.subscribe' ? { subscription: 's1' } : {},
    }));
    const socket = await BidiSocket.connect(browser.url, { peer: 'the test browser' });
    try {
      const tab = bidiChannel(socket, { context: 'ctx-1', userContext: 'uc-1' });
      const session = bidiChannel(socket);
      // A source ending in a sourceURL comment: the closing brace must stay on a line of its own.
      assert.equal(await tab.addPreloadScript('window.x = 1;\n//# sourceURL=x.js'), 'p1');
      assert.equal(await session.addPreloadScript('window.y = 2;'), 'p1');
      await tab.removePreloadScript('p1');
      const unsubscribe = await tab.subscribe(['network.responseCompleted']);
      await session.subscribe(['log.entryAdded']);
      await unsubscribe();
      const sent = browser.received.map(({ method, params }) => ({ method, params }));
      assert.deepEqual(sent, [
        {
          method: 'script.addPreloadScript',
          params: { functionDeclaration: '() => {\nwindow.x = 1;\n//# sourceURL=x.js\n}', userContexts: ['uc-1'] },
        },
        { method: 'script.addPreloadScript', params: { functionDeclaration: '() => {\nwindow.y = 2;\n}' } },
        { method: 'script.removePreloadScript', params: { script: 'p1' } },
        { method: 'session.subscribe', params: { events: ['network.responseCompleted'], contexts: ['ctx-1'] } },
        { method: 'session.subscribe', params: { events: ['log.entryAdded'] } },
        { method: 'session.unsubscribe', params: { subscriptions: ['s1'] } },
      ]);
    } finally {
      socket.close();
      await browser.close();
    }
  },
);

test(
  'BiDi unsubscribe without a subscription id (servers before BiDi 2024) names the events and the contexts subscribed for',
  { timeout: 30_000 },
  async () => {
    // Firefox 153 refuses `events` alone for a subscription made for contexts ("Failed to unsubscribe from events").
    const browser = await fakeBrowser(() => ({ type: 'success', result: {} }));
    const socket = await BidiSocket.connect(browser.url, { peer: 'the test browser' });
    try {
      const tab = bidiChannel(socket, { context: 'ctx-1', userContext: 'uc-1' });
      await (
        await tab.subscribe(['network.responseCompleted'])
      )();
      await (
        await bidiChannel(socket).subscribe(['log.entryAdded'])
      )();
      assert.deepEqual(
        browser.received.filter((c) => c.method === 'session.unsubscribe').map((c) => c.params),
        [{ events: ['network.responseCompleted'], contexts: ['ctx-1'] }, { events: ['log.entryAdded'] }],
      );
    } finally {
      socket.close();
      await browser.close();
    }
  },
);
