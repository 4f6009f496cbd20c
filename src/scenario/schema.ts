/**
 * The ONE JSON Schema of a scenario file, generated from the step registry. `perf schema` prints
 * it; scenario.schema.json at the repo root is this, committed (a test keeps it in sync) so editors
 * complete and validate YAML via `# yaml-language-server: $schema=…`.
 */
import { STEPS, longDescription, stepArgsSchema } from '../steps/registry.js';
import type { JsonSchema } from '../steps/define.js';
import { NETWORK_KEY } from '../steps/network.js';
import { NAME_PART } from '../files.js';
import { driversOn } from '../drivers/registry.js';
import { BUDGET_OPS, BUDGET_OPS_PATTERN, BUDGET_UNIT_NAMES } from '../perf/budget-units.js';
import { INSIGHT_BUDGET_FIELDS, INSIGHT_BUDGET_PREFIX, insightIds } from '../perf/insight-budgets.js';
import { LOAD_QUIET_MAX_MS, LOAD_QUIET_MIN_MS, LOAD_QUIET_MS } from '../perf/measure.js';

/** What a scenario's `name:` may hold (a file name part; a / or a space would not be). */
export const SCENARIO_NAME_ALLOWED = 'letters, digits, _, . and -';

const RESTART = {
  type: 'string',
  enum: ['reload', 'context', 'browser'],
  description:
    'How each repeat starts clean: reload (same page, cache disabled, fresh navigation), context (new browser ' +
    'context: storage and cache gone; default), browser (kill and relaunch Chromium with a new profile).',
} as const;

const PCT = {
  anyOf: [
    { type: 'number', minimum: 0, description: 'Percent, e.g. 10 for +10%.' },
    { type: 'string', pattern: '^\\s*\\+?[0-9]+(\\.[0-9]+)?\\s*%\\s*$', description: 'Percent with a % sign, e.g. "10%".' },
  ],
} as const;

/** `app`: the app under test. */
const APP_KEY: JsonSchema = {
  type: 'object',
  description:
    'The app under test: one of serve, command, url (command may add url), ' +
    'desktop (which may add one of them as its ${APP_URL}), or terminal.',
  properties: {
    serve: { type: 'string', description: 'Static folder served on a free 127.0.0.1 port (relative to the scenario file).' },
    command: {
      type: 'string',
      description: 'Shell command that starts the app; ${PORT} is a free port (also in $PORT). Runs in the scenario folder.',
    },
    url: { type: 'string', description: 'URL of an app already running, or with command the URL it answers on (may use ${PORT}).' },
    path: { type: 'string', description: 'Page opened at every clean restart, e.g. /list.html. Default /.' },
    spa: { type: 'boolean', description: 'With serve: unknown extension-less paths get index.html.' },
    startTimeoutMs: { type: 'number', minimum: 0, description: 'How long a command app may take to answer, ms. Default 30000.' },
    terminal: {
      type: 'object',
      description:
        'A terminal program in a pseudo-terminal (TERM=xterm-256color), started anew every repeat; its whole process group is ended after.',
      properties: {
        command: {
          type: 'string',
          minLength: 1,
          description: 'The program (a name on PATH, or a path relative to the scenario file).',
        },
        args: { type: 'array', items: { type: 'string' }, description: 'Its arguments.' },
        cols: { type: 'integer', minimum: 2, maximum: 1000, description: 'Screen width in columns. Default 100.' },
        rows: { type: 'integer', minimum: 2, maximum: 1000, description: 'Screen height in rows. Default 30.' },
        env: { type: 'object', additionalProperties: { type: 'string' }, description: "Environment variables over the harness's own." },
        cwd: { type: 'string', description: "Working folder, relative to the scenario file. Default the scenario's folder." },
      },
      required: ['command'],
      additionalProperties: false,
    },
    desktop: {
      type: 'object',
      description:
        'A desktop app driven over WebDriver (WebKitGTK on Linux): a Tauri app through tauri-driver, ' +
        'or any WebKitGTK app through WebKitWebDriver. Every repeat starts it anew.',
      properties: {
        binary: {
          type: 'string',
          minLength: 1,
          description: 'The app executable (relative to the scenario file, or a name on PATH), e.g. ./src-tauri/target/release/app.',
        },
        args: {
          type: 'array',
          items: { type: 'string' },
          description: 'Arguments for the app; ${APP_URL} is the URL of serve, command or url when one is also given.',
        },
        driver: {
          type: 'string',
          enum: ['tauri', 'webkit'],
          description: 'tauri (default): through tauri-driver; webkit: WebKitWebDriver drives the binary directly.',
        },
      },
      required: ['binary'],
      additionalProperties: false,
    },
  },
  additionalProperties: false,
};

