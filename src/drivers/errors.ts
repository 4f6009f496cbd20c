/** Errors every driver raises the same way, so the engine can name them without knowing the driver. */

/** The page or browser went away while a command was pending. */
export class TargetClosedError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'TargetClosedError';
  }
}
