/**
 * A secret typed into a terminal program stays out of what `perf run` keeps, however the program
 * echoes it: a real prompt (test/fixtures/echo-secret.mjs) draws each key after a cursor move, then
 * the whole value with escapes, erased placeholders and masks between its characters. Run through
 * the built CLI; the recording is checked with its escape sequences stripped, and played back.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { decodePng } from '../src/drivers/png.js';
import { PtyTerminalDriver } from '../src/drivers/pty/index.js';
import { renderCellsPng, type Cell } from '../src/drivers/pty/render-png.js';
import type { CellStyle } from '../src/drivers/pty/screen.js';
import { secretSpans } from '../src/scenario/redact.js';
import { FIXTURES_DIR, ROOT } from './helpers.js';

const PERF = path.join(ROOT, 'bin/perf');
// Letters and digits found nowhere else in the recording (its header and the prompt's own text are
// lower case, hex or other words): any one of them left in an event is a piece of the secret.
const SECRET = 'QZX7-JVW';
const SECRET_CHARS = /[QZX7JVW]/;
const NAME = 'REHEARSE_CAST_SECRET';
const PROMPT = path.join(FIXTURES_DIR, 'echo-secret.mjs');

// CSI, OSC and two-byte (and nF) escapes: an independent reading of what a terminal does not draw.
const ESCAPES = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[ -/]*[0-~])/g;

function perf(args: string[], cwd: string): { code: number; stdout: string; stderr: string } {
  const env = { ...process.env, [NAME]: SECRET };
  const r = spawnSync(process.execPath, [PERF, ...args], { cwd, encoding: 'utf8', timeout: 120_000, env });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

function scenario(dir: string, name: string, steps: string[]): string {
  const file = path.join(dir, `${name}.yaml`);
  const lines = [
    `name: ${name}`,
    'app:',
    `  terminal: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(PROMPT)}], cols: 60, rows: 10 }`,
    'repeat: 1',
    'warmup: 0',
    'setup:',
    '  - wait_for: "Secret:"',
    'steps:',
    `  - type: { text: "\${env.${NAME}}", label: secret }`,
    '  - press_key: Enter',
    ...steps,
    '',
  ];
  fs.writeFileSync(file, lines.join('\n'));
  return file;
}

test('perf run keeps a recording with no character of a secret echoed between escapes, and it still plays', { timeout: 180_000 }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rehearse-secret-'));
  try {
    scenario(dir, 'echoed', ['  - wait_for: "got 8 chars"']);
    const run = perf(['run', 'echoed.yaml', '--out', 'out', '--label', 'run'], dir);
    assert.equal(run.code, 0, run.stderr + run.stdout);
    const file = path.join(dir, 'out', 'echoed-run-median.cast');
    const text = fs.readFileSync(file, 'utf8');
    assert.ok(!text.includes(SECRET), 'not as one run of text');
    const events = text
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => JSON.parse(l) as [number, string, string]);
    const stream = (code: string): string =>
      events
        .filter((e) => e[1] === code)
        .map((e) => e[2])
        .join('');
    const output = stream('o');
    // The prompt drew it six ways: each key after a cursor move, then four redraws.
    assert.ok(output.includes('\x1b[1;9H'), 'the fixture echoes each key after a cursor move');
    const shown = output.replace(ESCAPES, '');
    assert.ok(!shown.includes(SECRET), 'not with the escape sequences stripped');
    const leftovers = shown.split(`\${env.${NAME}}`).join('');
    assert.ok(!SECRET_CHARS.test(leftovers), `no character of it anywhere in the output: ${JSON.stringify(leftovers)}`);
    assert.equal(shown.split(`\${env.${NAME}}`).length - 1, 5, 'the echo and the four redraws each say which secret was there');
    assert.match(output, /got 8 chars/);
    const typed = stream('i');
    assert.equal(typed, `\${env.${NAME}}\r`, 'what was typed, key by key');

    // Still asciicast v2 that plays: every event a [time, code, text] line.
    const replay = perf(['replay', file, '--json'], dir);
    assert.equal(replay.code, 0, replay.stderr);
    const summary = JSON.parse(replay.stdout) as { events: number; outputEvents: number; inputEvents: number };
    assert.deepEqual([summary.events, summary.outputEvents + summary.inputEvents], [events.length, events.length]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

const DEFAULT_STYLE: CellStyle = {
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
const CELL_W = 8;
const CELL_H = 16;

/** The RGB pixels of one cell of a terminal PNG. */
function cellPixels(png: Buffer, row: number, col: number): Buffer {
  const img = decodePng(png)!;
  const out: Buffer[] = [];
  for (let y = row * CELL_H; y < (row + 1) * CELL_H; y++) {
    const start = (y * img.width + col * CELL_W) * img.bpp;
    out.push(img.pixels.subarray(start, start + CELL_W * img.bpp));
  }
  return Buffer.concat(out);
}

