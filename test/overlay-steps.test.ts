import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runStep, type StepResult } from '../src/engine/run-step.js';
import type { StepHost } from '../src/steps/define.js';
import { fresh, sharedBrowser } from './helpers.js';

type Ok = Extract<StepResult, { status: 'ok' }>;
async function run(host: StepHost, name: string, args: unknown): Promise<Ok> {
  const r = await runStep(host, name, args);
  assert.equal(r.status, 'ok', `${name} failed: ${JSON.stringify(r.status === 'ok' ? '' : r.error)}`);
  return r as Ok;
}

async function open(path: string, server: 'demo' | 'fixtures' = 'demo') {
  const shared = await sharedBrowser();
  const { host } = await fresh(`${shared[server].url}${path}`);
  const page = await host.page();
  const js = <T>(expr: string): Promise<T> => page.evaluate<T>(expr);
  return { host, js };
}

const DIALOG_STATE = `({
  dialogOpen: document.getElementById('confirm-dialog').open,
  customHidden: document.getElementById('custom-backdrop').hidden,
  result: document.getElementById('dialog-result').textContent,
})`;

test('dismiss_modals: closes the native <dialog> and the custom aria-modal on dialog.html, verified', async () => {
  const { host, js } = await open('/dialog.html');
  await js("document.getElementById('open-custom-modal').click(); document.getElementById('open-dialog').click()");
  assert.deepEqual(await js(DIALOG_STATE), { dialogOpen: true, customHidden: false, result: 'No dialog closed yet.' });
  const r = await run(host, 'dismiss_modals', {});
  assert.deepEqual(r.data?.dismissed, [
    { role: 'dialog', name: 'Confirm', how: 'dialog.close()' },
    { role: 'dialog', name: 'Custom modal', how: 'Escape' },
  ]);
  assert.equal(r.data?.remaining, 0);
  assert.deepEqual(r.effect, { treeChanged: { changed: true } });
  assert.deepEqual(await js(DIALOG_STATE), { dialogOpen: false, customHidden: true, result: 'Dialog closed: cancel' });
});

test('dismiss_modals: nothing open → nothing dismissed, remaining 0, tree unchanged', async () => {
  const { host } = await open('/dialog.html');
  const r = await run(host, 'dismiss_modals', {});
  assert.deepEqual(r.data, { dismissed: [], remaining: 0 });
  assert.deepEqual(r.effect, { treeChanged: { changed: false } });
});

test('dismiss_modals: a modal deaf to Escape is closed by its "Got it" button (not "Learn more")', async () => {
  const { host, js } = await open('/steps-overlays.html', 'fixtures');
  const r = await run(host, 'dismiss_modals', {});
  assert.deepEqual(r.data?.dismissed, [{ role: 'alertdialog', name: 'Welcome', how: 'clicked "Got it"' }]);
  assert.equal(await js("document.getElementById('log').textContent"), 'consent accepted');
  assert.equal(r.data?.remaining, 0);
});

test('dismiss_modals: a modal with no way out is reported as remaining, with a warning', async () => {
  const { host, js } = await open('/steps-overlays.html', 'fixtures');
  await js("document.getElementById('stuck').hidden = false");
  const r = await run(host, 'dismiss_modals', {});
  assert.deepEqual(
    (r.data?.dismissed as { name: string }[]).map((d) => d.name),
    ['Welcome'],
  );
  assert.equal(r.data?.remaining, 1);
  assert.deepEqual(r.data?.remainingModals, [{ role: 'dialog', name: 'Stuck panel' }]);
  assert.match(r.warnings?.[0] ?? '', /Stuck panel/);
  assert.equal(await js("document.getElementById('stuck').hidden"), false);
});

test('reset_overlays: Escape at page level closes the custom modal, then the focused opener is blurred', async () => {
  const { host, js } = await open('/dialog.html');
  await js("document.getElementById('open-custom-modal').focus(); document.getElementById('open-custom-modal').click()");
  assert.equal(await js('document.activeElement.id'), 'close-custom-modal');
  const r = await run(host, 'reset_overlays', {});
  assert.equal(r.data?.escapePressed, true);
  assert.deepEqual(r.data?.dismissed, [{ role: 'dialog', name: 'Custom modal', how: 'Escape (page level)' }]);
  assert.deepEqual(r.data?.blurred, { role: 'button', name: 'Open custom modal' });
  assert.equal(r.data?.remaining, 0);
  assert.equal(await js('document.activeElement === document.body'), true);
  assert.equal(await js("document.getElementById('custom-backdrop').hidden"), true);
});

test('reset_overlays: hides a manual popover and closes the modal that ignores Escape', async () => {
  const { host, js } = await open('/steps-overlays.html', 'fixtures');
  await js("document.getElementById('pop').showPopover()");
  const r = await run(host, 'reset_overlays', {});
  assert.deepEqual(r.data?.dismissed, [
    { role: 'popover', name: 'Tips', how: 'hidePopover()' },
    { role: 'alertdialog', name: 'Welcome', how: 'clicked "Got it"' },
  ]);
  assert.equal(await js("document.getElementById('pop').matches(':popover-open')"), false);
  assert.equal(await js("document.getElementById('consent').hidden"), true);
  assert.equal(r.data?.remaining, 0);
});
