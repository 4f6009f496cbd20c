/**
 * perf_trace on a terminal program writes the measured window as an asciicast v2 recording (the
 * screen when it opened, every output and input with its time), and `perf replay FILE` plays it
 * back: driven on real programs (cat, less) through a step host, replayed through ./bin/perf.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import xtermHeadless from '@xterm/headless';
import { PtyTerminalDriver } from '../src/drivers/pty/index.js';
import { parseCast, schedule } from '../src/cli/replay.js';
import { CastLog } from '../src/drivers/pty/cast.js';
import { readScreen, type Screen } from '../src/drivers/pty/screen.js';
import { SessionHost } from '../src/engine/host.js';
import { runStep, type StepResult } from '../src/engine/run-step.js';
import { lastSession, serializeCast } from '../src/perf/state.js';
import { processesBelow, ROOT } from './helpers.js';

const PERF = path.join(ROOT, 'bin/perf');
const has = (bin: string): boolean => spawnSync('sh', ['-c', `command -v ${bin}`], { timeout: 120_000 }).status === 0;

type Ok = Extract<StepResult, { status: 'ok' }>;
type Failed = Extract<StepResult, { status: 'failed' }>;

async function ok(host: SessionHost, step: string, args: unknown = {}): Promise<Record<string, unknown>> {
  const r = await runStep(host, step, args);
  if (r.status !== 'ok') assert.fail(`${step} failed: ${JSON.stringify(r)}`);
  return (r as Ok).data ?? {};
}

async function failed(host: SessionHost, step: string, args: unknown = {}): Promise<Failed['error']> {
  const r = await runStep(host, step, args);
  if (r.status !== 'failed') assert.fail(`${step} was expected to fail, got ${JSON.stringify(r)}`);
  return r.error;
}

interface CastHeader {
  version: number;
  width: number;
  height: number;
  timestamp: number;
  duration: number;
  title: string;
  env: { TERM: string; SHELL: string };
  rehearse: { sessionToken: string; cut?: { atS: number; droppedEvents: number } };
}
type Event = [number, string, string];

function readCast(file: string): { header: CastHeader; events: Event[]; lines: string[] } {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  assert.equal(lines.pop(), '', 'the file ends with a newline');
  return { header: JSON.parse(lines[0]!) as CastHeader, events: lines.slice(1).map((l) => JSON.parse(l) as Event), lines };
}

/** The screen a terminal of this size shows after the recording's output events, read as the driver reads its own. */
async function playInto(events: Event[], cols: number, rows: number): Promise<Screen> {
  const term = new xtermHeadless.Terminal({ cols, rows, allowProposedApi: true });
  for (const [, code, data] of events) if (code === 'o') term.write(data);
  await new Promise<void>((resolve) => term.write('', resolve));
  const screen = readScreen(term, { cursorVisible: true, title: '' });
  term.dispose();
  return screen;
}

