/**
 * YAML → validated Scenario. Every error names the file, line and column, what was found and what
 * was expected (PerfError kind usage → exit 2), and happens before any browser starts.
 */
import { readFileSync, statSync } from 'node:fs';
import { basename, dirname, extname, relative, resolve } from 'node:path';
import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, visit, type Document } from 'yaml';
import { closest, isPerfError, PerfError } from '../errors.js';
import { checkServeFolder, findExecutable, isNamePart, NAME_PART } from '../files.js';
import { prepareArgs } from '../engine/run-step.js';
import { getStep, stepNames } from '../steps/registry.js';
import { resolveNetwork, type NetworkSetting } from '../steps/network.js';
import { recordingAsYaml } from './recorder.js';
import type { RestartMode } from '../drivers/define.js';
import { lackMessage, type DriverDefinition, type DriverName, type DriverScenarioView } from '../drivers/define.js';
import { driverFor } from '../drivers/registry.js';
import { stepRefusal } from '../engine/driver-steps.js';
import { bestErrors, compile, describeAjvError } from '../engine/validate.js';
import { scenarioSchema, SCENARIO_NAME_ALLOWED } from './schema.js';
import { checkMetricName, type MetricKind, type ResolvedMetric } from '../perf/metrics.js';
import { LOAD_QUIET_MS } from '../perf/measure.js';
import {
  BUDGET_OPS,
  BUDGET_OPS_PATTERN,
  BUDGET_UNIT_NAMES,
  isBudgetUnit,
  toMetricUnit,
  unitsForKind,
  type BudgetOp,
  type BudgetUnit,
} from '../perf/budget-units.js';
import {
  checkInsightKey,
  INSIGHT_BUDGET_FIELDS,
  isDevtoolsInsight,
  needsSources,
  parseInsightKey,
  rehearseInsightIds,
} from '../perf/insight-budgets.js';

export interface StepCall {
  name: string;
  args: Record<string, unknown>;
  /** Where it was written, for errors at run time too. */
  line: number;
  col: number;
}

export interface Budget {
  expr: string;
  /** A metric's name, or an insight key (`insights.<id>.count|savingsMs|savingsBytes`, perf/insight-budgets.ts). */
  metric: string;
  op: BudgetOp;
  /** In the metric's own unit (ms, bytes), whatever unit it was written in. */
  limit: number;
  /** The unit the limit was written in (`2.5s`, `300KB`); absent for a bare number. */
  unit?: BudgetUnit;
}

/** `app.desktop`: the binary resolved to an absolute path; args may hold ${APP_URL}, filled at start. */
export interface DesktopApp {
  binary: string;
  args: string[];
  driver: 'tauri' | 'webkit';
}

/** `app.terminal`: the program and its screen; cwd resolved against the scenario's folder. */
export interface TerminalApp {
  command: string;
  args: string[];
  cols: number;
  rows: number;
  env: Record<string, string>;
  cwd: string;
}

export interface Scenario {
  file: string;
  dir: string;
  name: string;
  description?: string;
  variant: string | null;
  variants: string[];
  app: {
    serve?: string;
    command?: string;
    url?: string;
    path: string;
    spa: boolean;
    cwd: string;
    startTimeoutMs?: number;
    desktop?: DesktopApp;
    terminal?: TerminalApp;
  };
  browser: {
    restart: RestartMode;
    endpoint?: string;
    headless: boolean;
    /** The driver that runs the scenario (src/drivers/registry.ts). */
    driver: DriverName;
    engine: 'chromium' | 'webkit' | 'firefox';
    webdriver?: string;
    /** A saved browser state restored at every clean restart (absolute path; read by the runner, never copied). */
    storageState?: string;
  };
  viewport: { width: number; height: number; dpr: number; mobile: boolean; touch: boolean };
  cpuThrottle: number;
  /** Network throttling applied at every clean restart; undefined: none. */
  network?: NetworkSetting;
  repeat: number;
  /** Most repeats a sequential compare samples per run. */
  maxRepeat: number;
  warmup: number;
  timing: boolean;
  /** The scenario said `timing:` itself (a compare otherwise adds timing repeats). */
  timingSet?: boolean;
  /** The scenario's primary metrics (`gate.metrics`), checked against the registry. */
  gate?: { metrics: string[] };
  /** What the measured window is: the steps after setup, or the app's opening (then the steps). */
  measure: 'steps' | 'load';
  /** HTTP cache at a measured load: `cold` empty, `warm` filled by opening the app once after the restart. */
  cache: 'cold' | 'warm';
  /** How long a measured load must stay quiet after its load event before its window ends (`measure: load`). */
  loadQuietMs: number;
  vars: Record<string, string | number | boolean>;
  /** Steps run once per run before the repeats (a sign-in); the state they leave is restored at every clean restart. */
  setupOnce: StepCall[];
  setup: StepCall[];
  steps: StepCall[];
  thresholds: { warnPct: number; errorPct: number; metrics: Record<string, { warnPct?: number; errorPct?: number }> };
  budgets: Budget[];
  /** perf leaks: how many times the steps run in one page, and the verdict's thresholds when the scenario sets them. */
  leaks: { iterations: number; minPerIteration?: number; minRetainedBytes?: number };
  /**
   * Values read through ${env.NAME}: run files carry the name, never the value (redact.ts). `shown` replaces
   * the value instead of ${env.NAME} (a saved browser state's values, added by the runner).
   */
  secrets: { name: string; value: string; shown?: string }[];
}

export const DEFAULTS = {
  viewport: { width: 1280, height: 800, dpr: 1, mobile: false, touch: false },
  cpuThrottle: 1,
  repeat: 5,
  /** maxRepeat = this × repeat unless the scenario says otherwise. */
  maxRepeatFactor: 4,
  warmup: 1,
  // 8 iterations: a leak of one object per iteration then shows as 7 more between the first and the last
  // snapshot, plain against the one-off caches an app fills once, at a few seconds of steps on a small app.
  leaksIterations: 8,
  restart: 'context' as RestartMode,
  warnPct: 10,
  errorPct: 25,
};

// 1 MiB: the bundled scenarios are under 2 KB and a 1,000-step recording is about 150 KB; parsing a
// file this size stays near a second, so a mistaken or hostile file is refused before it costs minutes.
export const MAX_SCENARIO_BYTES = 2 ** 20;
// 5,000 steps in one list: five times a long recorded flow; a repeat of more would run for minutes
// and its report would be too big to read.
export const MAX_STEPS = 5000;

