/**
 * The snapshot: format, refs, states, filters, diff and bounds, against the demo app.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SessionHost } from '../src/engine/host.js';
import { runStep, type StepResult } from '../src/engine/run-step.js';
import { fresh, sharedBrowser } from './helpers.js';

type Ok = Extract<StepResult, { status: 'ok' }>;
interface SnapData {
  snapshot: string;
  url: string;
  lines: number;
  bytes: number;
  truncated: boolean;
  grepLiteral?: boolean;
  diff?: { added: number; removed: number; total: number; baseline: boolean };
}
function ok(r: StepResult): Ok {
  if (r.status !== 'ok') assert.fail(`${r.step} failed: ${JSON.stringify('error' in r ? r.error : r)}`);
  return r;
}
async function demo(path: string) {
  const { demo } = await sharedBrowser();
  return fresh(`${demo.url}${path}`);
}
async function snap(host: SessionHost, args: Record<string, unknown> = {}): Promise<SnapData> {
  return ok(await runStep(host, 'snap', args)).data as unknown as SnapData;
}
const lines = (s: string): string[] => s.split('\n');

test('snap lists roles, names, states, values and refs of the form', async () => {
  const { host } = await demo('/form.html');
  await runStep(host, 'fill', { target: { label: 'Name' }, text: 'Ada' });
  const s = (await snap(host)).snapshot;
  const expected = [
    /^ {4}- textbox "Name" \[required\] \[focused\] \[ref=e\d+\] typeable: true value: "Ada"$/m,
    /^ {4}- spinbutton "Age" \[ref=e\d+\] typeable: true$/m,
    /^ {4}- checkbox "Subscribe to newsletter" \[ref=e\d+\]$/m,
    /^ {4}- switch "Dark mode" \[ref=e\d+\]$/m,
    /^ {4}- combobox "Country" \[ref=e\d+\] value: "Choose a country":$/m,
    /^ {6}- option "France"$/m,
    /^ {4}- radiogroup "Plan" \[ref=e\d+\]:$/m,
    /^ {6}- radio "Free" \[checked\] \[ref=e\d+\]$/m,
    /^ {4}- button "Delete account" \[disabled\]/m,
    /^ {2}- form "Profile" \[ref=e\d+\]:$/m,
    /^ {4}- heading "Profile" \[level=2\]$/m,
  ];
  for (const re of expected) assert.match(s, re);
  assert.doesNotMatch(s, /- text: Name$/m, 'a label is printed once, as the name of its control');
  const refs = [...s.matchAll(/\[ref=(e\d+)\]/g)].map((m) => m[1]);
  assert.equal(new Set(refs).size, refs.length, 'every ref is unique');
});

test('refs are stable across snapshots of the same page', async () => {
  const { host } = await demo('/form.html');
  const a = (await snap(host)).snapshot;
  const b = (await snap(host)).snapshot;
  assert.equal(a, b);
});

test('the 2,000-row list is summarised: rows in view plus one line for the offscreen rest', async () => {
  const { host } = await demo('/list.html');
  const s = await snap(host);
  const rows = lines(s.snapshot).filter((l) => l.trim().startsWith('- listitem: Item'));
  assert.ok(rows.length >= 5 && rows.length <= 30, `${rows.length} rows in view`);
  assert.match(rows[0]!, /^ {4}- listitem: Item 1 #0001 · beta · updated 8 min ago 40 KB$/);
  const more = 2000 - rows.length;
  assert.match(
    s.snapshot,
    new RegExp(`^ {4}- … ${more} more listitems offscreen \\("Item ${rows.length + 1}" … "Item 2000"\\); scroll or grep to see them$`, 'm'),
  );
  assert.equal(s.truncated, false);
  assert.ok(s.bytes < 2500, `${s.bytes} bytes`);
});

test('interactiveOnly keeps only what can be acted on, with its containers, one line each: ref, role, name, states', async () => {
  const { host } = await demo('/list.html');
  const s = await snap(host, { interactiveOnly: true });
  assert.match(s.snapshot, /^ e\d+ button Add item$/m);
  assert.match(s.snapshot, /^ {2}e\d+ textbox Filter$/m);
  assert.doesNotMatch(s.snapshot, /listitem|heading|status/);
  assert.ok(s.bytes < 200, `${s.bytes} bytes`);
  const { host: formHost } = await demo('/form.html');
  const f = (await snap(formHost, { interactiveOnly: true })).snapshot;
  assert.match(f, /^ {2}e\d+ textbox Name \[required\]$/m);
  assert.match(f, /^ {2}e\d+ combobox Country = Choose a country$/m);
  assert.match(f, /^ {3}e\d+ radio Free \[checked\]$/m);
  assert.match(f, /^ {2}e\d+ button Delete account \[disabled\]$/m, 'offscreen is left out: an action scrolls its target into view');
});

test('states: [focused] and [occluded] under a modal, [offscreen] once per offscreen subtree', async () => {
  const { host } = await demo('/dialog.html');
  await runStep(host, 'tap', { target: { role: 'button', name: 'Open custom modal' } });
  const s = (await snap(host)).snapshot;
  assert.match(s, /- button "Open dialog" \[occluded\] \[ref=e\d+\]/);
  assert.match(s, /- dialog "Custom modal" \[ref=e\d+\]:/);
  assert.match(s, /- button "Close" \[focused\] \[ref=e\d+\]/);
  const { host: formHost } = await demo('/form.html');
  await runStep(formHost, 'resize_viewport', { width: 800, height: 400 });
  const f = (await snap(formHost)).snapshot;
  assert.match(f, /- listbox "Color" \[offscreen\] \[ref=e\d+\]:/);
  assert.match(f, /^ {6}- option "Red" \[ref=e\d+\]$/m, 'content of an offscreen container is not marked again');
});

test('grep keeps matches with their ancestors; an invalid regex is matched literally', async () => {
  const { host } = await demo('/list.html');
  const s = await snap(host, { grep: '^Item 199\\d' });
  const out = lines(s.snapshot);
  assert.equal(out[0], '- main:');
  assert.match(out[1]!, /^ {2}- list "Items" \[scrollable\] \[ref=e\d+\]:$/);
  assert.deepEqual(
    out.slice(2).map((l) => /^ {4}- listitem \[offscreen\]: (Item \d+) #/.exec(l)?.[1]),
    ['Item 1990', 'Item 1991', 'Item 1992', 'Item 1993', 'Item 1994', 'Item 1995', 'Item 1996', 'Item 1997', 'Item 1998', 'Item 1999'],
  );
  assert.equal(s.grepLiteral, undefined);
  const lit = await snap(host, { grep: 'Item 19(' });
  assert.equal(lit.grepLiteral, true);
  assert.equal(lit.snapshot, '(nothing matches grep "Item 19(", taken literally: it is not a valid regex)');
  const paren = await snap(host, { grep: '(' });
  assert.equal(paren.grepLiteral, true);
});

test('depth and within narrow the tree', async () => {
  const { host } = await demo('/form.html');
  const top = await snap(host, { depth: 0 });
  assert.deepEqual(
    lines(top.snapshot).map((l) => l.replace(/\(\+\d+ below\)/, '(+N below)')),
    ['- banner (+N below)', '- main (+N below)', '- status "Notifications"'],
  );
  const full = (await snap(host)).snapshot;
  const group = /radiogroup "Plan" \[ref=(e\d+)\]/.exec(full)![1]!;
  const within = await snap(host, { within: group });
  assert.deepEqual(
    lines(within.snapshot).map((l) => l.replace(/ \[ref=e\d+\]/, '')),
    ['- radiogroup "Plan":', '  - radio "Free" [checked]', '  - radio "Pro"', '  - radio "Team"'],
  );
});

test('the snapshot is bounded, with a final line saying what was left out and how to narrow', async () => {
  const { host } = await demo('/list.html');
  const s = await snap(host, { maxBytes: 600 });
  assert.equal(s.truncated, true);
  assert.ok(s.bytes <= 600, `${s.bytes} bytes`);
  const last = lines(s.snapshot).at(-1)!;
  assert.match(last, /^… truncated: \d+ more lines \(\d+ nodes\) not shown; narrow with within\/depth\/grep\/interactiveOnly$/);
  const shown = lines(s.snapshot).length - 1;
  const m = /truncated: (\d+) more lines \((\d+) nodes\)/.exec(last)!;
  assert.equal(shown + Number(m[1]), s.lines);
  assert.ok(Number(m[2]) > 1900, 'the summarised rows count as nodes left out');
  const grep = await snap(host, { grep: 'Item', maxBytes: 16_384 });
  assert.equal(grep.truncated, true, 'grep over 2,000 rows hits the default cap');
  assert.ok(grep.bytes <= 16_384);
});

test('diff shows only the changed lines as -/+ with a footer', async () => {
  const { host } = await demo('/list.html');
  const base = await snap(host, { diff: true });
  assert.equal(base.diff?.baseline, true);
  assert.match(lines(base.snapshot)[0]!, /^\(no earlier snapshot of this page: its interactive elements/);
  // What the caller reads first is the interactive view, not the whole page (which stays the baseline).
  const interactive = await snap(host, { interactiveOnly: true });
  assert.equal(lines(base.snapshot).slice(1).join('\n'), interactive.snapshot);
  assert.ok(base.bytes < (await snap(host)).bytes / 2, `${base.bytes} B`);
  await runStep(host, 'tap', { target: { role: 'button', name: 'Add item' } });
  const d = await snap(host, { diff: true });
  const out = lines(d.snapshot);
  assert.ok(out.includes('-  - status: 2000 items'), d.snapshot);
  assert.ok(out.includes('+  - status: 2001 items'), d.snapshot);
  assert.ok(out.includes('@@ in main'), d.snapshot);
  assert.match(out.at(-1)!, new RegExp(`^\\(${d.diff!.added + d.diff!.removed} of ${d.diff!.total} lines changed\\)$`));
  assert.ok(
    out.every((l) => /^[-+@(]/.test(l)),
    'only changed lines, hunk headers and the footer',
  );
  const none = await snap(host, { diff: true });
  assert.equal(none.snapshot, `(0 of ${d.diff!.total} lines changed)`);
});

test('open shadow roots and same-origin iframes are in the snapshot', async () => {
  const { host } = await demo('/frames.html');
  const s = (await snap(host)).snapshot;
  assert.match(s, /^ {4}- button "Shadow button" \[ref=e\d+\]$/m);
  assert.match(s, /^ {4}- status: Shadow clicks: 0$/m);
  assert.match(s, /^ {4}- iframe "Child frame" \[ref=e\d+\]:$/m);
  assert.match(s, /^ {8}- textbox "Inside frame" \[ref=e\d+\] typeable: true$/m);
  const ref = /textbox "Inside frame" \[ref=(e\d+)\]/.exec(s)![1]!;
  const r = ok(await runStep(host, 'fill', { ref, text: 'via ref' }));
  assert.deepEqual(r.effect?.text, { verified: true, value: 'via ref', expected: 'via ref' });
});

test('hidden content is left out (display:none rows, visibility:hidden, closed dialogs)', async () => {
  const { host } = await demo('/dialog.html');
  const s = (await snap(host)).snapshot;
  assert.doesNotMatch(s, /Hidden button/);
  assert.doesNotMatch(s, /Confirm|Custom modal/);
  const { host: listHost } = await demo('/list.html');
  await runStep(listHost, 'fill', { target: { label: 'Filter' }, text: 'Item 1999' });
  const l = (await snap(listHost)).snapshot;
  assert.match(l, /^ {2}- status: 1 item$/m);
  const rows = lines(l).filter((x) => x.includes('- listitem'));
  assert.equal(rows.length, 1);
  assert.match(rows[0]!, /^ {4}- listitem: Item 1999 #1999 · epsilon · /);
});