/** `browser`: how the browser is driven (src/drivers/registry.ts). */
const BROWSER_KEY: JsonSchema = {
  type: 'object',
  description: 'Browser settings.',
  properties: {
    restart: RESTART,
    endpoint: {
      type: 'string',
      description:
        'Use an existing Chrome (ws://… or http://127.0.0.1:PORT) instead of launching one; or selenium+http://HOST:4444: ' +
        'a Selenium Grid 4, each browser a new Grid session for Chromium driven over CDP through its ' +
        'se:cdp (deleted at the end; a browser restart is a new session). --grid URL overrides it.',
    },
    headless: { type: 'boolean', description: 'Run headless (default true).' },
    driver: {
      type: 'string',
      // The page drivers by name, from the registry (a terminal's driver follows app.terminal, not this key).
      enum: driversOn('page'),
      description:
        'How the browser is driven: cdp (default; Chromium), webdriver (W3C WebDriver: chromedriver, ' +
        'or WebKitWebDriver with engine webkit; every repeat is a new browser session) or bidi (WebDriver BiDi: Firefox).',
    },
    engine: {
      type: 'string',
      enum: ['chromium', 'webkit', 'firefox'],
      description:
        'The browser engine: chromium (default), webkit (the WebKitGTK MiniBrowser through WebKitWebDriver; implies driver webdriver) ' +
        'or firefox (Firefox ESR over WebDriver BiDi, launched headless on a fresh profile; implies driver bidi; restarts context, ' +
        'reload or browser).',
    },
    webdriver: {
      type: 'string',
      description: 'With driver webdriver: a running WebDriver server (http://127.0.0.1:4444) instead of starting one.',
    },
    storageState: {
      type: 'string',
      minLength: 1,
      description:
        'A saved browser state (perf state save, MCP storage_save, or a Playwright storageState file; relative to the scenario ' +
        'file) restored at every clean restart before app.path opens: cookies and web storage. A secret: never copied into outputs.',
    },
  },
  additionalProperties: false,
};

/** `viewport`: emulated at every restart. */
const VIEWPORT_KEY: JsonSchema = {
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
};

/** `thresholds`: what makes compare warn or fail. */
const THRESHOLDS_KEY: JsonSchema = {
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
};

/** `gate`: the metrics that decide a compare. */
const GATE_KEY: JsonSchema = {
  type: 'object',
  description: 'Which metrics decide a compare (perf compare, perf gate, --against).',
  properties: {
    metrics: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'string',
        description:
          'A metric name (perf metrics lists them); a count with a per-frame ' +
          'form is judged per frame only where both runs paint enough frames.',
      },
      description:
        "The primary family, replacing the registry's (perf metrics, gate: primary). " +
        'Every other metric is shown and judged as secondary, never failing the gate.',
    },
  },
  additionalProperties: false,
};

