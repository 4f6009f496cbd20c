/**
 * Where the page sends an action's settle itself (a beacon to 127.0.0.1), ahead of the settle
 * command's answer. On WebKit over WebDriver every command sent after a click that changed the DOM
 * starts in the page only once the page has rendered that change; the page's own request does not
 * wait for it. Each report's path carries this channel's random token and the action's number.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

// A settle is a few hundred bytes (its read-back text is cut in the page): anything larger is not ours.
const MAX_REPORT_BYTES = 64 * 1024;
// Reports whose settle command was already answered are never claimed: keep only the latest few.
const MAX_UNCLAIMED = 8;

export interface SettleReportWait {
  report: Promise<unknown>;
  cancel(): void;
}

export class SettleReports {
  private readonly waiting = new Map<number, (value: unknown) => void>();
  private readonly early = new Map<number, unknown>();
  /** Reports received: how a test sees that the page's own report was used. */
  received = 0;
  /** Request body bytes read in all: how a test sees that an oversized upload was cut off, not read. */
  bodyBytesRead = 0;

  private constructor(
    private readonly server: Server,
    private readonly base: string,
  ) {}

  static async start(): Promise<SettleReports> {
    const token = randomBytes(12).toString('hex');
    const path = new RegExp(`^/${token}/(\\d+)$`);
    let self: SettleReports | undefined;
    const server = createServer((req, res) => {
      const m = path.exec(req.url ?? '');
      // No CORS header on any answer: the page's beacon is text/plain (a CORS-safelisted type), sent
      // and delivered whatever the answer says, so no other origin is ever invited to read one.
      if (!m || req.method !== 'POST') {
        req.resume();
        res.writeHead(404, { 'content-length': '0' }).end();
        return;
      }
      if (Number(req.headers['content-length'] ?? 0) > MAX_REPORT_BYTES) {
        refuseOversized(req, res);
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (d: Buffer) => {
        if (size > MAX_REPORT_BYTES) return;
        size += d.length;
        if (self) self.bodyBytesRead += d.length;
        if (size > MAX_REPORT_BYTES) refuseOversized(req, res);
        else chunks.push(d);
      });
      req.on('end', () => {
        if (size > MAX_REPORT_BYTES) return;
        res.writeHead(204).end();
        let value: unknown;
        try {
          value = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          return;
        }
        self?.deliver(Number(m[1]), value);
      });
    });
    // The harness's own process ends when its work does, not when this server would.
    server.unref();
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', () => resolve()));
    const { port } = server.address() as { port: number };
    self = new SettleReports(server, `http://127.0.0.1:${port}/${token}`);
    return self;
  }

  url(seq: number): string {
    return `${this.base}/${seq}`;
  }

  /** The report of action `seq`, whenever it comes (never, when the page could not send it). */
  wait(seq: number): SettleReportWait {
    let cancel = (): void => undefined;
    const report = new Promise<unknown>((resolve) => {
      if (this.early.has(seq)) {
        resolve(this.early.get(seq));
        this.early.delete(seq);
        return;
      }
      this.waiting.set(seq, resolve);
      cancel = () => this.waiting.delete(seq);
    });
    return { report, cancel };
  }

  private deliver(seq: number, value: unknown): void {
    if (!isSettle(value)) return;
    this.received++;
    const resolve = this.waiting.get(seq);
    if (resolve) {
      this.waiting.delete(seq);
      resolve(value);
      return;
    }
    this.early.set(seq, value);
    for (const k of this.early.keys()) if (this.early.size > MAX_UNCLAIMED) this.early.delete(k);
  }

  close(): Promise<void> {
    this.waiting.clear();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    // The browser keeps its beacon connections open: close() alone would wait for them.
    this.server.closeAllConnections();
    return closed;
  }
}

/**
 * An upload past MAX_REPORT_BYTES: answered 413 when the answer can still go out, the rest of the body
 * left unread, and the connection closed once the answer is flushed (or at once, when it cannot be).
 */
function refuseOversized(req: IncomingMessage, res: ServerResponse): void {
  req.pause();
  if (res.headersSent) {
    req.destroy();
    return;
  }
  res.writeHead(413, { connection: 'close', 'content-length': '0' }).end(() => req.destroy());
}

/** The shape of a runtime settle (mutations, frames, detached): a stray request is not one. */
function isSettle(v: unknown): boolean {
  if (!v || typeof v !== 'object') return false;
  const s = v as Record<string, unknown>;
  return (
    typeof s.mutations === 'number' &&
    typeof s.noFrames === 'boolean' &&
    typeof s.framesWaited === 'number' &&
    typeof s.detached === 'boolean'
  );
}
