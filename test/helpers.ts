/**
 * Shared test fixtures: one Chromium per test file, the demo app served on 127.0.0.1, and a
 * StepHost over them. Fixture pages live in test/fixtures/.
 */
import assert from 'node:assert/strict';
import { after } from 'node:test';
import { fileURLToPath } from 'node:url';
import { BrowserSession } from '../src/session/browser-session.js';
import { serveStatic, type StaticServer } from '../src/session/static-server.js';
import { SessionHost } from '../src/engine/host.js';

/** Repo root (tests run from dist/test). */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const DEMO_DIR = `${ROOT}scenarios/app`;
export const FIXTURES_DIR = `${ROOT}test/fixtures`;

let shared: Promise<{ session: BrowserSession; demo: StaticServer; fixtures: StaticServer }> | undefined;

// Registered at import time, so it belongs to the file (root) rather than to whichever test first
// asked for the browser.
after(async () => {
  if (!shared) return;
  const { session, demo, fixtures } = await shared;
  await session.close();
  await demo.close();
  await fixtures.close();
});

/**
 * One browser + servers for the whole test file, closed after the file's tests. Each test should
 * call `fresh()` to get a clean page (a context restart) on a URL.
 */
export function sharedBrowser(): Promise<{ session: BrowserSession; demo: StaticServer; fixtures: StaticServer }> {
  shared ??= (async () => {
    const [session, demo, fixtures] = await Promise.all([BrowserSession.open({}), serveStatic({ root: DEMO_DIR }), serveStatic({ root: FIXTURES_DIR })]);
    return { session, demo, fixtures };
  })();
  return shared;
}

/** A clean page (new context) on `url` and a StepHost over it. */
export async function fresh(url: string, baseUrl?: string): Promise<{ host: SessionHost; session: BrowserSession }> {
  const { session } = await sharedBrowser();
  await session.restart('context');
  await session.page.navigate(url);
  const host = new SessionHost(session, baseUrl ?? new URL(url).origin);
  return { host, session };
}

/** The ref on a snapshot line with this role and name: `- role "name" … [ref=eN]`, or interactiveOnly's `eN role name`. */
export function refOf(snapshot: string, role: string, name: string): string {
  for (const l of snapshot.split('\n')) {
    if (l.includes(role) && l.includes(`"${name}"`) && /\[ref=e\d+\]/.test(l)) return /\[ref=(e\d+)\]/.exec(l)![1]!;
    const compact = /^\s*(e\d+) (\w+) (.*?)(?: \[|$)/.exec(l);
    if (compact && compact[2] === role && compact[3] === name) return compact[1]!;
  }
  assert.fail(`a ${role} "${name}" line with a ref in:\n${snapshot.slice(0, 2000)}`);
}
