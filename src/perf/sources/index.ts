/**
 * Every metric source, in one explicit list. The order is the order their metrics appear in a report
 * (and so in run files and tables); coverage is listed in COVERAGE_ORDER whatever the source order.
 * A new family: a file here, its entry in Findings and SOURCES, its metrics in src/perf/metrics.ts.
 */
import type { SourceName } from '../../drivers/measure.js';
import type { Interaction } from '../analysis.js';
import { countersSource } from './counters.js';
import { framesSource, type FramesFindings } from './frames.js';
import { interactionsSource } from './interactions.js';
import { layoutShiftSource } from './layout-shift.js';
import { loadSource, type LoadSummary } from './load.js';
import { softNavsSource, type SoftNavigation } from './soft-navs.js';
import { longFramesSource, type LongFramesFindings } from './long-frames.js';
import { memorySource } from './memory.js';
import { processSource } from './process.js';
import { profileSource, type ProfileFindings } from './profile.js';
import type { SourceDefinition } from './source.js';
import { stepsSource, type StepRow } from './steps.js';
import { terminalSource } from './terminal.js';
import { traceSource, type TraceFindings } from './trace.js';
import { windowSource, type WindowFindings } from './window.js';

/** What each source found, by its key in SOURCES: the typed summary buildReport assembles the report from. */
export interface Findings {
  window: WindowFindings;
  frames: FramesFindings;
  terminal: null;
  process: null;
  interactions: Interaction[];
  longFrames: LongFramesFindings;
  counters: Record<string, number>;
  layoutShift: { score: number | null };
  memory: null;
  load: LoadSummary | null;
  softNavs: { list: SoftNavigation[]; total: number };
  steps: StepRow[];
  trace: TraceFindings;
  profile: ProfileFindings;
}

export type SourceMap = { [K in keyof Findings]: SourceDefinition<Findings[K]> };

export const SOURCES: SourceMap = {
  window: windowSource,
  frames: framesSource,
  terminal: terminalSource,
  process: processSource,
  interactions: interactionsSource,
  longFrames: longFramesSource,
  counters: countersSource,
  layoutShift: layoutShiftSource,
  memory: memorySource,
  load: loadSource,
  softNavs: softNavsSource,
  steps: stepsSource,
  trace: traceSource,
  profile: profileSource,
};

/** The order a report lists its coverage entries in (the order run files have always had). */
export const COVERAGE_ORDER: readonly SourceName[] = [
  'frames',
  'liveness',
  'interactions',
  'longFrames',
  'counters',
  'layoutShift',
  'load',
  'softNavs',
  'trace',
  'profile',
  'process',
  'terminal',
  'memory',
];
