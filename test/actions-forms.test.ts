/**
 * Form controls (set_checkbox, select_option), scroll and expect, against the demo app and the
 * actions-* fixtures.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from '../src/drivers/cdp/browser.js';
import type { SessionHost } from '../src/engine/host.js';
import { runStep } from '../src/engine/run-step.js';
import { demo, failed, fixture, ok, type Ok } from './step-helpers.js';

const text = (page: Page, id: string): Promise<string> =>
  page.evaluate<string>(`document.getElementById(${JSON.stringify(id)}).textContent`);
async function run(host: SessionHost, step: string, args: unknown): Promise<Ok> {
  return ok(await runStep(host, step, args));
}

test('set_checkbox is idempotent and reads the state back (checkbox, switch, radio)', async () => {
  const { host, session } = await demo('/form.html');
  const first = await run(host, 'set_checkbox', { target: { label: 'Subscribe to newsletter' }, value: true });
  assert.equal(first.data!.toggled, true);
  assert.equal(first.data!.previousValue, false);
  assert.deepEqual(first.effect?.checked, { verified: true, before: false, after: true });
  const second = await run(host, 'set_checkbox', { target: { label: 'Subscribe to newsletter' }, value: 'true' });
  assert.equal(second.data!.toggled, false);
  assert.deepEqual(second.effect?.checked, { verified: true, before: true, after: true });
  assert.equal(await session.page.evaluate('document.getElementById("subscribe").checked'), true);
  const sw = await run(host, 'set_checkbox', { target: { role: 'switch', name: 'Dark mode' }, value: true });
  assert.deepEqual(sw.effect?.checked, { verified: true, before: false, after: true });
  const radio = await run(host, 'set_checkbox', { target: { role: 'radio', name: 'Pro' }, value: true });
  assert.deepEqual(radio.effect?.checked, { verified: true, before: false, after: true });
  assert.equal(await session.page.evaluate('document.querySelector("input[name=plan]:checked").value'), 'pro');
  const unradio = failed(await runStep(host, 'set_checkbox', { target: { role: 'radio', name: 'Pro' }, value: false }));
  assert.equal(unradio.error.code, 'cannot_uncheck_radio');
  const notBox = failed(await runStep(host, 'set_checkbox', { target: { role: 'button', name: 'Submit' }, value: true }));
  assert.equal(notBox.error.code, 'not_checkable');
  assert.match(notBox.error.message, /is a button, not a checkbox, radio or switch/);
});

test('select_option picks in a native select by label or value and in an ARIA listbox', async () => {
  const { host, session } = await demo('/form.html');
  const byLabel = await run(host, 'select_option', { target: { label: 'Country' }, option: 'Germany' });
  assert.deepEqual(byLabel.effect?.selected, { verified: true, value: 'Germany' });
  assert.equal(await session.page.evaluate('document.getElementById("country").value'), 'de');
  const byValue = await run(host, 'select_option', { target: { label: 'Country' }, option: 'jp' });
  assert.deepEqual(byValue.data!.selected, [{ label: 'Japan', value: 'jp' }]);
  const missing = failed(await runStep(host, 'select_option', { target: { label: 'Country' }, option: 'Atlantis' }));
  assert.equal(missing.error.code, 'option_not_found');
  assert.ok(missing.error.candidates?.includes('France (value "fr")'));
  const aria = await run(host, 'select_option', { target: { role: 'listbox', name: 'Color' }, option: 'purple' });
  assert.deepEqual(aria.effect?.selected, { verified: true, value: 'Purple' });
  assert.equal(await session.page.evaluate('document.getElementById("color-purple").getAttribute("aria-selected")'), 'true');
  await run(host, 'fill', { target: { label: 'Name' }, text: 'Ada' });
  await run(host, 'tap', { target: { role: 'button', name: 'Submit' } });
  assert.match(await text(session.page, 'result'), /"country":"jp".*"color":"purple"/);
});

test('scroll uses the wheel and reports the offset before and after, clamped', async () => {
  const { host, session } = await demo('/list.html');
  const r = await run(host, 'scroll', { target: { role: 'list', name: 'Items' }, dy: 600 });
  assert.deepEqual(r.effect?.scrollOffset, { changed: true, before: { x: 0, y: 0 }, after: { x: 0, y: 600 } });
  assert.equal(r.data!.method, 'wheel');
  assert.equal(await session.page.evaluate('document.getElementById("list").scrollTop'), 600);
  const max = await session.page.evaluate<number>(
    '(() => { const l = document.getElementById("list"); return l.scrollHeight - l.clientHeight; })()',
  );
  const end = await run(host, 'scroll', { direction: 'down', pixels: 1e7 });
  assert.match(String(end.data!.container), /^list "Items"/, 'the first scrollable element');
  assert.equal(end.data!.clamped, true);
  assert.deepEqual(end.effect?.scrollOffset?.after, { x: 0, y: max });
  const none = await run(host, 'scroll', { direction: 'down' });
  assert.deepEqual(none.effect?.scrollOffset, { changed: false, before: { x: 0, y: max }, after: { x: 0, y: max } });
  assert.equal(none.data!.atLimit, true);
});

test('scroll intoView brings an offscreen row into view', async () => {
  const { host, session } = await demo('/list.html');
  const r = await run(host, 'scroll', { target: { text: 'Item 500' }, intoView: true });
  assert.equal(r.effect?.scrollOffset?.changed, true);
  assert.equal(r.data!.inView, true);
  const visible = await session.page.evaluate<boolean>(`(() => {
    const l = document.getElementById('list').getBoundingClientRect();
    const row = [...document.querySelectorAll('.row-title')].find((e) => e.textContent === 'Item 500').getBoundingClientRect();
    return row.top >= l.top && row.bottom <= l.bottom; })()`);
  assert.equal(visible, true);
});

test('expect passes, polls until the state arrives, and fails with expected vs actual', async () => {
  const { host, session } = await demo('/list.html');
  await run(host, 'expect', { target: { role: 'status' }, text: '2000 items', visible: true });
  await run(host, 'expect', { target: { role: 'listitem' }, count: 2000 });
  await run(host, 'expect', { url: '/list.html' });
  await session.page.evaluate(`setTimeout(() => document.getElementById('add-item').click(), 150)`);
  const later = await run(host, 'expect', { target: { role: 'status' }, text: '2001 items', timeoutMs: 2000 });
  assert.ok((later.data!.waitedMs as number) >= 100);
  const r = failed(await runStep(host, 'expect', { target: { role: 'status' }, text: '5 items', timeoutMs: 300 }));
  assert.equal(r.error.code, 'expect_failed');
  assert.equal(r.error.kind, 'failed');
  assert.match(r.error.message, /text: expected "5 items", got "2001 items"$/);
  const hidden = await run(host, 'expect', { target: { text: 'Nothing like this' }, hidden: true });
  assert.equal(hidden.data!.passed, true);
  const { host: formHost } = await demo('/form.html');
  await run(formHost, 'expect', { target: { label: 'Country' }, value: 'Choose a country' });
  await run(formHost, 'expect', { target: { role: 'radio', name: 'Free' }, checked: true });
  const unchecked = failed(await runStep(formHost, 'expect', { target: { role: 'radio', name: 'Pro' }, checked: true, timeoutMs: 200 }));
  assert.match(unchecked.error.message, /checked: expected true, got false$/);
});

test('select_option opens an ARIA combobox and clicks the option', async () => {
  const { host, session } = await fixture('actions-widgets.html');
  const r = await run(host, 'select_option', { target: { role: 'combobox', name: 'Fruit' }, option: 'Banana' });
  assert.deepEqual(r.effect?.selected, { verified: true, value: 'Banana' });
  assert.equal(await text(session.page, 'fruit-out'), 'picked Banana');
});

test('set_checkbox toggles a visually hidden checkbox through its label', async () => {
  const { host, session } = await fixture('actions-widgets.html');
  const r = await run(host, 'set_checkbox', { target: { css: '#fancy' }, value: true, timeoutMs: 1500 });
  assert.equal(r.data!.via, 'label');
  assert.deepEqual(r.effect?.checked, { verified: true, before: false, after: true });
  assert.equal(await text(session.page, 'fancy-out'), 'fancy on');
});

test('scroll falls back to scrollTo when the page swallows the wheel', async () => {
  const { host, session } = await fixture('actions-widgets.html');
  const r = await run(host, 'scroll', { target: { role: 'region', name: 'Wheel-blocking box' }, dy: 200 });
  assert.equal(r.data!.method, 'scrollTo');
  assert.deepEqual(r.effect?.scrollOffset, { changed: true, before: { x: 0, y: 0 }, after: { x: 0, y: 200 } });
  assert.equal(await session.page.evaluate('document.getElementById("sticky").scrollTop'), 200);
});
