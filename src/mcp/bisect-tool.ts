/** MCP perf_bisect: `perf bisect` for an agent, with a progress notification per comparison and a bounded reply. */
import { join } from 'node:path';
import { bisect, short, type BisectEvent, type BisectResult, type Comparison } from '../runner/bisect.js';
import { PerfError } from '../errors.js';
import { bisectStoreCache } from '../history/bisect-cache.js';
import { openHistory } from '../history/open.js';
import { loadScenario, type Scenario } from '../scenario/load.js';
import { defineTool, type ToolCallContext } from './core.js';
import { okReply } from './format.js';
import { COMPARE_REPLY_MAX_BYTES, programOf } from './perf-tools.js';

// Room for okReply's envelope around the brief.
const ENVELOPE_BYTES = 100;
// A commit subject in a reply: enough to recognise it, not a commit message.
const SUBJECT_CHARS = 72;
// Why parallel needs a Grid, in the words of an MCP client (the runner's checkParallel words it for the CLI's flags).
const SHARED_MACHINE = 'comparisons at once on this machine would measure each other';

const shift = (c: Pick<Comparison, 'deltaPct' | 'ci'>): Record<string, unknown> => ({
  ...(c.deltaPct !== null ? { deltaPct: Math.round(c.deltaPct * 10) / 10 } : {}),
  ...(c.ci ? { ci: [Math.round(c.ci.lowPct * 10) / 10, Math.round(c.ci.highPct * 10) / 10] } : {}),
});

const figures = (c: Comparison): Record<string, unknown> => ({
  judgement: c.judgement,
  ...shift(c),
  repeats: c.repeats,
  ...(c.why ? { why: c.why.slice(0, 200) } : {}),
});

/** The answer within 6 KB: the outcome whole, the tested commits newest-tested last, the oldest dropped first. */
export function bisectBrief(r: BisectResult, budget = COMPARE_REPLY_MAX_BYTES - ENVELOPE_BYTES): Record<string, unknown> {
  const head: Record<string, unknown> = { outcome: r.outcome, durationS: Math.round(r.durationMs / 1000) };
  // What the search followed and why: every primary that regressed from GOOD to BAD (or the metric asked for).
  if (r.followed.length) head.followed = r.followed.map((f) => ({ metric: f.metric, ...shift(f), why: f.why }));
  switch (r.outcome) {
    case 'found':
      Object.assign(head, {
        metric: r.metric,
        culprit: { commit: r.culprit.commit, subject: r.culprit.subject.slice(0, SUBJECT_CHARS), authorDate: r.culprit.authorDate },
        delta: figures(r.culprit.delta),
      });
      break;
    case 'ambiguous':
      Object.assign(head, { metric: r.metric, candidates: r.candidates.map((c) => c.commit) });
      break;
    case 'not_reproduced':
      Object.assign(head, { metric: r.metric, endpoints: figures(r.endpoints) });
      break;
    case 'interrupted':
      Object.assign(head, { metric: r.metric, note: 'finished comparisons are cached: call perf_bisect again to go on' });
      break;
  }
  const tested = r.tested.map((t) => ({
    commit: short(t.commit),
    subject: t.subject.slice(0, SUBJECT_CHARS),
    verdict: t.verdict,
    comparisons: t.comparisons.map(figures),
  }));
  const brief: Record<string, unknown> = { ...head, tested };
  let omitted = 0;
  while (tested.length && Buffer.byteLength(JSON.stringify(brief)) > budget) {
    tested.shift();
    brief.omitted = `${++omitted} earlier tested commit(s) left out to stay under 6 KB; perf bisect --json lists them all`;
  }
  return brief;
}

function progressOf(ctx: ToolCallContext): ((e: BisectEvent) => void) | undefined {
  const send = ctx.progress;
  if (!send) return undefined;
  let done = 0;
  return (e) => {
    if (e.kind === 'compare-end')
      send(++done, undefined, `${short(e.comparison.baseline)} → ${short(e.comparison.candidate)}: ${e.comparison.judgement}`);
    else if (e.kind === 'commits') send(0, undefined, `${e.count} commits between GOOD and BAD; comparing the endpoints first`);
  };
}