/** `budgets`: absolute limits on the run medians; ops and units from src/perf/budget-units.ts, insight keys from insight-budgets.ts. */
const BUDGETS_KEY: JsonSchema = {
  type: 'array',
  description:
    'Absolute limits judged on the run medians (as Lighthouse CI asserts on a median run): "<metric> <op> <number>[unit]", ' +
    `op one of ${BUDGET_OPS.join(' ')}. A bare number is in the metric's own unit (ms, bytes, count). A time may be written in ms or s, ` +
    'a size in B, KB, MB, KiB or MiB: KB and MB are binary (1024 and 1024² bytes, as Lighthouse reads budget.json sizes), ' +
    'KiB and MiB the same. A unit that does not fit the metric (KB on a time, any unit on a count or score) is an error. ' +
    `In place of a metric, an insight by its id (ours or DevTools', as perf_insight takes them): ` +
    `${INSIGHT_BUDGET_PREFIX}<id>.${Object.keys(INSIGHT_BUDGET_FIELDS).join('|')}, count being the analysed repeats it fired in ` +
    "(any firing counts), the savings medians over them (0 where it did not fire); DevTools' need measure: load. " +
    `Ids: ${insightIds().join(', ')}.`,
  items: {
    type: 'string',
    pattern: `^\\s*[A-Za-z0-9_.\\-]+\\s*(${BUDGET_OPS_PATTERN})\\s*-?[0-9]+(\\.[0-9]+)?\\s*(${BUDGET_UNIT_NAMES.join('|')})?\\s*$`,
    description:
      'e.g. "interactions.latencyMs.p90 < 100", "durationMs < 0.8s", "process.maxRssBytes <= 300MB", "load.requests == 5", ' +
      '"insights.RenderBlocking.count == 0", "insights.RenderBlocking.savingsMs < 300".',
  },
};

/** Keys a variant may override: everything but name, variants and description. */
function overridableProperties(stepList: JsonSchema): Record<string, JsonSchema> {
  return {
    app: APP_KEY,
    browser: BROWSER_KEY,
    viewport: VIEWPORT_KEY,
    cpuThrottle: { type: 'number', minimum: 1, description: 'CPU slowdown factor (CDP Emulation.setCPUThrottlingRate). Default 1.' },
    network: {
      ...NETWORK_KEY,
      description:
        'Network throttling applied at every clean restart, before the app opens (CDP Network.emulateNetworkConditions; ' +
        'cdp driver only): a profile, or latencyMs with downloadKbps and uploadKbps. Default none.',
    },
    repeat: {
      type: 'integer',
      minimum: 1,
      description: 'Measured repeats; in a sequential compare (perf gate, --against) the first look. Default 5.',
    },
    maxRepeat: {
      type: 'integer',
      minimum: 1,
      description: 'Most repeats per run a sequential compare may sample before it stops undecided. Default 4 × repeat.',
    },
    warmup: { type: 'integer', minimum: 0, description: 'Repeats run first and discarded. Default 1.' },
    timing: {
      type: 'boolean',
      description:
        'Interleave timing-mode repeats (no profiler: their ms are what compare gates on) with profiled ones (T,A,T: ' +
        'they explain where time went), like --timing. Default: true in perf run --against, perf gate (its --update too) ' +
        'and with measure: load, false otherwise (a plain perf run); false profiles every repeat, whose ms never gate. ' +
        'A driver with no CPU profiler (Firefox, WebDriver, a terminal) runs timing repeats only, whatever this says.',
    },
    vars: {
      type: 'object',
      description: 'Variables: ${name} in any string value. ${env.NAME} reads the environment. $${ is a literal ${ (nothing is read).',
      additionalProperties: { type: ['string', 'number', 'boolean'], description: 'Value of the variable.' },
    },
    measure: {
      enum: ['steps', 'load'],
      description:
        "The measured window: steps (default: the steps after setup) or load (the app's opening from the clean restart to " +
        'its load event plus 1 s of quiet, then the steps).',
    },
    cache: {
      enum: ['cold', 'warm'],
      description: 'HTTP cache at a measured load: cold (empty) or warm (the app opened once first). Default: warm with restart reload.',
    },
    loadQuietMs: {
      type: 'integer',
      minimum: LOAD_QUIET_MIN_MS,
      maximum: LOAD_QUIET_MAX_MS,
      description:
        'With measure: load, how long the page must stay quiet after its load event (no request, long task, layout shift or LCP ' +
        `candidate) before the load window ends. Default ${LOAD_QUIET_MS} (Lighthouse's quiet thresholds). Shorter ends each ` +
        'repeat sooner where only counts are gated (bytes, requests); longer waits for content that arrives late.',
    },
    leaks: {
      type: 'object',
      description: 'Defaults for perf leaks: the steps run this many times in one page, which they must leave as they found it.',
      properties: {
        iterations: {
          type: 'integer',
          minimum: 2,
          maximum: 1000,
          description: 'Times the steps run (--iterations overrides); heap snapshots after the first and the last. Default 8.',
        },
        minPerIteration: {
          type: 'number',
          exclusiveMinimum: 0,
          description: 'A group leaks when its count grows by at least this much per iteration (--min-per-iteration overrides). Default 1.',
        },
        minRetainedBytes: {
          type: 'integer',
          minimum: 0,
          description:
            '…and the leaking groups retain at least this many bytes in all (--min-retained overrides). Default 102400 (100 KB).',
        },
      },
      additionalProperties: false,
    },
    setupOnce: {
      ...stepList,
      description:
        'Steps run once per run (per arm with --against) in a fresh page before the first repeat, e.g. a sign-in; the browser state ' +
        'they leave (cookies, localStorage, sessionStorage) is restored at every clean restart before app.path opens. Not measured.',
    },
    setup: { ...stepList, description: 'Steps after each clean restart, not measured.' },
    steps: { ...stepList, description: 'Measured steps: perf_begin before the first, perf_end after the last.' },
    thresholds: THRESHOLDS_KEY,
    gate: GATE_KEY,
    budgets: BUDGETS_KEY,
  };
}

