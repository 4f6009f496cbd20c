/**
 * `perf history show` and `perf history changes`: a recorded metric's series and where it changed (E-Divisive
 * means, src/perf/change-points.ts), as text, JSON or the trends page (reporters/trends.ts). Information, not a
 * verdict: exit 0 whatever changed; 2 on bad input; 3 when the history cannot be opened.
 */
import path from 'node:path';
import { writeFileAtomic } from '../files.js';
import { PerfError } from '../errors.js';
import { DEFAULT_HISTORY, openHistory } from '../history/open.js';
import { loadTrends, type TrendQuery } from '../history/trends.js';
import type { Trend } from '../perf/trends.js';
import { changeJson, changesText, trendsHtml, trendText } from '../../reporters/trends.js';
import type { FlagSpecs, FlagValues } from './args.js';
import { defineCommand, info, JSON_FLAG, printJson, printText } from './command.js';

// 100 runs: three months of nightly runs fit a terminal's scrollback; --limit reads more.
const SHOW_DEFAULT_LIMIT = 100;

const COMMON_FLAGS = {
  variant: {
    type: 'string',
    value: 'V',
    description: 'Only this variant ("" for the scenario without one; default: every recorded variant).',
  },
  metric: { type: 'string', value: 'M', description: "Only this metric (default: the scenario's primary metrics)." },
  since: { type: 'string', value: 'DATE', description: 'Only runs started on or after DATE (ISO, e.g. 2026-11-01).' },
  branch: { type: 'string', value: 'NAME', description: 'Only runs recorded on this branch (default: every branch).' },
  history: {
    type: 'string',
    value: 'PATH|URL',
    description: `The history to read: a SQLite file or postgres://… (default: $PERF_HISTORY, else ${DEFAULT_HISTORY}).`,
  },
  ...JSON_FLAG,
} as const satisfies FlagSpecs;

function usage(message: string): PerfError {
  return new PerfError({ code: 'invalid_flag', message });
}

function sinceOf(raw: unknown): string | undefined {
  if (raw === undefined) return undefined;
  const t = typeof raw === 'string' ? Date.parse(raw) : NaN;
  if (!Number.isFinite(t)) throw usage(`--since: expected a date such as 2026-11-01 or 2026-11-01T12:00Z, got "${String(raw)}"`);
  return new Date(t).toISOString();
}

function limitOf(raw: unknown, fallback: number | undefined): number | undefined {
  if (raw === undefined) return fallback;
  if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 1) throw usage(`--limit: expected a whole number ≥ 1, got ${String(raw)}`);
  return raw;
}

function queryOf(verb: string, f: FlagValues, positionals: string[], limit: number | undefined): TrendQuery {
  if (positionals.length > 1) throw usage(`history ${verb}: one scenario at most, got ${positionals.join(' ')}`);
  const since = sinceOf(f.since);
  return {
    ...(positionals[0] !== undefined ? { scenario: positionals[0] } : {}),
    ...(typeof f.variant === 'string' ? { variant: f.variant === '' ? null : f.variant } : {}),
    ...(typeof f.metric === 'string' ? { metric: f.metric } : {}),
    ...(typeof f.branch === 'string' ? { branch: f.branch } : {}),
    ...(since !== undefined ? { since } : {}),
    ...(limit !== undefined ? { limit } : {}),
  };
}

function locationOf(f: FlagValues): string {
  if (typeof f.history === 'string') return f.history;
  return process.env.PERF_HISTORY?.trim() || DEFAULT_HISTORY;
}

async function readTrends(f: FlagValues, q: TrendQuery): Promise<{ trends: Trend[]; location: string }> {
  const store = await openHistory(locationOf(f), process.cwd(), 'read');
  try {
    return { trends: await loadTrends(store, q), location: store.location };
  } finally {
    await store.close();
  }
}

const showJson = (t: Trend): Record<string, unknown> => ({
  scenario: t.scenario,
  variant: t.variant,
  metric: t.metric,
  unit: t.unit,
  points: t.points.map((p) => ({ runId: p.runId, commit: p.commit, subject: p.subject, date: p.date, median: p.median, n: p.n })),
  changes: t.changes.map((c) => changeJson(t, c)),
});

export const historyShowCommand = defineCommand({
  name: 'show',
  summary: "Print a recorded metric's series, change points marked (or the trends page: --reporter html)",
  usage: 'history show [SCENARIO] [--variant V] [--metric M] [--since DATE] [--limit N] [--json] [--reporter html --out DIR]',
  details:
    "One table per scenario, variant and primary metric (or --metric): each run's commit and subject, date, the median of its " +
    'repeats and their count; ▶ marks the first run of a change point. --reporter html writes DIR/trends.html: one chart per ' +
    'series, change points ringed, a click on a point opens its run.',
  flags: {
    ...COMMON_FLAGS,
    limit: { type: 'number', value: 'N', description: `The newest N runs of each series (default ${SHOW_DEFAULT_LIMIT}).` },
    reporter: { type: 'string', value: 'html', description: 'html: write the trends page to --out DIR/trends.html.' },
    out: { type: 'string', value: 'DIR', description: 'Where --reporter html writes trends.html (default build/perf).' },
  },
  async run(f, positionals) {
    if (f.reporter !== undefined && f.reporter !== 'html')
      throw usage(`--reporter: history show writes html only, got "${String(f.reporter)}"`);
    const q = queryOf('show', f, positionals, limitOf(f.limit, SHOW_DEFAULT_LIMIT));
    const { trends, location } = await readTrends(f, q);
    if (f.reporter === 'html') {
      const file = path.join(typeof f.out === 'string' ? f.out : 'build/perf', 'trends.html');
      writeFileAtomic(file, trendsHtml(trends, `Trends: ${q.scenario ?? 'every scenario'}`));
      info(`trends page: ${file}`);
    }
    if (f.json) printJson({ history: location, series: trends.map(showJson) });
    else if (f.reporter !== 'html') printText(`${trends.map(trendText).join('\n\n') || `no recorded runs in ${location}`}\n`);
    return 0;
  },
});

export const historyChangesCommand = defineCommand({
  name: 'changes',
  summary: 'Find where each primary metric changed, naming the first commit of each change',
  usage: 'history changes [SCENARIO] [--variant V] [--metric M] [--since DATE] [--limit N] [--json]',
  details:
    'Change points by E-Divisive means with a permutation test (Matteson & James 2014, as Otava/MongoDB use it), α = 0.01, ' +
    'changes under 5% not reported. Exit 0 whether or not anything changed. --json: { changes: [{ scenario, variant, metric, ' +
    'commit, subject, runId, before, after, relativeChange, pValue }] }.',
  flags: {
    ...COMMON_FLAGS,
    limit: { type: 'number', value: 'N', description: 'The newest N runs of each series (default: all).' },
  },
  async run(f, positionals) {
    const q = queryOf('changes', f, positionals, limitOf(f.limit, undefined));
    const { trends, location } = await readTrends(f, q);
    if (f.json) printJson({ history: location, changes: trends.flatMap((t) => t.changes.map((c) => changeJson(t, c))) });
    else printText(`${changesText(trends)}\n`);
    return 0;
  },
});
