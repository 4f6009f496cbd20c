/**
 * Every wait on something outside the process has a deadline and says what it waited for: a CDP
 * endpoint that accepts the connection and never upgrades it, a WebDriver server that sends its
 * headers and then stalls, a real chromedriver frozen (SIGSTOP) while it should answer a new session
 * (killed and started once more, the session then opened on the new one), and URL credentials: sent
 * as Basic auth, never shown.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import net from 'node:net';
import { existsSync } from 'node:fs';
import { CdpConnection } from '../src/drivers/cdp/connection.js';
import { WebDriverClient } from '../src/drivers/webdriver/client.js';
import { startWebDriverServer, type WebDriverServer } from '../src/drivers/webdriver/server.js';
import { openWebDriverPage } from '../src/drivers/webdriver/session.js';
import { chromeBinary } from '../src/drivers/cdp/chrome.js';
import { hideCredentials, splitCredentials, withCredentialsOf } from '../src/url.js';

const servers: { close(): unknown }[] = [];
after(() => servers.forEach((s) => s.close()));

function listen(server: Server | net.Server): Promise<number> {
  servers.push(server);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)));
}

test(
  'CDP: an endpoint that accepts the connection and never upgrades it fails at the deadline, naming it',
  { timeout: 30_000 },
  async () => {
    const sockets: net.Socket[] = [];
    const silent = net.createServer((socket) => sockets.push(socket.on('error', () => undefined)));
    const port = await listen(silent);
    await assert.rejects(CdpConnection.connect(`ws://127.0.0.1:${port}/devtools/browser/x`, undefined, 1500), (e: Error) => {
      assert.match(
        e.message,
        new RegExp(
          `could not connect to Chrome at ws://127\\.0\\.0\\.1:${port}/devtools/browser/x: no WebSocket connection within 1500 ms`,
        ),
      );
      return true;
    });
    // The client's half-open socket ends when this side drops it.
    sockets.forEach((s) => s.destroy());
  },
);

test(
  "WebDriver: a server that sends its headers and then stalls the body fails at the command's deadline",
  { timeout: 30_000 },
  async () => {
    const stall = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"value":');
    });
    const port = await listen(stall);
    const client = WebDriverClient.attach(`http://127.0.0.1:${port}`, 'abc');
    await assert.rejects(client.getTimeouts(1000), /get timeouts: no answer from the WebDriver server in 1000 ms/);
    stall.closeAllConnections();
  },
);

test('URL credentials: Basic auth for fetch, kept for the WebSocket, shown as user:***@ in any text', () => {
  assert.deepEqual(splitCredentials('https://ada:k%40y@grid.example:4444'), {
    url: 'https://grid.example:4444',
    headers: { authorization: `Basic ${Buffer.from('ada:k@y').toString('base64')}` },
  });
  assert.deepEqual(splitCredentials('http://127.0.0.1:4444'), { url: 'http://127.0.0.1:4444', headers: {} });
  assert.equal(
    withCredentialsOf('https://ada:key@grid:4444', 'ws://grid:4444/session/1/se/cdp'),
    'ws://ada:key@grid:4444/session/1/se/cdp',
  );
  assert.equal(
    hideCredentials('Selenium Grid at https://ada:s3cret@grid:4444 (selenium+https://ada:s3cret@grid:4444/)'),
    'Selenium Grid at https://ada:***@grid:4444 (selenium+https://ada:***@grid:4444/)',
  );
  assert.equal(
    hideCredentials('no credentials: http://grid:4444/status, mail a@b.c'),
    'no credentials: http://grid:4444/status, mail a@b.c',
  );
});

test(
  'WebDriver: a chromedriver that does not answer the new session (frozen) is killed and started once more; the page opens on the new one',
  { timeout: 180_000, skip: existsSync('/usr/bin/chromedriver') ? false : 'needs chromedriver (apt-get install chromium-driver)' },
  async () => {
    const first = await startWebDriverServer('chromedriver');
    let second: WebDriverServer | undefined;
    let restarts = 0;
    process.kill(first.pids[0]!, 'SIGSTOP');
    try {
      const page = await openWebDriverPage({
        kind: 'chromedriver',
        endpoint: first.endpoint,
        chromePath: chromeBinary(),
        newSessionTimeoutMs: 3000,
        restartServer: async () => {
          restarts++;
          process.kill(first.pids[0]!, 'SIGCONT');
          await first.close();
          second = await startWebDriverServer('chromedriver');
          return { endpoint: second.endpoint, pid: second.pids[0]! };
        },
      });
      try {
        assert.equal(restarts, 1);
        assert.equal(page.driver.serverPid, second!.pids[0]);
        assert.equal(await page.driver.evaluate<number>('1 + 1'), 2);
      } finally {
        await page.close();
      }
    } finally {
      try {
        process.kill(first.pids[0]!, 'SIGCONT');
      } catch {
        /* gone */
      }
      await first.close();
      await second?.close();
    }
  },
);
