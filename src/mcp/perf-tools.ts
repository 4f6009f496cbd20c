/**
 * perf_run and perf_compare: `perf run` (with --against) and `perf compare` as MCP tools, run in the
 * server's own process. They start their own app and browser (or terminal program) from the scenario
 * file, independent of the session of app_start. Replies are bounded: headline medians, budgets and the
 * changed compare rows by default; `json: true` for the run summary and the full compare.
 */
import { RUN_OPTIONS, SEQUENTIAL_OPTIONS, STOP_OPTIONS } from '../runner/options.js';
import { NAME_PART } from '../files.js';
import { PerfError } from '../errors.js';
import { compareExitCode, compareRunFiles, type RunsComparison } from '../perf/compare-runs.js';
import type { CompareRow } from '../perf/compare.js';
import type { AttributionLine } from '../perf/attribution.js';
import { againstLabels, type AgainstProgress } from '../runner/against.js';
import { lookVerdictWords, type LookEvent } from '../runner/sequential.js';
import { runAndJudge } from '../runner/judge.js';
import type { ProgressEvent } from '../runner/run.js';
import type { BudgetResult, RunFile } from '../perf/run-file.js';
import { inBudgetUnit } from '../perf/budget-units.js';
import { loadScenario, type Scenario } from '../scenario/load.js';
import { scenarioProgram } from '../scenario/program.js';
import { METRICS } from '../perf/metrics.js';
import { leaksJson, type LeaksResult } from '../perf/leaks-result.js';
import { runLeaks } from '../runner/leaks.js';
import { okReply, type ToolReply } from './format.js';
import { defineTool, type McpCore, type ToolCallContext, type ToolDefinition } from './core.js';
import type { FromSchema, JsonSchema } from '../schema-types.js';

/** The metrics a one-glance reply shows: the registry's headline metrics; json: true gives them all. */
const HEADLINE = METRICS.filter((d) => d.headline).map((d) => d.name);

function runBrief(run: RunFile, file: string, full: boolean): Record<string, unknown> {
  const s = run.summary;
  const metrics = full
    ? s.metrics
    : Object.fromEntries(
        HEADLINE.flatMap((m) =>
          s.metrics[m] ? [[m, { median: s.metrics[m]!.median, p25: s.metrics[m]!.p25, p75: s.metrics[m]!.p75 }]] : [],
        ),
      );
  const failures = run.repeats.flatMap((r) =>
    r.status === 'failed'
      ? [{ index: r.index, phase: r.failure.phase, step: r.failure.step, error: `${r.failure.error.code}: ${r.failure.error.message}` }]
      : [],
  );
  return {
    path: file,
    scenario: run.scenario,
    variant: run.variant,
    label: run.label,
    repeats: { counted: s.repeats, measured: s.measured, refused: s.refused, failed: s.failed, warmup: s.warmup },
    metrics,
    budgets: run.budgets.map(budgetBrief),
    ...(failures.length ? { failures: failures.slice(0, 5) } : {}),
    ...(run.interrupted ? { interrupted: true } : {}),
  };
}

/** value stays in the metric's own unit (as its name says); a limit written in a unit gets the median in it too. */
function budgetBrief(b: BudgetResult): Record<string, unknown> {
  const shown = b.unit !== undefined && b.value !== null ? { median: inBudgetUnit(b.value, b.unit) } : {};
  // An insight budget's `of`: the repeats its count is out of ("fired in value of of").
  return { expr: b.expr, value: b.value, ...shown, ...(b.of !== undefined ? { of: b.of } : {}), pass: b.pass };
}

function rowBrief(r: CompareRow): Record<string, unknown> {
  return {
    metric: r.metric,
    a: r.a.median,
    b: r.b.median,
    deltaPct: r.deltaPct,
    ci: r.ci,
    verdict: r.verdict,
    severity: r.severity,
    gated: r.gated,
    ...(r.needRepeats !== undefined ? { needRepeats: r.needRepeats } : {}),
    reason: r.reason,
  };
}

// Attribution in a reply: 2 KB for every row together (an agent's context pays for each byte; the
// whole reply stays within 6 KB), 3 lines a row (what the CLI table shows), names cut at 80 characters
// (a minified name or a data: URL says nothing more past that).
export const MCP_ATTRIBUTION_MAX_BYTES = 2048;
const MCP_ATTRIBUTION_LINES = 3;
const MCP_NAME_CHARS = 80;

