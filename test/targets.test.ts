/**
 * Target resolution, refs and the actionability gate, against the demo app and fixtures.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Browser } from '../src/drivers/cdp/browser.js';
import { cdpPageDriver } from '../src/drivers/cdp/page-driver.js';
import { SessionHost } from '../src/engine/host.js';
import { runStep } from '../src/engine/run-step.js';
import { elementBox, resolveTarget } from '../src/page/index.js';
import type { StepContext } from '../src/steps/define.js';
import { fresh, onPortBrowser, sharedBrowser } from './helpers.js';
import { demo, failed, fixture, ok } from './step-helpers.js';

/** The ref a snapshot line gives an element, e.g. refOf(text, 'button "Save"'). */
function refOf(snapshot: string, prefix: string): string {
  const line = snapshot.split('\n').find((l) => l.trim().startsWith(`- ${prefix}`));
  const m = line && /\[ref=(e\d+)\]/.exec(line);
  if (!m) assert.fail(`no ref for ${prefix} in:\n${snapshot}`);
  return m[1]!;
}
async function snapText(host: SessionHost, args: Record<string, unknown> = {}): Promise<string> {
  return (ok(await runStep(host, 'snap', args)).data as { snapshot: string }).snapshot;
}
function ctxFor(host: SessionHost, page: Awaited<ReturnType<SessionHost['page']>>, timeoutMs = 2000): StepContext {
  return { host, page, timeoutMs, deadline: Date.now() + timeoutMs, label: 'test', signal: new AbortController().signal };
}

test('an ambiguous target fails and lists the candidates with refs', async () => {
  const { host } = await demo('/routes.html');
  const r = failed(await runStep(host, 'tap', { target: { text: 'Home' } }));
  assert.equal(r.error.code, 'ambiguous_target');
  assert.equal(r.error.kind, 'usage');
  assert.match(r.error.message, /matches 2 elements/);
  assert.deepEqual(
    r.error.candidates?.map((c) => c.replace(/ \[ref=e\d+\]$/, '')),
    ['link "Home"', 'heading "Home"'],
  );
  assert.ok(r.error.candidates!.every((c) => /\[ref=e\d+\]$/.test(c)));
});

test('role + name picks one of the twins; nth picks by position', async () => {
  const { host, session } = await demo('/routes.html');
  const r = ok(await runStep(host, 'tap', { target: { role: 'link', name: 'Products' } }));
  assert.match(String(r.data!.element), /^link "Products"/);
  const h1 = await session.page.evaluate<string>(`new Promise((r) => setTimeout(() => r(document.querySelector('h1').textContent), 50))`);
  assert.equal(h1, 'Products');
  const nth = ok(await runStep(host, 'find', { role: 'link', nth: 1 }));
  assert.equal((nth.data as { matches: { name: string }[] }).matches.length, 1);
});

test('a missing target waits until the deadline, then suggests near names', async () => {
  const { host } = await demo('/list.html');
  const t0 = Date.now();
  const r = failed(await runStep(host, 'tap', { target: { text: 'Add itm' }, timeoutMs: 1000 }));
  assert.ok(Date.now() - t0 >= 800, 'waited for the element to appear');
  assert.equal(r.error.code, 'target_not_found');
  assert.deepEqual(r.error.candidates, ['button "Add item"']);
});

test('a target that appears later is found while waiting', async () => {
  const { host, session } = await demo('/list.html');
  await session.page.evaluate(
    `setTimeout(() => { const b = document.createElement('button'); b.textContent = 'Late button'; b.onclick = () => b.textContent = 'Late clicked'; document.querySelector('main').prepend(b); }, 150)`,
  );
  ok(await runStep(host, 'tap', { target: { text: 'Late button' }, timeoutMs: 2000 }));
  assert.equal(await session.page.evaluate('document.querySelector("main > button").textContent'), 'Late clicked');
});

