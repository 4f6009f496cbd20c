/**
 * A measured window over WebDriver: the in-page probe only (src/drivers/runtime/perf-probe.ts).
 * Frames come from its requestAnimationFrame counter, interactions from Event Timing, long frames
 * from Long Animation Frames and layout shifts from their observer, where the engine has them.
 * There is no binding, so entries wait in the page until the final flush; a navigation inside the
 * window loses the old document's entries (reported). No trace, no CPU profile, no Performance
 * counters: coverage names each as missing.
 */
import { randomBytes } from 'node:crypto';
import {
  BEGIN_MARK,
  END_MARK,
  checkBeginOptions,
  sessionWithout,
  type MissingReasons,
  type PerfBeginOptions,
  type PerfMode,
  type PerfRecorder,
  type ProbeSupport,
  type RawSession,
  type SessionEnv,
  type SessionMark,
} from '../measure.js';
import { contentProcesses, cpuBetween, type ContentProcess } from './proc.js';
import {
  markSource,
  nextFrameSource,
  perfProbeFlushSource,
  perfProbeSource,
  perfProbeStopSource,
  type ProbeFlush,
  ProbeReadings,
} from '../runtime/perf-probe.js';

/** What the session needs of the page: evaluate, the browser the server reported, and the local server's pid if any. */
export interface ProbePage {
  evaluate<T>(expression: string): Promise<T>;
  readonly capabilities: { browserName?: string; browserVersion?: string };
  /** The WebDriver server's pid when it runs here (started by the harness): its web content processes are read from /proc. */
  readonly serverPid: number | undefined;
}

const WHY = 'not available over WebDriver';

export class WebDriverPerfSession implements PerfRecorder {
  private readonly marks: SessionMark[] = [];
  private closed = false;
  private processesBefore: ContentProcess[] | undefined;
  startedAt = Date.now();

  private constructor(
    private readonly page: ProbePage,
    readonly token: string,
    private readonly opts: PerfBeginOptions,
  ) {}

  get mode(): PerfMode {
    return this.opts.mode;
  }

  static async begin(page: ProbePage, opts: PerfBeginOptions): Promise<WebDriverPerfSession> {
    checkBeginOptions(opts);
    const s = new WebDriverPerfSession(page, `ps-${randomBytes(4).toString('hex')}`, opts);
    // No trace to count frames in: the probe's rAF loop counts them.
    await page.evaluate(perfProbeSource(s.token, Date.now(), true));
    s.marks.push({ name: BEGIN_MARK, at: await page.evaluate<number>(markSource(BEGIN_MARK)) });
    if (page.serverPid !== undefined) s.processesBefore = contentProcesses(page.serverPid);
    s.startedAt = Date.now();
    return s;
  }

  /** The probe for a document the window moves on to (a measured load's); undefined once the session has closed. */
  documentProbeSource(): string | undefined {
    return this.closed ? undefined : perfProbeSource(this.token, this.startedAt, true);
  }

  addMark(mark: SessionMark): void {
    this.marks.push(mark);
  }

  async end(): Promise<RawSession> {
    // The frame that shows the last input's result belongs to the window (a page that cannot answer is read as it is).
    await this.page.evaluate(nextFrameSource()).catch(() => undefined);
    // Read first, so the CPU counted is the window's and not the flush's that follows.
    const after = this.page.serverPid !== undefined ? contentProcesses(this.page.serverPid) : undefined;
    const endedAt = Date.now();
    const durationMs = endedAt - this.startedAt;
    const missing: MissingReasons = {
      trace: `the Chromium trace is ${WHY}`,
      counters: `Performance counters are ${WHY}`,
      memory: 'no heap over WebDriver: see process.maxRssBytes',
      // In either mode: a timing window's insights then know a profile cannot be had here, not just that none was asked.
      profile: `the CPU profile is ${WHY}`,
    };
    const probe = new ProbeReadings(this.token);
    let support: ProbeSupport | undefined;
    let probeMissing: string | undefined;
    try {
      this.marks.push({ name: END_MARK, at: await this.page.evaluate<number>(markSource(END_MARK)) });
      const flush = await this.page.evaluate<ProbeFlush | null>(perfProbeFlushSource(this.token));
      if (flush) {
        probe.takeFlush(flush);
        support = flush.support;
      } else
        probeMissing =
          'the in-page probe is gone (the page navigated during the window; over WebDriver its entries go with the old document)';
    } catch (e) {
      probeMissing = `could not read the in-page probe: ${(e as Error).message}`;
    }
    let usage: RawSession['process'];
    if (this.page.serverPid === undefined)
      missing.process = 'the WebDriver server is not one this harness started, so its processes cannot be read';
    else if (!this.processesBefore || !after) missing.process = '/proc could not be read';
    else if (after.length === 0) missing.process = 'no web content process was found under the WebDriver server';
    else usage = { cpuMs: cpuBetween(this.processesBefore, after), maxRssBytes: Math.max(...after.map((p) => p.maxRssBytes)) };
    const env = await this.readEnv().catch((): SessionEnv => ({
      browser: 'unknown',
      userAgent: '',
      headless: false,
      viewport: { width: 0, height: 0, dpr: 1, mobile: false },
      cpuThrottle: 1,
      cpuThrottleSource: 'default',
      url: '',
    }));
    await this.dispose();
    return sessionWithout({
      token: this.token,
      mode: this.opts.mode,
      phases: this.opts.phases,
      startedAt: this.startedAt,
      endedAt,
      durationMs,
      messages: probe.messages,
      docFrames: probe.docFrames,
      interactionCount: probe.interactionCount,
      ...(probe.shown !== undefined ? { pageShown: probe.shown } : {}),
      support,
      probeMissing,
      marks: this.marks,
      ...(usage ? { process: usage } : {}),
      missing,
      env,
    });
  }

  async dispose(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.page.evaluate(perfProbeStopSource(this.token)).catch(() => undefined);
  }

  private async readEnv(): Promise<SessionEnv> {
    const ua = this.page.capabilities;
    const view = await this.page.evaluate<{ width: number; height: number; dpr: number; mobile: boolean; url: string; ua: string }>(
      `({ width: innerWidth, height: innerHeight, dpr: devicePixelRatio, mobile: matchMedia('(pointer: ` +
        `coarse)').matches && 'ontouchstart' in window, url: location.href, ua: navigator.userAgent })`,
    );
    return {
      browser: `${ua.browserName ?? 'unknown'}/${ua.browserVersion ?? ''} (WebDriver)`,
      userAgent: view.ua,
      headless: /Headless/.test(view.ua),
      viewport: { width: view.width, height: view.height, dpr: view.dpr, mobile: view.mobile },
      // WebDriver sets no CPU throttling: the engine runs at full speed.
      cpuThrottle: 1,
      cpuThrottleSource: 'default',
      url: view.url,
    };
  }
}
