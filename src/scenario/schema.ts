/**
 * The ONE JSON Schema of a scenario file, generated from the step registry. `perf schema` prints
 * it; scenario.schema.json at the repo root is this, committed (a test keeps it in sync) so editors
 * complete and validate YAML via `# yaml-language-server: $schema=…`.
 */
import { STEPS, stepArgsSchema } from '../steps/registry.js';
import type { JsonSchema } from '../steps/define.js';

const RESTART = { type: 'string', enum: ['reload', 'context', 'browser'], description: 'How each repeat starts clean: reload (same page, cache disabled, fresh navigation), context (new browser context: storage and cache gone; default), browser (kill and relaunch Chromium with a new profile).' } as const;

const PCT = {
  anyOf: [
    { type: 'number', minimum: 0, description: 'Percent, e.g. 10 for +10%.' },
    { type: 'string', pattern: '^\\s*\\+?[0-9]+(\\.[0-9]+)?\\s*%\\s*$', description: 'Percent with a % sign, e.g. "10%".' },
  ],
} as const;

/** Keys a variant may override: everything but name, variants and description. */
function overridableProperties(stepList: JsonSchema): Record<string, JsonSchema> {
  return {
    app: {
      type: 'object',
      description: 'The app under test: exactly one of serve, command, url (command may add url).',
      properties: {
        serve: { type: 'string', description: 'Static folder served on a free 127.0.0.1 port (relative to the scenario file).' },
        command: { type: 'string', description: 'Shell command that starts the app; ${PORT} is a free port (also in $PORT). Runs in the scenario folder.' },
        url: { type: 'string', description: 'URL of an app already running, or with command the URL it answers on (may use ${PORT}).' },
        path: { type: 'string', description: 'Page opened at every clean restart, e.g. /list.html. Default /.' },
        spa: { type: 'boolean', description: 'With serve: unknown extension-less paths get index.html.' },
        startTimeoutMs: { type: 'number', minimum: 0, description: 'How long a command app may take to answer, ms. Default 30000.' },
      },
      additionalProperties: false,
    },
    browser: {
      type: 'object',
      description: 'Browser settings.',
      properties: {
        restart: RESTART,
        endpoint: { type: 'string', description: 'Use an existing Chrome (ws://… or http://127.0.0.1:PORT) instead of launching one.' },
        headless: { type: 'boolean', description: 'Run headless (default true).' },
      },
      additionalProperties: false,
    },
    viewport: {
      type: 'object',
      description: 'Emulated viewport, applied and read back at every restart.',
      properties: {
        width: { type: 'integer', minimum: 1, description: 'CSS pixels. Default 1280.' },
        height: { type: 'integer', minimum: 1, description: 'CSS pixels. Default 800.' },
        dpr: { type: 'number', exclusiveMinimum: 0, description: 'Device pixel ratio. Default 1.' },
        mobile: { type: 'boolean', description: 'Mobile emulation (meta viewport, overlay scrollbars). Default false.' },
        touch: { type: 'boolean', description: 'Touch events enabled. Default false.' },
      },
      additionalProperties: false,
    },
    cpuThrottle: { type: 'number', minimum: 1, description: 'CPU slowdown factor (CDP Emulation.setCPUThrottlingRate). Default 1.' },
    repeat: { type: 'integer', minimum: 1, description: 'Measured repeats; in a sequential compare (perf gate, --against) the first look. Default 5.' },
    maxRepeat: { type: 'integer', minimum: 1, description: 'Most repeats per run a sequential compare may sample before it stops undecided. Default 4 × repeat.' },
    warmup: { type: 'integer', minimum: 0, description: 'Repeats run first and discarded. Default 1.' },
    timing: { type: 'boolean', description: 'Interleave timing-mode repeats (no profiler: their ms are what compare gates on), like --timing.' },
    vars: {
      type: 'object',
      description: 'Variables: ${name} in any string value. ${env.NAME} reads the environment.',
      additionalProperties: { type: ['string', 'number', 'boolean'], description: 'Value of the variable.' },
    },
    setup: { ...stepList, description: 'Steps after each clean restart, not measured.' },
    steps: { ...stepList, description: 'Measured steps: perf_begin before the first, perf_end after the last.' },
    thresholds: {
      type: 'object',
      description: 'Relative change that makes compare warn or fail. Default warn 10%, error 25%.',
      properties: {
        warn: { ...PCT, description: 'Warn past this relative regression.' },
        error: { ...PCT, description: 'Fail past this relative regression.' },
        metrics: {
          type: 'object',
          description: 'Per-metric overrides, keyed by metric name.',
          additionalProperties: {
            type: 'object',
            description: 'Thresholds for this metric.',
            properties: { warn: { ...PCT, description: 'Warn threshold.' }, error: { ...PCT, description: 'Error threshold.' } },
            additionalProperties: false,
          },
        },
      },
      additionalProperties: false,
    },
    gate: {
      type: 'object',
      description: 'Which metrics decide a compare (perf compare, perf gate, --against).',
      properties: {
        metrics: {
          type: 'array',
          minItems: 1,
          items: { type: 'string', description: 'A metric name (perf metrics lists them); a count with a per-frame form is judged per frame only where both runs paint enough frames.' },
          description: 'The primary family, replacing the registry\'s (perf metrics, gate: primary). Every other metric is shown and judged as secondary, never failing the gate.',
        },
      },
      additionalProperties: false,
    },
    budgets: {
      type: 'array',
      description: 'Absolute limits judged on the run medians: "<metric> <op> <number>", op one of < <= > >=.',
      items: { type: 'string', pattern: '^\\s*[A-Za-z0-9_.\\-]+\\s*(<=|>=|<|>)\\s*-?[0-9]+(\\.[0-9]+)?\\s*$', description: 'e.g. "interactions.latencyMs.p90 < 100".' },
    },
  };
}

/**
 * `forEditors`: every step spelled out (anyOf of one-key objects) for completion and hover. The
 * loader uses the loose form and checks each step itself, for errors that name the step.
 */
export function scenarioSchema(opts: { forEditors: boolean } = { forEditors: true }): JsonSchema {
  const stepItem: JsonSchema = opts.forEditors
    ? {
        anyOf: [
          { type: 'string', enum: STEPS.map((s) => s.name), description: 'A step with no arguments.' },
          ...STEPS.map((def) => {
            const args = stepArgsSchema(def);
            return {
              type: 'object',
              description: def.description,
              properties: { [def.name]: def.shorthand ? { anyOf: [{ type: 'string', description: 'Shorthand: the target text.' }, args] } : args },
              required: [def.name],
              additionalProperties: false,
            } as JsonSchema;
          }),
        ],
      }
    : { type: ['object', 'string'], description: 'A step: `- <name>: <args>` or `- <name>`.' };
  const stepList: JsonSchema = { type: 'array', items: stepItem };
  const props = overridableProperties(stepList);
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: 'https://rehearse.dev/scenario.schema.json',
    title: 'rehearse scenario',
    type: 'object',
    properties: {
      name: { type: 'string', pattern: '^[A-Za-z0-9_.-]+$', description: 'Scenario name, used in run file names. Default: the file name without .yaml.' },
      description: { type: 'string', description: 'What the scenario does.' },
      ...props,
      variants: {
        type: 'object',
        description: 'Named variants; each deep-merges into the top level (objects key by key, lists and scalars replace). `--variant NAME` picks one (required when variants exist).',
        additionalProperties: { type: 'object', properties: props, additionalProperties: false, description: 'Overrides for this variant.' },
      },
    },
    required: ['app', 'steps'],
    additionalProperties: false,
  };
}
