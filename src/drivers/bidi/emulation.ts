/**
 * The emulation a tab was given (viewport, pixel ratio, user agent), given also to every tab its user context opens
 * after it: a popup (window.open, a target=_blank link) starts with Firefox's own window and user agent, since BiDi's
 * overrides set for a context are that context's alone. Each new top-level context gets them as its contextCreated
 * event arrives (the session's subscription), before its first document loads in the usual case; the page tracker
 * waits for them (ready) before a step uses the tab, so a step never sees the tab un-emulated.
 *
 * Not the user-context form of the same commands (setViewport's `userContexts`): Firefox 153 applies that to the
 * existing tabs as well, over the tab's own override, and a later reset of the tab's own goes to Firefox's default.
 */
import type { BidiSocket } from '../bidi-socket.js';

interface Emulated {
  viewport?: { size: { width: number; height: number } | undefined; dpr: number | undefined };
  userAgent?: string;
}

export class FollowedEmulation {
  private emulated: Emulated = {};
  private off: (() => void) | undefined;
  private readonly applying = new Map<string, Promise<void>>();

  constructor(
    private readonly socket: BidiSocket,
    /** The tab whose emulation this is: it sets its own, and is not followed. */
    private readonly context: string,
    private readonly userContext: string,
  ) {}

  /** The tab's viewport and pixel ratio now (both undefined: Firefox's own). */
  viewport(size: { width: number; height: number } | undefined, dpr: number | undefined): void {
    const { viewport: _old, ...rest } = this.emulated;
    this.emulated = size || dpr !== undefined ? { ...rest, viewport: { size, dpr } } : rest;
    this.follow();
  }

  /** The tab's user agent now (undefined: Firefox's own). */
  userAgent(userAgent: string | undefined): void {
    const { userAgent: _old, ...rest } = this.emulated;
    this.emulated = userAgent !== undefined ? { ...rest, userAgent } : rest;
    this.follow();
  }

  /** Resolves once `context`, opened after the emulation was set, has it too (at once for any other tab). */
  ready(context: string): Promise<void> {
    return this.applying.get(context) ?? Promise.resolve();
  }

  dispose(): void {
    this.off?.();
    this.off = undefined;
    this.applying.clear();
  }

  private follow(): void {
    if (this.emulated.viewport === undefined && this.emulated.userAgent === undefined) return this.dispose();
    this.off ??= this.socket.on('browsingContext.contextCreated', (p) => {
      const context = typeof p.context === 'string' ? p.context : undefined;
      const userContext = typeof p.userContext === 'string' ? p.userContext : 'default';
      if (!context || p.parent || context === this.context || userContext !== this.userContext) return;
      // A tab closed at once (or a browser gone) refuses the command: nothing then uses the tab.
      this.applying.set(
        context,
        this.apply(context).catch(() => undefined),
      );
    });
  }

  private async apply(context: string): Promise<void> {
    const { viewport, userAgent } = this.emulated;
    await Promise.all([
      viewport &&
        this.socket.send('browsingContext.setViewport', {
          context,
          viewport: viewport.size ?? null,
          devicePixelRatio: viewport.dpr ?? null,
        }),
      userAgent !== undefined && this.socket.send('emulation.setUserAgentOverride', { userAgent, contexts: [context] }),
    ]);
  }
}
