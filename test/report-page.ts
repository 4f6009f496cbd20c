/**
 * What the tests of the HTML report share: a local beacon a hostile payload would call, and a page watch
 * that records every request and every error (console, exception, log) the opened report causes.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from '../src/drivers/cdp/browser.js';

export interface Beacon {
  server: Server;
  port: number;
  /** Paths requested so far: any hit means a payload ran. */
  hits: string[];
}

/** A server on 127.0.0.1 that records each request and answers with markup that would retitle a page. */
export async function startBeacon(): Promise<Beacon> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(req.url ?? '');
    res.end('<title>PWNED</title>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, hits };
}

/** Record the page's requests and errors from now on (`console` adds console.error/assert calls). */
export async function watchPage(page: Page, opts: { console?: boolean } = {}): Promise<{ requests: string[]; errors: string[] }> {
  const requests: string[] = [];
  const errors: string[] = [];
  page.on('Network.requestWillBeSent', (p) => requests.push(p.request.url));
  if (opts.console !== false) {
    page.on('Runtime.consoleAPICalled', (p) => {
      if (p.type === 'error' || p.type === 'assert') errors.push(p.args.map((x) => String(x.value ?? x.description)).join(' '));
    });
  }
  page.on('Runtime.exceptionThrown', (p) => errors.push(p.exceptionDetails.exception?.description ?? p.exceptionDetails.text));
  page.on('Log.entryAdded', (p) => {
    if (p.entry.level === 'error') errors.push(`${p.entry.source}: ${p.entry.text}`);
  });
  await Promise.all([page.send('Network.enable', {}), page.send('Runtime.enable'), page.send('Log.enable')]);
  return { requests, errors };
}