/** One attribution line for an agent: short keys, ms per repeat, the interval as [low, high]. */
function lineBrief(l: AttributionLine): Record<string, unknown> {
  const cut = (t: string): string => (t.length > MCP_NAME_CHARS ? `${t.slice(0, MCP_NAME_CHARS - 1)}…` : t);
  return {
    ...(l.kind === 'function' ? {} : { kind: l.kind }),
    name: cut(l.name),
    ...(l.url !== null ? { at: cut(l.url) } : {}),
    dMs: l.deltaMs,
    ...(l.ci ? { ci: [l.ci.lowMs, l.ci.highMs] } : {}),
    ...(l.share !== null ? { share: l.share } : {}),
  };
}

/**
 * The rows' attribution within MCP_ATTRIBUTION_MAX_BYTES: top lines per row, fewer lines for the last
 * rows when it does not fit, then none (counted in `attributionOmitted`). Flame stacks never go here.
 */
function attributionBriefs(rows: readonly CompareRow[]): { byMetric: Map<string, Record<string, unknown>>; omitted: number } {
  const withA = rows.filter((r) => r.attribution);
  const perRow = withA.map(() => MCP_ATTRIBUTION_LINES);
  const build = (): Map<string, Record<string, unknown>> =>
    new Map(
      withA.flatMap((r, i) =>
        perRow[i]! > 0 || r.attribution!.missing
          ? [
              [
                r.metric,
                {
                  top: r.attribution!.lines.slice(0, perRow[i]).map(lineBrief),
                  ...(r.attribution!.missing ? { missing: r.attribution!.missing.slice(0, 2 * MCP_NAME_CHARS) } : {}),
                },
              ],
            ]
          : [],
      ),
    );
  let out = build();
  const size = (): number => Buffer.byteLength(JSON.stringify([...out.values()]));
  for (let i = withA.length - 1; i >= 0 && size() > MCP_ATTRIBUTION_MAX_BYTES; i--) {
    while (perRow[i]! > 0 && size() > MCP_ATTRIBUTION_MAX_BYTES) {
      perRow[i]!--;
      out = build();
    }
    if (size() > MCP_ATTRIBUTION_MAX_BYTES) {
      withA.splice(i, 1);
      perRow.splice(i, 1);
      out = build();
    }
  }
  return { byMetric: out, omitted: rows.filter((r) => r.attribution).length - out.size };
}

// 6 KB for a one-glance compare reply, as for perf_end's report (REPORT_MAX_BYTES): an agent reads it
// whole every time. json: true is the full answer, asked for.
export const COMPARE_REPLY_MAX_BYTES = 6 * 1024;
// What the reply adds around the brief ({"tool":"perf_compare","status":"ok",…}, keys of perf_run's): well under 100 bytes.
const REPLY_ENVELOPE_BYTES = 100;

/**
 * Keep a one-glance reply within `budget` bytes: the reasons of rows that decide nothing go first,
 * then those rows (from the least changed, counted in `changedOmitted`), then the gated rows' reasons.
 * The gated rows themselves, their verdicts and attribution always stay.
 */
function fitChanged(brief: Record<string, unknown>, changed: Record<string, unknown>[], budget: number): void {
  const over = (): boolean => Buffer.byteLength(JSON.stringify(brief)) > budget;
  const dropReasons = (which: (r: Record<string, unknown>) => boolean): void => {
    for (let i = changed.length - 1; i >= 0 && over(); i--) if (which(changed[i]!)) delete changed[i]!.reason;
  };
  dropReasons((r) => !r.gated);
  let dropped = 0;
  for (let i = changed.length - 1; i >= 0 && over(); i--) {
    if (changed[i]!.gated) continue;
    changed.splice(i, 1);
    dropped++;
  }
  if (dropped) {
    brief.changedOmitted =
      `${dropped} row(s) that decide nothing left out to keep this reply under ${COMPARE_REPLY_MAX_BYTES / 1024} KB; ` +
      'json: true lists every row';
  }
  dropReasons((r) => r.gated === true);
}

// DevTools' insights that can change between two runs of a page are a dozen; 8 lines keep the brief within its bound.
const MAX_INSIGHT_LINES = 8;

