/**
 * `perf merge DIR…`: join the shard files of one sharded gate (`perf gate --shard I/N`, one per CI
 * job) into the summary the unsharded gate prints, with its exit code. Every shard 1…N exactly once:
 * a missing, duplicated or foreign shard is a usage error naming it (exit 2), never a partial pass.
 */
import { PerfError } from '../errors.js';
import { basename, join, relative } from 'node:path';
import { ensureDir } from '../files.js';
import { reportGate, writeGateHtml, type GateEntry, type GateOutcome } from './gate.js';
import { findShardFiles, mergeShards, reviveError, type StoredEntry } from './shard.js';
import { ALL_FLAG, defineCommand, info, JSON_FLAG } from './command.js';

/** A stored entry (validated by shard.ts against its schema) as the GateEntry the gate judged. */
function revive(e: StoredEntry): GateEntry {
  const { outcome: o, ...base } = e;
  const outcome = ((): GateOutcome => {
    switch (o.status) {
      case 'compared':
      case 'missing-baseline':
      case 'updated':
      case 'unmeasured':
        return o;
      case 'invalid-baseline':
      case 'error':
        return { status: o.status, error: reviveError(o.error) };
    }
  })();
  return { ...base, outcome };
}

export const mergeCommand = defineCommand({
  name: 'merge',
  summary: 'Join the shards of a sharded gate (perf gate --shard I/N) into its one summary and exit code',
  usage: 'merge DIR|FILE… [--junit FILE] [--reporter html [--out DIR]] [--strict] [--json]',
  details: [
    'Each DIR is searched for gate-shard-I-of-N.json (a FILE is read as one). Every shard 1…N (N at most 1000) of one gate',
    'must be given exactly once; a missing, duplicated or invalid shard, or shards of different gates, is an error naming it (exit 2).',
    'Prints the summary the unsharded gate would print, appends it as Markdown to $GITHUB_STEP_SUMMARY when set,',
    'writes JUnit with --junit FILE, and exits as that gate would (1 on an error-level regression or a missing baseline).',
    '--reporter html writes one HTML report per run into --out (default build/perf), ' +
      'as perf gate --reporter html does beside its run files.',
  ].join('\n'),
  flags: {
    junit: { type: 'string', value: 'FILE', description: 'Write the merged gate as JUnit XML to FILE.' },
    reporter: {
      type: 'list',
      value: 'html',
      description:
        'html: also write one HTML report per run into --out (<id>-gate.html: ' +
        'the compare with its baseline, or the run report when there is none).',
    },
    out: { type: 'string', value: 'DIR', description: 'Folder for the --reporter html reports. Default build/perf.' },
    strict: { type: 'boolean', description: 'Exit 1 when the verdict is inconclusive (also when any shard ran with --strict).' },
    quiet: { type: 'boolean', description: 'No line naming the shards merged.' },
    ...ALL_FLAG,
    ...JSON_FLAG,
  },
  async run(f, positionals) {
    if (!positionals.length)
      throw new PerfError({
        code: 'missing_argument',
        message: 'merge: no shard folders given',
        suggestion: 'perf merge shard-1/ shard-2/ shard-3/',
      });
    const reporters = (f.reporter as string[] | undefined) ?? [];
    for (const name of reporters) {
      if (name !== 'html')
        throw new PerfError({
          code: 'invalid_flag',
          message:
            `merge: --reporter ${name}: the merge writes html reports only; its ` +
            `summary is Markdown ($GITHUB_STEP_SUMMARY) and JUnit (--junit FILE)`,
          suggestion: 'perf merge shard-*/ --reporter html',
        });
    }
    const files = findShardFiles(positionals);
    const merged = mergeShards(files);
    const quiet = f.quiet === true || f.json === true;
    if (!quiet) info(`perf merge: ${merged.count} shard${merged.count === 1 ? '' : 's'}, ${merged.entries.length} runs`);
    const entries = merged.entries.map(revive);
    if (reporters.length) {
      // The shards' run files stay on their machines: the reports go to --out, named after them.
      const out = ensureDir((f.out as string | undefined) ?? 'build/perf', 'perf merge --reporter html');
      const written = writeGateHtml(entries.map((e) => (e.runFile ? { ...e, runFile: join(out, basename(e.runFile)) } : e)));
      if (!quiet && written.length) info(`perf merge: reports: ${written.map((w) => relative(process.cwd(), w) || w).join(', ')}`);
    }
    return reportGate(entries, {
      json: f.json === true,
      ...(typeof f.junit === 'string' ? { junit: f.junit } : {}),
      strict: f.strict === true || merged.strict,
      command: 'perf merge',
      all: f.all === true,
    });
  },
});
