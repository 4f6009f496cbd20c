/**
 * The Lighthouse config of the page-load benchmark (bench/load.ts passes it as --config-path): the desktop
 * preset, unchanged, plus one compatibility shim. Lighthouse 12.2.3 (the last for Node 20) bundles
 * @paulirish/trace_engine 0.0.32, whose ScreenshotsHandler reads `args.chrome_frame_reporter.frame_sequence`
 * from every PipelineReporter trace event; the Chromium here (156) no longer writes that field in the JSON
 * trace, so the engine throws and takes TraceElements with it: the `largest-contentful-paint-element` audit
 * errors. PipelineReporter events feed only that handler (they shift screenshot times to presentation time,
 * i.e. the Speed Index filmstrip), so the Trace artifact is handed on without them. FCP, LCP, TBT and the
 * network records Lighthouse reports do not read these events.
 *
 * REHEARSE_LH_FILMSTRIP=off (bench:load --filmstrip off) also leaves the screenshot category out of the trace.
 * Lighthouse copies a JPEG of every frame into its trace for the Speed Index filmstrip; on a 2-core machine with
 * software compositing that capture delays the first paint itself (a bare CDP load of TodoMVC: FCP 112–168 ms
 * untraced, 204–256 ms with that one category traced). Off, Speed Index and the thumbnails audits error, and FCP
 * and LCP are the page's, not the page's plus the filmstrip's.
 */
import type { Config, Trace as LhTrace } from 'lighthouse';
import defaultConfig from 'lighthouse/core/config/default-config.js';
import desktopConfig from 'lighthouse/core/config/desktop-config.js';
import Trace from 'lighthouse/core/gather/gatherers/trace.js';

class TraceWithoutPipelineReporter extends Trace {
  override getArtifact(): LhTrace {
    const trace = super.getArtifact();
    return { ...trace, traceEvents: trace.traceEvents.filter((e) => e.name !== 'PipelineReporter') };
  }
}

// Lighthouse's own category for the filmstrip's frames (trace.js getDefaultTraceCategories).
const SCREENSHOTS = 'disabled-by-default-devtools.screenshot';

/** Lighthouse 12.2.3's startSensitiveInstrumentation (navigation mode), its categories without the filmstrip. */
class TraceWithoutFilmstrip extends TraceWithoutPipelineReporter {
  override async startSensitiveInstrumentation(ctx: Parameters<Trace['startSensitiveInstrumentation']>[0]): Promise<void> {
    if (ctx.gatherMode !== 'navigation') throw new Error('the benchmark config traces navigations only');
    const categories = Trace.getDefaultTraceCategories()
      .filter((c) => c !== SCREENSHOTS)
      .concat(ctx.settings.additionalTraceCategories ?? []);
    await ctx.driver.defaultSession.sendCommand('Page.enable');
    await ctx.driver.defaultSession.sendCommand('Tracing.start', { categories: categories.join(','), options: 'sampling-frequency=10000' });
  }
}

const gatherer = process.env.REHEARSE_LH_FILMSTRIP === 'off' ? TraceWithoutFilmstrip : TraceWithoutPipelineReporter;

// The default config with the desktop preset's settings, written out rather than `extends`: an extension merges
// artifacts by id and refuses a gatherer class where the default names one by string.
const config: Config = {
  ...defaultConfig,
  settings: { ...defaultConfig.settings, ...desktopConfig.settings },
  artifacts: (defaultConfig.artifacts ?? []).map((a) => (a.id === 'Trace' ? { id: 'Trace', gatherer: { implementation: gatherer } } : a)),
};

export default config;
