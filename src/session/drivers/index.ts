/**
 * The session halves of the drivers, by the registry's names (src/drivers/registry.ts). The one
 * place the session manager looks at a state's driver: an exhaustive switch, so a new driver's
 * state that has no half fails tsc here.
 */
import type { AnySessionState } from '../state.js';
import { bidiSession } from './bidi.js';
import { cdpSession } from './cdp.js';
import type { SessionDriver } from './define.js';
import { ptySession } from './pty.js';
import { webdriverSession } from './webdriver.js';

export type { ConnectedSession, SessionAlive, SessionLogs } from './define.js';
export { aliveWord } from './define.js';

/** Call `f` with the state's driver half and the state, narrowed to that driver's state. */
export function onSessionDriver<R>(state: AnySessionState, f: <S extends AnySessionState>(d: SessionDriver<S>, s: S) => R): R {
  switch (state.driver) {
    case 'cdp':
      return f(cdpSession, state);
    case 'webdriver':
      return f(webdriverSession, state);
    case 'bidi':
      return f(bidiSession, state);
    case 'pty':
      return f(ptySession, state);
  }
}
