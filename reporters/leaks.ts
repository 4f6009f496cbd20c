/**
 * `perf leaks` in text, Markdown and HTML: the leak groups (constructor, growth per iteration, count,
 * retained size, detached DOM) with their retainer paths, or a driver's peak RSS per iteration. Pure, like
 * every reporter: a LeaksResult in, text out. Every string from a snapshot (constructor and edge names are
 * the app's own) goes through oneLine, escapeMarkdown or escapeHtml.
 */
import { createHash } from 'node:crypto';
import Table from 'cli-table3';
import type { LeakGroup, LeaksResult } from '../src/perf/leaks-result.js';
import { formatBytes, formatNumber, oneLine } from './format.js';
import { plainText } from '../src/printable.js';
import { escapeHtml as e, table as htmlTable } from './html-markup.js';

// A retainer path in a table: the root end and the 3 steps nearest the leaked object say where it hangs;
// the middle of a long path (framework internals) is cut. 40 characters a name: a minified or generated
// name says nothing more past that.
const PATH_HEAD = 2;
const PATH_TAIL = 3;
const NAME_CHARS = 40;
// 20 groups in a text or Markdown table: the leaks that matter are the largest, and a PR comment stays short.
const GROUPS_SHOWN = 20;

function cut(s: string, max = NAME_CHARS): string {
  const t = oneLine(s);
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/** The path root first, shortened to its ends: `Window → listeners → … → DetailsPanel → div`. */
export function shortPath(path: readonly string[]): string {
  const parts = path.map((p) => cut(p));
  if (parts.length <= PATH_HEAD + PATH_TAIL + 1) return parts.join(' → ');
  return [...parts.slice(0, PATH_HEAD), '…', ...parts.slice(-PATH_TAIL)].join(' → ');
}

function detachedText(g: LeakGroup): string {
  return g.detached ? `${g.detached.nodes} nodes, ${formatBytes(g.detached.retainedBytes)}` : '';
}

function perIteration(g: LeakGroup): string {
  return `+${formatNumber(Math.round(g.countPerIteration * 100) / 100)}`;
}

/** The one-line verdict every format starts with. */
export function leaksHeadline(r: LeaksResult): string {
  const what = oneLine(`${r.scenario}${r.variant ? ` (${r.variant})` : ''}, ${r.iterations} iterations`);
  switch (r.kind) {
    case 'heap': {
      const n = r.leaking.length;
      return r.verdict === 'leak'
        ? `LEAK: ${what}: ${n} group${n === 1 ? '' : 's'} grow${n === 1 ? 's' : ''} every iteration, ` +
            `${formatBytes(r.leakingRetainedBytes)} retained`
        : `no leak: ${what}` + (n ? `: ${n} growing group(s), ${formatBytes(r.leakingRetainedBytes)} retained, under the threshold` : '');
    }
    case 'rss':
      return `${r.verdict === 'leak' ? 'LEAK' : 'no leak'}: ${what}: peak RSS ${
        r.growthPerIterationBytes >= 0 ? '+' : ''
      }${formatBytes(r.growthPerIterationBytes)} per iteration (${oneLine(r.driver)}: no heap snapshot)`;
  }
}

function thresholdLine(r: LeaksResult): string {
  const all = formatBytes(r.thresholds.minRetainedBytes);
  switch (r.kind) {
    case 'heap':
      return `threshold: a group growing by >= ${r.thresholds.minPerIteration} per iteration, >= ${all} retained in all`;
    case 'rss':
      return `threshold: peak RSS growing in every iteration, by >= ${all} in all`;
  }
}

/** What `perf leaks` prints on stdout. */
export function renderLeaksText(r: LeaksResult, opts: { color?: boolean } = {}): string {
  const lines = [leaksHeadline(r), thresholdLine(r)];
  if (r.kind === 'rss') {
    lines.push(`peak RSS after each iteration: ${r.maxRssAfterEachBytes.map(formatBytes).join(', ')}`);
    lines.push(`not measured on this driver: ${r.missing.join('; ')}`);
    return plainText(lines.join('\n'));
  }
  if (r.leaking.length) {
    const t = new Table({
      head: ['constructor', 'per iteration', 'count', 'retained', 'detached', 'retainer path'],
      colAligns: ['left', 'right', 'right', 'right', 'right', 'left'],
      chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
      style: opts.color ? { head: ['cyan'], border: ['grey'] } : { head: [], border: [] },
    });
    for (const g of r.leaking.slice(0, GROUPS_SHOWN))
      t.push([
        cut(g.constructor),
        perIteration(g),
        String(g.count),
        formatBytes(g.retainedBytes),
        detachedText(g),
        shortPath(g.retainerPath),
      ]);
    lines.push(t.toString());
    if (r.leaking.length > GROUPS_SHOWN) lines.push(`… and ${r.leaking.length - GROUPS_SHOWN} more groups (--json lists them all)`);
  }
  lines.push(`snapshots: ${oneLine(r.snapshotsDir)} (baseline, first, last .heapsnapshot; open them in DevTools › Memory)`);
  return plainText(lines.join('\n'), { sgr: opts.color === true });
}

/** Markdown table cells: no pipe, no newline, no backtick run that could open markup. */
function md(s: string): string {
  return oneLine(s).replace(/[\\|`*_<>[\]]/g, (c) => `\\${c}`);
}

/** A PR comment or a step summary. */
export function renderLeaksMarkdown(r: LeaksResult): string {
  const out = [`### perf leaks: ${md(leaksHeadline(r))}`, '', md(thresholdLine(r)), ''];
  if (r.kind === 'rss') {
    out.push('| iteration | peak RSS |', '|---:|---:|');
    r.maxRssAfterEachBytes.forEach((b, i) => out.push(`| ${i + 1} | ${formatBytes(b)} |`));
    out.push('', `Not measured on this driver: ${md(r.missing.join('; '))}.`);
    return plainText(out.join('\n') + '\n');
  }
  if (r.leaking.length) {
    out.push('| constructor | per iteration | count | retained | detached | retainer path |', '|---|---:|---:|---:|---:|---|');
    for (const g of r.leaking.slice(0, GROUPS_SHOWN))
      out.push(
        `| ${md(cut(g.constructor))} | ${perIteration(g)} | ${g.count} | ${formatBytes(g.retainedBytes)} | ${md(detachedText(g))} | ` +
          `${md(shortPath(g.retainerPath))} |`,
      );
    if (r.leaking.length > GROUPS_SHOWN) out.push('', `… and ${r.leaking.length - GROUPS_SHOWN} more groups.`);
  }
  out.push('', `Snapshots: \`${md(r.snapshotsDir)}\``);
  return plainText(out.join('\n') + '\n');
}

const STYLE =
  'body{margin:0;font:14px/1.45 system-ui,sans-serif;color:#111827;background:#f9fafb;overflow-wrap:anywhere}' +
  'main{max-width:1120px;margin:0 auto;padding:12px}h1{font-size:1.3rem}.leak{color:#b91c1c}.ok{color:#15803d}' +
  '.scroll{overflow-x:auto}table{border-collapse:collapse;width:100%;background:#fff}th,td{border-bottom:1px solid #e5e7eb;' +
  'padding:4px 8px;text-align:left;vertical-align:top}.num{text-align:right}ol.path{margin:0;padding-left:1.4em;' +
  'font-family:ui-monospace,monospace;font-size:.9em}.muted{color:#6b7280}';

/** The full retainer path, one edge a line, root first (the HTML has room for all of it). */
function pathList(path: readonly string[]): string {
  return `<ol class="path">${path.map((p) => `<li>${e(p)}</li>`).join('')}</ol>`;
}

/** One self-contained page: no script, its one style by hash, nothing fetched. */
export function renderLeaksHtml(r: LeaksResult): string {
  const cls = r.verdict === 'leak' ? 'leak' : 'ok';
  const verdict = `<h1 class="${cls}">${e(leaksHeadline(r))}</h1><p class="muted">${e(thresholdLine(r))}</p>`;
  const body =
    r.kind === 'rss'
      ? htmlTable(
          ['iteration', 'peak RSS'],
          r.maxRssAfterEachBytes.map((b, i) => [String(i + 1), e(formatBytes(b))]),
          [0, 1],
        ) + `<p>Not measured on this driver: ${e(r.missing.join('; '))}.</p>`
      : htmlTable(
          ['constructor', 'per iteration', 'count', 'retained', 'detached', 'retainer path (root first)'],
          r.leaking.map((g) => [
            `<code>${e(g.constructor)}</code>`,
            e(perIteration(g)),
            String(g.count),
            e(formatBytes(g.retainedBytes)),
            e(detachedText(g)),
            pathList(g.retainerPath),
          ]),
          [1, 2, 3, 4],
        ) + `<p class="muted">Snapshots: <code>${e(r.snapshotsDir)}</code> (open them in DevTools › Memory).</p>`;
  const hash = createHash('sha256').update(STYLE, 'utf8').digest('base64');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'sha256-${hash}'; base-uri 'none'; form-action 'none'">
<title>${e(`perf leaks: ${r.scenario}`)}</title>
<style>${STYLE}</style>
</head>
<body><main>
<p class="muted">rehearse · perf leaks</p>
${verdict}
${body}
</main></body>
</html>
`;
}