/**
 * One step for editors: a string names a step without arguments; an object has exactly one key, the
 * step, whose value is its arguments. Written as if/then/else over one object of all the steps
 * (not anyOf of one-key objects), so a validator reports the error of the branch that applies, e.g.
 * "unknown argument bogus" at /steps/0/tap, instead of one error per step it is not.
 */
function editorStep(): JsonSchema {
  return {
    description: 'A step: `- <name>: <args>` or `- <name>`.',
    if: { type: 'string' },
    then: { enum: STEPS.map((s) => s.name), description: 'A step with no arguments.' },
    else: {
      type: 'object',
      minProperties: 1,
      maxProperties: 1,
      properties: Object.fromEntries(
        STEPS.map((def) => {
          const args = { ...stepArgsSchema(def), description: longDescription(def) };
          // Arguments first: their errors are the useful ones when neither form matches.
          return [
            def.name,
            def.shorthand
              ? { anyOf: [args, { type: 'string', description: 'Shorthand: the target text.' }], description: longDescription(def) }
              : args,
          ];
        }),
      ),
      additionalProperties: false,
    },
  };
}

// 100 bytes: smaller copies save little once a $ref and a definition name are paid for (64 saved 0.5 KB more).
const MIN_HOISTED_BYTES = 100;
/** Keywords whose value is a map of name → schema (the map itself is not a schema). */
const SCHEMA_MAPS = new Set(['properties', 'definitions', 'patternProperties']);
/** Keywords whose value is a schema, or (items, anyOf…) a list of schemas. */
const SCHEMA_VALUES = new Set([
  'items',
  'additionalProperties',
  'additionalItems',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'anyOf',
  'oneOf',
  'allOf',
]);

/**
 * Rebuild a schema, calling `fn` on every sub-schema (never on the root, a map such as `properties`,
 * or a keyword's plain value such as `enum`): `fn` returns a replacement or undefined to descend.
 */
function mapSubschemas(schema: unknown, fn: (sub: Record<string, unknown>, name: string) => unknown): unknown {
  const sub = (node: unknown, name: string): unknown => {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return node;
    return fn(node as Record<string, unknown>, name) ?? inner(node as Record<string, unknown>, name);
  };
  const inner = (node: Record<string, unknown>, name: string): unknown =>
    Object.fromEntries(
      Object.entries(node).map(([k, v]) => {
        if (SCHEMA_MAPS.has(k) && v && typeof v === 'object')
          return [k, Object.fromEntries(Object.entries(v).map(([n, s]) => [n, sub(s, n)]))];
        if (SCHEMA_VALUES.has(k)) return [k, Array.isArray(v) ? v.map((s) => sub(s, name)) : sub(v, name)];
        return [k, v];
      }),
    );
  return inner(schema as Record<string, unknown>, 'root');
}

