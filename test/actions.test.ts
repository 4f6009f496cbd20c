/**
 * The element actions and their effect blocks, against the demo app and the actions-* fixtures.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from '../src/drivers/cdp/browser.js';
import { pressKey } from '../src/drivers/cdp/input.js';
import type { SessionHost } from '../src/engine/host.js';
import { runStep } from '../src/engine/run-step.js';
import { demo, failed, fixture, ok, type Ok } from './step-helpers.js';

const text = (page: Page, id: string): Promise<string> =>
  page.evaluate<string>(`document.getElementById(${JSON.stringify(id)}).textContent`);
const events = (page: Page): Promise<string[]> => page.evaluate<string[]>('window.__events.splice(0)');
async function run(host: SessionHost, step: string, args: unknown): Promise<Ok> {
  return ok(await runStep(host, step, args));
}

test('tap returns the effect and the page changes', async () => {
  const { host, session } = await demo('/list.html');
  const r = await run(host, 'tap', 'Add item');
  assert.match(String(r.data!.element), /^button "Add item" \[ref=e\d+\]$/);
  assert.deepEqual(r.effect, { treeChanged: { changed: true } });
  assert.equal(await text(session.page, 'count'), '2001 items');
  assert.equal(await session.page.evaluate('document.querySelector("#list > :last-child .row-title").textContent'), 'Item 2001');
});

test('tap on a control that changes nothing reports treeChanged false', async () => {
  const { host } = await demo('/list.html');
  const r = await run(host, 'tap', { target: { role: 'heading', name: 'List' } });
  assert.deepEqual(r.effect, { treeChanged: { changed: false } });
});

test('tap on a switch reports the checked state read back', async () => {
  const { host, session } = await demo('/form.html');
  const r = await run(host, 'tap', { target: { role: 'switch', name: 'Dark mode' } });
  assert.deepEqual(r.effect?.checked, { verified: true, before: false, after: true });
  assert.equal(await session.page.evaluate('document.documentElement.classList.contains("dark")'), true);
});

test('dblclick, right_click and triple_click send the events a user would', async () => {
  const { host, session } = await fixture('actions-events.html');
  await run(host, 'dblclick', { target: { role: 'button', name: 'Click me' } });
  const dbl = await events(session.page);
  assert.deepEqual(
    dbl.filter((e) => /^(click|dblclick)/.test(e)),
    ['click:1:0:', 'click:2:0:', 'dblclick:2:0:'],
  );
  await run(host, 'right_click', { target: { role: 'button', name: 'Click me' } });
  assert.deepEqual(
    (await events(session.page)).filter((e) => /^(mousedown|contextmenu|click)/.test(e)),
    ['mousedown:1:2:', 'contextmenu:0:2:'],
  );
  await run(host, 'triple_click', { target: { text: 'The quick brown fox jumps over the lazy dog.' } });
  assert.equal(await session.page.evaluate('getSelection().toString().trim()'), 'The quick brown fox jumps over the lazy dog.');
  await run(host, 'tap', { target: { role: 'button', name: 'Click me' }, modifiers: ['control'] });
  const ctrl = await events(session.page);
  assert.ok(ctrl.includes('click:1:0:ctrl'), ctrl.join(' '));
  assert.equal(ctrl.at(-1), 'keyup:Control:', 'the modifier is released afterwards');
});

test('hover moves the mouse over the element', async () => {
  const { host, session } = await fixture('actions-events.html');
  const r = await run(host, 'hover', { target: { text: 'Hover me' } });
  assert.deepEqual(r.effect, { treeChanged: { changed: true } });
  assert.equal(await text(session.page, 'hover-state'), 'hovered');
});

test('fill into the number field comes back verified false with the value it holds', async () => {
  const { host, session } = await demo('/form.html');
  const r = await run(host, 'fill', { target: { label: 'Age' }, text: 'abc' });
  assert.deepEqual(r.effect?.text, { verified: false, value: '', expected: 'abc' });
  assert.equal(await session.page.evaluate('document.getElementById("age").value'), '');
  const n = await run(host, 'fill', { target: { label: 'Age' }, text: '42' });
  assert.deepEqual(n.effect?.text, { verified: true, value: '42', expected: '42' });
});

test('fill replaces the text and fires input then change', async () => {
  const { host, session } = await fixture('actions-events.html');
  await run(host, 'fill', { target: { label: 'Keys' }, text: 'old' });
  await events(session.page);
  const r = await run(host, 'fill', { target: { label: 'Keys' }, text: 'new text' });
  assert.deepEqual(r.effect?.text, { verified: true, value: 'new text', expected: 'new text' });
  assert.equal(r.data!.previousValue, 'old');
  const ev = (await events(session.page)).filter((e) => /^(input|change)/.test(e));
  assert.deepEqual(ev, ['input:', 'input:new text', 'change:new text']);
});

test('type sends key events per character and replaces the content', async () => {
  const { host, session } = await fixture('actions-events.html');
  await run(host, 'fill', { target: { label: 'Keys' }, text: 'zzz' });
  await events(session.page);
  const r = await run(host, 'type', { target: { label: 'Keys' }, text: 'Hi!' });
  assert.deepEqual(r.effect?.text, { verified: true, value: 'Hi!', expected: 'Hi!' });
  const keys = (await events(session.page)).filter((e) => e.startsWith('keydown'));
  assert.deepEqual(keys, ['keydown:Delete:', 'keydown:H:S', 'keydown:i:', 'keydown:!:S']);
});

test('clear empties a field; focus and blur report focus read back', async () => {
  const { host, session } = await demo('/form.html');
  await run(host, 'fill', { target: { label: 'Name' }, text: 'Ada' });
  const c = await run(host, 'clear', { target: { label: 'Name' } });
  assert.deepEqual(c.effect?.text, { verified: true, value: '', expected: '' });
  const f = await run(host, 'focus', { target: { label: 'Email' } });
  assert.equal(f.data!.focused, true);
  assert.equal(await session.page.evaluate('document.activeElement.id'), 'email');
  const b = await run(host, 'blur', { target: { label: 'Email' } });
  assert.equal(b.data!.hadFocus, true);
  assert.equal(await session.page.evaluate('document.activeElement === document.body'), true);
  const again = await run(host, 'blur', { target: { label: 'Email' } });
  assert.equal(again.data!.hadFocus, false);
});

test('press_key with modifiers holds them and always releases them', async () => {
  const { host, session } = await fixture('actions-events.html');
  await run(host, 'focus', { target: { label: 'Keys' } });
  await events(session.page);
  const r = await run(host, 'press_key', { key: 'k', modifiers: ['control', 'shift'] });
  assert.equal(r.data!.key, 'Control+Shift+k');
  assert.deepEqual(await events(session.page), [
    'keydown:Control:C',
    'keydown:Shift:CS',
    'keydown:K:CS',
    'keyup:K:CS',
    'keyup:Shift:C',
    'keyup:Control:',
  ]);
  const combo = await run(host, 'press_key', { key: 'Shift+Tab' });
  assert.equal(combo.data!.key, 'Shift+Tab');
  assert.deepEqual((await events(session.page)).at(-1), 'keyup:Shift:');
});

test('press_key Enter in a form field submits it', async () => {
  const { host, session } = await demo('/form.html');
  await run(host, 'fill', { target: { label: 'Name' }, text: 'Ada' });
  const r = await run(host, 'press_key', { key: 'Enter', target: { label: 'Name' } });
  assert.deepEqual(r.effect, { treeChanged: { changed: true } });
  assert.match(await text(session.page, 'result'), /^Submitted: \{"name":"Ada"/);
});

test('modifiers are released even when delivering the key fails', async () => {
  const sent: { type: string; key: string }[] = [];
  const fake = {
    send: async (method: string, p: { type: string; key: string }) => {
      assert.equal(method, 'Input.dispatchKeyEvent');
      sent.push({ type: p.type, key: p.key });
      if (p.key === 'x' && p.type !== 'keyUp') throw new Error('delivery failed');
      return {};
    },
  } as unknown as Page;
  await assert.rejects(pressKey(fake, 'x', ['control', 'alt']), /delivery failed/);
  const ups = sent.filter((s) => s.type === 'keyUp' && s.key !== 'x').map((s) => s.key);
  assert.deepEqual(ups, ['Alt', 'Control']);
});

test('unknown keys and browser shortcuts are refused before anything is pressed', async () => {
  const { host } = await demo('/form.html');
  const r = failed(await runStep(host, 'press_key', { key: 'Hyper' }));
  assert.equal(r.error.code, 'unknown_key');
  const w = failed(await runStep(host, 'press_key', { key: 'Control+w' }));
  assert.equal(w.error.code, 'browser_shortcut');
});

test('drag moves a pointer-driven element through intermediate moves', async () => {
  const { host, session } = await fixture('actions-drag.html');
  const before = await session.page.evaluate<number>('document.getElementById("knob").getBoundingClientRect().left');
  const r = await run(host, 'drag', { target: { role: 'button', name: 'Knob' }, dx: 150, dy: 20 });
  assert.deepEqual(r.effect, { treeChanged: { changed: true } });
  const after = await session.page.evaluate<number>('document.getElementById("knob").getBoundingClientRect().left');
  assert.ok(Math.abs(after - before - 150) < 1, `${before} → ${after}`);
  assert.equal(await text(session.page, 'moves'), 'moves: 10');
});

test('drag onto another element performs HTML5 drag and drop', async () => {
  const { host, session } = await fixture('actions-drag.html');
  const r = await run(host, 'drag', { target: { role: 'listitem', name: 'Card' }, toTarget: { role: 'region', name: 'Drop zone' } });
  assert.equal(r.data!.html5, true);
  assert.equal(await text(session.page, 'dropped'), 'dropped card-1');
});

test('snapshot: diff on an action embeds the changed lines', async () => {
  const { host } = await demo('/list.html');
  await run(host, 'snap', {});
  const r = await run(host, 'tap', { target: { role: 'button', name: 'Add item' }, snapshot: 'diff' });
  const snap = String(r.data!.snapshot);
  assert.match(snap, /^-  - status: 2000 items$/m);
  assert.match(snap, /^\+  - status: 2001 items$/m);
  assert.match(snap, /\(\d+ of \d+ lines changed\)$/);
});

test('a tap whose page asks for an animation frame waits for it: what the frame writes is in the effect', async () => {
  const { host } = await fixture('actions-frames.html');
  await run(host, 'snap', {});
  // The click changes the DOM at once and again in a frame it asked for: the read-back waits for that frame.
  const both = String((await run(host, 'tap', { target: { role: 'button', name: 'Sync then frame' }, snapshot: 'diff' })).data!.snapshot);
  assert.match(both, /clicked/);
  assert.match(both, /rendered in a frame/);
  // Nothing changes at once: the settle waits for the frame and the one after it.
  const later = await run(host, 'tap', { target: { role: 'button', name: 'Two frames later' }, snapshot: 'diff' });
  assert.deepEqual(later.effect, { treeChanged: { changed: true } });
  assert.match(String(later.data!.snapshot), /two frames later/);
});

test('fill retries once on the new field when the old one is replaced before typing', async () => {
  const { host, session } = await fixture('actions-widgets.html');
  const r = await run(host, 'fill', { target: { label: 'Swapping field' }, text: 'kept' });
  assert.deepEqual(r.effect?.text, { verified: true, value: 'kept', expected: 'kept' });
  assert.equal(await session.page.evaluate('document.getElementById("swap").value'), 'kept');
});

test('a tap that navigates reports it instead of failing', async () => {
  const { host, session } = await demo('/index.html');
  const r = await run(host, 'tap', { target: { role: 'link', name: 'Form' } });
  assert.deepEqual(r.effect, { treeChanged: { changed: true } });
  assert.match(String(r.data!.navigated), /\/form\.html$/);
  assert.equal(await session.page.evaluate('location.pathname'), '/form.html', 'the step waited for the new page');
  assert.equal(await session.page.evaluate('document.body.dataset.ready'), 'true');
});

test('snapshot: full on an action embeds the whole page after it', async () => {
  const { host } = await demo('/form.html');
  const r = await run(host, 'set_checkbox', { target: { label: 'Subscribe to newsletter' }, value: true, snapshot: 'full' });
  assert.match(String(r.data!.snapshot), /^ {4}- checkbox "Subscribe to newsletter" \[checked\] \[focused\] \[ref=e\d+\]$/m);
  assert.match(String(r.data!.snapshot), /^- banner:/);
});

test('a settle whose input has not arrived answers pending and keeps observing; asked again once the input is in, it reads the change', async () => {
  const { host, session } = await demo('/list.html');
  const snap = String(ok(await runStep(host, 'snap', { interactiveOnly: true })).data!.snapshot);
  const ref = /(e\d+) button Add item/.exec(snap)?.[1];
  assert.ok(ref, snap.slice(0, 500));
  const page = session.driver;
  const g = await page.call('gate', [ref, { timeoutMs: 5000, begin: 'none', settleOnInput: true }], {
    awaitPromise: true,
    timeoutMs: 10_000,
  });
  assert.equal(g.status, 'ok');
  if (g.status !== 'ok') return;
  // The input is late (here: not sent yet). Asked to wait 1 ms, the settle says so instead of reading the page as it was.
  const early = await page.call('settle', [1, undefined, true], { awaitPromise: true, timeoutMs: 5000 });
  assert.deepEqual([early.pending, early.mutations], [true, 0]);
  await page.input.click(g.x, g.y);
  const settled = await page.call('settle', [500], { awaitPromise: true, timeoutMs: 5000 });
  assert.equal(settled.pending, undefined);
  assert.ok(settled.mutations > 0, JSON.stringify(settled));
  assert.equal(await text(session.page, 'count'), '2001 items');
});
