/**
 * The run options every "run a scenario" door takes (perf run, perf gate, perf selftest, MCP
 * perf_run), declared once as JSON Schema: MCP sends it as its inputSchema and the CLI derives its
 * flags from it (cli/run-options.ts), so a name, a type or a description is written in one place.
 */
import type { JsonSchema } from '../schema-types.js';

export const RUN_OPTIONS = {
  repeat: { type: 'integer', minimum: 1, maximum: 100, description: 'Measured repeats (overrides the scenario); in a compare, the first look of sequential sampling, or every repeat with fixed.' },
  warmup: { type: 'integer', minimum: 0, maximum: 20, description: 'Warmup repeats, run first and discarded (overrides the scenario).' },
  timing: { type: 'boolean', description: 'Interleave timing-mode repeats: ms metrics then come from them only, measured without instrumentation (and gated in a compare).' },
  out: { type: 'string', description: 'Output folder for run files. Default build/perf.' },
  label: { type: 'string', pattern: '^[a-z0-9_-]+$', description: 'Run label in the file name, [a-z0-9_-]. Default run; in a compare, the prefix of <label>-baseline / <label>-candidate (default baseline / candidate).' },
} as const satisfies Record<string, JsonSchema>;

/** How a compare samples (run --against, gate, perf_run with against). */
export const SEQUENTIAL_OPTIONS = {
  fixed: { type: 'boolean', description: 'In a compare: run exactly repeat repeats per arm and judge once, instead of sampling until the verdict is decided (sequential, the default).' },
  maxRepeat: { type: 'integer', minimum: 1, maximum: 200, description: 'In a compare: most repeats per arm before it stops undecided. Default: the scenario\'s maxRepeat (4 × repeat).' },
  budgetS: { type: 'number', exclusiveMinimum: 0, description: 'In a compare: add no repeats once this many seconds have passed; what is undecided then is inconclusive.' },
} as const satisfies Record<string, JsonSchema>;
