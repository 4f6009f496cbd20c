/**
 * Issue 27's targets measured on the demo's data grid (scenarios/grid-scroll.yaml), each printed with its figure.
 * Nothing here asserts: the lead reads the figures (targets are measured, never timed tests).
 *
 * The attribution of a compare row (`rows[].attribution`, issue 27 item 1) is read defensively: where a
 * comparison has none yet, the line says "n/a".
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { compareRunFiles, type RunsComparison } from '../src/perf/compare-runs.js';
import type { CompareRow } from '../src/perf/compare.js';
import { runAndJudge } from '../src/runner/judge.js';
import { runScenario } from '../src/runner/run.js';
import { McpCore } from '../src/mcp/core.js';
import { loadConfig } from '../src/mcp/config.js';
import { allTools } from '../src/mcp/tools.js';
import { renderReply } from '../src/mcp/format.js';
import * as sessionManager from '../src/session/manager.js';
import { median } from './common.js';
import { countedRepeats, gridScenarios, RULE_METRIC } from './verdict-grid.js';

export interface TargetSizes {
  /** maxRepeat of the sequential A/Bs and A/As (undefined: the scenario's default). */
  maxRepeat?: number;
  /** Repeats of each stored run of the baseline-file path (the issue's 5). */
  storedRepeat: number;
  /** A/A tries (the issue's 10). */
  aaTries: number;
  /** Repeats of each run of the compare-time target (the issue's 10). */
  compareRepeat: number;
  /** compareRuns calls timed; the median is printed. */
  compareTimes: number;
}

export const FULL_TARGETS: TargetSizes = { storedRepeat: 5, aaTries: 10, compareRepeat: 10, compareTimes: 5 };
// Smoke sizes: every target's code path once; the figures mean nothing.
export const QUICK_TARGETS: TargetSizes = { maxRepeat: 5, storedRepeat: 2, aaTries: 1, compareRepeat: 2, compareTimes: 2 };

/** "recomputeRowStats grid.js:123:7 (Δ +61.2 ms, 80%)", or why there is none; read without trusting the shape. */
export function firstAttribution(row: CompareRow | undefined, kind?: string): string {
  if (!row) return 'n/a (no such row)';
  if (!('attribution' in row)) return 'n/a (this comparison has no attribution)';
  const att: unknown = row.attribution;
  if (typeof att !== 'object' || att === null) return 'n/a (no attribution on this row)';
  const missing = 'missing' in att && typeof att.missing === 'string' ? att.missing : undefined;
  const lines = 'lines' in att && Array.isArray(att.lines) ? att.lines : [];
  const ofKind = (l: unknown): boolean => kind === undefined || (typeof l === 'object' && l !== null && 'kind' in l && l.kind === kind);
  const line: unknown = lines.find(ofKind);
  if (typeof line !== 'object' || line === null) return `n/a (${missing ?? `no ${kind ?? 'attribution'} line`})`;
  const field = (k: string): unknown => Reflect.get(line, k);
  const name = typeof field('name') === 'string' ? String(field('name')) : '?';
  const url = typeof field('url') === 'string' ? String(field('url')) : '-';
  const deltaMs = field('deltaMs');
  const delta = typeof deltaMs === 'number' ? ` Δ ${deltaMs >= 0 ? '+' : ''}${deltaMs.toFixed(1)} ms` : '';
  const share = typeof field('share') === 'number' ? `, ${(Number(field('share')) * 100).toFixed(0)}% of the row` : '';
  return `${typeof field('kind') === 'string' ? `[${String(field('kind'))}] ` : ''}${name} ${url}${delta}${share}`;
}

const cpuRow = (c: RunsComparison | undefined): CompareRow | undefined => c?.rows.find((r) => r.metric.startsWith(RULE_METRIC));
const pct = (r: CompareRow | undefined): string => (r?.deltaPct == null ? 'n/a' : `${r.deltaPct > 0 ? '+' : ''}${r.deltaPct.toFixed(1)}%`);

function notable(c: RunsComparison | undefined): string {
  if (!c) return 'no comparison';
  const rows = c.rows.filter((r) => r.role !== 'shown' && r.verdict !== 'unchanged');
  return rows.length
    ? rows
        .slice(0, 6)
        .map((r) => `${r.metric} ${pct(r)} ${r.verdict}`)
        .join(', ')
    : 'all unchanged';
}

