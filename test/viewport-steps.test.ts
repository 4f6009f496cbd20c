import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SessionHost } from '../src/engine/host.js';
import { runStep, type StepResult } from '../src/engine/run-step.js';
import type { StepHost } from '../src/steps/define.js';
import { DEVICE_NAMES, DEVICES } from '../src/steps/devices.js';
import { fresh, sharedBrowser } from './helpers.js';

type Ok = Extract<StepResult, { status: 'ok' }>;
async function run(host: StepHost, name: string, args: unknown): Promise<Ok> {
  const r = await runStep(host, name, args);
  assert.equal(r.status, 'ok', `${name} failed: ${JSON.stringify(r.status === 'ok' ? '' : r.error)}`);
  return r as Ok;
}
async function ok(host: StepHost, name: string, args: unknown): Promise<Record<string, any>> {
  return (await run(host, name, args)).data ?? {};
}
async function failed(host: StepHost, name: string, args: unknown): Promise<{ kind: string; code: string; message: string }> {
  const r = await runStep(host, name, args);
  assert.equal(r.status, 'failed', `${name} should have failed`);
  return (r as Extract<StepResult, { status: 'failed' }>).error;
}

async function demo(path: string) {
  const { demo } = await sharedBrowser();
  return (await fresh(`${demo.url}${path}`)).host;
}

interface Seen {
  w: number;
  h: number;
  dpr: number;
  touch: number;
  ua: string;
}
const SEEN = '({ w: innerWidth, h: innerHeight, dpr: devicePixelRatio, touch: navigator.maxTouchPoints, ua: navigator.userAgent })';

test('resize_viewport: size and dpr are read back from the page', async () => {
  const host = await demo('/form.html');
  const d = await ok(host, 'resize_viewport', { width: 600, height: 400, dpr: 1.5 });
  assert.deepEqual(d, { width: 600, height: 400, dpr: 1.5, mobile: false, touch: false, verified: true });
  const seen = await (await host.page()).evaluate<Seen>(SEEN);
  assert.deepEqual([seen.w, seen.h, seen.dpr, seen.touch], [600, 400, 1.5, 0]);
});

test('resize_viewport: mobile + touch on a page with a meta viewport', async () => {
  const host = await demo('/form.html');
  const d = await ok(host, 'resize_viewport', { width: 390, height: 700, dpr: 3, mobile: true, touch: true });
  assert.equal(d.verified, true);
  assert.equal(d.touch, true);
  const seen = await (await host.page()).evaluate<Seen>(SEEN);
  assert.deepEqual([seen.w, seen.h, seen.dpr], [390, 700, 3]);
  assert.ok(seen.touch > 0);
});

test('resize_viewport: mobile on a page without a meta viewport reports what the page really got', async () => {
  const { fixtures } = await sharedBrowser();
  const { host } = await fresh(`${fixtures.url}/steps-delayed.html`);
  const r = await run(host, 'resize_viewport', { width: 390, height: 700, mobile: true });
  assert.equal(r.data?.verified, false);
  assert.equal(r.data?.width, 980);
  assert.match(r.warnings?.[0] ?? '', /meta name="viewport"/);
});

test('device_profile: iphone-13 is read back (viewport, dpr, touch, user agent), then reset restores the browser', async () => {
  const host = await demo('/form.html');
  const page = await host.page();
  const before = await page.evaluate<Seen>(SEEN);
  const d = await ok(host, 'device_profile', { name: 'iphone-13' });
  assert.equal(d.verified, true);
  assert.deepEqual([d.width, d.height, d.dpr, d.touch, d.mobile], [390, 664, 3, true, true]);
  const seen = await page.evaluate<Seen & { sw: number; sh: number }>(`({ ...${SEEN}, sw: screen.width, sh: screen.height })`);
  assert.deepEqual([seen.w, seen.h, seen.dpr, seen.sw, seen.sh], [390, 664, 3, 390, 844]);
  assert.match(seen.ua, /iPhone OS 15_0/);
  const reset = await ok(host, 'device_profile', { reset: true });
  assert.equal(reset.reset, true);
  const after = await page.evaluate<Seen>(SEEN);
  assert.deepEqual(after, before);
  assert.deepEqual([reset.width, reset.height, reset.touch, reset.userAgent], [before.w, before.h, false, before.ua]);
});

test('device_profile: pixel-8 sends a Chrome mobile user agent with the running version and client hints', async () => {
  const host = await demo('/form.html');
  const page = await host.page();
  const d = await ok(host, 'device_profile', { name: 'pixel-8' });
  assert.equal(d.verified, true);
  const version = /Chrome\/([\d.]+)/.exec(page.emulation.browserUserAgent())?.[1];
  assert.equal(
    d.userAgent,
    `Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${version} Mobile Safari/537.36`,
  );
  const hints = await page.evaluate<{ mobile: boolean; platform: string }>(
    '({ mobile: navigator.userAgentData.mobile, platform: navigator.userAgentData.platform })',
  );
  assert.deepEqual(hints, { mobile: true, platform: 'Android' });
  assert.equal((await page.evaluate<Seen>(SEEN)).dpr, 2.625);
});

test('device_profile: list works with no app running; applying a preset then says no_app', async () => {
  const host = new SessionHost(undefined, undefined);
  const d = await ok(host, 'device_profile', { list: true });
  assert.deepEqual(
    d.devices.map((x: any) => x.name),
    ['iphone-x', 'iphone-13', 'iphone-15-pro', 'pixel-5', 'pixel-8', 'ipad-pro-12.9', 'desktop-1440', 'desktop-1920'],
  );
  assert.deepEqual(
    DEVICE_NAMES,
    d.devices.map((x: any) => x.name),
  );
  assert.equal(d.devices.find((x: any) => x.name === 'desktop-1920').width, DEVICES['desktop-1920'].width);
  assert.equal((await failed(host, 'device_profile', { name: 'pixel-5' })).code, 'no_app');
});

test('device_profile: an unknown preset or two modes at once are usage errors', async () => {
  const host = await demo('/form.html');
  const unknown = await failed(host, 'device_profile', { name: 'nokia-3310' });
  assert.equal(unknown.kind, 'usage');
  assert.match(unknown.message, /iphone-13/);
  const both = await failed(host, 'device_profile', { name: 'pixel-5', reset: true });
  assert.equal(both.code, 'invalid_arguments');
});