type Path = (string | number)[];

type StepListKey = 'setupOnce' | 'setup' | 'steps';

class Located {
  readonly lineCounter = new LineCounter();
  readonly doc: Document.Parsed;
  constructor(
    readonly file: string,
    readonly text: string,
  ) {
    // Duplicate keys are found by firstDuplicateKey() in one pass: the parser's own uniqueKeys check
    // compares every key with every other (a 1 MiB map took 80 s here; linear takes 2 s).
    this.doc = parseDocument(text, { lineCounter: this.lineCounter, prettyErrors: false, uniqueKeys: false });
  }

  /** The second occurrence of a key in any mapping, or undefined. */
  firstDuplicateKey(): { key: string; line: number; col: number } | undefined {
    let found: { key: string; line: number; col: number } | undefined;
    visit(this.doc, {
      Map: (_, map) => {
        const seen = new Set<string>();
        for (const pair of map.items) {
          if (!isScalar(pair.key)) continue;
          const key = String(pair.key.value);
          if (seen.has(key)) {
            found = { key, ...this.lineCounter.linePos(pair.key.range?.[0] ?? 0) };
            return visit.BREAK;
          }
          seen.add(key);
        }
        return undefined;
      },
    });
    return found;
  }

  /** Where the first alias (*name) is: the place to point at when aliases expand too much. */
  firstAlias(): { line: number; col: number } {
    let at = { line: 1, col: 1 };
    visit(this.doc, {
      Alias: (_, node) => {
        at = this.lineCounter.linePos(node.range?.[0] ?? 0);
        return visit.BREAK;
      },
    });
    return at;
  }

  /** Position of the node at `path`, or of its closest existing ancestor. `key`: the key itself. */
  pos(path: Path, key = false): { line: number; col: number } {
    let node: unknown = this.doc.contents;
    let best: { line: number; col: number } = { line: 1, col: 1 };
    const at = (n: unknown): void => {
      const range = (n as { range?: [number, number, number] } | null)?.range;
      if (range) best = this.lineCounter.linePos(range[0]);
    };
    at(node);
    for (let i = 0; i < path.length; i++) {
      const seg = path[i]!;
      if (isMap(node)) {
        const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(seg));
        if (!pair) break;
        if (key && i === path.length - 1) {
          at(pair.key);
          break;
        }
        node = pair.value;
        at(pair.value ?? pair.key);
      } else if (isSeq(node) && typeof seg === 'number') {
        node = node.items[seg];
        if (!node) break;
        at(node);
      } else break;
    }
    return best;
  }

  fail(path: Path, message: string, suggestion?: string, key = false, candidates?: string[]): PerfError {
    const { line, col } = this.pos(path, key);
    return new PerfError({
      code: 'scenario_invalid',
      message: `${this.file}:${line}:${col}: ${message}`,
      ...(suggestion ? { suggestion } : {}),
      ...(candidates?.length ? { candidates } : {}),
    });
  }
}

function instancePathToPath(p: string): Path {
  return p
    .split('/')
    .filter(Boolean)
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s.replace(/~1/g, '/').replace(/~0/g, '~')));
}

const looseSchema = scenarioSchema({ forEditors: false });

export interface LoadOptions {
  variant?: string;
  /** `--var name=value`: overrides the scenario's vars (and the variant's). */
  vars?: Record<string, string>;
  env?: NodeJS.ProcessEnv;
  /** Paths in messages are shown relative to this folder. Default cwd. */
  cwd?: string;
  /** `--allow-outside`: `app.serve` may name a folder outside the scenario's folder and the working folder. */
  allowOutside?: boolean;
  /** The file's text, read elsewhere (a commit's copy, from git): `path` then only places it, for messages and its folder. */
  text?: string;
  /**
   * Which of `vars` came from the command line, by the flag that set them: each must be a var the file declares
   * or uses, else exit 2 with the closest name. Default: every one of `vars`, as --var.
   */
  varFlags?: Record<string, '--var' | '--baseline-var'>;
  /**
   * `perf validate`: the files and folders the scenario names must exist now, where the runner will look (relative
   * to the scenario file). Off for a run's own load: a gate or bisect may build the served folder after loading.
   */
  checkFiles?: boolean;
  /**
   * `perf run --engine`: the browser engine in place of the file's `browser.engine` (the rest of the file unchanged), so
   * one scenario file runs in Chromium, WebKit or Firefox; the driver is then the engine's, as if the file said so.
   */
  engine?: Scenario['browser']['engine'];
}

/** Every step list of a scenario document (steps, setup, and each variant's), with its path. */
function* stepLists(doc: Record<string, any>): Generator<[unknown[], Path]> {
  for (const key of ['steps', 'setup', 'setupOnce']) if (Array.isArray(doc[key])) yield [doc[key] as unknown[], [key]];
  for (const [name, v] of Object.entries((doc.variants ?? {}) as Record<string, Record<string, unknown>>)) {
    for (const key of ['steps', 'setup', 'setupOnce']) if (Array.isArray(v?.[key])) yield [v[key] as unknown[], ['variants', name, key]];
  }
}

