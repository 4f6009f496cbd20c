/** perf bisect GOOD BAD SCENARIO: the commit that made it slower, each step a sequential A/B (issue 32). */
import { join, relative } from 'node:path';
import { PerfError } from '../errors.js';
import { oneLine, plainText } from '../printable.js';
import { fileInFolder, writeFileAtomic } from '../files.js';
import { bisectStoreCache } from '../history/bisect-cache.js';
import { bisect, short, type BisectEvent, type BisectResult, type Comparison, type Followed, type TestedCommit } from '../runner/bisect.js';
import { appendToGithubStepSummary } from '../../reporters/index.js';
import { mdCode, mdText } from '../../reporters/markdown.js';
import { defineCommand, info, JSON_FLAG, printJson, printText } from './command.js';
import { HISTORY_FLAG, historyLocation, openStore } from './history.js';
import { checkNameFlag, interruptible, parseVars } from './run-options.js';
import { scaleFlags, SCALE_FLAGS } from './scale-options.js';

const figure = (c: Pick<Comparison, 'metric' | 'deltaPct' | 'ci'>): string => {
  const delta = c.deltaPct === null ? '' : ` ${c.deltaPct >= 0 ? '+' : ''}${c.deltaPct.toFixed(1)}%`;
  const ci = c.ci ? ` [${c.ci.lowPct.toFixed(1)}, ${c.ci.highPct.toFixed(1)}]` : '';
  return `${c.metric ?? 'verdict'}${delta}${ci}`;
};

/** "following counters.threadCpuMs +14.0% [6.1, 22.3] (why); …: a commit is bad when …", or nothing when none is followed. */
export function followingLine(followed: readonly Followed[]): string | undefined {
  if (!followed.length) return undefined;
  const each = followed.map((f) => `${figure(f)} (${f.why})`).join('; ');
  const rule = followed.length > 1 ? ': a commit is bad when any of them is like BAD, good when all are like GOOD' : '';
  return `following ${each}${rule}`;
}

/** One stderr line per comparison (and per build), so a long bisect shows where it is. */
function progress(quiet: boolean): (e: BisectEvent) => void {
  if (quiet) return () => undefined;
  return (e) => {
    switch (e.kind) {
      case 'pruned':
        return info(`bisect: removed ${e.paths.length} checkout(s) an earlier, killed bisect left: ${e.paths.join(', ')}`);
      case 'commits':
        return info(`bisect: ${e.count} commit(s) between GOOD and BAD; comparing the endpoints first`);
      case 'build':
        return info(`bisect: building ${short(e.commit)}`);
      case 'following':
        return info(`bisect: ${followingLine(e.followed) ?? 'following nothing'}`);
      case 'compare-start':
        return info(`bisect: [${e.index}] ${short(e.baseline)} → ${short(e.candidate)} …${e.speculative ? ' (speculative)' : ''}`);
      case 'compare-end': {
        const c = e.comparison;
        const why = c.why ? ` (${c.why})` : '';
        return info(`bisect: [${e.index}] ${c.judgement}: ${figure(c)}, ${c.repeats} repeats${c.cached ? ', cached' : ''}${why}`);
      }
      case 'programs': // programsNotice, even when quiet
      case 'look':
        return;
    }
  };
}

// Commits named per program in the notice: enough to find them; `git log -- SCENARIO` lists the rest.
const NOTICE_COMMITS = 4;

/**
 * Before anything is built: what the bisect will run that HEAD's scenario does not (another app.command, terminal or
 * desktop program at some commits), and --build, which runs in every checkout. Said even with --quiet: these are
 * programs started on this machine, from commits the user may not have read. Quoted as JSON: a control character in a
 * command is shown, not sent to the terminal.
 */
export function programsNotice(e: Extract<BisectEvent, { kind: 'programs' }>, build: string | undefined, commits: number): string[] {
  const byLine = new Map<string, string[]>();
  for (const d of e.differ) {
    const what = `${d.program.key} ${JSON.stringify(d.program.line)}`;
    byLine.set(what, [...(byLine.get(what) ?? []), short(d.commit)]);
  }
  const head = e.head ? `${e.head.key} ${JSON.stringify(e.head.line)}` : 'no program';
  const lines = [...byLine].map(([what, at]) => {
    const more = at.length > NOTICE_COMMITS ? ` and ${at.length - NOTICE_COMMITS} more` : '';
    return `bisect: at ${at.slice(0, NOTICE_COMMITS).join(', ')}${more} the scenario runs ${what} (HEAD's: ${head})`;
  });
  if (build !== undefined)
    lines.push(`bisect: --build runs in each checkout, with that commit's files (up to ${commits}): ${JSON.stringify(build)}`);
  return lines;
}

function verdictLines(t: TestedCommit): string[] {
  return t.comparisons.map((c) => `${short(c.baseline)}→${short(c.candidate)} ${c.judgement} ${figure(c)} n=${c.repeats}`);
}