/**
 * Define every repeated sub-schema once: the one whose copies cost the most bytes becomes
 * `definitions.<name>` (named after the property it describes) and each copy a $ref, until nothing
 * of any size repeats. The step arguments share the target, `within` and common fields this way.
 */
export function hoistRepeats(root: JsonSchema): JsonSchema {
  let tree = root as Record<string, unknown>;
  for (;;) {
    const seen = new Map<string, { count: number; name: string }>();
    mapSubschemas(tree, (node, name) => {
      const text = JSON.stringify(node);
      if (text.length < MIN_HOISTED_BYTES) return undefined;
      const entry = seen.get(text);
      if (entry) entry.count++;
      else seen.set(text, { count: 1, name });
      return undefined;
    });
    let best: [string, { count: number; name: string }] | undefined;
    for (const e of seen) if (e[1].count > 1 && (!best || e[0].length * (e[1].count - 1) > best[0].length * (best[1].count - 1))) best = e;
    if (!best) return tree as JsonSchema;
    const [text, { name: wanted }] = best;
    const definitions = { ...((tree.definitions as Record<string, unknown> | undefined) ?? {}) };
    let name = /^[A-Za-z_][A-Za-z0-9_]*$/.test(wanted) ? wanted : 'shared';
    for (let i = 2; name in definitions; i++) name = `${wanted}${i}`;
    const ref = { $ref: `#/definitions/${name}` };
    tree = mapSubschemas(tree, (node) => (JSON.stringify(node) === text ? ref : undefined)) as Record<string, unknown>;
    tree.definitions = { ...(tree.definitions as Record<string, unknown>), [name]: JSON.parse(text) as unknown };
  }
}

/**
 * `forEditors`: every step spelled out (its arguments checked) for completion, hover and errors in
 * an editor, each shared piece defined once. The loader uses the loose form and checks each step
 * itself, for errors that name the step.
 */
export function scenarioSchema(opts: { forEditors: boolean } = { forEditors: true }): JsonSchema {
  const stepItem: JsonSchema = opts.forEditors
    ? { $ref: '#/definitions/step' }
    : { type: ['object', 'string'], description: 'A step: `- <name>: <args>` or `- <name>`.' };
  const stepList: JsonSchema = { type: 'array', items: stepItem };
  const props = overridableProperties(stepList);
  const schema: JsonSchema = {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: 'https://rehearse.dev/scenario.schema.json',
    title: 'rehearse scenario',
    type: 'object',
    properties: {
      name: {
        type: 'string',
        pattern: '^[A-Za-z0-9_.-]+$',
        description: `Scenario name, used in run file names (${SCENARIO_NAME_ALLOWED}). Default: the file name without .yaml.`,
      },
      description: { type: 'string', description: 'What the scenario does.' },
      ...props,
      variants: {
        type: 'object',
        description:
          'Named variants; each deep-merges into the top level (objects key by key, lists and scalars replace). ' +
          `\`--variant NAME\` picks one (required when variants exist). A name may use ${NAME_PART.allowed}: ` +
          'it becomes part of file names.',
        propertyNames: { pattern: NAME_PART.pattern, description: `A variant name: ${NAME_PART.allowed}.` },
        additionalProperties: {
          type: 'object',
          properties: props,
          additionalProperties: false,
          description: 'Overrides for this variant.',
        },
      },
    },
    required: ['app', 'steps'],
    additionalProperties: false,
    ...(opts.forEditors ? { definitions: { step: editorStep() } } : {}),
  };
  return opts.forEditors ? hoistRepeats(schema) : schema;
}