/** Load, validate and resolve a scenario file. Throws PerfError (usage) with file:line:col. */
export function loadScenario(path: string, opts: LoadOptions = {}): Scenario {
  const cwd = opts.cwd ?? process.cwd();
  const abs = resolve(cwd, path);
  const shown = relative(cwd, abs) || abs;
  const src = new Located(shown, yamlOf(abs, opts.text ?? readScenarioText(abs, shown), shown));
  const doc = parsedDocument(src);
  const variantNames = Object.keys(doc.variants ?? {});
  const variant = pickVariant(shown, variantNames, opts.variant);
  checkVarFlags(shown, doc, opts.varFlags ?? Object.fromEntries(Object.keys(opts.vars ?? {}).map((k) => [k, '--var' as const])));
  const w = written(src, doc, variant, opts);
  const dir = dirname(abs);
  const app = resolveApp(src, w, { dir, cwd, allowOutside: opts.allowOutside === true });
  const browser = (w.merged.browser ?? {}) as Record<string, any>;
  const vp = { ...DEFAULTS.viewport, ...((w.merged.viewport as object | undefined) ?? {}) };
  const network = scenarioNetwork(src, w);
  const driver = scenarioDriver(src, w, { app, browser, vp, network: network !== undefined });
  const steps = (key: StepListKey): StepCall[] => parseSteps(src, w, key, driver, app.desktop !== undefined);
  const measuredLabels = steps('steps').map((c, i) => stepLabel(c, i));
  const thresholds = parseThresholds(src, w.merged.thresholds, measuredLabels);
  const budgets = ((w.merged.budgets as string[] | undefined) ?? []).map((b, i) =>
    parseBudget(src, [...w.at(['budgets']), i], b, measuredLabels),
  );
  const gateMetrics = (w.merged.gate as { metrics?: string[] } | undefined)?.metrics;
  gateMetrics?.forEach((m, i) => checkMetricAt(src, ['gate', 'metrics', i], m, measuredLabels));
  const repeat = (w.merged.repeat as number | undefined) ?? DEFAULTS.repeat;
  const engine = (browser.engine as 'chromium' | 'webkit' | 'firefox' | undefined) ?? (app.desktop ? 'webkit' : 'chromium');
  const scenario: Scenario = {
    file: abs,
    dir,
    name: (doc.name as string | undefined) ?? basename(abs, extname(abs)),
    ...(doc.description ? { description: doc.description as string } : {}),
    variant,
    variants: variantNames,
    app: app.spec,
    browser: {
      restart: (browser.restart as RestartMode | undefined) ?? driver.restartModes[0]!,
      ...(browser.endpoint ? { endpoint: browser.endpoint as string } : {}),
      headless: browser.headless !== false,
      driver: driver.name,
      engine,
      ...(browser.webdriver ? { webdriver: browser.webdriver as string } : {}),
      ...(browser.storageState ? { storageState: resolve(dir, browser.storageState as string) } : {}),
    },
    viewport: vp,
    cpuThrottle: (w.merged.cpuThrottle as number | undefined) ?? DEFAULTS.cpuThrottle,
    ...(network ? { network } : {}),
    repeat,
    maxRepeat: Math.max(repeat, (w.merged.maxRepeat as number | undefined) ?? repeat * DEFAULTS.maxRepeatFactor),
    warmup: (w.merged.warmup as number | undefined) ?? DEFAULTS.warmup,
    // A load is measured in timing mode unless the scenario says otherwise: a CPU profiler at 100 µs slows the
    // page's own start-up, the very thing measured. A compare (an interleaved one, a stored gate) adds timing repeats
    // unless the scenario says `timing: false` (runner/against.ts interleavedTiming).
    timing: w.merged.timing === true || (w.merged.measure === 'load' && w.merged.timing !== false),
    ...(w.merged.timing !== undefined ? { timingSet: true } : {}),
    ...(gateMetrics ? { gate: { metrics: gateMetrics } } : {}),
    ...measureOf(src, w, (browser.restart as RestartMode | undefined) ?? driver.restartModes[0]!),
    vars: w.vars,
    leaks: leaksOf(w.merged.leaks as Partial<Scenario['leaks']> | undefined),
    setupOnce: steps('setupOnce'),
    setup: steps('setup'),
    steps: steps('steps'),
    thresholds,
    budgets,
    secrets: [...w.env.used].map(([name, value]) => ({ name, value })),
  };
  checkBrowserState(src, w, driver);
  if (opts.checkFiles) checkNamedFiles(src, w, scenario, cwd);
  checkDevtoolsBudgets(src, w, scenario);
  if (scenario.steps.length === 0 && scenario.measure === 'steps') {
    throw src.fail(w.at(['steps']), 'steps is empty: a scenario measures at least one step (or its load: measure: load)');
  }
  if (scenario.measure === 'load' && scenario.cache === 'cold' && scenario.setup.length > 0) {
    throw src.fail(
      w.at(['setup']),
      "setup runs before the measured window, and with measure: load and a cold cache the window starts at the app's first byte: " +
        'there is no page to set up',
      'put the steps in steps (they run after the load, in the window), or use cache: warm (setup then runs on a warming load)',
    );
  }
  return scenario;
}

/** setupOnce and browser.storageState need a browser state to save and restore: refused at their line where the driver has none. */
function checkBrowserState(src: Located, w: Written, driver: DriverDefinition): void {
  const keys: [Path, string][] = [
    [['setupOnce'], 'setupOnce'],
    [['browser', 'storageState'], 'browser.storageState'],
  ];
  for (const [path, what] of keys) {
    const given = path.length === 1 ? w.merged[path[0]!] : (w.merged.browser as Record<string, unknown> | undefined)?.storageState;
    const lack = lackMessage(driver, 'storageState', what);
    if (given !== undefined && lack) throw src.fail(w.at(path), lack, `drop ${what}`);
  }
}

/** The scenario's leaks: key (checked by the schema); thresholds it leaves out stay unset: perf leaks' defaults apply. */
function leaksOf(l: Partial<Scenario['leaks']> | undefined): Scenario['leaks'] {
  return {
    iterations: l?.iterations ?? DEFAULTS.leaksIterations,
    ...(l?.minPerIteration !== undefined ? { minPerIteration: l.minPerIteration } : {}),
    ...(l?.minRetainedBytes !== undefined ? { minRetainedBytes: l.minRetainedBytes } : {}),
  };
}

/** `measure`, `cache` and `loadQuietMs`: a cold cache unless a reload restart keeps the page's (and the scenario says nothing). */
function measureOf(src: Located, w: Written, restart: RestartMode): Pick<Scenario, 'measure' | 'cache' | 'loadQuietMs'> {
  const measure = (w.merged.measure as Scenario['measure'] | undefined) ?? 'steps';
  const cache = (w.merged.cache as Scenario['cache'] | undefined) ?? (restart === 'reload' ? 'warm' : 'cold');
  for (const [key, what] of [
    ['cache', 'the HTTP cache at a measured load'],
    ['loadQuietMs', 'the quiet that ends a measured load'],
  ] as const) {
    if (w.merged[key] !== undefined && measure !== 'load') {
      throw src.fail(w.at([key]), `${key} is ${what}: it needs measure: load`, `add measure: load, or drop ${key}`);
    }
  }
  return { measure, cache, loadQuietMs: (w.merged.loadQuietMs as number | undefined) ?? LOAD_QUIET_MS };
}

