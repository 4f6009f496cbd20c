/**
 * Layout and style work from the trace (devtools.timeline Layout / UpdateLayoutTree events), with the
 * script that forced each synchronous layout when the trace names it.
 */
import type { TraceResult } from './trace.js';

export interface TraceLayouts {
  layouts: number;
}

export function layoutsFromTrace(_trace: TraceResult, _window: { startAt: number; endAt: number }, _offsetMs: number): TraceLayouts | undefined {
  return undefined;
}