/** The answer as text: the outcome, then every tested commit. */
export function renderBisectText(r: BisectResult): string {
  const out: string[] = [];
  switch (r.outcome) {
    case 'found':
      out.push(oneLine(`first bad commit: ${r.culprit.commit} ${r.culprit.subject} (${r.culprit.authorDate})`));
      out.push(`  ${figure(r.culprit.delta)} against GOOD, ${r.culprit.delta.repeats} repeats`);
      break;
    case 'ambiguous':
      out.push(`the first bad commit is one of (the others could not be judged): ${r.candidates.map((c) => short(c.commit)).join(', ')}`);
      break;
    case 'not_reproduced':
      out.push(
        r.endpoints.judgement === 'undecided'
          ? `not reproduced: the gate could not tell BAD from GOOD (${figure(r.endpoints)}; ${r.endpoints.why ?? ''}); nothing to bisect`
          : `not reproduced: BAD is not worse than GOOD (${figure(r.endpoints)}, ${r.endpoints.judgement}); nothing to bisect`,
      );
      break;
    case 'interrupted':
      out.push('interrupted: finished comparisons are cached; run the same command again to go on');
      break;
  }
  const following = followingLine(r.followed);
  if (following) out.push(following);
  out.push(`tested (${r.tested.length}), ${(r.durationMs / 1000).toFixed(0)} s:`);
  for (const t of r.tested)
    out.push(`  ${short(t.commit)} ${t.verdict.padEnd(7)} ${oneLine(t.subject, 60)}  ${verdictLines(t).join('; ')}`);
  // Subjects are anyone's text, and metric names and reasons come from scenarios and pages: one last pass.
  return plainText(out.join('\n') + '\n');
}

export function renderBisectMarkdown(r: BisectResult): string {
  const head = {
    found: () => `### perf bisect: first bad commit ${mdCode(short((r as Extract<BisectResult, { outcome: 'found' }>).culprit.commit))}`,
    ambiguous: () => '### perf bisect: the first bad commit is one of several (some could not be judged)',
    not_reproduced: () => '### perf bisect: not reproduced',
    interrupted: () => '### perf bisect: interrupted',
  }[r.outcome]();
  const rows = r.tested.map(
    (t) => `| ${mdCode(short(t.commit))} | ${mdText(t.subject)} | ${t.verdict} | ${mdText(verdictLines(t).join('; '))} |`,
  );
  const following = followingLine(r.followed);
  const follow = following ? [mdText(following[0]!.toUpperCase() + following.slice(1)), ''] : [];
  return plainText([head, '', ...follow, '| commit | subject | verdict | comparisons |', '|:--|:--|:--|:--|', ...rows, ''].join('\n'));
}