/** The file's text, size-checked. */
function readScenarioText(abs: string, shown: string): string {
  let text: string;
  try {
    const { size } = statSync(abs);
    if (size > MAX_SCENARIO_BYTES) {
      throw new PerfError({
        code: 'scenario_too_large',
        message: `${shown}: ${(size / 2 ** 20).toFixed(1)} MiB; a scenario may be at most ${MAX_SCENARIO_BYTES / 2 ** 20} MiB`,
        suggestion: 'split it, or check that this is the file you meant',
      });
    }
    text = readFileSync(abs, 'utf8');
  } catch (cause) {
    if (isPerfError(cause)) throw cause;
    throw new PerfError({
      code: 'scenario_unreadable',
      message:
        `cannot read scenario ${shown}: ` +
        `${(cause as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (cause as Error).message}`,
      suggestion: 'check the path',
      cause,
    });
  }
  return text;
}

/** A recording (.json) is loaded as the scenario it records. */
const yamlOf = (abs: string, text: string, shown: string): string =>
  extname(abs).toLowerCase() === '.json' ? recordingAsYaml(text, shown) : text;

/** The document as JS, after YAML and schema checks: every error at its file:line. */
function parsedDocument(src: Located): Record<string, any> {
  const shown = src.file;
  const parseError = src.doc.errors[0];
  if (parseError) {
    const { line, col } = parseError.linePos?.[0] ?? src.lineCounter.linePos(parseError.pos[0]);
    // The parser notices an unclosed { [ or quote where it gives up, often lines later: say where it opened.
    const opened = /flow|quote|missing/i.test(parseError.message) ? unclosedBefore(src.text, parseError.pos[0]) : undefined;
    const at = opened ? src.lineCounter.linePos(opened.at) : undefined;
    const where = opened && at ? `; the ${opened.what} opened at ${shown}:${at.line}:${at.col} is not closed` : '';
    throw new PerfError({
      code: 'scenario_invalid',
      message: `${shown}:${line}:${col}: invalid YAML: ${parseError.message.split('\n')[0]}${where}`,
      suggestion: 'check indentation and quoting at that line',
    });
  }
  const dup = src.firstDuplicateKey();
  if (dup)
    throw new PerfError({
      code: 'scenario_invalid',
      message: `${shown}:${dup.line}:${dup.col}: invalid YAML: duplicate key "${dup.key}"`,
      suggestion: 'each key may appear once in a mapping',
    });
  const raw = documentValue(src);
  checkVariantNames(src, raw);
  checkShape(src, raw);
  for (const [list, path] of stepLists(raw)) {
    if (list.length > MAX_STEPS)
      throw src.fail(
        [...path, MAX_STEPS],
        `${path.join('.')} has ${list.length} steps; a list may have at most ${MAX_STEPS}`,
        'split the flow into several scenarios',
      );
  }
  return raw;
}

/** The parsed document's value: a mapping, else a file:line error. */
function documentValue(src: Located): Record<string, any> {
  let raw: unknown;
  try {
    raw = src.doc.toJS();
  } catch (cause) {
    // yaml refuses aliases that expand past its maxAliasCount (a "billion laughs" document).
    const { line, col } = src.firstAlias();
    throw new PerfError({
      code: 'scenario_invalid',
      message: `${src.file}:${line}:${col}: invalid YAML: ${(cause as Error).message}`,
      suggestion: 'aliases (*name) may not expand into huge documents; write the values out',
      cause,
    });
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw src.fail(
      [],
      `a scenario is a mapping of keys (name, app, steps, …), got ` +
        `${raw === null ? 'an empty file' : Array.isArray(raw) ? 'a list' : typeof raw}`,
    );
  }
  return raw as Record<string, any>;
}

/** The scenario schema (the single source of truth for its shape), its first error at its line. */
function checkShape(src: Located, raw: Record<string, any>): void {
  const validate = compile(looseSchema);
  if (validate(raw)) return;
  const e = bestErrors(validate.errors ?? [])[0]!;
  // A variant's budgets too: they replace the top-level list, so their errors point into the variant.
  const budget = /^(\/variants\/[^/]+)?\/budgets\/\d+$/.test(e.instancePath);
  if (budget && e.keyword === 'pattern') parseBudget(src, instancePathToPath(e.instancePath), String(e.data));
  if (e.instancePath === '/name' && e.keyword === 'pattern') {
    throw src.fail(['name'], `name ${JSON.stringify(e.data)} may only use ${SCENARIO_NAME_ALLOWED}: it becomes part of file names`);
  }
  const d = describeAjvError(e, '');
  const isKey = e.keyword === 'additionalProperties';
  const at = instancePathToPath(e.instancePath);
  const path = isKey ? [...at, String(e.params.additionalProperty)] : at;
  throw src.fail(path, d.message.replace(/^: /, '').replace(/^\.?/, ''), undefined, isKey);
}

/** Variants: required when declared, refused when none. */
function pickVariant(shown: string, variantNames: string[], wanted: string | undefined): string | null {
  if (wanted === undefined) {
    if (variantNames.length === 0) return null;
    throw new PerfError({
      code: 'variant_required',
      message: `${shown}: declares variants (${variantNames.join(', ')}); pick one with --variant NAME`,
      suggestion: `e.g. --variant ${variantNames[0]}`,
      candidates: variantNames,
    });
  }
  if (variantNames.length === 0) {
    throw new PerfError({
      code: 'variant_unknown',
      message: `${shown}: --variant ${wanted} given, but the scenario declares no variants`,
      suggestion: 'drop --variant',
    });
  }
  if (!variantNames.includes(wanted)) {
    const near = closest(wanted, variantNames);
    throw new PerfError({
      code: 'variant_unknown',
      message: `${shown}: unknown variant "${wanted}"; variants are: ${variantNames.join(', ')}`,
      ...(near.length ? { suggestion: `did you mean --variant ${near[0]}?` } : {}),
      candidates: variantNames,
    });
  }
  return wanted;
}

/** The document as written for this variant: each part interpolated where it was written, then merged. */
interface Written {
  variant: string | null;
  top: Record<string, any>;
  over: Record<string, any>;
  merged: Record<string, any>;
  vars: Record<string, string | number | boolean>;
  env: EnvReads;
  /** Where a key was written: under the variant when it sets it, else at the top. */
  at(path: Path): Path;
}