/** The changed rows only (worst first, as compareMetrics sorted them) unless full. Flame stacks never. */
export function compareBrief(c: RunsComparison, full: boolean, budget = COMPARE_REPLY_MAX_BYTES): Record<string, unknown> {
  const { byMetric, omitted } = attributionBriefs(c.rows);
  const withAttribution = (r: CompareRow, brief: Record<string, unknown>): Record<string, unknown> => {
    const a = byMetric.get(r.metric);
    return a ? { ...brief, attribution: a } : brief;
  };
  const more = omitted ? { attributionOmitted: omitted } : {};
  if (full) {
    const { attribution: _flame, rows, ...rest } = c;
    return { ...rest, rows: rows.map((r) => withAttribution(r, { ...r, attribution: undefined })), ...more, exitCode: compareExitCode(c) };
  }
  const changed = c.rows.filter((r) => r.verdict !== 'unchanged').map((r) => withAttribution(r, rowBrief(r)));
  const brief = {
    verdict: c.verdict,
    exitCode: compareExitCode(c),
    gate: {
      summary: c.gate.summary,
      primary: c.gate.primary,
      ...(c.gate.setAside?.length ? { setAside: c.gate.setAside.map((x) => ({ metric: x.metric, deltaPct: x.deltaPct })) } : {}),
      look: c.gate.look,
      ...(c.gate.sequential ? { sequential: c.gate.sequential.note } : {}),
    },
    ...(c.host.same ? {} : { host: c.host.note }),
    ...(c.blind ? { blind: c.blind } : {}),
    thresholds: c.thresholds,
    frames: c.frames,
    changed,
    // The insights that changed, one line each: they explain the verdict (a stylesheet that became render-blocking).
    ...(c.insights?.length ? { insights: c.insights.slice(0, MAX_INSIGHT_LINES).map((i) => i.line) } : {}),
    ...more,
    unchanged: c.unchanged.length,
    timing: c.timing,
    warnings: c.warnings,
  };
  fitChanged(brief, changed, budget);
  return brief;
}

/** A scenario whose app is a program (a shell command, a terminal program, a desktop binary), by name. */
export function programOf(sc: Scenario): string | undefined {
  return scenarioProgram(sc)?.key;
}

const PERF_RUN_SCHEMA = {
  type: 'object',
  properties: {
    scenario: { type: 'string', description: 'Scenario YAML file (the candidate with against).' },
    variant: { type: 'string', pattern: NAME_PART.pattern, description: 'Variant to run.' },
    ...RUN_OPTIONS,
    ...STOP_OPTIONS,
    against: { type: 'string', description: 'Baseline scenario, run interleaved and compared.' },
    ...SEQUENTIAL_OPTIONS,
    vars: { type: 'object', additionalProperties: { type: 'string' }, description: 'Scenario vars (both arms), e.g. {"jank": "1"}.' },
    baselineVars: {
      type: 'object',
      additionalProperties: { type: 'string' },
      description: 'With against: vars of the baseline only.',
    },
    json: { type: 'boolean', description: 'Every metric and compare row (default: headline ones, changed rows).' },
    storageState: { type: 'string', description: 'State file to start from (storage_save).' },
  },
  required: ['scenario'],
  additionalProperties: false,
} as const satisfies JsonSchema;

export const perfRunTool = defineTool({
  name: 'perf_run',
  description:
    'Run a scenario from clean restarts into a run file (medians, budgets); with against, interleaved ' + 'with a baseline until decided.',
  inputSchema: PERF_RUN_SCHEMA,
  readOnly: false,
  run: perfRun,
});

