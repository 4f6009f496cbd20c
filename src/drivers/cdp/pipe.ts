/**
 * Chromium's DevTools pipe (`--remote-debugging-pipe`): commands go in on the browser's fd 3, answers
 * and events come out on its fd 4, each message JSON ended by a NUL byte. Only the process that spawned
 * the browser holds these descriptors, so no other process or local user can attach, as any of them can
 * to a loopback port. Presents what CdpConnection needs of a client (see CdpClient in connection.ts).
 */
import { EventEmitter } from 'node:events';
import type { Readable, Writable } from 'node:stream';

/** The browser's end of the pipe pair, as the harness holds it. */
export interface DevToolsPipe {
  /** Our end of the browser's fd 3: what we write, it reads. */
  commands: Writable;
  /** Our end of the browser's fd 4: what it writes, we read. */
  answers: Readable;
}

export type Callback = (error: unknown, response: unknown) => void;

interface Message {
  id?: number;
  method?: string;
  params?: unknown;
  sessionId?: string;
  result?: unknown;
  error?: unknown;
}

const NUL = 0;

/**
 * A CDP client over the pipe. Like chrome-remote-interface's client: `send` answers through a callback
 * (`true` and the protocol error, or `false` and the result), events are emitted by method and by
 * `method.sessionId`, and 'disconnect' when the browser's end closes (not after our own close()).
 */
export class PipeClient extends EventEmitter {
  private nextId = 1;
  private readonly callbacks = new Map<number, Callback>();
  /** The start of a message whose NUL has not arrived yet. */
  private partial: Buffer[] = [];
  private closedByUs = false;
  private gone = false;

  constructor(private readonly pipe: DevToolsPipe) {
    super();
    // One listener per page session and event is normal for us, not a leak.
    this.setMaxListeners(0);
    pipe.answers.on('data', (chunk: Buffer) => this.receive(chunk));
    // Queued behind the messages already read, so every answer is delivered before the loss.
    const lose = (): void => void setImmediate(() => this.lose());
    pipe.answers.on('close', lose);
    pipe.answers.on('error', lose);
    // A write after the browser died fails with EPIPE: the loss is reported by the reading side.
    pipe.commands.on('error', lose);
  }

  send(method: string, params: unknown, sessionId: string | undefined, callback: Callback): void {
    if (this.gone) {
      callback(new Error('the pipe to the browser is closed'), undefined);
      return;
    }
    const id = this.nextId++;
    this.callbacks.set(id, callback);
    this.pipe.commands.write(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }) + '\0');
  }

  private receive(chunk: Buffer): void {
    let start = 0;
    let end: number;
    // A NUL byte never occurs inside UTF-8 text, so splitting the bytes there cuts no character in two.
    while ((end = chunk.indexOf(NUL, start)) >= 0) {
      this.partial.push(chunk.subarray(start, end));
      const text = Buffer.concat(this.partial).toString('utf8');
      this.partial = [];
      start = end + 1;
      // Each message in a task of its own, as Playwright's pipe transport does: what awaited one answer
      // runs before the next message (an event it subscribes to then) is delivered.
      setImmediate(() => this.dispatch(text));
    }
    if (start < chunk.length) this.partial.push(chunk.subarray(start));
  }

  private dispatch(text: string): void {
    if (this.gone) return;
    let message: Message;
    try {
      message = JSON.parse(text) as Message;
    } catch {
      // Nothing after a message we cannot read can be trusted to line up: the channel is lost.
      this.lose();
      return;
    }
    if (message.id !== undefined) {
      const callback = this.callbacks.get(message.id);
      this.callbacks.delete(message.id);
      if (message.error) callback?.(true, message.error);
      else callback?.(false, message.result ?? {});
    } else if (message.method) {
      this.emit(message.method, message.params, message.sessionId);
      if (message.sessionId) this.emit(`${message.method}.${message.sessionId}`, message.params, message.sessionId);
    }
  }

  /** The channel is gone: both ends are dropped, every command still waiting fails, and 'disconnect' unless we closed it. */
  private lose(): void {
    if (this.gone) return;
    this.gone = true;
    this.pipe.commands.destroy();
    this.pipe.answers.destroy();
    const waiting = [...this.callbacks.values()];
    this.callbacks.clear();
    for (const callback of waiting) callback(new Error('the pipe to the browser closed'), undefined);
    if (!this.closedByUs) this.emit('disconnect');
  }

  /**
   * Drop our ends at once: there is no closing handshake on a pipe, and the browser quits by itself
   * when its end of the commands closes (Chromium exits when its DevTools pipe does).
   */
  close(): Promise<void> {
    this.terminate();
    return Promise.resolve();
  }

  terminate(): void {
    this.closedByUs = true;
    this.lose();
  }
}