function written(src: Located, doc: Record<string, any>, variant: string | null, opts: LoadOptions): Written {
  const overrides = variant ? (doc.variants[variant] as Record<string, unknown>) : {};
  const vars: Record<string, string | number | boolean> = {
    ...(doc.vars ?? {}),
    ...((overrides.vars as object | undefined) ?? {}),
    ...(opts.vars ?? {}),
  };
  const env: EnvReads = { from: opts.env ?? process.env, used: new Map() };
  // Interpolate each part where it was written, so an unknown var is reported at its own line.
  const top = interpolate(src, stripKeys(doc, ['variants']), [], vars, env) as Record<string, any>;
  const over = variant ? (interpolate(src, overrides, ['variants', variant], vars, env) as Record<string, any>) : {};
  const at = (path: Path): Path => (variant && valueAt(over, path) !== undefined ? ['variants', variant, ...path] : path);
  const merged = deepMerge(top, over);
  if (opts.engine !== undefined) merged.browser = { ...((merged.browser as object | undefined) ?? {}), engine: opts.engine };
  return { variant, top, over, merged, vars, env, at };
}

function valueAt(o: unknown, path: Path): unknown {
  let v: unknown = o;
  for (const seg of path) v = isPlainObject(v) ? v[String(seg)] : undefined;
  return v;
}

interface ResolvedApp {
  spec: Scenario['app'];
  desktop?: DesktopApp;
  terminal?: TerminalApp;
}

/** What a path a scenario names must be, for `perf validate`: a folder, a readable file, or a program to run. */
type PathKind = 'folder' | 'file' | 'program';

function pathProblem(abs: string, kind: PathKind): string | undefined {
  let st;
  try {
    st = statSync(abs);
  } catch {
    return 'does not exist';
  }
  if (kind === 'folder' && !st.isDirectory()) return 'is not a folder';
  if (kind !== 'folder' && !st.isFile()) return 'is not a file';
  // Any execute bit: whether this user may run it is the runner's to find out, as a shell would.
  if (kind === 'program' && (st.mode & 0o111) === 0) return 'is not executable';
  return undefined;
}

/** Every file and folder the scenario names, checked where the runner resolves it (against the scenario's folder). */
function checkNamedFiles(src: Located, w: Written, sc: Scenario, cwd: string): void {
  const terminal = sc.app.terminal;
  const named: [Path, string | undefined, PathKind, string][] = [
    [['app', 'serve'], sc.app.serve, 'folder', 'the folder that holds the built app (build it first)'],
    [['browser', 'storageState'], sc.browser.storageState, 'file', 'a state file saved by perf state save or MCP storage_save'],
    [['app', 'terminal', 'command'], terminal?.command.includes('/') ? terminal.command : undefined, 'program', 'an executable program'],
    [['app', 'terminal', 'cwd'], w.merged.app?.terminal?.cwd !== undefined ? terminal?.cwd : undefined, 'folder', 'an existing folder'],
  ];
  for (const [path, abs, kind, expected] of named) {
    if (abs === undefined) continue;
    const problem = pathProblem(abs, kind);
    if (problem === undefined) continue;
    const given = String(valueAt(w.merged, path));
    const shown = relative(cwd, abs) || abs;
    const at = given === shown ? shown : `${given} (${shown}: relative to the scenario file)`;
    throw src.fail(w.at(path), `${path.join('.')}: ${at} ${problem}; expected ${expected}`);
  }
}

/** `app`: exactly one source (serve, command, url, desktop or terminal), resolved against the scenario's folder. */
function resolveApp(src: Located, w: Written, where: { dir: string; cwd: string; allowOutside: boolean }): ResolvedApp {
  const { dir } = where;
  const app = w.merged.app as Record<string, any>;
  const sources = ['serve', 'command', 'url'].filter((k) => app[k] !== undefined);
  if (app.serve !== undefined && app.command !== undefined)
    throw src.fail(['app'], 'app takes one of serve, command or url, got serve and command');
  if (app.serve !== undefined && app.url !== undefined)
    throw src.fail(['app'], 'app takes one of serve, command or url, got serve and url');
  if (app.terminal !== undefined && (sources.length > 0 || app.desktop !== undefined))
    throw src.fail(['app', 'terminal'], 'app.terminal is the whole app: it takes no serve, command, url or desktop beside it');
  if (sources.length === 0 && app.desktop === undefined && app.terminal === undefined)
    throw src.fail(
      ['app'],
      'app needs one of serve (a folder), command (a shell command), url (a running ' +
        'app), desktop (an app binary) or terminal (a terminal program)',
    );
  const terminal = app.terminal === undefined ? undefined : parseTerminal(app.terminal as Record<string, unknown>, dir);
  const desktop =
    app.desktop === undefined ? undefined : parseDesktop(src, app.desktop as Record<string, unknown>, w.at(['app', 'desktop']), dir);
  if (app.path !== undefined && !String(app.path).startsWith('/'))
    throw src.fail(['app', 'path'], `app.path must start with "/", got "${String(app.path)}"`);
  if (app.serve !== undefined) {
    try {
      checkServeFolder(resolve(dir, String(app.serve)), [dir, where.cwd], { allowOutside: where.allowOutside, shown: 'app.serve' });
    } catch (e) {
      if (!isPerfError(e)) throw e;
      throw src.fail(w.at(['app', 'serve']), e.message, e.suggestion);
    }
  }
  const spec: Scenario['app'] = {
    ...(app.serve !== undefined ? { serve: resolve(dir, String(app.serve)) } : {}),
    ...(app.command !== undefined ? { command: String(app.command) } : {}),
    ...(app.url !== undefined ? { url: String(app.url) } : {}),
    path: (app.path as string | undefined) ?? '/',
    spa: app.spa === true,
    cwd: dir,
    ...(app.startTimeoutMs !== undefined ? { startTimeoutMs: app.startTimeoutMs as number } : {}),
    ...(desktop ? { desktop } : {}),
    ...(terminal ? { terminal } : {}),
  };
  return { spec, ...(desktop ? { desktop } : {}), ...(terminal ? { terminal } : {}) };
}

/** The driver that runs the scenario (src/drivers/registry.ts), and its refusals at their lines. */
function scenarioDriver(
  src: Located,
  w: Written,
  { app, browser, vp, network }: { app: ResolvedApp; browser: Record<string, any>; vp: Scenario['viewport']; network: boolean },
): DriverDefinition {
  const view: DriverScenarioView = {
    app: { ...(app.desktop ? { desktop: { driver: app.desktop.driver } } : {}), terminal: app.terminal !== undefined },
    browser,
    viewport: vp,
    ...(w.merged.cpuThrottle !== undefined ? { cpuThrottle: w.merged.cpuThrottle as number } : {}),
    network,
    given: new Set(Object.keys(w.merged)),
  };
  const driver = driverFor(view);
  const problem = driver.validate(view)[0];
  if (problem) throw src.fail(w.at(problem.path), problem.message, problem.suggestion);
  return driver;
}

