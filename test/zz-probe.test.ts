import { test } from 'node:test';
import { fresh, sharedBrowser } from './helpers.js';
import { runStep } from '../src/engine/run-step.js';
import { callRuntime } from '../src/drivers/cdp/page-runtime.js';
test('probe', async () => {
  const { demo } = await sharedBrowser();
  const { host, session } = await fresh(`${demo.url}/list.html`);
  await runStep(host, 'snap', {});
  const m = async (n: string, loc: unknown) => { const v: number[] = []; for (let i = 0; i < 15; i++) { const t0 = performance.now(); await callRuntime(session.page, 'resolve', [loc]); v.push(performance.now() - t0); } v.sort((a, b) => a - b); console.log(n, v[7]!.toFixed(2)); };
  await m('role', { target: { role: 'button', name: 'Add item' } });
  await m('text', { target: { text: 'Add item' } });
  await m('label', { target: { label: 'Filter' } });
  await m('testId', { target: { testId: 'add-item' } });
  const v: number[] = [];
  for (let i = 0; i < 25; i++) { const t0 = performance.now(); await runStep(host, 'tap', { target: { role: 'button', name: 'Add item' } }); v.push(performance.now() - t0); }
  v.sort((a, b) => a - b); console.log('tap', v[12]!.toFixed(1), v.map((x) => x.toFixed(0)).join(' '));
});