export const perfBisectTool = defineTool({
  name: 'perf_bisect',
  description: 'Find the commit that made a scenario slower (good, bad: commits).',
  // Names and types only, as perf_leaks: --caps all must stay within Playwright MCP's 45,612 bytes (test/mcp.test.ts);
  // `perf bisect --help` describes each field.
  inputSchema: {
    type: 'object',
    properties: {
      good: { type: 'string' },
      bad: { type: 'string' },
      scenario: { type: 'string' },
      variant: { type: 'string' },
      build: { type: 'string' },
      metric: { type: 'string' },
      repeat: { type: 'integer', minimum: 2 },
      maxRepeat: { type: 'integer', minimum: 2 },
      parallel: { type: 'integer', minimum: 1, maximum: 64 },
    },
    required: ['good', 'bad', 'scenario'],
    additionalProperties: false,
  },
  readOnly: false,
  async run(core, args, ctx) {
    const where = core.confine('perf_bisect scenario', args.scenario, 'read');
    const variant = args.variant !== undefined ? { variant: args.variant } : {};
    // The scenario as it is now, and (vet) each commit's own copy: an older commit's app.command is a program too.
    const program = programOf(loadScenario(where, { ...variant, cwd: core.cwd, allowOutside: core.allowOutside }));
    if (program !== undefined) core.checkCommands('perf_bisect scenario', `${args.scenario}: ${program}`);
    const vet = (sc: Scenario, commit: string): void => {
      const at = programOf(sc);
      if (at !== undefined) core.checkCommands(`perf_bisect scenario at commit ${short(commit)}`, `${args.scenario}: ${at}`);
    };
    // --build always runs one.
    if (args.build !== undefined) core.checkCommands('perf_bisect build', args.build);
    if ((args.parallel ?? 1) > 1 && core.grid === undefined)
      throw new PerfError({
        code: 'invalid_arguments',
        message: `perf_bisect: parallel ${args.parallel} needs a Selenium Grid: ${SHARED_MACHINE}`,
        suggestion: 'restart the server with perf mcp --grid http://HOST:4444, or drop parallel',
      });
    const outRel = join('build', 'perf', 'bisect');
    const out = core.confine('perf_bisect out', outRel, 'folder');
    const onEvent = progressOf(ctx);
    // The server's history ($PERF_HISTORY, set by whoever started it; never a location from the agent) keeps the
    // comparisons too. One that fails mid-bisect is left: the cache file has every comparison.
    const history = process.env.PERF_HISTORY?.trim() || undefined;
    const store = history === undefined ? undefined : await openHistory(history, core.cwd);
    let result: BisectResult;
    try {
      result = await bisect({
        cwd: core.cwd,
        vet,
        good: args.good,
        bad: args.bad,
        scenario: where,
        outDir: out,
        cacheFile: join(out, 'bisect-cache.json'),
        ...(store ? { store: bisectStoreCache(store, () => undefined) } : {}),
        ...variant,
        ...(args.build !== undefined ? { build: args.build } : {}),
        ...(args.metric !== undefined ? { metric: args.metric } : {}),
        ...(args.repeat !== undefined ? { repeat: args.repeat } : {}),
        ...(args.maxRepeat !== undefined ? { maxRepeat: args.maxRepeat } : {}),
        ...(core.grid !== undefined ? { grid: core.grid } : {}),
        ...(args.parallel !== undefined ? { parallel: args.parallel } : {}),
        ...(ctx.signal ? { signal: ctx.signal } : {}),
        ...(onEvent ? { onEvent } : {}),
      });
    } finally {
      await store?.close().catch(() => undefined);
    }
    // Where the run files went: the working folder's build/perf/bisect, as perf run's go to build/perf.
    return okReply({ tool: 'perf_bisect', status: 'ok', out: outRel, ...bisectBrief(result) });
  },
});