/** A step list, each step checked against the registry and against what the driver runs. */
function parseSteps(src: Located, w: Written, key: StepListKey, driver: DriverDefinition, desktop: boolean): StepCall[] {
  const list = (w.merged[key] as unknown[] | undefined) ?? [];
  const origin = w.at([key]);
  return list.map((item, i) => {
    const call = parseStep(src, [...origin, i], item);
    const def = getStep(call.name);
    const refused = stepRefusal(def, driver, call.args);
    if (refused) throw src.fail([...origin, i, call.name], refused.message, refused.suggestion);
    if (def.desktopOnly && !desktop)
      throw src.fail(
        [...origin, i, call.name],
        `${call.name} calls a desktop app's IPC: it needs app.desktop (a Tauri app), and this scenario drives a web page`,
        'add app.desktop, or drop the step',
      );
    return call;
  });
}

/** `network`: a variant's profile replaces the scenario's numbers (and its numbers the profile): the key is one choice, not merged. */
function scenarioNetwork(src: Located, w: Written): NetworkSetting | undefined {
  if (w.merged.network === undefined) return undefined;
  try {
    return resolveNetwork((w.over.network ?? w.top.network) as Parameters<typeof resolveNetwork>[0]);
  } catch (e) {
    if (isPerfError(e)) throw src.fail(w.at(['network']), e.message, e.suggestion);
    throw e;
  }
}

/** Variant names become parts of file names: one holding more than NAME_PART allows is refused at its key. */
function checkVariantNames(src: Located, doc: Record<string, any>): void {
  if (!isPlainObject(doc.variants)) return;
  for (const name of Object.keys(doc.variants)) {
    if (isNamePart(name)) continue;
    const instead =
      name
        .toLowerCase()
        .replace(/[^a-z0-9_-]+/g, '-')
        .replace(/^-+|-+$/g, '') || 'variant';
    const message = `variant name ${JSON.stringify(name)} may only use ${NAME_PART.allowed}: it becomes part of file names`;
    throw src.fail(['variants', name], message, `rename it, e.g. ${instead}`, true);
  }
}

function stripKeys(o: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (!keys.includes(k)) out[k] = v;
  return out;
}

/** Objects merge key by key; lists and scalars replace (DESIGN.md "variant deep-merges"). */
export function deepMerge(base: Record<string, any>, over: Record<string, any>): Record<string, any> {
  const out: Record<string, any> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    out[k] = isPlainObject(b) && isPlainObject(v) ? deepMerge(b, v) : v;
  }
  return out;
}

function isPlainObject(v: unknown): v is Record<string, any> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** A quote opens a quoted scalar only where a scalar starts (don't in a plain scalar is an apostrophe). */
function startsScalar(text: string, i: number): boolean {
  let j = i - 1;
  while (j >= 0 && (text[j] === ' ' || text[j] === '\t')) j--;
  return j < 0 || text[j] === '\n' || ':-[{,?'.includes(text[j]!);
}

/**
 * The innermost { [ " or ' still open at `end`, scanning the text as flow YAML: quotes hide brackets,
 * `#` after a space starts a comment. Approximate on block scalars, so only used to explain a parse
 * error about a flow collection or a quote.
 */
function unclosedBefore(text: string, end: number): { what: string; at: number } | undefined {
  const stack: { ch: string; at: number }[] = [];
  let quote: { ch: string; at: number } | undefined;
  for (let i = 0; i < end && i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (quote.ch === '"' && c === '\\') i++;
      else if (c === quote.ch && !(quote.ch === "'" && text[i + 1] === "'")) quote = undefined;
      else if (quote.ch === "'" && c === "'") i++;
      continue;
    }
    if (c === '#' && (i === 0 || /\s/.test(text[i - 1]!))) {
      while (i < end && text[i] !== '\n') i++;
    } else if ((c === '"' || c === "'") && startsScalar(text, i)) quote = { ch: c, at: i };
    else if (c === '{' || c === '[') stack.push({ ch: c, at: i });
    else if ((c === '}' || c === ']') && stack.length) stack.pop();
  }
  const open = quote ?? stack[stack.length - 1];
  if (!open) return undefined;
  return { what: open.ch === '{' ? '"{"' : open.ch === '[' ? '"["' : 'quote', at: open.at };
}

// ${name} and ${env.NAME}; ${PORT} is left for the app command, filled at start. `$${` is a literal
// `${` (as docker-compose's `$$`): how a recording's text, which is data, keeps its `${` uninterpolated.
const VAR_RE = /\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_.]*)\}/g;

/** The environment, and the values read from it: they are written to run files as ${env.NAME}, never as themselves. */
interface EnvReads {
  from: NodeJS.ProcessEnv;
  used: Map<string, string>;
}
// ${APP_URL}: the started app's URL, for app.desktop.args.
const RUNTIME_VARS = new Set(['PORT', 'APP_URL']);

function interpolate(src: Located, value: unknown, path: Path, vars: Record<string, string | number | boolean>, env: EnvReads): unknown {
  if (typeof value === 'string') {
    // A string that is exactly one ${var} keeps the var's type (a number stays a number).
    const whole = /^\$\{([A-Za-z_][A-Za-z0-9_.]*)\}$/.exec(value);
    if (whole && !whole[1]!.startsWith('env.') && !RUNTIME_VARS.has(whole[1]!)) return lookup(src, path, whole[1]!, vars, env);
    return value.replace(VAR_RE, (m, name: string | undefined) => {
      if (name === undefined) return '${';
      return RUNTIME_VARS.has(name) ? m : String(lookup(src, path, name, vars, env));
    });
  }
  if (Array.isArray(value)) return value.map((v, i) => interpolate(src, v, [...path, i], vars, env));
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    // vars values themselves are not interpolated (no recursion surprises).
    for (const [k, v] of Object.entries(value))
      out[k] = path.length === 0 && k === 'vars' ? v : interpolate(src, v, [...path, k], vars, env);
    return out;
  }
  return value;
}

