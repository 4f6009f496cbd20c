/**
 * The run options every "run a scenario" door takes (perf run, perf gate, perf selftest, MCP
 * perf_run), declared once as JSON Schema: MCP sends it as its inputSchema and the CLI derives its
 * flags from it (cli/run-options.ts), so a name, a type or a description is written in one place.
 */
import type { JsonSchema } from '../schema-types.js';
import { NAME_PART } from '../files.js';

export const RUN_OPTIONS = {
  repeat: {
    type: 'integer',
    minimum: 1,
    maximum: 100,
    description: 'Measured repeats (overrides the scenario); in a compare, per arm before the first look.',
  },
  warmup: { type: 'integer', minimum: 0, maximum: 20, description: 'Discarded first repeats (overrides the scenario).' },
  timing: {
    type: 'boolean',
    description: 'Timing repeats (no profiler) decide ms; the default in a compare.',
  },
  out: { type: 'string', description: 'Folder for run files. Default build/perf.' },
  label: { type: 'string', pattern: NAME_PART.pattern, description: 'Label in run file names. Default run.' },
} as const satisfies Record<string, JsonSchema>;

/** When a run stops early (perf run, perf gate; --against too). */
export const STOP_OPTIONS = {
  keepGoing: {
    type: 'boolean',
    description: 'Go on when a step fails as every repeat would (no match, or twice alike); default: stop.',
  },
} as const satisfies Record<string, JsonSchema>;

/** How a compare samples (run --against, gate, perf_run with against). */
export const SEQUENTIAL_OPTIONS = {
  fixed: { type: 'boolean', description: 'In a compare: exactly repeat per arm, then judge (default: until decided).' },
  maxRepeat: {
    type: 'integer',
    minimum: 1,
    maximum: 200,
    description: "In a compare: most repeats per arm (default: the scenario's).",
  },
  budgetS: { type: 'number', exclusiveMinimum: 0, description: 'In a compare: stop adding repeats after this many seconds.' },
} as const satisfies Record<string, JsonSchema>;

/** Scaling out (perf gate / run / start): Selenium Grid sessions, parallel runs, CI shards. */
export const SCALE_OPTIONS = {
  grid: {
    type: 'string',
    pattern: '^(selenium\\+)?https?://',
    description:
      'Selenium Grid 4 URL (http://HOST:4444): each browser is a Grid session for Chromium, ' +
      'driven over CDP through its se:cdp endpoint; the session is deleted at the end (also ' +
      'on Ctrl-C). Same as browser.endpoint: selenium+http://HOST:4444 in the scenario.',
  },
  serveHost: {
    type: 'string',
    description:
      'Address app.serve listens on instead of 127.0.0.1 (e.g. 0.0.0.0), so ' +
      'Grid nodes on other machines reach the app: it is then exposed there.',
  },
  shard: {
    type: 'string',
    pattern: '^[0-9]+/[0-9]+$',
    description:
      "Run only shard I of N (I/N) of the gate's scenario/variants and write " +
      'gate-shard-I-of-N.json beside the run files, for `perf merge`.',
  },
  parallel: {
    type: 'integer',
    minimum: 1,
    maximum: 64,
    description:
      'Run up to N scenario/variants at once, each in its own Grid session (needs ' +
      '--grid: on one machine parallel runs share its CPU and spoil the timings).',
  },
} as const satisfies Record<string, JsonSchema>;