test('a stale ref is relocated when one element has its role and name', async () => {
  const { host, session } = await fixture('actions-rerender.html');
  const save = refOf(await snapText(host), 'button "Save"');
  await session.page.evaluate('rerender(false)');
  const r = ok(await runStep(host, 'tap', { ref: save }));
  assert.deepEqual(r.reresolved, [save]);
  assert.equal(await session.page.evaluate('document.getElementById("out").textContent'), 'Saved 1 time(s)');
});

test('a stale ref is refused when several elements now match', async () => {
  const { host, session } = await fixture('actions-rerender.html');
  const save = refOf(await snapText(host), 'button "Save"');
  await session.page.evaluate('rerender(true)');
  const r = failed(await runStep(host, 'tap', { ref: save }));
  assert.equal(r.error.code, 'stale_ref');
  assert.match(r.error.message, /2 elements now match/);
  assert.match(r.error.suggestion ?? '', /snap again/);
  assert.equal(await session.page.evaluate('document.getElementById("out").textContent'), 'No saves yet.');
});

test('after a reload, an old ref is relocated from what the host remembers', async () => {
  const { host, session } = await demo('/list.html');
  const add = refOf(await snapText(host), 'button "Add item"');
  await session.page.navigate(await session.page.evaluate<string>('location.href'));
  const r = ok(await runStep(host, 'tap', { ref: add }));
  assert.deepEqual(r.reresolved, [add]);
  assert.equal(await session.page.evaluate('document.getElementById("count").textContent'), '2001 items');
});

test('refs minted through one connection work from a second connection to the same page', async () => {
  const { demo: app } = await sharedBrowser();
  await onPortBrowser(app.url, async (host, session) => {
    await session.page.navigate(`${app.url}/list.html`);
    const add = refOf(await snapText(host), 'button "Add item"');
    const second = await Browser.connect(session.browser.wsEndpoint!);
    try {
      const page = await second.attach(session.page.targetId);
      const host2 = new SessionHost({ driver: cdpPageDriver(page) }, undefined);
      const r = ok(await runStep(host2, 'tap', { ref: add }));
      assert.equal(r.reresolved, undefined);
      assert.deepEqual(r.effect?.treeChanged, { changed: true });
      assert.equal(await page.evaluate('document.getElementById("count").textContent'), '2001 items');
    } finally {
      await second.disconnect();
    }
  });
});

test('q handles from find re-resolve on every use (they survive a re-render)', async () => {
  const { host, session } = await fixture('actions-rerender.html');
  const f = ok(await runStep(host, 'find', { role: 'button', name: 'Save' }));
  const m = f.data as { count: number; matches: { ref: string; role: string }[] };
  assert.equal(m.count, 1);
  assert.match(m.matches[0]!.ref, /^q\d+$/);
  await session.page.evaluate('rerender(false)');
  const r = ok(await runStep(host, 'tap', { ref: m.matches[0]!.ref }));
  assert.equal(r.reresolved, undefined, 'a query handle is not a relocation');
  assert.equal(await session.page.evaluate('document.getElementById("out").textContent'), 'Saved 1 time(s)');
});

test('find counts matches, observe lists interactive candidates with q refs', async () => {
  const { host } = await demo('/list.html');
  const f = ok(await runStep(host, 'find', { contains: 'item 19', limit: 3 }));
  const fd = f.data as { count: number; matches: { ref: string; name: string; text: string }[] };
  assert.equal(fd.count, 111);
  assert.deepEqual(
    fd.matches.map((m) => m.text),
    ['Item 19', 'Item 190', 'Item 191'],
  );
  const o = ok(await runStep(host, 'observe', {}));
  const od = o.data as {
    total: number;
    elements: {
      ref: string;
      role: string;
      label: string;
      isEnabled: boolean;
      inViewport: boolean;
      occluded: boolean;
      bounds: { width: number };
    }[];
  };
  const add = od.elements.find((e) => e.label === 'Add item');
  assert.ok(add, JSON.stringify(od));
  assert.equal(add.role, 'button');
  assert.match(add.ref, /^q\d+$/);
  assert.equal(add.isEnabled, true);
  assert.equal(add.inViewport, true);
  assert.equal(add.occluded, false);
  assert.ok(add.bounds.width > 20);
  ok(await runStep(host, 'tap', { ref: add.ref }));
  ok(await runStep(host, 'expect', { target: { role: 'status' }, text: '2001 items' }));
});