/** Every var name the document declares (top level or any variant's vars:) or uses as ${name}. */
function varNamesOf(doc: Record<string, any>): string[] {
  const names = new Set<string>(Object.keys(doc.vars ?? {}));
  for (const v of Object.values((doc.variants ?? {}) as Record<string, Record<string, unknown> | null>))
    for (const k of Object.keys((v?.vars as object | undefined) ?? {})) names.add(k);
  const walk = (value: unknown): void => {
    if (typeof value === 'string') {
      for (const m of value.matchAll(VAR_RE)) if (m[1] && !m[1].startsWith('env.')) names.add(m[1]);
    } else if (Array.isArray(value)) value.forEach(walk);
    else if (isPlainObject(value)) Object.values(value).forEach(walk);
  };
  walk(doc);
  return [...names].filter((n) => !RUNTIME_VARS.has(n));
}

/** A --var / --baseline-var name the file neither declares nor uses would be ignored, and a gate would measure the wrong build: exit 2. */
function checkVarFlags(shown: string, doc: Record<string, any>, flags: Record<string, '--var' | '--baseline-var'>): void {
  checkVarNames(`${shown} has no var`, varNamesOf(doc), flags);
}

/** For a flag that sets a var in several scenarios at once (perf gate --var): each name must be known to one of them. */
export function checkVarFlagsAcross(paths: string[], flags: Record<string, '--var'>, cwd = process.cwd()): void {
  if (Object.keys(flags).length === 0) return;
  const known = new Set<string>();
  for (const path of paths) {
    const abs = resolve(cwd, path);
    const shown = relative(cwd, abs) || abs;
    for (const name of varNamesOf(parsedDocument(new Located(shown, yamlOf(abs, readScenarioText(abs, shown), shown))))) known.add(name);
  }
  checkVarNames(paths.length === 1 ? `${paths[0]!} has no var` : `none of the ${paths.length} scenarios has a var`, [...known], flags);
}

function checkVarNames(lacks: string, known: string[], flags: Record<string, '--var' | '--baseline-var'>): void {
  const given = Object.keys(flags);
  for (const name of given) {
    if (known.includes(name)) continue;
    const near = closest(name, known);
    throw new PerfError({
      code: 'invalid_flag',
      message:
        `${flags[name]} ${name}: ${lacks} ${name}${near.length ? `; did you mean ${near[0]}?` : ''}` +
        `; vars are: ${known.join(', ') || '(none)'}`,
      suggestion: near.length ? `${flags[name]} ${near[0]}=…` : 'declare it under vars: in the scenario, then set it with --var',
      candidates: near,
    });
  }
}

function lookup(
  src: Located,
  path: Path,
  name: string,
  vars: Record<string, string | number | boolean>,
  env: EnvReads,
): string | number | boolean {
  if (name.startsWith('env.')) {
    const key = name.slice(4);
    const v = env.from[key];
    if (v === undefined)
      throw src.fail(path, `\${${name}}: environment variable ${key} is not set`, `set ${key}, or use a var with a default under vars:`);
    if (v !== '') env.used.set(key, v);
    return v;
  }
  if (!(name in vars)) {
    const near = closest(name, Object.keys(vars));
    throw src.fail(
      path,
      `unknown var \${${name}}${near.length ? `; did you mean \${${near[0]}}?` : ''}` +
        `; vars are: ${Object.keys(vars).join(', ') || '(none)'}`,
      'declare it under vars:, or use ${env.NAME} for the environment',
      false,
      near,
    );
  }
  return vars[name]!;
}

function parseTerminal(t: Record<string, unknown>, dir: string): TerminalApp {
  const command = String(t.command);
  return {
    // A relative path names a program beside the scenario; a bare name is looked up on PATH when it starts.
    command: command.includes('/') ? resolve(dir, command) : command,
    args: ((t.args as string[] | undefined) ?? []).map(String),
    cols: (t.cols as number | undefined) ?? 100,
    rows: (t.rows as number | undefined) ?? 30,
    env: { ...((t.env as Record<string, string> | undefined) ?? {}) },
    cwd: resolve(dir, (t.cwd as string | undefined) ?? '.'),
  };
}

function parseDesktop(src: Located, d: Record<string, unknown>, at: Path, dir: string): DesktopApp {
  const given = String(d.binary);
  const binary = findExecutable(given, { cwd: dir });
  if (!binary) {
    throw src.fail(
      [...at, 'binary'],
      `app.desktop.binary ${given} ${given.includes('/') ? `(${resolve(dir, given)}) is not an executable file` : 'is not on PATH'}`,
      'build the app first (e.g. npm run tauri build -- --debug), and give the path to its executable',
    );
  }
  return {
    binary,
    args: ((d.args as string[] | undefined) ?? []).map(String),
    driver: (d.driver as 'tauri' | 'webkit' | undefined) ?? 'tauri',
  };
}

function parseStep(src: Located, path: Path, item: unknown): StepCall {
  const { line, col } = src.pos(path);
  let name: string;
  let args: unknown;
  if (typeof item === 'string') {
    name = item;
    args = {};
  } else if (isPlainObject(item) && Object.keys(item).length === 1) {
    name = Object.keys(item)[0]!;
    args = item[name] ?? {};
  } else {
    const keys = isPlainObject(item) ? Object.keys(item) : [];
    throw src.fail(
      path,
      keys.length > 1
        ? `a step is one key (the step name), got ${keys.length}: ${keys.join(', ')}`
        : 'a step is `- <step name>: <arguments>`',
      keys.length > 1 ? 'put each step in its own list item, or indent the arguments under the step name' : undefined,
    );
  }
  if (!stepNames().includes(name)) {
    const near = closest(name, stepNames());
    throw src.fail(
      [...path, name],
      `unknown step "${name}"${near.length ? `; did you mean ${near.map((n) => `"${n}"`).join(' or ')}?` : ''}`,
      `steps are: ${stepNames().join(', ')}`,
      true,
      near,
    );
  }
  try {
    const prepared = prepareArgs(name, args);
    return { name, args: prepared.args, line, col };
  } catch (e) {
    if (isPerfError(e)) throw src.fail(typeof item === 'string' ? path : [...path, name], e.message, e.suggestion);
    throw e;
  }
}

export function parsePct(v: unknown): number {
  return typeof v === 'number' ? v : Number(String(v).replace(/[%+\s]/g, ''));
}