async function perfRun(core: McpCore, args: FromSchema<typeof PERF_RUN_SCHEMA>, ctx: ToolCallContext): Promise<ToolReply> {
  // label and variant were checked against NAME_PART by the inputSchema: they become parts of file names.
  const label = args.label;
  if (args.baselineVars !== undefined && args.against === undefined)
    throw new PerfError({
      code: 'invalid_arguments',
      message: 'perf_run: baselineVars applies to the baseline arm of a compare',
      suggestion: 'add against, or drop baselineVars',
    });
  const load = (arg: 'scenario' | 'against', file: string, baselineVars: Record<string, string> = {}): Scenario => {
    const variant = args.variant !== undefined ? { variant: args.variant } : {};
    const vars = { ...args.vars, ...baselineVars };
    const where = core.confine(`perf_run ${arg}`, file, 'read');
    const sc = loadScenario(where, { ...variant, vars, cwd: core.cwd, allowOutside: core.allowOutside });
    const program = programOf(sc);
    if (program !== undefined) core.checkCommands(`perf_run ${arg}`, `${file}: ${program}`);
    return sc;
  };
  if (args.storageState !== undefined && args.against !== undefined)
    throw new PerfError({
      code: 'invalid_arguments',
      message: 'perf_run: storageState applies to one scenario; with against give each scenario browser.storageState',
      suggestion: 'add browser: { storageState: FILE } to both scenarios',
    });
  const outDir = core.confine('perf_run out', args.out ?? 'build/perf', 'folder');
  const loaded = load('scenario', args.scenario);
  // As --storage-state: in the working folder, confined like out; it overrides browser.storageState.
  const stateFile = args.storageState === undefined ? undefined : core.confine('perf_run storageState', args.storageState, 'read');
  const candidate = stateFile ? { ...loaded, browser: { ...loaded.browser, storageState: stateFile } } : loaded;
  const common = {
    outDir,
    cwd: core.cwd,
    ...(core.grid !== undefined ? { grid: core.grid } : {}),
    ...(args.repeat !== undefined ? { repeat: args.repeat } : {}),
    ...(args.warmup !== undefined ? { warmup: args.warmup } : {}),
    ...(args.timing !== undefined ? { timing: args.timing } : {}),
    ...(args.keepGoing === true ? { keepGoing: true } : {}),
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  };
  const full = args.json === true;
  if (args.against === undefined) {
    const {
      run,
      path: file,
      exitCode,
    } = await runAndJudge({
      kind: 'run',
      scenario: candidate,
      options: { ...common, label: label ?? 'run', onProgress: runProgress(ctx) },
    });
    return okReply({ tool: 'perf_run', status: 'ok', exitCode, run: runBrief(run, file, full) });
  }
  const baseline = load('against', args.against, args.baselineVars);
  // The one-glance reply: two run briefs and the comparison within COMPARE_REPLY_MAX_BYTES together.
  const budgetFor = (...briefs: Record<string, unknown>[]): number =>
    COMPARE_REPLY_MAX_BYTES - Buffer.byteLength(JSON.stringify(briefs)) - REPLY_ENVELOPE_BYTES;
  const { res, comparison, exitCode } = await runAndJudge({
    kind: 'against',
    baseline,
    candidate,
    options: {
      ...common,
      labels: againstLabels(label),
      ...againstProgress(ctx),
      fixed: args.fixed === true,
      ...(args.maxRepeat !== undefined ? { maxRepeat: args.maxRepeat } : {}),
      ...(args.budgetS !== undefined ? { budgetMs: args.budgetS * 1000 } : {}),
    },
  });
  const briefs = {
    baseline: runBrief(res.baseline.run, res.baseline.path, full),
    candidate: runBrief(res.candidate.run, res.candidate.path, full),
  };
  return okReply({
    tool: 'perf_run',
    status: 'ok',
    exitCode,
    ...briefs,
    compare: comparison
      ? compareBrief(comparison, full, budgetFor(briefs.baseline, briefs.candidate))
      : { verdict: null, note: 'nothing to compare: a run has no measured repeat' },
  });
}

function runProgress(ctx: ToolCallContext): ((e: ProgressEvent) => void) | undefined {
  const send = ctx.progress;
  if (!send) return undefined;
  return (e) => {
    switch (e.kind) {
      case 'start':
        send(0, e.total, `${e.scenario}: ${e.total} repeats`);
        break;
      case 'repeat-end':
        send(e.record.index + 1, e.total, `repeat ${e.record.index + 1}/${e.total} ${e.record.status}`);
        break;
      case 'repeat-start':
      case 'step':
        break;
    }
  };
}

/**
 * Progress of an interleaved run: one notification per finished repeat, and one per look of the
 * sequential compare (why it goes on). MCP requires progress to increase, so a look reports the repeats
 * finished so far plus a half.
 */
function againstProgress(ctx: ToolCallContext): { onProgress?: (e: AgainstProgress) => void; onLook?: (e: LookEvent) => void } {
  const send = ctx.progress;
  if (!send) return {};
  let done = 0;
  let total = 0;
  return {
    onProgress: (e) => {
      switch (e.kind) {
        case 'start':
          total = e.total;
          send(0, total, `A B B A: ${e.perArm} repeats per arm to the first look`);
          break;
        case 'repeat-end':
          done = e.sequence + 1;
          total = Math.max(total, e.total);
          send(done, total, `${e.arm} repeat ${e.record.index + 1} ${e.record.status}`);
          break;
        case 'repeat-start':
          break;
      }
    },
    onLook: (e) =>
      send(done + 0.5, e.adding ? total + 2 * e.adding : total, `look ${e.look} (${e.n.a} vs ${e.n.b}): ${lookVerdictWords(e)} — ${e.why}`),
  };
}