test('actionability: a click under the custom modal fails the receives-events check', async () => {
  const { host, session } = await demo('/dialog.html');
  ok(await runStep(host, 'tap', { target: { role: 'button', name: 'Open custom modal' } }));
  const r = failed(await runStep(host, 'tap', { target: { role: 'button', name: 'Show toast' }, timeoutMs: 600 }));
  assert.equal(r.error.code, 'not_actionable');
  assert.match(
    r.error.message,
    /^ref=e\d+ is not actionable: receives events: div#custom-backdrop\.backdrop \(in dialog "Custom modal"\) would receive the click at \(\d+, \d+\) instead$/,
  );
  assert.equal(await session.page.evaluate('document.querySelectorAll(".toast").length'), 0, 'nothing was clicked');
});

test('actionability: disabled, zero size and hidden each name their check', async () => {
  const { host: formHost } = await demo('/form.html');
  const dis = failed(await runStep(formHost, 'tap', { target: { role: 'button', name: 'Delete account' }, timeoutMs: 600 }));
  assert.match(dis.error.message, /is not actionable: enabled: element is disabled$/);
  const { host } = await demo('/dialog.html');
  const zero = failed(await runStep(host, 'tap', { target: { text: 'Zero size' }, timeoutMs: 600 }));
  assert.match(zero.error.message, /is not actionable: visible: element has an empty box \(0×0\)$/);
  const hidden = failed(await runStep(host, 'tap', { target: { testId: 'hidden-button' }, timeoutMs: 600 }));
  assert.match(hidden.error.message, /is not actionable: visible: element has visibility:hidden$/);
});

test('actionability: a moving target fails stable; checkStable false clicks it at its live centre', async () => {
  const { host, session } = await demo('/dialog.html');
  const r = failed(await runStep(host, 'tap', { target: { role: 'button', name: 'Moving target' }, timeoutMs: 600 }));
  assert.match(
    r.error.message,
    /is not actionable: stable: element is moving: its box changed from \(.+\) to \(.+\) between two animation frames$/,
  );
  assert.equal(await session.page.evaluate('document.getElementById("click-log").textContent'), 'No clicks yet.');
  ok(await runStep(host, 'tap', { target: { role: 'button', name: 'Moving target' }, checkStable: false }));
  assert.equal(await session.page.evaluate('document.getElementById("click-log").textContent'), 'Clicked: Moving target (1 total)');
});

test('actionability: fill refuses a non-text control naming its role', async () => {
  const { host } = await demo('/form.html');
  const r = failed(await runStep(host, 'fill', { target: { label: 'Subscribe to newsletter' }, text: 'x', timeoutMs: 600 }));
  assert.match(r.error.message, /is not actionable: editable: element is a checkbox, not a text field$/);
});