function perf(args: string[], cwd: string): { code: number; stdout: string; stderr: string; ms: number } {
  const t0 = Date.now();
  const r = spawnSync(process.execPath, [PERF, ...args], { cwd, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr, ms: Date.now() - t0 };
}

/** A host on a fresh terminal program in a fresh folder; closed (program and folder) by the returned end(). */
function terminalHost(
  command: string,
  args: string[] = [],
  prepare?: (dir: string) => void,
): { host: SessionHost; driver: PtyTerminalDriver; dir: string; end: () => Promise<void> } {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'rehearse-cast-')));
  prepare?.(dir);
  const driver = PtyTerminalDriver.spawn({ command, args, cols: 80, rows: 24, cwd: dir });
  const host = new SessionHost({ terminal: driver }, undefined, dir);
  return {
    host,
    driver,
    dir,
    end: async () => {
      await driver.pty.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

test(
  'perf_trace on cat: an asciicast v2 file with the typed input, its echo, and times inside the window; perf replay plays it',
  { skip: has('cat') ? false : 'cat not installed' },
  async () => {
    const { host, dir, end } = terminalHost('cat');
    try {
      // Before any window: the same typed error as on a page.
      const none = await failed(host, 'perf_trace', {});
      assert.equal(none.code, 'no_closed_session');

      const wallStartS = Date.now() / 1000;
      const began = await ok(host, 'perf_begin', { mode: 'timing' });
      await ok(host, 'type', { text: 'hello cast\n' });
      await ok(host, 'wait_for', { text: 'hello cast' });
      const report = await ok(host, 'perf_end', { full: true });
      const wallEndS = Date.now() / 1000;
      assert.notEqual(report.refused, true, JSON.stringify(report));

      // out defaults to <token>.cast in the working folder.
      const written = await ok(host, 'perf_trace', {});
      const token = began.sessionToken as string;
      assert.equal(written.path, path.join(dir, `${token}.cast`));
      const { header, events, lines } = readCast(written.path as string);
      assert.equal(written.events, events.length);
      assert.equal(written.bytes, Buffer.byteLength(fs.readFileSync(written.path as string)));

      assert.equal(header.version, 2);
      assert.deepEqual([header.width, header.height], [80, 24]);
      assert.ok(
        header.timestamp >= Math.floor(wallStartS) && header.timestamp <= wallEndS,
        `timestamp ${header.timestamp} in [${wallStartS}, ${wallEndS}]`,
      );
      assert.equal(header.env.TERM, 'xterm-256color');
      assert.equal(typeof header.env.SHELL, 'string');
      assert.match(header.title, new RegExp(token));
      assert.equal(header.rehearse.sessionToken, token);
      assert.equal(header.rehearse.cut, undefined);
      assert.ok(header.duration > 0 && header.duration <= wallEndS - wallStartS + 0.01, `duration ${header.duration}`);

      // Every line is one [seconds, code, text] event; times never go back and stay inside the window.
      let previous = 0;
      for (const [i, e] of events.entries()) {
        assert.equal(e.length, 3, lines[i + 1]);
        assert.ok(['o', 'i'].includes(e[1]), lines[i + 1]);
        assert.equal(typeof e[2], 'string');
        assert.ok(
          e[0] >= previous && e[0] <= header.duration,
          `event ${i} at ${e[0]} s (previous ${previous}, duration ${header.duration})`,
        );
        previous = e[0];
      }
      // The first event repaints the screen as the window found it, at time 0.
      assert.deepEqual(events[0]!.slice(0, 2), [0, 'o']);
      const input = events.filter((e) => e[1] === 'i');
      assert.equal(input.map((e) => e[2]).join(''), 'hello cast\r', 'each key written, as typed');
      const output = events.slice(1).filter((e) => e[1] === 'o');
      const echoed = output.map((e) => e[2]).join('');
      assert.match(echoed, /hello cast\r\n/, 'the terminal echoes the line');
      assert.match(echoed, /hello cast\r\nhello cast\r\n/, 'and cat writes it back');
      // Output answers input: the first echo comes after the first key.
      const firstEcho = output.find((e) => e[2].includes('h'))!;
      assert.ok(firstEcho[0] >= input[0]![0], `echo at ${firstEcho[0]} s, key at ${input[0]![0]} s`);

      // Replayed: the output, in order, at 100× speed; exit 0.
      const played = perf(['replay', `${token}.cast`, '--speed', '100'], dir);
      assert.equal(played.code, 0, played.stderr);
      assert.match(played.stdout, /hello cast\r\nhello cast\r\n/);
      assert.equal(
        played.stdout,
        events
          .filter((e) => e[1] === 'o')
          .map((e) => e[2])
          .join(''),
        'every output event, nothing else',
      );

      const summary = perf(['replay', `${token}.cast`, '--json'], dir);
      assert.equal(summary.code, 0, summary.stderr);
      const s = JSON.parse(summary.stdout) as {
        events: number;
        inputEvents: number;
        outputEvents: number;
        durationS: number;
        bytes: number;
        width: number;
      };
      assert.deepEqual([s.events, s.inputEvents, s.outputEvents, s.width], [events.length, input.length, events.length - input.length, 80]);
      assert.equal(s.durationS, header.duration);
      assert.equal(s.bytes, Buffer.byteLength(played.stdout));

      // An explicit out, confined to the working folder like the Chrome trace, never overwritten unasked.
      const named = await ok(host, 'perf_trace', { out: 'casts/typing.cast' });
      assert.equal(named.path, path.join(dir, 'casts/typing.cast'));
      assert.equal(fs.readFileSync(named.path as string, 'utf8'), fs.readFileSync(written.path as string, 'utf8'));
      assert.equal((await failed(host, 'perf_trace', { out: 'casts/typing.cast' })).code, 'file_exists');
      await ok(host, 'perf_trace', { out: 'casts/typing.cast', overwrite: true });
      for (const out of ['../outside.cast', '/tmp/abs.cast'])
        assert.equal((await failed(host, 'perf_trace', { out })).code, 'path_outside_workdir', out);
      const stale = await failed(host, 'perf_trace', { token: 'ps-00000000' });
      assert.equal(stale.code, 'stale_session_token');

      // A recording over its cap says so in the header (title and rehearse.cut); the log itself is unit-tested below.
      const last = lastSession(host, 'test', undefined);
      const cutHeader = JSON.parse(
        serializeCast(last, { ...last.cast!, cut: { atS: 1.5, maxBytes: 4 * 1024 * 1024, droppedEvents: 7, droppedBytes: 900 } }).split(
          '\n',
        )[0]!,
      ) as CastHeader;
      assert.match(cutHeader.title, /cut at 1\.5 s, past the 4 MB cap/);
      assert.deepEqual(cutHeader.rehearse.cut, { atS: 1.5, maxBytes: 4 * 1024 * 1024, droppedEvents: 7, droppedBytes: 900 });
    } finally {
      await end();
    }
  },
);

test(
  'a window opened on a full-screen program starts with its screen: less on the alternate screen replays whole',
  { skip: has('less') ? false : 'less not installed (apt-get install less)' },
  async () => {
    const { host, driver, dir, end } = terminalHost('less', ['big.txt'], (d) =>
      fs.writeFileSync(path.join(d, 'big.txt'), Array.from({ length: 200 }, (_, i) => `line ${i + 1}`).join('\n') + '\n'),
    );
    try {
      // less is already up when the window opens: without the first frame, a replay would show only the page it scrolls to.
      await ok(host, 'wait_for', { text: 'line 23' });
      const startScreen = await driver.screen();
      await ok(host, 'perf_begin', { mode: 'timing' });
      await ok(host, 'press_key', { key: 'PageDown' });
      await ok(host, 'wait_for', { text: 'line 46' });
      await ok(host, 'perf_end', { full: true });
      const finalScreen = await driver.screen();
      const written = await ok(host, 'perf_trace', { out: 'less.cast' });
      const { events } = readCast(written.path as string);
      // Played into a fresh terminal of the same size, the recording ends on the screen the program ended on.
      const replayed = await playInto(events, 80, 24);
      assert.deepEqual(replayed.lines, finalScreen.lines);
      assert.deepEqual([replayed.cursor.row, replayed.cursor.col], [finalScreen.cursor.row, finalScreen.cursor.col]);
      // Its first event alone paints the screen the window opened on.
      const opened = await playInto([events[0]!], 80, 24);
      assert.deepEqual(opened.lines, startScreen.lines);
      assert.deepEqual([opened.cursor.row, opened.cursor.col], [startScreen.cursor.row, startScreen.cursor.col]);
      const first = events[0]!;
      assert.ok(first[2].startsWith('\x1b[?1049h'), 'the alternate screen first, as less had it');
      assert.match(first[2], /line 1\b[\s\S]*line 23\b/, 'then the page less showed');
      assert.ok(
        events.some((e) => e[1] === 'i' && e[2] === '\x1b[6~'),
        'PageDown as written',
      );
      assert.ok(
        events.some((e) => e[1] === 'o' && e[2].includes('line 46')),
        'and the next page',
      );

      const played = perf(['replay', 'less.cast', '--speed', '100'], dir);
      assert.equal(played.code, 0, played.stderr);
      assert.ok(played.stdout.indexOf('line 23') < played.stdout.indexOf('line 46'), 'the first page, then the next');
    } finally {
      await end();
    }
  },
);

test(
  'the first event keeps the colours and attributes of the screen it repaints',
  { skip: has('bash') ? false : 'bash not installed' },
  async () => {
    const script = String.raw`printf '\e[1;31mbold red\e[0m \e[4;38;5;200munderlined pink\e[0m\n\e[7m reverse \e[0m \e[48;2;10;20;30;3mrgb italic\e[0m\n\e[93mbright\e[0m'; sleep 30`;
    const { host, driver, end } = terminalHost('bash', ['--norc', '--noprofile', '-c', script]);
    try {
      await ok(host, 'wait_for', { text: 'bright' });
      await ok(host, 'perf_begin', { mode: 'timing' });
      await ok(host, 'perf_end', { full: true });
      const written = await ok(host, 'perf_trace', {});
      const { events } = readCast(written.path as string);
      assert.equal(events.length, 1, 'a quiet window: the screen it opened on, nothing else');
      const painted = await playInto(events, 80, 24);
      await driver.pty.flush();
      const original = driver.pty.screen();
      assert.deepEqual(painted.lines, original.lines);
      // Style runs up to each row's last printed cell (the replay leaves unpainted trailing blanks to the clear).
      const printed = (sc: Screen) => sc.runs.map((row, r) => row.filter((run) => run.col < (sc.lines[r] ?? '').length));
      assert.deepEqual(printed(painted), printed(original));
      assert.ok(
        original.runs[0]!.some((run) => run.style.bold && run.style.fg === 1),
        'the fixture has colour to keep',
      );
    } finally {
      await end();
    }
  },
);

test("perf replay keeps the recording's timing, scaled by --speed, pauses capped by --max-idle-s", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rehearse-replay-'));
  try {
    const write = (name: string, lines: unknown[]): string => {
      fs.writeFileSync(path.join(dir, name), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
      return name;
    };
    const header = { version: 2, width: 80, height: 24 };
    const paced = write('paced.cast', [header, [0, 'o', 'a'], [0.6, 'i', 'x'], [0.6, 'o', 'b'], [1.2, 'm', ''], [1.2, 'o', 'c']]);
    // The schedule play() follows, judged as numbers: a wall clock on a loaded host says more about the host than the replay.
    const events = parseCast(fs.readFileSync(path.join(dir, paced), 'utf8'), paced).events;
    assert.deepEqual(schedule(events, { speed: 1, maxIdleS: 2 }), [
      { atS: 0, data: 'a' },
      { atS: 0.6, data: 'b' },
      { atS: 1.2, data: 'c' },
    ]);
    assert.deepEqual(
      schedule(events, { speed: 4, maxIdleS: 2 }).map((e) => e.atS),
      [0, 0.15, 0.3],
    );
    assert.deepEqual(
      schedule(events, { speed: 2, maxIdleS: 0.5 }).map((e) => e.atS),
      [0, 0.25, 0.5],
      'each gap capped first, then scaled',
    );
    // End to end: output only, and playing waits (a lower bound only: a loaded host can be late, never early).
    const r1 = perf(['replay', paced], dir);
    assert.equal(r1.code, 0, r1.stderr);
    assert.equal(r1.stdout, 'abc', 'output only: not the input, not the marker');
    assert.ok(r1.ms >= 1200, `1.2 s of recording took ${r1.ms} ms`);
    assert.equal(perf(['replay', paced, '--speed', '4'], dir).stdout, 'abc');
    const playS = (file: string, ...flags: string[]): number =>
      (JSON.parse(perf(['replay', file, '--json', ...flags], dir).stdout) as { playS: number }).playS;
    assert.equal(playS(paced, '--speed', '4'), 0.3, 'the flags reach the schedule');

    const idle = write('idle.cast', [header, [0, 'o', 'start '], [30, 'o', 'end']]);
    const r3 = perf(['replay', idle, '--max-idle-s', '0.3'], dir);
    assert.equal(r3.stdout, 'start end');
    assert.ok(r3.ms >= 300, `a 30 s pause capped at 0.3 s took ${r3.ms} ms`);
    assert.equal(playS(idle, '--max-idle-s', '0.3'), 0.3);
    const j = JSON.parse(perf(['replay', idle, '--json'], dir).stdout) as { durationS: number; playS: number };
    assert.deepEqual([j.durationS, j.playS], [30, 2], 'idle gaps default to at most 2 s');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('perf replay refuses a file that is not asciicast v2: exit 2, the file and line named, no stack', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rehearse-replay-'));
  try {
    const cases: [string, string, RegExp][] = [
      [
        'bad-event.cast',
        '{"version": 2, "width": 80, "height": 24}\n[0, "o", "fine"]\n[0.1, "o"]\n',
        /bad-event\.cast:3: an event is \[seconds/,
      ],
      ['not-json.cast', '{"version": 2, "width": 80, "height": 24}\n[0, "o", "fine"]\n[0.2, "o", "x"\n', /not-json\.cast:3: not JSON/],
      [
        'v1.cast',
        '{"version": 1, "width": 80, "height": 24, "stdout": []}\n',
        /v1\.cast:1: asciicast version 1; perf replay reads version 2/,
      ],
      ['no-size.cast', '{"version": 2, "width": 80}\n', /no-size\.cast:1: the header's height is undefined/],
      [
        'backwards.cast',
        '{"version": 2, "width": 80, "height": 24}\n[1, "o", "a"]\n[0.5, "o", "b"]\n',
        /backwards\.cast:3: the event at 0\.5 s comes before/,
      ],
      ['empty.cast', '', /empty\.cast:1: no asciicast header/],
    ];
    for (const [name, body, message] of cases) {
      fs.writeFileSync(path.join(dir, name), body);
      const r = perf(['replay', name], dir);
      assert.equal(r.code, 2, `${name}: ${r.stderr}`);
      assert.match(r.stderr, message, name);
      assert.doesNotMatch(r.stderr, /\n\s+at /, `${name}: no stack trace`);
      assert.equal(r.stdout, '', `${name}: nothing played`);
    }
    const missing = perf(['replay', 'nope.cast'], dir);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /cannot read nope\.cast/);
    const speed = perf(['replay', 'bad-event.cast', '--speed', '0'], dir);
    assert.equal(speed.code, 2);
    assert.match(speed.stderr, /--speed takes a number > 0/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the recording is bounded: past its byte cap it stops, and says where and how much it left out', () => {
  const log = new CastLog(1000, 10);
  log.push('o', 'abcd', 1000);
  log.push('i', Buffer.from('efgh'), 1250.5);
  log.push('o', 'ijk', 1500);
  // Once cut, always cut, even for a chunk that would still fit.
  log.push('o', 'l', 1600);
  assert.deepEqual(log.events, [
    [0, 'o', 'abcd'],
    [0.2505, 'i', 'efgh'],
  ]);
  assert.deepEqual(log.cut, { atS: 0.5, maxBytes: 10, droppedEvents: 2, droppedBytes: 4 });
  // Input bytes that are not UTF-8 (an X10 mouse report's coordinates) are kept byte for byte.
  const raw = new CastLog(0);
  raw.push('i', Buffer.from([0x1b, 0x5b, 0x4d, 0x20, 0xa1, 0xa1]), 0);
  assert.equal(raw.events[0]![2], '\x1b[M \u00a1\u00a1');
});

test(
  'a replay on a terminal switches off what the recording switched on, when it ends and when it is interrupted',
  { skip: has('script') ? false : 'script (util-linux) not installed' },
  async () => {
    // `script` gives the replay a real terminal as stdout, where the mode reset is written.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rehearse-replay-'));
    const replayInScript = (file: string, onOutput?: (out: string, pid: number) => void): Promise<{ code: number | null; out: string }> => {
      const child = spawn('script', ['-qec', `${process.execPath} ${PERF} replay ${file} --max-idle-s 20`, '/dev/null'], {
        cwd: dir,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString('utf8');
        onOutput?.(out, child.pid!);
      });
      return new Promise((resolve) => child.on('close', (code) => resolve({ code, out })));
    };
    try {
      const menu = '"\\u001b[?1049h\\u001b[?25lmenu"';
      fs.writeFileSync(path.join(dir, 'alt.cast'), ['{"version": 2, "width": 20, "height": 5}', `[0, "o", ${menu}]`, ''].join('\n'));
      const done = await replayInScript('alt.cast');
      assert.equal(done.code, 0, done.out);
      assert.ok(done.out.indexOf('menu') < done.out.indexOf('\x1b[?25h'), 'the cursor shown again after the replay');
      assert.ok(done.out.includes('\x1b[?1049l'), 'and the alternate screen left');

      // Ctrl-C in the middle of a 15 s pause: the same reset, then exit 130.
      fs.writeFileSync(
        path.join(dir, 'long.cast'),
        ['{"version": 2, "width": 20, "height": 5}', `[0, "o", ${menu}]`, '[15, "o", "late"]', ''].join('\n'),
      );
      let interrupted = false;
      const cut = await replayInScript('long.cast', (out, pid) => {
        if (interrupted || !out.includes('menu')) return;
        // The node process itself, not the shell whose -c string mentions the file too (it would die
        // of the SIGINT and leave the replay running).
        const replay = processesBelow({ comm: 'node', cmdline: 'replay long.cast' }, pid)[0];
        if (replay === undefined) return;
        interrupted = true;
        process.kill(replay, 'SIGINT');
      });
      assert.ok(interrupted, cut.out);
      assert.equal(cut.code, 130, cut.out);
      assert.doesNotMatch(cut.out, /late/);
      assert.ok(cut.out.indexOf('menu') < cut.out.indexOf('\x1b[?25h') && cut.out.includes('\x1b[?1049l'), JSON.stringify(cut.out));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
);