/** One cell holding `chars` in `style`, as the renderer draws it. */
function drawnCell(chars: string, style: CellStyle): Buffer {
  const cells: [number, Cell][][] = [[[0, { chars, width: 1, style }]]];
  const grid = { cols: 1, rows: 1, cells, cursor: { row: 0, col: 0, visible: false } };
  return cellPixels(renderCellsPng(grid), 0, 0);
}

test('the PNG of a failed repeat draws a secret on the screen as stars, in its own colours', { timeout: 180_000 }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rehearse-secret-'));
  try {
    scenario(dir, 'failing', ['  - wait_for: "got 8 chars"', '  - wait_for: { text: "never shown", timeoutMs: 300 }']);
    const run = perf(['run', 'failing.yaml', '--out', 'out', '--label', 'run'], dir);
    assert.equal(run.code, 1, run.stderr + run.stdout);
    type Repeats = { repeats: { failure?: { screenshot?: string } }[] };
    const runFile = JSON.parse(fs.readFileSync(path.join(dir, 'out', 'failing-run.json'), 'utf8')) as Repeats;
    const shot = runFile.repeats[0]?.failure?.screenshot;
    assert.ok(shot?.endsWith('.png'), JSON.stringify(runFile.repeats[0]));
    const png = fs.readFileSync(path.resolve(dir, shot!));
    const star = drawnCell('*', DEFAULT_STYLE);
    // Row 0: "Secret: " then the echo; rows 2 and 3: the value redrawn with escapes and erased
    // placeholders between its characters.
    for (let i = 0; i < SECRET.length; i++) {
      assert.ok(cellPixels(png, 0, 8 + i).equals(star), `row 0, column ${8 + i}: a star`);
      assert.ok(cellPixels(png, 2, i).equals(star), `row 2, column ${i}: a star`);
      assert.ok(cellPixels(png, 3, i).equals(star), `row 3, column ${i}: a star`);
      // Row 5: each character in its own colour, masked in that colour.
      const coloured = drawnCell('*', { ...DEFAULT_STYLE, fg: 1 + (i % 6) });
      assert.ok(cellPixels(png, 5, i).equals(coloured), `row 5, column ${i}: a star in its colour`);
    }
    assert.ok(cellPixels(png, 0, 0).equals(drawnCell('S', DEFAULT_STYLE)), 'the rest of the screen as it was');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a secret the terminal wrapped onto the next row is masked on both rows', { timeout: 60_000 }, async () => {
  const driver = PtyTerminalDriver.spawn({ command: 'sh', args: ['-c', `printf 'pw: ${SECRET}'; sleep 30`], cols: 8, rows: 3 });
  try {
    await driver.pty.waitFor({ text: 'JVW' });
    assert.deepEqual((await driver.screen()).lines.slice(0, 2), ['pw: QZX7', '-JVW']);
    const png = await driver.screenshotPng({ hide: (text) => secretSpans(text, [{ name: NAME, value: SECRET }]) });
    const star = drawnCell('*', DEFAULT_STYLE);
    for (let col = 4; col < 8; col++) assert.ok(cellPixels(png, 0, col).equals(star), `row 0, column ${col}`);
    for (let col = 0; col < 4; col++) assert.ok(cellPixels(png, 1, col).equals(star), `row 1, column ${col}`);
    assert.ok(cellPixels(png, 0, 0).equals(drawnCell('p', DEFAULT_STYLE)));
  } finally {
    await driver.pty.close();
  }
});