function parseThresholds(src: Located, t: Record<string, any> | undefined, stepLabels: string[]): Scenario['thresholds'] {
  const metrics: Record<string, { warnPct?: number; errorPct?: number }> = {};
  for (const [m, v] of Object.entries((t?.metrics as Record<string, Record<string, unknown>> | undefined) ?? {})) {
    checkMetricAt(src, ['thresholds', 'metrics', m], m, stepLabels, true);
    metrics[m] = {
      ...(v.warn !== undefined ? { warnPct: parsePct(v.warn) } : {}),
      ...(v.error !== undefined ? { errorPct: parsePct(v.error) } : {}),
    };
  }
  return {
    warnPct: t?.warn !== undefined ? parsePct(t.warn) : DEFAULTS.warnPct,
    errorPct: t?.error !== undefined ? parsePct(t.error) : DEFAULTS.errorPct,
    metrics,
  };
}

// Any word after the number is taken as a unit here, so a misspelt one ("300kb") is named as such
// rather than reported as a malformed budget; BUDGETS_KEY's pattern lists the real units.
const BUDGET_RE = new RegExp(`^\\s*([A-Za-z0-9_.\\-]+)\\s*(${BUDGET_OPS_PATTERN})\\s*(-?[0-9]+(?:\\.[0-9]+)?)\\s*([A-Za-z]+)?\\s*$`);

/** A budget as written: its number and unit word, neither yet checked against the metric. */
export interface WrittenBudget {
  expr: string;
  metric: string;
  op: Budget['op'];
  number: number;
  unit?: string;
}

export function parseBudgetExpr(expr: string): WrittenBudget | undefined {
  const m = BUDGET_RE.exec(expr);
  if (!m) return undefined;
  return { expr: expr.trim(), metric: m[1]!, op: m[2] as Budget['op'], number: Number(m[3]), ...(m[4] ? { unit: m[4] } : {}) };
}

const UNIT_HELP =
  `units: ${unitsForKind('ms').join(', ')} for a time; ${unitsForKind('bytes').join(', ')} for a size ` +
  '(KB = KiB = 1024 bytes, as Lighthouse reads budget.json sizes)';

function parseBudget(src: Located, path: Path, expr: string, stepLabels: string[] = []): Budget {
  const b = parseBudgetExpr(expr);
  if (!b)
    throw src.fail(
      path,
      `malformed budget "${expr}": expected "<metric> <op> <number>" with op one of ${BUDGET_OPS.join(' ')} ` +
        `and an optional unit (${BUDGET_UNIT_NAMES.join(', ')})`,
      'e.g. "interactions.latencyMs.p90 < 100", "durationMs < 0.8s", "insights.RenderBlocking.count == 0"',
    );
  const which = `budget ${Number(path[path.length - 1]) + 1}`;
  if (b.unit !== undefined && !isBudgetUnit(b.unit)) {
    const same = BUDGET_UNIT_NAMES.find((u) => u.toLowerCase() === b.unit!.toLowerCase());
    throw src.fail(path, `${which}: unknown unit "${b.unit}" in "${b.expr}"${same ? `; did you mean "${same}"?` : ''}`, UNIT_HELP);
  }
  const kind = budgetKind(src, path, b.metric, which, stepLabels);
  const budget: Budget = { expr: b.expr, metric: b.metric, op: b.op, limit: b.number };
  if (b.unit === undefined) return budget;
  if (!unitsForKind(kind).includes(b.unit)) throw src.fail(path, `${which}: ${b.metric} ${takes(kind)}, not ${b.unit}`, UNIT_HELP);
  return { ...budget, limit: toMetricUnit(b.number, b.unit), unit: b.unit };
}

/** The kind of number a budget reads (which units its limit takes): an insight key's field's, or its metric's. */
function budgetKind(src: Located, path: Path, name: string, which: string, stepLabels: string[]): MetricKind {
  let key: ReturnType<typeof checkInsightKey>;
  try {
    key = checkInsightKey(name);
  } catch (e) {
    if (isPerfError(e)) throw src.fail(path, `${which}: ${e.message}`, e.suggestion, false, e.candidates);
    throw e;
  }
  return key ? INSIGHT_BUDGET_FIELDS[key.field] : checkMetricAt(src, path, name, stepLabels).def.kind;
}

/**
 * A budget on one of DevTools' insights in a scenario that measures its steps: perf run runs DevTools' engine on a
 * measured load only (runner/repeat.ts), so such a budget could never be judged; it is refused before any browser starts.
 * So is one on an insight that reads the scripts' sources, on any scenario (SOURCE_INSIGHTS).
 */
function checkDevtoolsBudgets(src: Located, w: Written, sc: Pick<Scenario, 'measure' | 'budgets'>): void {
  sc.budgets.forEach((b, i) => {
    const id = parseInsightKey(b.metric)?.id;
    if (id === undefined || !isDevtoolsInsight(id)) return;
    if (needsSources(id))
      throw src.fail(
        [...w.at(['budgets']), i],
        `budget ${i + 1}: ${id} reads the scripts' sources, which a run's trace does not record (Chromium's renderer ` +
          `died recording them beside the CPU profiler), so it would never fire`,
        `ask perf_load over MCP for it (perf mcp), or budget the bytes: load.transferBytes.script`,
      );
    if (sc.measure === 'load') return;
    throw src.fail(
      [...w.at(['budgets']), i],
      `budget ${i + 1}: ${id} is one of DevTools' insights, computed on a measured load only, and this scenario measures its steps`,
      `add measure: load, or budget one of our insights (${rehearseInsightIds().join(', ')})`,
    );
  });
}

/** What a metric's limit may be written in, for the wrong-unit error. */
function takes(kind: MetricKind): string {
  switch (kind) {
    case 'ms':
      return `takes a time (${unitsForKind('ms').join(', ')})`;
    case 'bytes':
      return `takes a size (${unitsForKind('bytes').join(', ')})`;
    case 'count':
      return 'is a count and takes no unit';
    case 'score':
      return 'is a score and takes no unit';
  }
}

/** The label a measured step's `steps.<label>.ms` metric carries (as runStep names it). */
export function stepLabel(call: StepCall, index: number): string {
  return String(call.args.label ?? `${index}-${call.name}`);
}

/** A metric name written in the scenario must be one the registry declares: else a load-time error with did-you-mean. */
function checkMetricAt(src: Located, path: Path, name: string, stepLabels: string[], key = false): ResolvedMetric {
  try {
    return checkMetricName(name, stepLabels, 'metric');
  } catch (e) {
    if (isPerfError(e)) throw src.fail(path, e.message.replace(/^metric: /, ''), e.suggestion, key, e.candidates);
    throw e;
  }
}