export const perfCompareTool = defineTool({
  name: 'perf_compare',
  description: 'Judge run file b against baseline a on the primary metrics: fail = a real regression; noise = unchanged.',
  inputSchema: {
    type: 'object',
    properties: {
      a: { type: 'string', description: 'Baseline run file (from perf_run).' },
      b: { type: 'string', description: 'Candidate run file.' },
      json: { type: 'boolean', description: 'Every row (default: changed rows only).' },
      force: { type: 'boolean', description: 'Allow runs of different scenarios or variants.' },
    },
    required: ['a', 'b'],
    additionalProperties: false,
  },
  readOnly: true,
  async run(core, args) {
    const [a, b] = [core.confine('perf_compare a', args.a, 'read'), core.confine('perf_compare b', args.b, 'read')];
    const { comparison } = compareRunFiles(a, b, { force: args.force === true });
    const brief = compareBrief(comparison, args.json === true, COMPARE_REPLY_MAX_BYTES - REPLY_ENVELOPE_BYTES);
    return okReply({ tool: 'perf_compare', status: 'ok', ...brief });
  },
});

// A retainer path in a reply: its first 2 and last 4 edges (where it hangs, and what holds the object), names
// cut at 80 characters; the middle of a framework's path says nothing an agent acts on.
const LEAK_PATH_HEAD = 2;
const LEAK_PATH_TAIL = 4;

/** perf_leaks' reply within COMPARE_REPLY_MAX_BYTES: the largest groups first, the rest counted in `omitted`. */
export function leaksBrief(r: LeaksResult, budget = COMPARE_REPLY_MAX_BYTES - REPLY_ENVELOPE_BYTES): Record<string, unknown> {
  const cut = (t: string): string => (t.length > MCP_NAME_CHARS ? `${t.slice(0, MCP_NAME_CHARS - 1)}…` : t);
  const { leaks, ...rest } = leaksJson(r);
  const groups = leaks.map((g) => {
    const path = g.retainerPath.map(cut);
    const short =
      path.length > LEAK_PATH_HEAD + LEAK_PATH_TAIL + 1 ? [...path.slice(0, LEAK_PATH_HEAD), '…', ...path.slice(-LEAK_PATH_TAIL)] : path;
    return { ...g, constructor: cut(g.constructor), retainerPath: short };
  });
  const { snapshots: _stats, ...facts } = rest;
  const brief: Record<string, unknown> = { leaks: groups, ...facts, exitCode: r.verdict === 'leak' ? 1 : 0 };
  let omitted = 0;
  while (groups.length && Buffer.byteLength(JSON.stringify(brief)) > budget) {
    groups.pop();
    brief.omitted = `${++omitted} smaller leak group(s) left out to keep this reply under 6 KB; perf leaks --json lists them all`;
  }
  return brief;
}

export const perfLeaksTool = defineTool({
  name: 'perf_leaks',
  // As small as it can be: --caps all lists every tool within Playwright MCP's 45,612 bytes (test/mcp.test.ts).
  description: 'Find leaks: run the steps N times in one page, name what stays alive.',
  inputSchema: {
    type: 'object',
    properties: {
      scenario: { type: 'string' },
      variant: { type: 'string' },
      iterations: { type: 'integer', minimum: 2 },
      vars: { type: 'object', additionalProperties: { type: 'string' }, description: 'Scenario vars.' },
      out: { type: 'string', description: 'Snapshots folder.' },
      minPerIteration: { type: 'number', exclusiveMinimum: 0, description: 'Leak: growth/iteration >= (1)' },
      minRetainedBytes: { type: 'integer', minimum: 0, description: '& bytes kept >= (102400)' },
    },
    required: ['scenario'],
    additionalProperties: false,
  },
  readOnly: false,
  async run(core, args, ctx) {
    const where = core.confine('perf_leaks scenario', args.scenario, 'read');
    const variant = args.variant !== undefined ? { variant: args.variant } : {};
    const sc = loadScenario(where, { ...variant, vars: args.vars ?? {}, cwd: core.cwd, allowOutside: core.allowOutside });
    const program = programOf(sc);
    if (program !== undefined) core.checkCommands('perf_leaks scenario', `${args.scenario}: ${program}`);
    const result = await runLeaks(sc, {
      outDir: core.confine('perf_leaks out', args.out ?? 'build/perf', 'folder'),
      cwd: core.cwd,
      thresholds: {
        ...(args.minPerIteration !== undefined ? { minPerIteration: args.minPerIteration } : {}),
        ...(args.minRetainedBytes !== undefined ? { minRetainedBytes: args.minRetainedBytes } : {}),
      },
      ...(args.iterations !== undefined ? { iterations: args.iterations } : {}),
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    });
    return okReply({ tool: 'perf_leaks', status: 'ok', ...leaksBrief(result) });
  },
});

export const PERF_TOOLS: readonly ToolDefinition<any>[] = [perfRunTool, perfCompareTool, perfLeaksTool];
