/**
 * Where the page sends an action's settle itself (a beacon to 127.0.0.1), ahead of the settle
 * command's answer. On WebKit over WebDriver every command sent after a click that changed the DOM
 * starts in the page only once the page has rendered that change; the page's own request does not
 * wait for it. Each report's path carries this channel's random token and the action's number.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';

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

  private constructor(
    private readonly server: Server,
    private readonly base: string,
  ) {}

  static async start(): Promise<SettleReports> {
    const token = randomBytes(12).toString('hex');
    let self: SettleReports | undefined;
    const server = createServer((req, res) => {
      const m = new RegExp(`^/${token}/(\\d+)$`).exec(req.url ?? '');
      let body = '';
      let size = 0;
      req.on('data', (d: Buffer) => {
        size += d.length;
        if (size <= MAX_REPORT_BYTES) body += d.toString();
      });
      req.on('end', () => {
        res.writeHead(m && req.method === 'POST' ? 204 : 404, { 'access-control-allow-origin': '*' }).end();
        if (!m || req.method !== 'POST' || size > MAX_REPORT_BYTES) return;
        let value: unknown;
        try {
          value = JSON.parse(body);
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

/** The shape of a runtime settle (mutations, frames, detached): a stray request is not one. */
function isSettle(v: unknown): boolean {
  if (!v || typeof v !== 'object') return false;
  const s = v as Record<string, unknown>;
  return typeof s.mutations === 'number' && typeof s.noFrames === 'boolean' && typeof s.framesWaited === 'number' && typeof s.detached === 'boolean';
}
