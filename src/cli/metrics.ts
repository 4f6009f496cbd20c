/** perf metrics: the metric registry (src/perf/metrics.ts) as a table, or as JSON with --json. */
import { MAX_PRIMARY, METRICS, metricTable, MIN_PAINTED_FOR_PER_FRAME, PER_FRAME_SUFFIX, PRIMARY_BY_NOISE } from '../perf/metrics.js';
import { defineCommand, JSON_FLAG, printJson } from './command.js';

export const metricsCommand = defineCommand({
  name: 'metrics',
  summary: 'List every metric a run can produce: unit, which way is better, whether it gates, whether it depends on the machine',
  usage: 'metrics [--json]',
  details: [
    `gate: primary metrics decide a compare's verdict (≤ ${MAX_PRIMARY} by default; a scenario's gate.metrics ` +
      `replaces them), secondary ones are judged and shown but never fail, never = shown only.`,
    `${PRIMARY_BY_NOISE.name}: ${PRIMARY_BY_NOISE.description}`,
    `A count with a ${PER_FRAME_SUFFIX} form is judged per painted frame only where both ` +
      `runs painted ≥ ${MIN_PAINTED_FOR_PER_FRAME} frames; with fewer, the absolute count ` +
      `of the app's own work is judged, and host-dependent frame counts are secondary.`,
    'host-dependent metrics are not gated against a baseline recorded on another host (CPU model, cores, browser build).',
    'floor: below it, a relative change is taken against the floor instead of the baseline median.',
    'drivers: cdp = Chromium over the DevTools protocol; webdriver-chromium = Chromium through chromedriver; webdriver-webkit ' +
      '= WebKitGTK through WebKitWebDriver; bidi-firefox = Firefox ESR over WebDriver BiDi. ' +
      "A run's coverage names each source its driver lacks.",
  ].join('\n'),
  flags: { ...JSON_FLAG },
  async run(f) {
    if (f.json) {
      const rule = PRIMARY_BY_NOISE.description;
      printJson({ metrics: metricTable(), minPaintedForPerFrame: MIN_PAINTED_FOR_PER_FRAME, maxPrimary: MAX_PRIMARY, primaryRule: rule });
      return 0;
    }
    const rows = METRICS.map((d) => [
      d.name + (d.perFrame ? ` (+${PER_FRAME_SUFFIX})` : ''),
      d.unit,
      d.better,
      d.gate + (d.promote ? ' (promotable)' : ''),
      d.hostDependent ? 'host' : 'app',
      String(d.floor),
      d.drivers.join(','),
    ]);
    const head = ['metric', 'unit', 'better', 'gate', 'depends on', 'floor', 'drivers'];
    const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    const line = (cells: string[]): string =>
      cells
        .map((c, i) => c.padEnd(widths[i]!))
        .join('  ')
        .trimEnd();
    process.stdout.write([line(head), ...rows.map(line)].join('\n') + '\n');
    return 0;
  },
});
