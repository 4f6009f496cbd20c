/**
 * The history's trends as text (`perf history show`, `perf history changes`) and as one HTML page (the trends
 * page: one uPlot chart per metric, change points marked, each point linking its run's row). Pure: trends in
 * (src/perf/trends.ts), text out; the page opens offline (uPlot inlined, the same Content-Security-Policy as
 * the run report's: no fetch, only the page's own scripts by hash).
 */
import type { Trend, TrendChange, TrendPoint } from '../src/perf/trends.js';
import { escapeHtml as e, table } from './html-markup.js';
import { pageShell } from './html.js';
import { formatPct, formatValue, oneLine } from './format.js';
import { plainText } from '../src/printable.js';

// A commit as recorded (`perf history add --commit` takes any text): on one line like every other stored string.
export const shortCommit = (c: string | null): string => (c ? oneLine(c).slice(0, 10) : '–');

// A commit subject is anyone's text: on one line, without escape sequences, cut to the column it has.
const subjectOf = (s: string | null, max: number): string => oneLine(s ?? '', max);

const dateOf = (iso: string): string => oneLine(iso).replace('T', ' ').slice(0, 16);

function pad(cells: string[][]): string {
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)));
  return cells.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')).join('\n');
}

function changeWords(metric: string, c: TrendChange): string {
  const moved = `${formatValue(metric, c.before)} → ${formatValue(metric, c.after)}`;
  return `${moved} (${formatPct(100 * c.relativeChange)}, p=${c.pValue.toPrecision(2)})`;
}

// Scenario, variant and metric (steps.<label>.ms) names come from the recorded files, as the subjects do.
const titleOf = (t: Pick<Trend, 'scenario' | 'variant' | 'metric'>): string =>
  oneLine(`${t.scenario}${t.variant ? ` [${t.variant}]` : ''} · ${t.metric}`);

/** One trend as a table: run, commit + subject, date, median, n, and the change a run starts. */
export function trendText(t: Trend): string {
  const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
  const head = `${titleOf(t)} (${t.unit}, ${plural(t.points.length, 'run')}, ${plural(t.changes.length, 'change point')})`;
  if (!t.points.length) return `${head}\n  no recorded runs`;
  const at = new Map(t.changes.map((c) => [c.index, c]));
  const rows = t.points.map((p, i) => {
    const c = at.get(i);
    const commit = `${shortCommit(p.commit)} ${subjectOf(p.subject, 40)}`.trim();
    return [
      `${c ? '▶' : ' '} ${p.runId}`,
      commit,
      dateOf(p.date),
      formatValue(t.metric, p.median),
      String(p.n),
      c ? `change ${changeWords(t.metric, c)}` : '',
    ];
  });
  return plainText(`${head}\n${pad([['  run', 'commit', 'date', 'median', 'n', ''], ...rows])}`);
}

/** `perf history changes` as text: one line per change point, grouped by trend. */
export function changesText(trends: readonly Trend[]): string {
  const lines: string[] = [];
  for (const t of trends) {
    for (const c of t.changes) {
      lines.push(`${titleOf(t)}: ${shortCommit(c.commit)} ${subjectOf(c.subject, 50)} (run ${c.runId}) ${changeWords(t.metric, c)}`);
    }
  }
  const checked = `${trends.length} series checked`;
  return plainText(
    lines.length
      ? `${lines.join('\n')}\n${lines.length} change point${lines.length === 1 ? '' : 's'}, ${checked}`
      : `no change points; ${checked}`,
  );
}

/** The DESIGN.md JSON of one change. */
export function changeJson(t: Trend, c: TrendChange): Record<string, unknown> {
  return {
    scenario: t.scenario,
    variant: t.variant,
    metric: t.metric,
    commit: c.commit,
    subject: c.subject,
    runId: c.runId,
    date: c.date,
    before: c.before,
    after: c.after,
    relativeChange: c.relativeChange,
    pValue: c.pValue,
  };
}

// ─── the trends page ────────────────────────────────────────────────────────────────────────────────

interface ChartData {
  id: string;
  unit: string;
  /** Per point: [median, p25, p75, runId]. */
  points: [number, number, number, number][];
  /** Indices of the change points. */
  changes: number[];
}

function runRows(t: Trend, id: string): string {
  const at = new Map(t.changes.map((c) => [c.index, c]));
  const rows = t.points
    .map((p: TrendPoint, i) => ({ p, i }))
    .reverse()
    .map(({ p, i }) => {
      const c = at.get(i);
      const run = `<a id="${id}-run-${p.runId}" href="#${id}-run-${p.runId}">${p.runId}</a>`;
      const commit = `<code>${e(shortCommit(p.commit))}</code> ${e(subjectOf(p.subject, 70))}`;
      const mark = c ? `<b class="cp">change ${e(changeWords(t.metric, c))}</b>` : '';
      return [run, commit, e(dateOf(p.date)), e(formatValue(t.metric, p.median)), String(p.n), mark];
    });
  return table(['run', 'commit', 'date', 'median', 'n', ''], rows, [0, 3, 4]);
}

