/**
 * The terminal driver core (src/drivers/pty) against real programs in a pseudo-terminal: vim, less,
 * dialog, a Node readline prompt, bash. Every test waits on what the screen shows, never on a
 * sleep, and reads its result back (the file on disk, the chosen tag, the screen, /proc).
 * Pure parts (key and mouse encoding, frames, the snapshot renderer) are tested on plain data.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test, type TestContext } from 'node:test';
import { isPerfError } from '../src/errors.js';
import { encodeKey, encodeMouse, encodePaste } from '../src/drivers/pty/keys.js';
import { OutputMeter } from '../src/drivers/pty/meter.js';
import { readProcStat } from '../src/proc-stat.js';
import type { CellStyle, Screen } from '../src/drivers/pty/screen.js';
import { diffScreens, findRefs, renderSnapshot, resolveTarget } from '../src/drivers/pty/snapshot.js';
import { PtyTerminal, type PtySpawnOptions } from '../src/drivers/pty/terminal.js';

const TMP = mkdtempSync(path.join(tmpdir(), 'rehearse-pty-'));
after(() => rmSync(TMP, { recursive: true, force: true }));

function missing(cmd: string): string | false {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { timeout: 120_000 }).status === 0
    ? false
    : `${cmd} is not installed (apt-get install ${cmd})`;
}

/** A terminal closed when the test ends, whatever happens. */
function open(t: TestContext, opts: PtySpawnOptions): PtyTerminal {
  const term = PtyTerminal.spawn(opts);
  t.after(() => term.close());
  return term;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** Poll a condition that shows on no screen (the process table) until it holds, for at most 5 s. */
async function until(cond: () => boolean, state: () => string = () => ''): Promise<void> {
  const deadline = performance.now() + 5000;
  while (!cond()) {
    assert.ok(performance.now() < deadline, `not met within 5 s: ${cond.toString()} ${state()}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

function gone(pid: number, startTicks: number): boolean {
  const e = readProcStat(pid);
  return !e || e.startTicks !== startTicks || e.state === 'Z';
}

// ---- pure: encoders ----

test('cursor keys follow DECCKM: CSI normally, SS3 in application mode, CSI 1;m with a modifier', () => {
  assert.equal(encodeKey('ArrowUp', [], { applicationCursorKeys: false }), '\x1b[A');
  assert.equal(encodeKey('ArrowUp', [], { applicationCursorKeys: true }), '\x1bOA');
  assert.equal(encodeKey('Home', [], { applicationCursorKeys: true }), '\x1bOH');
  assert.equal(encodeKey('End', [], { applicationCursorKeys: false }), '\x1b[F');
  assert.equal(encodeKey('ArrowRight', ['control'], { applicationCursorKeys: true }), '\x1b[1;5C');
  assert.equal(encodeKey('Shift+ArrowLeft', undefined, { applicationCursorKeys: false }), '\x1b[1;2D');
});

test('named keys, Control letters, Alt and Shift+Tab encode as xterm sends them', () => {
  const n = { applicationCursorKeys: false };
  const cases: [string, string][] = [
    ['Enter', '\r'],
    ['Tab', '\t'],
    ['Shift+Tab', '\x1b[Z'],
    ['Escape', '\x1b'],
    ['Backspace', '\x7f'],
    ['Control+Backspace', '\x08'],
    ['Delete', '\x1b[3~'],
    ['PageUp', '\x1b[5~'],
    ['PageDown', '\x1b[6~'],
    ['F1', '\x1bOP'],
    ['F4', '\x1bOS'],
    ['F5', '\x1b[15~'],
    ['F12', '\x1b[24~'],
    ['Control+F5', '\x1b[15;5~'],
    ['Control+c', '\x03'],
    ['Control+Shift+A', '\x01'],
    ['Control+[', '\x1b'],
    ['Control+Space', '\x00'],
    ['Alt+x', '\x1bx'],
    ['Alt+Enter', '\x1b\r'],
    ['Shift+a', 'A'],
    ['esc', '\x1b'],
  ];
  for (const [key, bytes] of cases) assert.equal(encodeKey(key, undefined, n), bytes, key);
  assert.throws(
    () => encodeKey('Shift', [], n),
    (e) => isPerfError(e) && e.code === 'key_not_in_terminal',
  );
  assert.throws(
    () => encodeKey('Hyper', [], n),
    (e) => isPerfError(e) && e.code === 'unknown_key',
  );
});

test('a paste is bracketed only when the program asked, and cannot close the bracket early', () => {
  assert.equal(encodePaste('a\nb', false), 'a\rb');
  assert.equal(encodePaste('a\nb', true), '\x1b[200~a\rb\x1b[201~');
  assert.equal(encodePaste('x\x1b[201~rm -rf /\n', true), '\x1b[200~xrm -rf /\r\x1b[201~');
});

test('mouse reports: SGR decimal with press/release letters, X10 bytes with release as button 3', () => {
  const sgr = { mouseTracking: 'vt200', mouseEncoding: 'sgr' } as const;
  assert.equal(encodeMouse({ action: 'press', row: 4, col: 9 }, sgr)!.toString(), '\x1b[<0;10;5M');
  assert.equal(encodeMouse({ action: 'release', row: 4, col: 9, button: 'right' }, sgr)!.toString(), '\x1b[<2;10;5m');
  assert.equal(encodeMouse({ action: 'wheelDown', row: 0, col: 0, modifiers: ['control'] }, sgr)!.toString(), '\x1b[<81;1;1M');
  const x10 = { mouseTracking: 'vt200', mouseEncoding: 'default' } as const;
  assert.deepEqual([...encodeMouse({ action: 'press', row: 0, col: 0 }, x10)!], [0x1b, 0x5b, 0x4d, 32, 33, 33]);
  assert.deepEqual([...encodeMouse({ action: 'release', row: 0, col: 99 }, x10)!], [0x1b, 0x5b, 0x4d, 35, 132, 33]);
  // X10 mode proper reports presses only; motion needs 1003.
  assert.equal(encodeMouse({ action: 'release', row: 0, col: 0 }, { mouseTracking: 'x10', mouseEncoding: 'default' }), undefined);
  assert.equal(encodeMouse({ action: 'move', row: 0, col: 0 }, sgr), undefined);
  assert.throws(
    () => encodeMouse({ action: 'press', row: 0, col: 0 }, { mouseTracking: 'none', mouseEncoding: 'default' }),
    (e) => isPerfError(e) && e.code === 'mouse_not_supported',
  );
});

test('frames: a burst of reads is one frame, a gap of 8 ms or more starts the next', () => {
  const m = new OutputMeter();
  for (const at of [100, 100.2, 100.5, 101, 130, 131, 200]) m.output(10, at);
  assert.deepEqual(m.counters(), { bytesOut: 70, frames: 3, bytesIn: 0 });
});

// ---- pure: snapshot renderer ----

const PLAIN: CellStyle = {
  fg: 'default',
  bg: 'default',
  bold: false,
  dim: false,
  italic: false,
  underline: false,
  inverse: false,
  invisible: false,
  strikethrough: false,
};

/** A screen of plain text; `inverse` marks [row, col, width] runs in reverse video. */
function plainScreen(
  lines: string[],
  opts: { cols?: number; inverse?: [number, number, number][]; cursor?: { row: number; col: number; visible: boolean } } = {},
): Screen {
  const cols = opts.cols ?? 40;
  const rows = lines.length;
  const runs = lines.map((l, r) => {
    const padded = l.padEnd(cols);
    const inv = (opts.inverse ?? []).filter(([ir]) => ir === r);
    const out = [];
    let c = 0;
    for (const [, ic, iw] of inv) {
      if (ic > c) out.push({ col: c, width: ic - c, text: padded.slice(c, ic), style: PLAIN });
      out.push({ col: ic, width: iw, text: padded.slice(ic, ic + iw), style: { ...PLAIN, inverse: true } });
      c = ic + iw;
    }
    if (c < cols) out.push({ col: c, width: cols - c, text: padded.slice(c), style: PLAIN });
    return out;
  });
  return {
    cols,
    rows,
    lines: lines.map((l) => l.replace(/ +$/, '')),
    runs,
    colOf: lines.map(() => null),
    cursor: opts.cursor ?? { row: 0, col: 0, visible: false },
    alternate: true,
    title: '',
  };
}

test('snapshot refs: bracketed buttons and a reverse-video run, not check boxes or tags', () => {
  const screen = plainScreen(['  [ Save ]   < Cancel >   [X] done', '  keep <b> as text', '  first', '  second choice', '  third'], {
    inverse: [[3, 1, 20]],
  });
  const refs = findRefs(screen);
  assert.deepEqual(
    refs.map((r) => [r.ref, r.kind, r.label, r.rect.row, r.rect.col, r.rect.width]),
    [
      ['t1', 'button', 'Save', 0, 2, 8],
      ['t2', 'button', 'Cancel', 0, 13, 10],
      ['t3', 'selection', 'second choice', 3, 2, 13],
    ],
  );
});

test('snapshot text: row numbers, refs after the row, blank rows folded, bounded with a truncation line', () => {
  const lines = ['hello', '', '', '', '  < OK >', ...Array.from({ length: 40 }, (_, i) => `line ${i}`)];
  const screen = plainScreen(lines);
  const snap = renderSnapshot(screen);
  assert.match(snap.text, /^terminal 40x45 · alternate screen/);
  assert.match(snap.text, /\n 1–3 \(blank\)\n/);
  assert.match(snap.text, /\n 4   < OK >   ← \[ref=t1\] button "OK"\n/);
  const small = renderSnapshot(screen, { maxBytes: 512 });
  assert.ok(small.bytes <= 512, `${small.bytes} bytes`);
  assert.equal(small.truncated, true);
  assert.match(small.text, /… truncated: \d+ more lines not shown; narrow with within or grep$/);
  const grep = renderSnapshot(screen, { grep: 'line 3\\d' });
  assert.equal(grep.text.split('\n').length, 2 + 10);
});

test('targets resolve strictly: several matches list them, none suggests the closest label', () => {
  const screen = plainScreen(['  < OK >    < OK >', '  Apple pie', '  < Cancel >']);
  const refs = findRefs(screen);
  assert.throws(
    () => resolveTarget(screen, refs, { text: 'OK' }),
    (e) =>
      isPerfError(e) && e.code === 'ambiguous_target' && e.candidates?.length === 2 && /t1 button "OK" \(row 0 col 2\)/.test(e.message),
  );
  const cancel = resolveTarget(screen, refs, { text: 'Cancel' });
  assert.deepEqual([cancel.ref?.ref, cancel.row, cancel.col], ['t3', 2, 6]);
  const pie = resolveTarget(screen, refs, { contains: 'PIE' });
  assert.deepEqual([pie.row, pie.col, pie.ref], [1, 9, undefined]);
  assert.throws(
    () => resolveTarget(screen, refs, { text: 'Cancl' }),
    (e) => isPerfError(e) && e.code === 'target_not_found' && e.candidates?.[0] === 'Cancel',
  );
  assert.throws(
    () => resolveTarget(screen, refs, { ref: 't9' }),
    (e) => isPerfError(e) && e.code === 'stale_ref',
  );
  assert.equal(resolveTarget(screen, refs, { row: 0, col: 4 }).ref?.ref, 't1');
});

test('diff of two screens lists only the changed rows and the cursor move', () => {
  const a = plainScreen(['one', 'two', 'three'], { cursor: { row: 0, col: 0, visible: false } });
  const b = plainScreen(['one', 'TWO', 'three', '[ OK ]'], { cursor: { row: 1, col: 3, visible: false } });
  const d = diffScreens(a, b);
  assert.deepEqual(d.changedRows, [1, 3]);
  assert.equal(
    d.text,
    'size 40x3 → 40x4\ncursor row 0 col 0 (hidden) → row 1 col 3 (hidden)\n2 of 4 rows changed\n-1 two\n+1 TWO\n+3 [ OK ]   ← [ref=t1] button "OK"',
  );
});

// ---- real programs ----

test('vim: i, text, Escape, :wq Enter writes the text to the file', { skip: missing('vim') }, async (t) => {
  const file = path.join(TMP, 'note.txt');
  const term = open(t, { command: 'vim', args: ['-u', 'NONE', '-i', 'NONE', '-N', '-n', file] });
  await term.waitFor({ text: 'note.txt" [New]' });
  term.write('i');
  await term.waitFor({ text: '-- INSERT --' });
  const timings = [];
  for (const ch of 'hello pty') timings.push(await term.timeAction(() => term.write(ch)));
  await term.waitFor({ predicate: (s) => s.lines[0] === 'hello pty' });
  term.pressKey('Escape');
  await term.waitFor({ textGone: '-- INSERT --' });
  await term.type(':wq\n');
  const exit = await term.exited;
  assert.deepEqual(exit, { code: 0, signal: undefined });
  assert.equal(readFileSync(file, 'utf8'), 'hello pty\n');
  const latencies = timings.map((x) => x.latencyMs!);
  assert.ok(
    latencies.every((l) => l > 0 && l < 1000),
    String(latencies),
  );
  t.diagnostic(
    `vim keystroke → settled: median ${median(latencies).toFixed(2)} ms, worst ${Math.max(...latencies).toFixed(2)} ms over ${latencies.length}`,
  );
});

test('vim turns on application cursor keys: ArrowDown is sent as SS3 B and moves the cursor', { skip: missing('vim') }, async (t) => {
  const file = path.join(TMP, 'three.txt');
  writeFileSync(file, 'one\ntwo\nthree\n');
  const term = open(t, { command: 'vim', args: ['-u', 'NONE', '-i', 'NONE', '-N', '-n', file] });
  await term.waitFor({ text: 'three.txt" 3L' });
  // vim may redraw once more after its start (answers to its terminal queries); mid-redraw the cursor passes
  // row 1 col 1, so the key goes in only once the screen is quiet, and the cursor is read once it is quiet again.
  await term.waitIdle();
  assert.equal(term.modes().applicationCursorKeys, true);
  const sent: string[] = [];
  term.onInput((d) => sent.push(d.toString()));
  term.pressKey('ArrowDown');
  await term.waitFor({ predicate: (s) => s.cursor.row === 1 });
  await term.waitIdle();
  const screen = term.screen();
  assert.deepEqual(sent, ['\x1bOB']);
  assert.equal(encodeKey('ArrowDown', [], { applicationCursorKeys: false }), '\x1b[B');
  assert.equal(screen.cursor.col, 0);
  assert.equal(screen.alternate, true);
});

test(
  'less: PageDown moves the first visible line of a 10,000-line file, and frames and bytesOut count it',
  { skip: missing('less') },
  async (t) => {
    const file = path.join(TMP, 'long.txt');
    writeFileSync(file, Array.from({ length: 10_000 }, (_, i) => `line ${String(i + 1).padStart(5, '0')}`).join('\n') + '\n');
    const term = open(t, { command: 'less', args: [file], env: { LESS: undefined, LESSHISTFILE: '-' } });
    await term.waitFor({ predicate: (s) => s.lines[0] === 'line 00001' });
    await term.waitIdle();
    const firstLine = () => Number(/line (\d+)/.exec(term.screen().lines[0]!)?.[1]);
    const before = term.counters();
    const cpuBefore = term.usage();
    const timings = [];
    for (let i = 0; i < 10; i++) timings.push(await term.timeAction(() => term.pressKey('PageDown')));
    const after = term.counters();
    // less pages by the screen height less its prompt line: 29 rows on a 30-row terminal.
    assert.equal(firstLine(), 1 + 10 * 29);
    assert.ok(after.frames - before.frames >= 10, `${after.frames - before.frames} frames`);
    assert.ok(after.bytesOut - before.bytesOut > 10 * 29 * 10, `${after.bytesOut - before.bytesOut} bytes`);
    assert.equal(after.bytesIn - before.bytesIn, 10 * 4);
    for (const x of timings) assert.ok(x.settled && x.frames >= 1 && x.latencyMs !== undefined);
    const usage = term.usage();
    assert.ok(usage.maxRssBytes > 1024 * 1024, `${usage.maxRssBytes} bytes`);
    assert.ok(usage.cpuMs >= cpuBefore.cpuMs);
    const latencies = timings.map((x) => x.latencyMs!);
    const snapMs: number[] = [];
    let snap = term.snapshot();
    for (let i = 0; i < 20; i++) {
      const start = performance.now();
      snap = term.snapshot();
      snapMs.push(performance.now() - start);
    }
    assert.match(snap.text, /\n 0 line 00291\n/);
    t.diagnostic(
      `less PageDown → settled: median ${median(latencies).toFixed(2)} ms, worst ${Math.max(...latencies).toFixed(2)} ms; ${((after.bytesOut - before.bytesOut) / 10).toFixed(0)} bytes/page; snapshot median ${median(snapMs).toFixed(2)} ms, ${snap.bytes} bytes; less RSS peak ${(usage.maxRssBytes / 1024).toFixed(0)} KiB`,
    );
  },
);

test('a program without mouse reporting refuses a click with a suggestion to use keys', async (t) => {
  const term = open(t, { command: 'cat' });
  await term.waitIdle();
  assert.equal(term.modes().mouseTracking, 'none');
  assert.throws(
    () => term.click(0, 0),
    (e) => isPerfError(e) && e.code === 'mouse_not_supported' && /press_key/.test(e.suggestion ?? ''),
  );
  assert.throws(
    () => term.scroll(0, 0, 3),
    (e) => isPerfError(e) && e.code === 'mouse_not_supported' && /PageDown/.test(e.suggestion ?? ''),
  );
});

test('less --mouse: the wheel over the text scrolls it down and back up through SGR reports', { skip: missing('less') }, async (t) => {
  const file = path.join(TMP, 'wheel.txt');
  writeFileSync(file, Array.from({ length: 200 }, (_, i) => `row ${i + 1}`).join('\n') + '\n');
  const term = open(t, { command: 'less', args: ['--mouse', file], env: { LESS: undefined, LESSHISTFILE: '-' } });
  await term.waitFor({ predicate: (s) => s.lines[0] === 'row 1' });
  assert.deepEqual([term.modes().mouseTracking, term.modes().mouseEncoding], ['vt200', 'sgr']);
  term.scroll(10, 10, 4);
  await term.waitFor({ predicate: (s) => s.lines[0] !== 'row 1' });
  await term.waitIdle();
  const down = Number(/row (\d+)/.exec(term.screen().lines[0]!)?.[1]);
  assert.ok(down >= 5, `first line row ${down}`);
  term.scroll(10, 10, -4);
  await term.waitFor({ predicate: (s) => s.lines[0] === 'row 1' });
});

const MOUSE_ECHO = `process.stdin.setRawMode(true);
process.stdout.write('\\x1b[?1000h' + 'ready\\r\\n');
let got = Buffer.alloc(0);
process.stdin.on('data', (d) => { got = Buffer.concat([got, d]); if (got.length >= 12) { console.log(got.toString('hex')); process.exit(0); } });`;

test('X10-encoded clicks reach the program as raw bytes, a column past 95 as one byte above 127', async (t) => {
  const term = open(t, { command: process.execPath, args: ['-e', MOUSE_ECHO] });
  await term.waitFor({ text: 'ready' });
  assert.deepEqual([term.modes().mouseTracking, term.modes().mouseEncoding], ['vt200', 'default']);
  term.click(2, 99);
  // Press of button 0 (32), release (35), at column 100 (132 = 0x84) and row 3 (35).
  await term.waitFor({ text: '1b5b4d2084231b5b4d238423' });
});

const MENU = ['--menu', 'Pick one', '15', '50', '3', 'a', 'Apple', 'b', 'Banana', 'c', 'Cherry'];

/** dialog with its answer (stderr) going to a file. */
function dialogMenu(t: TestContext, name: string): { term: PtyTerminal; result: string } {
  const result = path.join(TMP, `${name}.result`);
  const term = open(t, { command: 'sh', args: ['-c', `exec dialog "$@" 2>"${result}"`, 'sh', ...MENU] });
  return { term, result };
}

test(
  'dialog menu: refs on the items and buttons; ArrowDown ArrowDown Enter chooses the third tag',
  { skip: missing('dialog') },
  async (t) => {
    const { term, result } = dialogMenu(t, 'keys');
    // The buttons are drawn last; on a loaded host dialog can pause longer than the idle window mid-draw.
    await term.waitFor({ text: '<Cancel>' });
    await term.waitIdle();
    const snap = term.snapshot();
    const table = snap.refs.map((r) => `${r.kind} ${r.label}${r.selected ? ' *' : ''}`);
    assert.deepEqual(table, ['item a  Apple *', 'item b  Banana', 'item c  Cherry', 'button OK *', 'button Cancel']);
    assert.match(snap.text, /a {2}Apple .*← \[ref=t1\] item "a {2}Apple" \(selected\)/);
    assert.match(snap.text, /< {2}OK {2}> +<Cancel> .*← \[ref=t4\] button "OK" \(selected\), \[ref=t5\] button "Cancel"/);
    term.pressKey('ArrowDown');
    term.pressKey('ArrowDown');
    await term.waitFor({ predicate: (s) => findRefs(s).find((r) => r.label === 'c  Cherry')?.selected === true });
    term.pressKey('Enter');
    assert.deepEqual(await term.exited, { code: 0, signal: undefined });
    assert.equal(readFileSync(result, 'utf8'), 'c');
  },
);

test('dialog menu through the mouse: tapping the item ref and then OK chooses it', { skip: missing('dialog') }, async (t) => {
  const { term, result } = dialogMenu(t, 'mouse');
  await term.waitFor({ text: '<Cancel>' });
  await term.waitIdle();
  assert.deepEqual([term.modes().mouseTracking, term.modes().mouseEncoding], ['vt200', 'sgr']);
  const banana = resolveTarget(term.screen(), term.snapshot().refs, { contains: 'banana' });
  assert.equal(banana.ref?.kind, 'item');
  const timing = await term.timeAction(() => term.click(banana.row, banana.col));
  assert.equal(findRefs(term.screen()).find((r) => r.label === 'b  Banana')?.selected, true);
  const ok = resolveTarget(term.screen(), term.snapshot().refs, { text: 'OK' });
  term.click(ok.row, ok.col);
  assert.deepEqual(await term.exited, { code: 0, signal: undefined });
  assert.equal(readFileSync(result, 'utf8'), 'b');
  t.diagnostic(`dialog click → settled: ${timing.latencyMs?.toFixed(1)} ms (ncurses waits its click interval to rule out a double click)`);
});

const PROMPT = `const rl = require('readline').createInterface({ input: process.stdin, output: process.stdout });
rl.question('Name? ', (a) => { console.log('Hello, ' + a + '!'); rl.close(); });`;

test('a Node readline prompt answered by typing and Enter: the echo and the answer are on the screen', async (t) => {
  const term = open(t, { command: process.execPath, args: ['-e', PROMPT] });
  await term.waitFor({ text: 'Name? ' });
  await term.type('Ada');
  await term.waitFor({ text: 'Name? Ada' });
  const field = term.snapshot().refs.find((r) => r.kind === 'field');
  assert.deepEqual([field?.label, field?.value, field?.cursor, field?.rect.col], ['Name?', 'Ada', true, 6]);
  term.pressKey('Enter');
  const screen = await term.waitFor({ text: 'Hello, Ada!' });
  assert.deepEqual(screen.lines.slice(0, 2), ['Name? Ada', 'Hello, Ada!']);
  assert.deepEqual(await term.exited, { code: 0, signal: undefined });
});

// Raw mode before "ready": a paste that arrived in cooked mode would be echoed and edited by the tty.
const PASTE_ECHO = `process.stdin.setRawMode(true);
process.stdout.write('\\x1b[?2004h' + 'ready\\r\\n');
let got = '';
process.stdin.on('data', (d) => { got += d.toString(); if (got.endsWith('\\x1b[201~')) { console.log(JSON.stringify(got)); process.exit(0); } });`;

test('a paste reaches a program that enabled bracketed paste wrapped in the markers', async (t) => {
  const term = open(t, { command: process.execPath, args: ['-e', PASTE_ECHO] });
  await term.waitFor({ text: 'ready' });
  assert.equal(term.modes().bracketedPaste, true);
  term.paste('two\nlines');
  const screen = await term.waitFor({ text: '201~' });
  assert.ok(screen.lines.includes('"\\u001b[200~two\\rlines\\u001b[201~"'), screen.lines.join('\n'));
});

test(
  'close() ends a program that ignores SIGTERM and all its children, also one that left the session',
  { skip: missing('setsid') },
  async (t) => {
    const term = open(t, { command: 'bash', args: ['-c', 'trap "" TERM; setsid sleep 1000 & sleep 1000 & echo started; wait'] });
    await term.waitFor({ text: 'started' });
    // The setsid'd sleep leaves the session only once setsid(2) has run: wait for that, not just for three processes.
    const outside = (pid: number): boolean => {
      const sid = readProcStat(pid)?.sid;
      return sid !== undefined && sid !== term.pid;
    };
    await until(() => term.processes().length >= 3 && term.processes().some(outside));
    const pids = term.processes();
    assert.equal(pids[0], term.pid);
    const ids = pids.map((pid) => [pid, readProcStat(pid)!.startTicks] as const);
    // The setsid'd sleep is in neither the program's session nor its group: only the tree finds it.
    assert.ok(
      ids.some(([pid]) => readProcStat(pid)!.sid !== term.pid),
      'a process outside the session',
    );
    const start = performance.now();
    const exit = await term.close();
    const closeMs = performance.now() - start;
    assert.equal(exit.signal, 'SIGKILL');
    for (const [pid, startTicks] of ids) assert.ok(gone(pid, startTicks), `pid ${pid} still runs`);
    assert.ok(closeMs >= 500 && closeMs < 3000, `${closeMs} ms`);
    t.diagnostic(`close of a SIGTERM-ignoring tree of ${ids.length}: ${closeMs.toFixed(0)} ms`);
  },
);

test('killing the program from outside resolves exited with the signal', async (t) => {
  const term = open(t, { command: 'sleep', args: ['1000'] });
  const seen: unknown[] = [];
  term.onExit((e) => seen.push(e));
  process.kill(term.pid, 'SIGKILL');
  assert.deepEqual(await term.exited, { code: undefined, signal: 'SIGKILL' });
  assert.deepEqual(term.exit, { code: undefined, signal: 'SIGKILL' });
  assert.deepEqual(seen, [{ code: undefined, signal: 'SIGKILL' }]);
  assert.throws(
    () => term.write('x'),
    (e) => isPerfError(e) && e.code === 'terminal_exited',
  );
});

test('resize reaches the program as SIGWINCH with the new size', async (t) => {
  const term = open(t, {
    command: 'bash',
    args: ['-c', 'trap \'echo "resized $(stty size)"\' WINCH; echo "ready $(stty size)"; while :; do sleep 0.02; done'],
  });
  await term.waitFor({ text: 'ready 30 100' });
  await term.resize(60, 20);
  await term.waitFor({ text: 'resized 20 60' });
  assert.deepEqual([term.cols, term.rows, term.screen().cols, term.screen().rows], [60, 20, 60, 20]);
});

test('CPU of the process tree counts a child that already finished, in 10 ms ticks', async (t) => {
  // 300 ms of this process's own CPU, however loaded the machine is.
  const burn = `while (process.cpuUsage().user < 300000) {} console.log('burnt')`;
  // bash prints "reaped" only once it has waited for the node child: its CPU is then in bash's cutime.
  const term = open(t, {
    command: 'bash',
    args: ['-c', `echo go; read; ${JSON.stringify(process.execPath)} -e "${burn}"; echo reaped; sleep 1000`],
  });
  await term.waitFor({ text: 'go' });
  const before = term.usage();
  term.pressKey('Enter');
  await term.waitFor({ text: 'reaped' });
  const after = term.usage();
  assert.ok(after.cpuMs - before.cpuMs >= 250, `${after.cpuMs - before.cpuMs} ms`);
  assert.equal(after.cpuMs % 10, 0);
});

test('spawning a command that does not exist is a PerfError naming it', () => {
  assert.throws(
    () => PtyTerminal.spawn({ command: 'no-such-program-xyz' }),
    (e) => isPerfError(e) && e.code === 'terminal_command_not_found' && e.kind === 'environment' && /no-such-program-xyz/.test(e.message),
  );
});
