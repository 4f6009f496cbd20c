/**
 * The terminal driver's surface: what the session and page layers compose (src/drivers/pty is the
 * only code that speaks node-pty and xterm). The driver core only; scenario, steps and MCP wiring
 * build on these.
 */
export { PtyTerminal, DEFAULT_COLS, DEFAULT_ROWS, CLOSE_GRACE_MS, SETTLE_QUIET_MS } from './terminal.js';
export type { PtySpawnOptions, PtyExit, ClickOptions, WaitForOptions, ActionTiming } from './terminal.js';
export { encodeKey, encodeMouse, encodePaste, typedKeys } from './keys.js';
export type { InputModes, MouseTracking, MouseEncoding, MouseEvent, MouseAction } from './keys.js';
export { columnOf } from './screen.js';
export type { Screen, StyleRun, CellStyle, CursorState, TerminalColor, TerminalModes } from './screen.js';
export { renderSnapshot, findRefs, resolveTarget, diffScreens, centreOf, DEFAULT_SNAPSHOT_BYTES } from './snapshot.js';
export type { Snapshot, SnapshotOptions, TerminalRef, RefKind, CellRect, TerminalTarget, ResolvedTarget, ScreenDiff } from './snapshot.js';
export { FRAME_GAP_MS, countersBetween } from './meter.js';
export { PtyTerminalDriver } from './terminal-driver.js';
export type { OutputCounters } from './meter.js';
export type { ProcessUsage } from './proc.js';
