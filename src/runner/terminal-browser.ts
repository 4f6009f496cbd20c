/**
 * Repeats on a terminal program (scenario `app.terminal`): every repeat spawns the program anew in a
 * pseudo-terminal, the terminal's clean restart, and the previous one is ended with its whole process
 * group. The program's processes are tracked, so a harness killed outright leaves none behind.
 */
import type { SessionHost } from '../engine/host.js';
import type { RunEnv } from '../perf/run-file.js';
import type { Scenario, TerminalApp } from '../scenario/load.js';
import { secretSpans } from '../scenario/redact.js';
import type { RunningApp } from '../session/app.js';
import { startTerminalApp, type RunningTerminal } from '../session/terminal-app.js';
import { hostInfo, toolVersion } from './env.js';
import type { RepeatBrowser, RepeatContext } from './repeat-browser.js';

export class TerminalRepeatBrowser implements RepeatBrowser {
  private running: RunningTerminal | undefined;
  // The program runs in a pseudo-terminal perf spawned.
  readonly ownsProcesses = true;

  constructor(
    private readonly app: TerminalApp,
    private readonly host: SessionHost,
    private readonly secrets: Scenario['secrets'] = [],
  ) {}

  async open(_rc: RepeatContext, mark: (phase: 'restart') => void): Promise<void> {
    await this.end();
    this.host.rebind(undefined, undefined);
    // Started once its first screen has gone quiet: measured windows start on a program done drawing it.
    this.running = await startTerminalApp(this.app);
    this.host.rebind({ terminal: this.running.driver }, undefined);
    mark('restart');
  }

  async settle(): Promise<void> {
    // Nothing of ours runs in the background between repeats.
  }

  windowEnded(): void {
    // No spare program is prepared: the next repeat spawns its own.
  }

  async screenshot(): Promise<Buffer | undefined> {
    // The screen as the failed step left it (also after the program exited: the model keeps it), with
    // every `${env.NAME}` value on it drawn as '*': the picture is kept beside the run file.
    const secrets = this.secrets;
    return this.running?.driver.screenshotPng(secrets.length ? { hide: (text) => secretSpans(text, secrets) } : {});
  }

  env(sc: Scenario, app: RunningApp): RunEnv {
    return {
      tool: { name: 'rehearse', version: toolVersion() },
      browser: { product: `terminal (${this.app.command})`, userAgent: '', headless: true, driver: 'pty' },
      host: hostInfo(),
      restartMode: 'browser',
      viewport: { width: this.app.cols, height: this.app.rows, dpr: 1, mobile: false, touch: false },
      cpuThrottle: sc.cpuThrottle,
      app: { kind: app.kind, url: '', terminal: { command: this.app.command, args: this.app.args } },
    };
  }

  private async end(): Promise<void> {
    const r = this.running;
    this.running = undefined;
    await r?.close();
  }

  async close(): Promise<void> {
    await this.end();
  }
}
