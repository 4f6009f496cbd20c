/**
 * Device presets and the emulation they apply. The table is shared: device_profile uses it, and the
 * scenario `viewport` key / `--device` may name a preset. Sizes are the CSS viewport a page really
 * gets in that device's default browser (portrait, browser chrome excluded), not the screen size.
 */
import type { PageDriver } from '../page/index.js';

export interface DevicePreset {
  /** CSS viewport (window.innerWidth/innerHeight). */
  width: number;
  height: number;
  /** The device's screen in CSS px (screen.width/height), larger than the viewport on phones. */
  screenWidth: number;
  screenHeight: number;
  dpr: number;
  mobile: boolean;
  touch: boolean;
  /**
   * The user agent; `{chrome}` is replaced by the running Chromium's version so the page's feature
   * detection matches the engine. Undefined: the browser's own, minus "Headless".
   */
  userAgent?: string;
  /** Client hints (navigator.userAgentData) for Chromium-based mobile presets. */
  platform?: { name: string; version: string; model: string };
}

export const DEVICES = {
  'iphone-x': {
    width: 375,
    height: 635,
    screenWidth: 375,
    screenHeight: 812,
    dpr: 3,
    mobile: true,
    touch: true,
    userAgent:
      'Mozilla/5.0 (iPhone; CPU iPhone OS 11_0 like Mac OS X) AppleWebKit/604.1.38 ' +
      '(KHTML, like Gecko) Version/11.0 Mobile/15A372 Safari/604.1',
  },
  'iphone-13': {
    width: 390,
    height: 664,
    screenWidth: 390,
    screenHeight: 844,
    dpr: 3,
    mobile: true,
    touch: true,
    userAgent:
      'Mozilla/5.0 (iPhone; CPU iPhone OS 15_0 like Mac OS X) AppleWebKit/605.1.15 ' +
      '(KHTML, like Gecko) Version/15.0 Mobile/15E148 Safari/604.1',
  },
  'iphone-15-pro': {
    width: 393,
    height: 659,
    screenWidth: 393,
    screenHeight: 852,
    dpr: 3,
    mobile: true,
    touch: true,
    userAgent:
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 ' +
      '(KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
  },
  'pixel-5': {
    width: 393,
    height: 727,
    screenWidth: 393,
    screenHeight: 851,
    dpr: 2.75,
    mobile: true,
    touch: true,
    userAgent: 'Mozilla/5.0 (Linux; Android 11; Pixel 5) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/{chrome} Mobile Safari/537.36',
    platform: { name: 'Android', version: '11', model: 'Pixel 5' },
  },
  'pixel-8': {
    width: 412,
    height: 839,
    screenWidth: 412,
    screenHeight: 915,
    dpr: 2.625,
    mobile: true,
    touch: true,
    userAgent: 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/{chrome} Mobile Safari/537.36',
    platform: { name: 'Android', version: '14', model: 'Pixel 8' },
  },
  'ipad-pro-12.9': {
    // iPadOS Safari asks for desktop sites by default, so its UA is the Mac one (touch still on).
    width: 1024,
    height: 1292,
    screenWidth: 1024,
    screenHeight: 1366,
    dpr: 2,
    mobile: true,
    touch: true,
    userAgent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
  },
  'desktop-1440': { width: 1440, height: 900, screenWidth: 1440, screenHeight: 900, dpr: 1, mobile: false, touch: false },
  'desktop-1920': { width: 1920, height: 1080, screenWidth: 1920, screenHeight: 1080, dpr: 1, mobile: false, touch: false },
} as const satisfies Record<string, DevicePreset>;

export type DeviceName = keyof typeof DEVICES;
export const DEVICE_NAMES = Object.keys(DEVICES) as DeviceName[];

export function getDevice(name: string): DevicePreset | undefined {
  return (DEVICES as Record<string, DevicePreset>)[name];
}

/** The user agent a preset sends on this browser (`{chrome}` filled in, "Headless" dropped). */
export function presetUserAgent(page: PageDriver, preset: DevicePreset): string {
  const own = page.emulation.browserUserAgent();
  if (!preset.userAgent) return own;
  const version = /Chrome\/([\d.]+)/.exec(own)?.[1] ?? '120.0.0.0';
  return preset.userAgent.replace('{chrome}', version);
}

/** Viewport, touch and user agent of a preset. */
export async function applyDevice(page: PageDriver, preset: DevicePreset): Promise<void> {
  // The viewport first: a driver that refuses the device (Firefox has no touch) then leaves the user agent as it was.
  await page.emulation.applyViewport(preset);
  await page.emulation.setUserAgent({
    userAgent: presetUserAgent(page, preset),
    mobile: preset.mobile,
    ...(preset.platform ? { platform: preset.platform } : {}),
  });
}
