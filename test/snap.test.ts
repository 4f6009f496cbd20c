import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runStep, type StepResult } from '../src/engine/run-step.js';
import { fresh, sharedBrowser } from './helpers.js';

function ok(r: StepResult): Extract<StepResult, { status: 'ok' }> {
  if (r.status !== 'ok') assert.fail(`${r.step} failed: ${JSON.stringify(r.error)}`);
  return r;
}
async function demo(path: string) {
  const { demo } = await sharedBrowser();
  return fresh(`${demo.url}${path}`);
}

test('explore', async () => {
  const { host } = await demo('/list.html');
  let r = ok(await runStep(host, 'snap', { interactiveOnly: true }));
  console.log((r.data as any).snapshot);
  r = ok(await runStep(host, 'snap', {}));
  r = ok(await runStep(host, 'tap', { target: { text: 'Add item' }, snapshot: 'diff' }));
  console.log(JSON.stringify(r, null, 1));
  r = ok(await runStep(host, 'snap', { grep: 'Item 19(' }));
  console.log(JSON.stringify(r.data).slice(0, 600));
  const f = await demo('/form.html');
  r = ok(await runStep(f.host, 'fill', { target: { label: 'Age' }, text: 'abc' }));
  console.log(JSON.stringify(r, null, 1));
  r = ok(await runStep(f.host, 'fill', { target: { label: 'Name' }, text: 'Ada' }));
  console.log(JSON.stringify(r));
  r = ok(await runStep(f.host, 'set_checkbox', { target: { label: 'Subscribe to newsletter' }, value: true }));
  console.log(JSON.stringify(r));
  r = ok(await runStep(f.host, 'set_checkbox', { target: { label: 'Subscribe to newsletter' }, value: 'true' }));
  console.log(JSON.stringify(r));
  r = ok(await runStep(f.host, 'select_option', { target: { label: 'Country' }, option: 'Japan' }));
  console.log(JSON.stringify(r));
  r = ok(await runStep(f.host, 'select_option', { target: { role: 'listbox', name: 'Color' }, option: 'Blue' }));
  console.log(JSON.stringify(r));
  r = ok(await runStep(f.host, 'snap', { interactiveOnly: true }));
  console.log((r.data as any).snapshot);
});
