/**
 * Scripts the harness runs inside the page (the page runtime: refs, snapshot, console capture…).
 * Each module registers its source once; installPageScripts() puts all of them on a page: for
 * every future document (Page.addScriptToEvaluateOnNewDocument) and for the current one.
 * Sources must be idempotent: they may run twice on the same document.
 */
import type { Page } from './browser.js';

const scripts = new Map<string, string>();

/** Register a script by name (re-registering replaces it). `source` is a complete JS program. */
export function registerPageScript(name: string, source: string): void {
  scripts.set(name, source);
}

const installed = new WeakSet<Page>();

/**
 * Install every registered script on this page (once per Page object / CDP session). `future`
 * only: for a target still paused before its first document, which has no document to run in yet.
 */
export async function installPageScripts(page: Page, opts: { future?: boolean } = {}): Promise<void> {
  if (installed.has(page)) return;
  installed.add(page);
  const all = [...scripts.values()];
  if (all.length === 0) return;
  const source = all.join('\n;\n');
  await Promise.all([
    page.send('Page.addScriptToEvaluateOnNewDocument', { source }),
    ...(opts.future ? [] : [page.send('Runtime.evaluate', { expression: source, returnByValue: true })]),
  ]);
}
