/**
 * device_profile: apply a named device preset (viewport, pixel ratio, mobile, touch, user agent),
 * list the presets, or reset every emulation back to the browser's own.
 */
import { PerfError, closest } from '../errors.js';
import { defineStep } from './define.js';
import { applyDevice, DEVICE_NAMES, DEVICES, getDevice, presetUserAgent } from './devices.js';
import { readViewportSettled, readViewportUntil, viewportAnswer } from './resize-viewport.js';

export const deviceProfile = defineStep({
  name: 'device_profile',
  description: 'Emulate a device preset (viewport, touch, user agent), read back; list shows them, reset clears.',
  details:
    `A preset also sets the pixel ratio and mobile layout. Presets: ${DEVICE_NAMES.join(', ')}. list needs ` +
    `no app. reset clears all viewport, touch and user-agent emulation: back to the browser's own.`,
  args: {
    type: 'object',
    properties: {
      name: { type: 'string', enum: DEVICE_NAMES, description: 'Preset to apply.' },
      list: { type: 'boolean', description: 'List the presets.' },
      reset: { type: 'boolean', description: 'Clear all emulation.' },
    },
  } as const,
  needs: ['userAgent'],
  readOnly: false,
  needsPage: false,
  shorthand: (name) => ({ name }),
  async run(ctx, args) {
    const chosen = [args.name !== undefined, args.list === true, args.reset === true].filter(Boolean).length;
    if (chosen !== 1) {
      throw new PerfError({
        code: 'invalid_arguments',
        message: 'device_profile: give exactly one of name, list: true or reset: true',
        suggestion: `e.g. device_profile: { name: iphone-13 }; presets: ${DEVICE_NAMES.join(', ')}`,
      });
    }
    if (args.list) {
      return { data: { devices: DEVICE_NAMES.map((name) => ({ name, ...DEVICES[name] })) } };
    }
    const { page } = ctx;
    if (args.reset) {
      // Like applying one, clearing an override reaches the page with a later frame, and the pixel
      // ratio and screen arrive before the layout size: wait until the page reports another size.
      const emulated = page.emulation.viewportOverridden() ? await page.emulation.readViewport() : undefined;
      await page.emulation.clear();
      const seen = emulated
        ? await readViewportUntil(page, (s) => s.width !== emulated.width || s.height !== emulated.height)
        : await page.emulation.readViewport();
      return { data: { reset: true, width: seen.width, height: seen.height, dpr: seen.dpr, touch: seen.touch, userAgent: seen.userAgent } };
    }
    const preset = getDevice(args.name!);
    if (!preset) {
      // ajv refuses unknown names first; this guards callers that skip validation.
      throw new PerfError({
        code: 'unknown_device',
        message: `device_profile: unknown preset "${args.name}"`,
        candidates: closest(args.name!, DEVICE_NAMES),
      });
    }
    await applyDevice(page, preset);
    const seen = await readViewportSettled(page, preset);
    const answer = viewportAnswer(preset, seen);
    const userAgentApplied = seen.userAgent === presetUserAgent(page, preset);
    return {
      data: { name: args.name, ...answer.data, verified: answer.data.verified === true && userAgentApplied, userAgent: seen.userAgent },
      ...(answer.warnings ? { warnings: answer.warnings } : {}),
    };
  },
});
