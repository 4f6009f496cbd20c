/**
 * The Lighthouse config of the page-load benchmark (bench/load.ts passes it as --config-path): the desktop
 * preset, unchanged, plus one compatibility shim. Lighthouse 12.2.3 (the last for Node 20) bundles
 * @paulirish/trace_engine 0.0.32, whose ScreenshotsHandler reads `args.chrome_frame_reporter.frame_sequence`
 * from every PipelineReporter trace event; the Chromium here (156) no longer writes that field in the JSON
 * trace, so the engine throws and takes TraceElements with it: the `largest-contentful-paint-element` audit
 * errors. PipelineReporter events feed only that handler (they shift screenshot times to presentation time,
 * i.e. the Speed Index filmstrip), so the Trace artifact is handed on without them. FCP, LCP, TBT and the
 * network records Lighthouse reports do not read these events.
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

// The default config with the desktop preset's settings, written out rather than `extends`: an extension merges
// artifacts by id and refuses a gatherer class where the default names one by string.
const config: Config = {
  ...defaultConfig,
  settings: { ...defaultConfig.settings, ...desktopConfig.settings },
  artifacts: (defaultConfig.artifacts ?? []).map((a) =>
    a.id === 'Trace' ? { id: 'Trace', gatherer: { implementation: TraceWithoutPipelineReporter } } : a,
  ),
};

export default config;
