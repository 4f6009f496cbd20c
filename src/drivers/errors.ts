/** Errors every driver raises the same way, so the engine can name them without knowing the driver. */

/** The page or browser went away while a command was pending. */
export class TargetClosedError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'TargetClosedError';
  }
}

/**
 * A WebDriver command got no answer in time. Still a TargetClosedError (a server that stopped
 * answering cannot be trusted with the next command, so the page counts as gone), but reported as
 * what it is: which command, which server, how long it waited.
 */
export class WebDriverTimeoutError extends TargetClosedError {
  constructor(
    readonly command: string,
    readonly server: string,
    readonly timeoutMs: number,
  ) {
    super(`${command}: no answer from the WebDriver server in ${timeoutMs} ms (${server}): the browser or the server hung`);
    this.name = 'WebDriverTimeoutError';
  }
}

/**
 * A WebDriver error answer (the server understood the command and refused it), with the W3C error name
 * (`javascript error`, `script timeout`, …): over WebDriver classic or the same commands over BiDi.
 */
export class WebDriverError extends Error {
  constructor(
    readonly command: string,
    readonly error: string,
    readonly detail: string,
  ) {
    super(`${command}: ${error}: ${detail.split('\n')[0]}`);
    this.name = 'WebDriverError';
  }
}
