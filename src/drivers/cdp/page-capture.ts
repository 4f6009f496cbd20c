/**
 * Console, exception and fetch/XHR capture over CDP: the shared in-page program
 * (src/drivers/runtime/page-capture.ts) registered to run at document start in every document, so
 * nothing a page logs while it loads is missed, and its buffers read by evaluation. Its fetch/XHR counter stands down
 * in the documents of a page whose network the harness watches from the browser (network.ts watchNetwork).
 */
import type { Page } from './browser.js';
import type { ConsoleQuery, ConsoleRead, ExceptionQuery, ExceptionRead, PendingRequest } from '../page-driver.js';
import { CAPTURE_SOURCE, PENDING_REQUESTS_SOURCE, readConsoleSource, readExceptionsSource } from '../runtime/page-capture.js';
import { registerPageScript } from './inject.js';

registerPageScript('page-capture', CAPTURE_SOURCE);

export function readConsole(page: Page, q: ConsoleQuery): Promise<ConsoleRead> {
  return page.evaluate<ConsoleRead>(readConsoleSource(q));
}

export function readExceptions(page: Page, q: ExceptionQuery): Promise<ExceptionRead> {
  return page.evaluate<ExceptionRead>(readExceptionsSource(q));
}

/** fetch/XHR requests the page has started and not yet received a response for. */
export function pendingPageRequests(page: Page): Promise<PendingRequest[]> {
  return page.evaluate<PendingRequest[]>(PENDING_REQUESTS_SOURCE);
}