function trendSection(t: Trend, index: number, charts: ChartData[]): string {
  const id = `t${index}`;
  charts.push({ id, unit: t.unit, points: t.points.map((p) => [p.median, p.p25, p.p75, p.runId]), changes: t.changes.map((c) => c.index) });
  const changes = t.changes.length
    ? `<ul>${t.changes
        .map(
          (c) =>
            `<li><a href="#${id}-run-${c.runId}">run ${c.runId}</a> <code>${e(shortCommit(c.commit))}</code> ` +
            `${e(subjectOf(c.subject, 70))}: ${e(changeWords(t.metric, c))}</li>`,
        )
        .join('')}</ul>`
    : '<p class="muted">No change point.</p>';
  return `<section class="card"><h2>${e(titleOf(t))}</h2>
<p class="muted">${t.points.length} runs, ${e(t.unit)}; median of each run's repeats, dashed their interquartile range.
Click a point for its run.</p>
<div class="chart" data-chart="${id}" role="img" aria-label="${e(titleOf(t))}"></div>
${changes}
<details><summary>Runs (newest first)</summary>${runRows(t, id)}</details></section>`;
}

const STYLE = `body{margin:0;font:14px/1.45 system-ui,sans-serif;color:#111827;background:#f9fafb}
main{max-width:1120px;margin:0 auto;padding:12px}h1{font-size:1.3rem}h2{font-size:1.05rem;margin:.2em 0}
.card{background:#fff;border:1px solid #e5e7eb;border-radius:8px;padding:10px;margin:0 0 12px}
.chart{width:100%;min-height:220px}.muted{color:#6b7280}.cp{color:#b91c1c}.scroll{overflow-x:auto}
table{border-collapse:collapse;font-size:.9em}td,th{padding:2px 8px;border-bottom:1px solid #e5e7eb;text-align:left}
.num{text-align:right}:target{background:#fef3c7}code{font-family:ui-monospace,monospace}`;

// The client: one uPlot per chart (median line and points, the IQR as dashed lines, change points as red
// rings at their first run); a click on a point follows the link to its run's row.
const CLIENT = `(function () {
  var data = JSON.parse(document.getElementById('rehearse-trends').textContent);
  data.charts.forEach(function (c) {
    var el = document.querySelector('[data-chart="' + c.id + '"]');
    if (!el || !c.points.length) return;
    var xs = c.points.map(function (_, i) { return i + 1; });
    var med = c.points.map(function (p) { return p[0]; });
    var lo = c.points.map(function (p) { return p[1]; });
    var hi = c.points.map(function (p) { return p[2]; });
    var cps = c.points.map(function (p, i) { return c.changes.indexOf(i) >= 0 ? p[0] : null; });
    var u = new uPlot({
      width: Math.max(300, el.clientWidth), height: 220,
      scales: { x: { time: false } },
      axes: [{ label: 'run' }, { label: c.unit, size: 60 }],
      series: [{ label: 'run' },
        { label: 'median', stroke: '#2563eb', width: 1.5, points: { show: true, size: 5 } },
        { label: 'p25', stroke: '#93c5fd', dash: [4, 4], width: 1, points: { show: false } },
        { label: 'p75', stroke: '#93c5fd', dash: [4, 4], width: 1, points: { show: false } },
        { label: 'change', stroke: '#b91c1c', width: 0, paths: function () { return null; },
          points: { show: true, size: 12, width: 2, stroke: '#b91c1c', fill: 'rgba(0,0,0,0)' } }]
    }, [xs, med, lo, hi, cps], el);
    u.over.addEventListener('click', function () {
      var i = u.cursor.idx;
      if (i == null) return;
      var target = c.id + '-run-' + c.points[i][3];
      var row = document.getElementById(target);
      if (row) { var d = row.closest('details'); if (d) d.open = true; }
      location.hash = target;
    });
  });
})();`;

/** The trends page: one section and chart per trend, in the run report's page shell. */
export function trendsHtml(trends: readonly Trend[], title = 'rehearse trends'): string {
  const charts: ChartData[] = [];
  const sections = trends.map((t, i) => trendSection(t, i, charts)).join('\n');
  const total = trends.reduce((n, t) => n + t.changes.length, 0);
  const body = `<h1>${e(title)}</h1>
<p class="muted">${trends.length} series, ${total} change point${total === 1 ? '' : 's'} (E-Divisive means with a permutation test).</p>
${sections || '<p>No recorded runs.</p>'}
<p class="muted">rehearse trends page · charts drawn with uPlot, inlined: this file needs no network.</p>`;
  return pageShell({ title, body, style: STYLE, client: CLIENT, dataId: 'rehearse-trends', data: { charts } });
}