test('resolveTarget finds an element in a shadow root; elementBox matches the page layout (frames included)', async () => {
  const { host, session } = await demo('/frames.html');
  const page = await host.page();
  const { r: el } = await resolveTarget(ctxFor(host, page), { target: { role: 'button', name: 'Shadow button' } });
  assert.equal(el.role, 'button');
  assert.equal(el.name, 'Shadow button');
  // The ref denotes the button inside the shadow root: its box is that button's box.
  const box = await page.call('box', [el.ref, false]);
  const want = await page.evaluate<{ x: number; y: number }>(
    `(() => { const r = document.querySelector('shadow-panel').shadowRoot.getElementById('shadow-button').getBoundingClientRect(); return { x: r.x, y: r.y }; })()`,
  );
  assert.ok(box.status === 'ok');
  assert.deepEqual({ x: Math.round(box.rect.x), y: Math.round(box.rect.y) }, { x: Math.round(want.x), y: Math.round(want.y) });
  const inFrame = await elementBox(ctxFor(host, page), { target: { label: 'Inside frame' } });
  const expected = await session.page.evaluate<{ x: number; y: number; width: number; height: number }>(`(() => {
    const f = document.getElementById('child-frame'); const fr = f.getBoundingClientRect(); const cs = getComputedStyle(f);
    const r = f.contentDocument.getElementById('inside-frame').getBoundingClientRect();
    return { x: fr.left + f.clientLeft + parseFloat(cs.paddingLeft) + r.left, y: fr.top + f.clientTop + parseFloat(cs.paddingTop) + r.top, width: r.width, height: r.height };
  })()`);
  for (const k of ['x', 'y', 'width', 'height'] as const)
    assert.ok(Math.abs(inFrame[k] - expected[k]) < 0.5, `${k}: ${inFrame[k]} vs ${expected[k]}`);
});

test('elements in an open shadow root and a same-origin iframe can be acted on', async () => {
  const { host, session } = await demo('/frames.html');
  const tap = ok(await runStep(host, 'tap', { target: { role: 'button', name: 'Shadow button' } }));
  assert.deepEqual(tap.effect?.treeChanged, { changed: true });
  assert.equal(
    await session.page.evaluate(`document.getElementById('shadow-host').shadowRoot.getElementById('shadow-output').textContent`),
    'Shadow clicks: 1',
  );
  const fill = ok(await runStep(host, 'type', { target: { label: 'Inside frame' }, text: 'hello' }));
  assert.deepEqual(fill.effect?.text, { verified: true, value: 'hello', expected: 'hello' });
  assert.equal(
    await session.page.evaluate(`document.getElementById('child-frame').contentDocument.getElementById('frame-echo').textContent`),
    'You typed: hello',
  );
});

test('exactly one of ref / target is required', async () => {
  const { host } = await demo('/list.html');
  const none = failed(await runStep(host, 'tap', {}));
  assert.equal(none.error.code, 'invalid_arguments');
  assert.match(none.error.message, /missing the element/);
  const both = failed(await runStep(host, 'tap', { ref: 'e1', target: { text: 'x' } }));
  assert.match(both.error.message, /either ref or target, not both/);
  const unknown = failed(await runStep(host, 'tap', { ref: 'e999' }));
  assert.equal(unknown.error.code, 'stale_ref');
});

test('a hidden background page is brought to front before acting, with a warning', async () => {
  const { demo } = await sharedBrowser();
  const { session } = await fresh(`${demo.url}/dialog.html`);
  const { targetId } = await session.browser.conn.send('Target.createTarget', {
    url: `${demo.url}/list.html`,
    background: true,
    browserContextId: session.page.browserContextId,
  });
  const page = await session.browser.attach(targetId);
  try {
    for (let i = 0; i < 100 && (await page.evaluate('document.body?.dataset.ready')) !== 'true'; i++)
      await new Promise((r) => setTimeout(r, 20));
    assert.equal(await page.evaluate('document.visibilityState'), 'hidden');
    const host = new SessionHost({ driver: cdpPageDriver(page) }, demo.url);
    const r = ok(await runStep(host, 'tap', { target: { role: 'button', name: 'Add item' } }));
    assert.deepEqual(r.effect?.treeChanged, { changed: true });
    assert.match(r.warnings?.[0] ?? '', /hidden .* brought to front/);
    assert.equal(await page.evaluate('document.visibilityState'), 'visible');
    assert.equal(await page.evaluate('document.getElementById("count").textContent'), '2001 items');
  } finally {
    await page.close();
  }
});