export const bisectCommand = defineCommand({
  name: 'bisect',
  summary: 'Find the commit that made a scenario slower: GOOD against BAD first, then a search where each step is a sequential A/B',
  usage:
    'bisect GOOD BAD SCENARIO.yaml [--variant NAME] [--var N=V] [--build "CMD"] [--metric M] [--max-repeat N] ' +
    '[--grid URL [--parallel N]] [--history PATH|URL] [--json]',
  details:
    'Each commit is checked out into its own worktree under a temporary folder (your working tree is untouched), built\n' +
    "with --build and served from there. Before building, it says which commits run another app program than HEAD's\n" +
    'scenario, and --build. Checkouts a killed bisect left behind are removed by the next one in the repository.\n' +
    "GOOD against BAD is the gate's own compare; the search follows every primary that regressed there (none past warn:\n" +
    'each one confirmed worse below it; --metric M: M alone): a commit is bad when any followed metric is like BAD, good\n' +
    'when all are like GOOD.\n' +
    'Outcomes: worse, same, undecided (then against BAD); a commit that cannot be built,\n' +
    'run or decided is skipped and said so. Finished comparisons are cached in <out>/bisect-cache.json, and with --history\n' +
    'in the history store as well: a re-run reuses them, on any machine that shares the store.\n' +
    'With --grid URL every comparison is a Grid session; --parallel N also compares the next levels of midpoints while the\n' +
    'current one is measured (speculation, as Pinpoint does), up to N comparisons at once.\n' +
    'Exit 0 when found or not reproduced (and when the culprit is one of several skipped ones), 2 bad input, 3 environment.',
  flags: {
    variant: { type: 'string', value: 'NAME', description: 'Variant to run (required when the scenario declares variants).' },
    var: { type: 'multi', value: 'NAME=VALUE', description: 'Set a scenario var (overrides vars:), in every commit. Repeatable.' },
    build: { type: 'string', value: 'CMD', description: 'Shell command that builds a checkout (run in it, once per commit).' },
    metric: {
      type: 'string',
      value: 'METRIC',
      description: "The one metric to follow (default: every one of the gate's primaries that regressed from GOOD to BAD).",
    },
    repeat: { type: 'number', value: 'N', description: 'Repeats per arm at the first look of each comparison (default: the scenario’s).' },
    maxRepeat: { type: 'number', value: 'N', description: 'Cap on repeats per arm of each comparison (sequential sampling).' },
    out: {
      type: 'string',
      value: 'DIR',
      description: 'Folder for the run files of every comparison and the cache. Default build/perf/bisect.',
    },
    reporter: {
      type: 'list',
      value: 'NAME',
      description: 'Also write a report: markdown (bisect.md in --out, and the GitHub job summary).',
    },
    ...SCALE_FLAGS,
    parallel: {
      type: 'number',
      value: 'N',
      description:
        'Up to N comparisons at once, the next midpoints compared speculatively (needs --grid: on one machine they would ' +
        'measure each other).',
    },
    quiet: { type: 'boolean', description: 'No progress lines.' },
    ...HISTORY_FLAG,
    ...JSON_FLAG,
  },
  async run(f, positionals) {
    if (positionals.length !== 3)
      throw new PerfError({
        code: 'missing_argument',
        message: `bisect: needs GOOD, BAD and a scenario, got ${positionals.length} argument(s)`,
        suggestion: 'perf bisect v1.2.0 HEAD scenarios/page.yaml',
      });
    checkNameFlag('bisect', 'variant', f.variant as string | undefined);
    for (const k of ['repeat', 'maxRepeat'] as const) {
      const n = f[k] as number | undefined;
      if (n !== undefined && (!Number.isInteger(n) || n < 2))
        throw new PerfError({
          code: 'invalid_flag',
          message: `bisect: --${k === 'repeat' ? 'repeat' : 'max-repeat'} must be a whole number >= 2, got ${n}`,
        });
    }
    const scale = scaleFlags(f, 'bisect');
    const parallel = f.parallel as number | undefined;
    const reporters = (f.reporter as string[] | undefined) ?? [];
    for (const r of reporters)
      if (r !== 'markdown')
        throw new PerfError({
          code: 'unknown_reporter',
          message: `bisect: unknown reporter "${r}"`,
          suggestion: 'use --reporter markdown',
        });
    const [good, bad, scenario] = positionals as [string, string, string];
    const out = (f.out as string | undefined) ?? join('build', 'perf', 'bisect');
    const quiet = f.quiet === true || f.json === true;
    // Opened before any checkout or build: a history that cannot be reached is said now, not after an hour of bisecting.
    const location = historyLocation(f);
    const store = location === undefined ? undefined : await openStore(location);
    // A store that fails mid-bisect is said once and left; the cache file keeps every comparison (exit 3 at the end).
    const shared = store
      ? bisectStoreCache(store, (e) => {
          info(`perf: ${e.message}`);
          info(`  hint: the comparisons are kept in the cache file; the history (${store.location}) is left for the rest of this bisect`);
        })
      : undefined;
    let result: BisectResult;
    const onProgress = progress(quiet);
    let commits = 0;
    try {
      result = await interruptible((signal) =>
        bisect({
          cwd: process.cwd(),
          good,
          bad,
          scenario,
          vars: parseVars(f.var as string[] | undefined),
          outDir: out,
          cacheFile: join(out, 'bisect-cache.json'),
          ...(shared ? { store: shared } : {}),
          signal,
          onEvent: (e) => {
            if (e.kind === 'commits') commits = e.count + 2;
            if (e.kind === 'programs') for (const line of programsNotice(e, f.build as string | undefined, commits)) info(line);
            else onProgress(e);
          },
          ...(f.variant !== undefined ? { variant: f.variant as string } : {}),
          ...(f.build !== undefined ? { build: f.build as string } : {}),
          ...(f.metric !== undefined ? { metric: f.metric as string } : {}),
          ...(f.repeat !== undefined ? { repeat: f.repeat as number } : {}),
          ...(f.maxRepeat !== undefined ? { maxRepeat: f.maxRepeat as number } : {}),
          ...scale,
          ...(parallel !== undefined ? { parallel } : {}),
        }),
      );
    } finally {
      await store?.close().catch(() => undefined);
    }
    if (reporters.includes('markdown')) {
      const md = renderBisectMarkdown(result);
      const file = fileInFolder(out, 'bisect.md', 'perf bisect');
      writeFileAtomic(file, md);
      appendToGithubStepSummary(md);
      if (!quiet) info(`report: ${relative(process.cwd(), file) || file}`);
    }
    // The run files land in the working folder (build/perf/bisect by default), beside perf run's, where perf report and
    // the user look; not in the git dir, which git owns and which, for a linked worktree, lies outside the folder (MCP
    // confines its writes to it). So they are said, with where.
    const shownOut = relative(process.cwd(), out) || '.';
    if (f.json) printJson({ ...result, out: shownOut });
    else {
      printText(renderBisectText(result));
      if (!quiet) info(`bisect: run files and the comparison cache are in ${shownOut}/ (--out DIR to put them elsewhere)`);
    }
    if (result.outcome === 'interrupted') return 130;
    return shared?.failed() ? 3 : 0;
  },
});