let serial = 0;

interface AbResult {
  c: RunsComparison | undefined;
  exitCode: number;
  repeats: number;
  s: number;
}

async function sequentialAb(vars: Record<string, string>, sizes: TargetSizes, outDir: string): Promise<AbResult> {
  const { base, cand } = gridScenarios(vars);
  const label = `x${serial++}`;
  const t0 = performance.now();
  const { res, comparison, exitCode } = await runAndJudge({
    kind: 'against',
    baseline: base,
    candidate: cand,
    options: {
      outDir,
      labels: { baseline: `${label}-a`, candidate: `${label}-b` },
      timing: true,
      ...(sizes.maxRepeat !== undefined ? { maxRepeat: sizes.maxRepeat } : {}),
    },
  });
  return { c: comparison, exitCode, repeats: countedRepeats(res.candidate.run), s: (performance.now() - t0) / 1000 };
}

async function busyTarget(sizes: TargetSizes, out: string): Promise<void> {
  const r = await sequentialAb({ busy: '8' }, sizes, out);
  const cpu = cpuRow(r.c);
  console.log(
    `busy=8 A/B, sequential default --timing: ${r.c?.verdict ?? 'none'}, exit ${r.exitCode}, ${r.repeats} repeats/arm, ` +
      `${r.s.toFixed(0)} s`,
  );
  console.log(`  CPU row ${cpu?.metric ?? 'n/a'} ${pct(cpu)} ${cpu?.verdict ?? ''} (${cpu?.severity ?? ''}); rows: ${notable(r.c)}`);
  console.log(`  first attribution line of the CPU row: ${firstAttribution(cpu)}`);
  console.log(`  target: fail (exit 1) on a CPU metric, recomputeRowStats grid.js:line named first, <= 12 repeats/arm`);
}

async function layoutTarget(sizes: TargetSizes, out: string): Promise<void> {
  const r = await sequentialAb({ layout: '1' }, sizes, out);
  const regressed = r.c?.rows.filter((x) => x.verdict === 'regressed') ?? [];
  const row = regressed.find((x) => firstAttribution(x, 'forcedLayout').startsWith('[')) ?? regressed[0];
  console.log(
    `layout=1 A/B, sequential default --timing: ${r.c?.verdict ?? 'none'}, exit ${r.exitCode}, ${r.repeats} repeats/arm; ` +
      `rows: ${notable(r.c)}`,
  );
  console.log(`  first forcedLayout line of ${row?.metric ?? 'a regressed row'}: ${firstAttribution(row, 'forcedLayout')}`);
  console.log('  target: names measureRowHeights (the function that forces the layout)');
}

async function storedTarget(sizes: TargetSizes, out: string): Promise<void> {
  const stored = async (vars: Record<string, string>, label: string): Promise<string> => {
    const { base } = gridScenarios({}, vars);
    return (await runScenario(base, { label, outDir: out, repeat: sizes.storedRepeat, timing: true })).path;
  };
  const a = await stored({}, `stored-a${serial}`);
  const b = await stored({ busy: '8' }, `stored-b${serial++}`);
  const { comparison: c } = compareRunFiles(a, b);
  const improved = c.rows.filter((r) => r.verdict === 'improved');
  const cpu = cpuRow(c);
  console.log(`stored ${sizes.storedRepeat}-repeat --timing runs, unchanged vs busy=8, compareRuns: ${c.verdict}; ${c.gate.summary}`);
  const need = cpu?.needRepeats != null ? `, ${cpu.needRepeats} repeats would decide` : '';
  console.log(`  CPU row ${cpu?.metric ?? 'n/a'} ${pct(cpu)} ${cpu?.verdict ?? ''}${need}`);
  // The change only adds work: any row saying improved is on a metric the change did not make better.
  console.log(`  improved rows: ${improved.length ? improved.map((r) => `${r.metric} ${pct(r)}`).join(', ') : 'none'}`);
  console.log('  target: never pass (fail, or inconclusive naming the CPU metric and the repeats to decide); no improved row');
}

