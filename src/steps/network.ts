/**
 * network: throttle the page's network to a preset or to given numbers, cut it (offline), or stop
 * throttling (none). The same shape is the scenario's `network` key, applied at every clean restart.
 */
import { PerfError } from '../errors.js';
import { scenarioOnly, type NetworkConditions } from '../page/index.js';
import { defineStep, type FromSchema } from './define.js';

/**
 * The presets, in kbit/s and ms. Chrome DevTools defines its presets in bytes/s as
 * `kbit × 1000 / 8 × factor`; Puppeteer's PredefinedNetworkConditions copies them, and Lighthouse's
 * throttling constants (core/config/constants.js) use the same latency factor 3.75 and throughput 0.9.
 */
export const NETWORK_PROFILES = {
  // DevTools "Slow 3G" (now "3G"): 500 kbit/s × 0.8 both ways, 400 ms × 5 latency.
  'slow-3g': { offline: false, latencyMs: 2000, downloadKbps: 400, uploadKbps: 400 },
  // DevTools "Fast 3G": 1.6 Mbit/s × 0.9 down, 750 kbit/s × 0.9 up, 150 ms × 3.75 latency.
  'fast-3g': { offline: false, latencyMs: 562.5, downloadKbps: 1440, uploadKbps: 675 },
  // DevTools and Lighthouse "Slow 4G": the Fast 3G numbers under their newer name (DevTools renamed it, crbug.com/342406608).
  'slow-4g': { offline: false, latencyMs: 562.5, downloadKbps: 1440, uploadKbps: 675 },
  // DevTools "Fast 4G": 9 Mbit/s × 0.9 down, 1.5 Mbit/s × 0.9 up, 60 ms × 2.75 latency.
  'fast-4g': { offline: false, latencyMs: 165, downloadKbps: 8100, uploadKbps: 1350 },
  // Every request fails as with no connection (net::ERR_INTERNET_DISCONNECTED).
  offline: { offline: true, latencyMs: 0, downloadKbps: 0, uploadKbps: 0 },
} as const satisfies Record<string, NetworkConditions>;

export type NetworkProfileName = keyof typeof NETWORK_PROFILES;
export const NETWORK_PROFILE_NAMES = Object.keys(NETWORK_PROFILES) as NetworkProfileName[];
/** `none` stops throttling: a step's way back, and a variant's way to drop the scenario's network. */
export const NETWORK_CHOICES = ['none', ...NETWORK_PROFILE_NAMES] as const;

/** The arguments of the step and the value of the scenario key: a profile, or the three numbers. */
export const NETWORK_ARGS = {
  type: 'object',
  properties: {
    profile: { type: 'string', enum: NETWORK_CHOICES, description: 'DevTools preset.' },
    latencyMs: scenarioOnly({
      type: 'number',
      minimum: 0,
      description: 'Instead of profile (with downloadKbps and uploadKbps): latency added to every request, ms.',
    } as const),
    downloadKbps: scenarioOnly({ type: 'number', exclusiveMinimum: 0, description: 'Download throughput, kbit/s (1000 bits).' } as const),
    uploadKbps: scenarioOnly({ type: 'number', exclusiveMinimum: 0, description: 'Upload throughput, kbit/s (1000 bits).' } as const),
  },
  // The three numbers come together; a profile beside them is refused by resolveNetwork (a schema
  // `not` would only say "must NOT be valid").
  dependencies: {
    latencyMs: ['downloadKbps', 'uploadKbps'],
    downloadKbps: ['latencyMs', 'uploadKbps'],
    uploadKbps: ['latencyMs', 'downloadKbps'],
  },
} as const;
/** The scenario key: the same fields. */
export const NETWORK_KEY = { ...NETWORK_ARGS, additionalProperties: false } as const;

/** A network setting resolved to its numbers, with the name it was given by (`custom` for numbers). */
export interface NetworkSetting extends NetworkConditions {
  profile: NetworkProfileName | 'custom';
}

/** The setting the arguments name; undefined for `none` (not throttled). */
export function resolveNetwork(spec: FromSchema<typeof NETWORK_ARGS>): NetworkSetting | undefined {
  const custom = spec.latencyMs !== undefined || spec.downloadKbps !== undefined || spec.uploadKbps !== undefined;
  if (spec.profile === 'none' && !custom) return undefined;
  if (spec.profile !== undefined && spec.profile !== 'none' && !custom) return { profile: spec.profile, ...NETWORK_PROFILES[spec.profile] };
  if (spec.latencyMs === undefined || spec.downloadKbps === undefined || spec.uploadKbps === undefined || spec.profile !== undefined) {
    throw new PerfError({
      code: 'invalid_arguments',
      message: 'network: give a profile, or all of latencyMs, downloadKbps and uploadKbps (not both)',
      suggestion: `profiles: ${NETWORK_CHOICES.join(', ')}`,
    });
  }
  return { profile: 'custom', offline: false, latencyMs: spec.latencyMs, downloadKbps: spec.downloadKbps, uploadKbps: spec.uploadKbps };
}

/** Whether two conditions are the same (undefined: not throttled). */
export function sameNetwork(a: NetworkConditions | undefined, b: NetworkConditions | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.offline === b.offline && a.latencyMs === b.latencyMs && a.downloadKbps === b.downloadKbps && a.uploadKbps === b.uploadKbps;
}

export const network = defineStep({
  name: 'network',
  description: 'Throttle the network: a preset, offline, or none.',
  details:
    `Presets (latency ms, down/up kbit/s, from Chrome DevTools): ${NETWORK_PROFILE_NAMES.filter((n) => n !== 'offline')
      .map((n) => `${n} ${NETWORK_PROFILES[n].latencyMs} ms ${NETWORK_PROFILES[n].downloadKbps}/${NETWORK_PROFILES[n].uploadKbps}`)
      .join(', ')}. Applies to the requests that start after it, until the next network step ` +
    `or clean restart (which applies the scenario's network key). CDP driver only.`,
  args: NETWORK_ARGS,
  needs: ['networkEmulation'],
  readOnly: false,
  shorthand: (profile) => ({ profile }),
  async run(ctx, args) {
    const emulation = ctx.page.emulation.network;
    if (!emulation) {
      throw new PerfError({
        code: 'unsupported_on_driver',
        message: 'network: this driver cannot throttle the network',
        suggestion: 'run this on the cdp driver (Chromium)',
      });
    }
    const want = resolveNetwork(args);
    await emulation.apply(want);
    // Chromium has no getter: what the page's target acknowledged is the read-back.
    const seen = emulation.current();
    const verified = sameNetwork(
      seen,
      want && { offline: want.offline, latencyMs: want.latencyMs, downloadKbps: want.downloadKbps, uploadKbps: want.uploadKbps },
    );
    return {
      data: { profile: want?.profile ?? 'none', ...(seen ?? { offline: false, latencyMs: 0, downloadKbps: 0, uploadKbps: 0 }), verified },
    };
  },
});