async function aaTarget(sizes: TargetSizes, out: string): Promise<void> {
  const verdicts: string[] = [];
  const repeats: number[] = [];
  for (let i = 0; i < sizes.aaTries; i++) {
    const r = await sequentialAb({}, sizes, out);
    verdicts.push(r.c?.verdict ?? 'none');
    repeats.push(r.repeats);
    const took = `${r.repeats} repeats/arm in ${r.s.toFixed(0)} s`;
    console.log(`  A/A ${i + 1}/${sizes.aaTries}: ${r.c?.verdict ?? 'none'} after ${took} [${notable(r.c)}]`);
  }
  const pass = verdicts.filter((v) => v === 'pass').length;
  console.log(
    `A/A x${sizes.aaTries}: ${pass} pass, ${verdicts.filter((v) => v === 'inconclusive').length} inconclusive, ` +
      `${verdicts.filter((v) => v === 'fail').length} fail; repeats/arm median ${median(repeats)}, max ${Math.max(...repeats)}`,
  );
  console.log('  target: pass in >= 9 of 10, <= 12 repeats/arm');
}

const isObject = (x: unknown): x is object => typeof x === 'object' && x !== null;
const bytesOf = (a: unknown): number => Buffer.byteLength(JSON.stringify(a) ?? '');

/** Bytes of the MCP perf_compare reply, the tool called in-process as a client would (default brief reply). */
async function mcpCompareBytes(cwd: string, a: string, b: string): Promise<{ bytes: number; attributionBytes: number; ok: boolean }> {
  const tools = allTools();
  const config = loadConfig({ cwd, knownTools: tools.map((t) => t.name) }).config;
  const core = new McpCore({ manager: sessionManager, config, tools, cwd });
  const reply = await core.call('perf_compare', { a: basename(a), b: basename(b) });
  const text = renderReply(reply).text;
  const changed: unknown = reply.kind === 'ok' ? reply.json.changed : undefined;
  const attributionBytes = Array.isArray(changed)
    ? changed.reduce((n: number, r: unknown) => n + (isObject(r) && 'attribution' in r ? bytesOf(r.attribution) : 0), 0)
    : 0;
  return { bytes: Buffer.byteLength(text), attributionBytes, ok: reply.kind === 'ok' };
}

async function compareTarget(sizes: TargetSizes, out: string): Promise<void> {
  const run = async (vars: Record<string, string>, label: string): Promise<string> => {
    const { base } = gridScenarios({}, vars);
    return (await runScenario(base, { label, outDir: out, repeat: sizes.compareRepeat, timing: true })).path;
  };
  const a = await run({}, `cmp-a${serial}`);
  const b = await run({ busy: '8' }, `cmp-b${serial++}`);
  const times: number[] = [];
  let last: RunsComparison | undefined;
  for (let i = 0; i < sizes.compareTimes; i++) {
    const t0 = performance.now();
    last = compareRunFiles(a, b).comparison;
    times.push(performance.now() - t0);
  }
  const mcp = await mcpCompareBytes(out, a, b);
  // The CLI's compare JSON without the flame stacks: what a reply would carry if the MCP tool could not be called.
  const jsonBytes = Buffer.byteLength(JSON.stringify(last, (k, v: unknown) => (k === 'flame' ? undefined : v)));
  console.log(
    `compare with attribution, two ${sizes.compareRepeat}-repeat --timing runs: ` +
      `compareRuns median ${median(times).toFixed(0)} ms ` +
      `over ${sizes.compareTimes} (verdict ${last?.verdict ?? 'none'})`,
  );
  const reply = mcp.ok ? `${mcp.bytes} bytes (attribution ${mcp.attributionBytes} bytes)` : 'failed';
  console.log(`  MCP perf_compare reply ${reply}; full compare JSON without flame stacks ${jsonBytes} bytes`);
  console.log('  target: compare <= 2 s; MCP reply <= 6 KB (attribution <= 2 KB)');
}

export async function gridTargets(sizes: TargetSizes): Promise<void> {
  const out = mkdtempSync(join(tmpdir(), 'rehearse-bench-targets-'));
  try {
    console.log('issue 27 targets on grid-scroll (the demo data grid, 5,000 rows, 8 scrolls)\n');
    await busyTarget(sizes, out);
    await layoutTarget(sizes, out);
    await storedTarget(sizes, out);
    await aaTarget(sizes, out);
    await compareTarget(sizes, out);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
