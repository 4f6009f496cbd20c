/**
 * Scenarios on terminal programs (app.terminal), run by the runner against real Debian programs in a
 * pseudo-terminal: vim, less, dialog, a Node readline prompt, bash. Every repeat is a fresh program;
 * its whole process group is gone after; a program killed mid-repeat fails that repeat only.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { isPerfError } from '../src/errors.js';
import { METRICS, PER_FRAME_SUFFIX, resolveMetric } from '../src/perf/metrics.js';
import { runScenario } from '../src/runner/run.js';
import { loadScenario } from '../src/scenario/load.js';
import { isAlive } from '../src/processes.js';
import { startTerminalApp } from '../src/session/terminal-app.js';
import { SessionHost } from '../src/engine/host.js';
import { runStep } from '../src/engine/run-step.js';
import { processesBelow, ROOT } from './helpers.js';
import { decodePng } from '../src/drivers/png.js';
import { paletteRgb, renderCellsPng } from '../src/drivers/pty/render-png.js';
import { nameRefs, type TerminalRef } from '../src/drivers/pty/snapshot.js';

const has = (bin: string): boolean => spawnSync('sh', ['-c', `command -v ${bin}`], { timeout: 120_000 }).status === 0;
const missing = (bin: string): string | false => (has(bin) ? false : `${bin} not installed (apt-get install ${bin})`);

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'rehearse-term-'));
}

async function run(dir: string, yaml: string, opts: { onProgress?: Parameters<typeof runScenario>[1]['onProgress'] } = {}) {
  fs.writeFileSync(path.join(dir, 's.yaml'), yaml);
  const sc = loadScenario(path.join(dir, 's.yaml'), { cwd: dir });
  return runScenario(sc, { label: 'run', outDir: path.join(dir, 'out'), cwd: dir, ...opts });
}

const failures = (r: { repeats: { status: string }[] }): string =>
  JSON.stringify(r.repeats.map((x) => ('failure' in x ? x.failure : x.status)));

test(
  'vim: insert text and save, in a fresh vim each repeat; the file holds it once per repeat and the run has terminal metrics',
  { skip: missing('vim') },
  async () => {
    const dir = tempDir();
    try {
      const { run: r } = await run(
        dir,
        [
          'name: vim-insert',
          'app:',
          '  terminal: { command: vim, args: ["-u", "NONE", "-N", "-n", "note.txt"], cols: 80, rows: 24 }',
          'repeat: 2',
          'warmup: 0',
          'steps:',
          '  - press_key: i',
          '  - type: { text: "hello from rehearse", label: typing }',
          '  - press_key: Escape',
          '  - type: { text: ":wq\\n", label: save }',
          '',
        ].join('\n'),
      );
      assert.equal(r.summary.measured, 2, failures(r));
      assert.equal(fs.readFileSync(path.join(dir, 'note.txt'), 'utf8'), 'hello from rehearsehello from rehearse\n');
      assert.equal(r.env.browser.driver, 'pty');
      for (const m of [
        'terminal.latencyMs.p50',
        'terminal.latencyMs.worst',
        'terminal.bytesOut',
        'frames.count',
        'process.maxRssBytes',
        'steps.typing.ms',
      ]) {
        assert.ok(r.summary.metrics[m]!.median > 0, `${m}: ${JSON.stringify(r.summary.metrics[m])}`);
      }
      // The registry says what a terminal run produces, both ways.
      const produced = Object.keys(r.summary.metrics).filter((k) => !k.startsWith('steps.'));
      assert.deepEqual(
        produced.filter((k) => !resolveMetric(k)?.def.drivers.includes('pty')),
        [],
      );
      const declared = METRICS.filter((d) => d.drivers.includes('pty') && !d.name.includes('<')).flatMap((d) =>
        d.perFrame ? [d.name, d.name + PER_FRAME_SUFFIX] : [d.name],
      );
      assert.deepEqual(
        declared.filter((k) => !produced.includes(k)),
        [],
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
);

test('less: paging down a 10,000-line file, measured over repeats', { skip: missing('less') }, async () => {
  const dir = tempDir();
  try {
    fs.writeFileSync(path.join(dir, 'big.txt'), Array.from({ length: 10_000 }, (_, i) => `line ${i + 1}`).join('\n') + '\n');
    const { run: r } = await run(
      dir,
      [
        'name: less-paging',
        'app:',
        '  terminal: { command: less, args: [big.txt], cols: 80, rows: 24 }',
        'repeat: 3',
        'warmup: 0',
        'setup:',
        '  - wait_for: "line 23"',
        'steps:',
        '  - press_key: { key: PageDown, repeat: 5, label: page }',
        '  - expect: { textContains: "line 116" }',
        '',
      ].join('\n'),
    );
    assert.equal(r.summary.measured, 3, failures(r));
    assert.ok(r.summary.metrics['terminal.bytesOut']!.median > 1000, JSON.stringify(r.summary.metrics['terminal.bytesOut']));
    assert.ok(r.summary.metrics['frames.count']!.median >= 1);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('dialog: a menu item chosen by tapping it', { skip: missing('dialog') }, async () => {
  const dir = tempDir();
  try {
    const { run: r } = await run(
      dir,
      [
        'name: dialog-menu',
        'app:',
        '  terminal:',
        '    command: bash',
        '    args: ["-c", "c=$(dialog --stdout --menu Pick 12 40 3 a Apple b Banana c Cherry); echo chose:$c; sleep 60"]',
        '    cols: 80',
        '    rows: 24',
        'repeat: 1',
        'warmup: 0',
        'setup:',
        '  - wait_for: Cherry',
        'steps:',
        '  - tap: { target: { contains: banana }, label: pick }',
        '  - press_key: Enter',
        '  - wait_for: "chose:b"',
        '',
      ].join('\n'),
    );
    assert.equal(r.summary.measured, 1, failures(r));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a Node readline prompt answered with fill', async () => {
  const dir = tempDir();
  try {
    fs.writeFileSync(
      path.join(dir, 'ask.js'),
      "require('readline').createInterface({ input: process.stdin, output: process.stdout }).question('Name? ', (n) => { console.log(`Hello, ${n}!`); setTimeout(() => {}, 60000); });\n",
    );
    const { run: r } = await run(
      dir,
      [
        'name: prompt',
        'app:',
        `  terminal: { command: ${JSON.stringify(process.execPath)}, args: [ask.js] }`,
        'repeat: 1',
        'warmup: 0',
        'setup:',
        '  - wait_for: "Name?"',
        'steps:',
        '  - expect: { cursor: { row: 0, col: 6 } }',
        '  - fill: { text: Ada, label: answer }',
        '  - expect: { cursor: { row: 0, col: 9 } }',
        '  - press_key: Enter',
        '  - wait_for: "Hello, Ada!"',
        '  - wait_for: { idleMs: 100 }',
        '',
      ].join('\n'),
    );
    assert.equal(r.summary.measured, 1, failures(r));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('perf run keeps the median and slowest repeats as recordings, secrets typed key by key and echoed written as ${env.NAME}; a failed repeat keeps a PNG of its screen', async () => {
  const dir = tempDir();
  process.env.REHEARSE_TEST_SECRET = 'hunter2-Pa55';
  try {
    fs.writeFileSync(
      path.join(dir, 'ask.js'),
      "require('readline').createInterface({ input: process.stdin, output: process.stdout }).question('Password? ', (n) => { console.log(`got ${n.length} chars`); setTimeout(() => {}, 60000); });\n",
    );
    const { run: r } = await run(
      dir,
      [
        'name: secret-prompt',
        'app:',
        `  terminal: { command: ${JSON.stringify(process.execPath)}, args: [ask.js] }`,
        'repeat: 2',
        'warmup: 0',
        'setup:',
        '  - wait_for: "Password?"',
        'steps:',
        '  - type: { text: "${env.REHEARSE_TEST_SECRET}", label: password }',
        '  - press_key: Enter',
        '  - wait_for: "got 12 chars"',
        '',
      ].join('\n'),
    );
    assert.equal(r.summary.measured, 2, failures(r));
    const median = r.traces?.median?.path;
    assert.ok(median?.endsWith('secret-prompt-run-median.cast'), String(median));
    const cast = fs.readFileSync(median!, 'utf8');
    assert.doesNotMatch(cast, /hunter2|Pa55/);
    const inputs = cast
      .split('\n')
      .slice(1)
      .filter(Boolean)
      .map((l) => JSON.parse(l) as [number, string, string])
      .filter((e) => e[1] === 'i');
    assert.ok(inputs.length >= 12, 'typed key by key');
    assert.match(inputs.map((e) => e[2]).join(''), /^\$\{env\.REHEARSE_TEST_SECRET\}\r?$/);
    assert.match(cast, /"o","\$\{env\.REHEARSE_TEST_SECRET\}/, 'the echo too');
    assert.ok(fs.existsSync(r.traces!.slowest!.path));

    const { run: bad } = await run(
      dir,
      [
        'name: never',
        'app:',
        `  terminal: { command: ${JSON.stringify(process.execPath)}, args: [ask.js] }`,
        'repeat: 1',
        'warmup: 0',
        'steps:',
        '  - wait_for: { text: "never shown", timeoutMs: 300 }',
        '',
      ].join('\n'),
    );
    const failed = bad.repeats[0]!;
    assert.equal(failed.status, 'failed');
    const shot = failed.status === 'failed' ? failed.failure.screenshot : undefined;
    assert.ok(shot?.endsWith('.png'), JSON.stringify(failed));
    assert.equal(fs.readFileSync(shot!).readUInt32BE(0), 0x89504e47);
  } finally {
    delete process.env.REHEARSE_TEST_SECRET;
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a program that ignores SIGTERM is gone after its repeat, with what it started', async () => {
  const dir = tempDir();
  try {
    const marker = `rehearse-stubborn-${process.pid}`;
    const { run: r } = await run(
      dir,
      [
        'name: stubborn',
        'app:',
        `  terminal: { command: bash, args: ["-c", "trap '' TERM; read x; echo got:$x; exec -a ${marker} sleep 1000"] }`,
        'repeat: 1',
        'warmup: 0',
        'steps:',
        '  - type: { text: "go\\n" }',
        '  - wait_for: "got:go"',
        '',
      ].join('\n'),
    );
    assert.equal(r.summary.measured, 1, failures(r));
    assert.deepEqual(processesBelow({ cmdline: marker }), []);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a program killed mid-repeat fails that repeat only; the run goes on', async () => {
  const dir = tempDir();
  try {
    const marker = `rehearse-victim-${process.pid}`;
    let killed: number[] = [];
    const { run: r } = await run(
      dir,
      [
        'name: victim',
        'app:',
        `  terminal: { command: bash, args: ["-c", "echo ready; read x; sleep 0.6; echo got:$x; exec -a ${marker} sleep 1000"] }`,
        'repeat: 3',
        'warmup: 0',
        'setup:',
        '  - wait_for: ready',
        'steps:',
        '  - type: { text: "hi\\n" }',
        '  - wait_for: { text: "got:hi", label: answer }',
        '',
      ].join('\n'),
      {
        onProgress: (p) => {
          if (p.kind === 'step' && p.index === 1 && p.label === 'answer') {
            setTimeout(() => {
              killed = processesBelow({ cmdline: 'bash -c echo ready' });
              for (const pid of killed) process.kill(pid, 'SIGKILL');
            }, 150);
          }
        },
      },
    );
    assert.equal(killed.length, 1, 'the program of repeat 1 was killed');
    assert.deepEqual(
      r.repeats.map((x) => x.status),
      ['measured', 'failed', 'measured'],
    );
    assert.equal(r.summary.measured, 2);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a step that acts on a web page is refused for a terminal program when the scenario loads, naming the line', () => {
  const dir = tempDir();
  try {
    fs.writeFileSync(
      path.join(dir, 'bad.yaml'),
      'name: bad\napp:\n  terminal: { command: bash }\nsteps:\n  - snap: {}\n  - navigate: /x\n',
    );
    assert.throws(
      () => loadScenario(path.join(dir, 'bad.yaml'), { cwd: dir }),
      (e: unknown) =>
        isPerfError(e) &&
        e.kind === 'usage' &&
        /bad\.yaml:6:\d+: navigate acts on a web page: it is not available for a terminal program/.test(e.message),
    );
    fs.writeFileSync(path.join(dir, 'web.yaml'), 'name: web\napp: { url: "http://127.0.0.1:1" }\nsteps:\n  - signal: INT\n');
    assert.throws(
      () => loadScenario(path.join(dir, 'web.yaml'), { cwd: dir }),
      (e: unknown) => isPerfError(e) && /web\.yaml:4:\d+: signal acts on a terminal program: it needs app\.terminal/.test(e.message),
    );
    fs.writeFileSync(
      path.join(dir, 'vp.yaml'),
      'name: vp\napp:\n  terminal: { command: bash }\nviewport: { width: 10, height: 10 }\nsteps:\n  - snap: {}\n',
    );
    assert.throws(
      () => loadScenario(path.join(dir, 'vp.yaml'), { cwd: dir }),
      (e: unknown) => isPerfError(e) && /vp\.yaml:4:\d+: viewport is for web apps/.test(e.message),
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test(
  'resize_viewport gives a terminal program new columns and rows (SIGWINCH); scroll sends wheel notches to one that reports the mouse',
  { skip: missing('less') },
  async () => {
    const dir = tempDir();
    try {
      fs.writeFileSync(path.join(dir, 'big.txt'), Array.from({ length: 500 }, (_, i) => `line ${i + 1}`).join('\n') + '\n');
      const { run: r } = await run(
        dir,
        [
          'name: resize-scroll',
          'app:',
          '  terminal: { command: less, args: ["--mouse", big.txt], cols: 80, rows: 24 }',
          'repeat: 1',
          'warmup: 0',
          'setup:',
          '  - wait_for: "line 23"',
          'steps:',
          '  - scroll: { direction: down, label: wheel }',
          '  - expect: { textContains: "line 26" }',
          '  - resize_viewport: { width: 60, height: 40 }',
          '  - wait_for: "line 40"',
          '',
        ].join('\n'),
      );
      assert.equal(r.summary.measured, 1, failures(r));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
);

test('snap within a ref shows only its cells', { skip: missing('dialog') }, async () => {
  const running = await startTerminalApp({
    command: 'dialog',
    args: ['--menu', 'Pick', '12', '40', '3', 'a', 'Apple', 'b', 'Banana', 'c', 'Cherry'],
    cols: 80,
    rows: 24,
  });
  try {
    const host = new SessionHost({ terminal: running.driver }, undefined, os.tmpdir());
    const first = await runStep(host, 'snap', {});
    assert.equal(first.status, 'ok');
    const whole = String(first.status === 'ok' ? first.data!.snapshot : '');
    const ref = /(t\d+)[^\n]*Banana|Banana[^\n]*\[ref=(t\d+)\]/.exec(whole);
    assert.ok(ref, whole);
    const id = (ref[1] ?? ref[2])!;
    const part = await runStep(host, 'snap', { within: id });
    assert.equal(part.status, 'ok', JSON.stringify(part));
    const text = String(part.status === 'ok' ? part.data!.snapshot : '');
    assert.match(text, /Banana/);
    assert.doesNotMatch(text, /Cherry/);
    assert.ok(text.length < whole.length);
  } finally {
    await running.close();
  }
});

test(
  'refs survive a redraw: a menu that scrolls keeps the refs of the items still shown, and names the new one anew',
  { skip: missing('dialog') },
  async () => {
    const items = ['a', 'Apple', 'b', 'Banana', 'c', 'Cherry', 'd', 'Date', 'e', 'Elder'];
    const running = await startTerminalApp({ command: 'dialog', args: ['--menu', 'Pick', '10', '40', '3', ...items], cols: 80, rows: 24 });
    try {
      const host = new SessionHost({ terminal: running.driver }, undefined, os.tmpdir());
      const refsOf = async (): Promise<Map<string, string>> => {
        const r = await runStep(host, 'snap', {});
        assert.equal(r.status, 'ok');
        const text = String(r.status === 'ok' ? r.data!.snapshot : '');
        return new Map([...text.matchAll(/\[ref=(t\d+)\] (?:item|button) "([^"]+)"/g)].map((m) => [m[2]!.replace(/^\w\s+/, ''), m[1]!]));
      };
      assert.equal((await runStep(host, 'wait_for', { text: 'Cherry' })).status, 'ok');
      const before = await refsOf();
      assert.deepEqual([...before.keys()].sort(), ['Apple', 'Banana', 'Cancel', 'Cherry', 'OK']);
      for (let i = 0; i < 3; i++) assert.equal((await runStep(host, 'press_key', { key: 'ArrowDown' })).status, 'ok');
      const after = await refsOf();
      assert.deepEqual([...after.keys()].sort(), ['Banana', 'Cancel', 'Cherry', 'Date', 'OK'], 'the list scrolled by one');
      for (const label of ['Banana', 'Cherry', 'OK', 'Cancel']) assert.equal(after.get(label), before.get(label), label);
      assert.ok(![...before.values()].includes(after.get('Date')!), `Date is new: ${after.get('Date')}`);
    } finally {
      await running.close();
    }
  },
);

test('ref names: kept where the same thing stands, kept when a unique thing moved, never reused for something new', () => {
  const ref = (name: string, kind: TerminalRef['kind'], label: string, row: number, col: number): TerminalRef => ({
    ref: name,
    kind,
    label,
    rect: { row, col, width: 4, height: 1 },
    selected: false,
    cursor: false,
  });
  const memory = {
    refs: [ref('t1', 'button', 'OK', 5, 2), ref('t2', 'button', 'Cancel', 5, 10), ref('t3', 'item', 'Gone', 2, 2)],
    next: 4,
  };
  const names = nameRefs(
    [
      { kind: 'item', label: 'New', row: 2, col: 2 },
      { kind: 'button', label: 'OK', row: 5, col: 2 },
      { kind: 'button', label: 'Cancel', row: 7, col: 10 },
    ],
    memory,
  );
  assert.deepEqual(names, ['t4', 't1', 't2']);
  assert.deepEqual(
    nameRefs(
      [
        { kind: 'item', label: 'x', row: 0, col: 0 },
        { kind: 'item', label: 'y', row: 1, col: 0 },
      ],
      undefined,
    ),
    ['t1', 't2'],
  );
});

test(
  'screenshot draws a terminal as a PNG: 8x16 px cells, its colours, and the text where the screen has it',
  { skip: missing('dialog') },
  async () => {
    const running = await startTerminalApp({
      command: 'dialog',
      args: ['--menu', 'Pick', '12', '40', '3', 'a', 'Apple', 'b', 'Banana', 'c', 'Cherry'],
      cols: 80,
      rows: 24,
    });
    const dir = tempDir();
    try {
      const host = new SessionHost({ terminal: running.driver }, undefined, dir);
      const shot = await runStep(host, 'screenshot', { path: 'menu.png' });
      assert.equal(shot.status, 'ok', JSON.stringify(shot));
      assert.ok(shot.status === 'ok' && shot.image?.mimeType === 'image/png');
      const png = fs.readFileSync(path.join(dir, 'menu.png'));
      const img = decodePng(png)!;
      assert.deepEqual([img.width, img.height], [80 * 8, 24 * 16]);
      const rgbAt = (x: number, y: number): string =>
        [...img.pixels.subarray((y * img.width + x) * img.bpp, (y * img.width + x) * img.bpp + 3)]
          .map((v) => v.toString(16).padStart(2, '0'))
          .join('');
      const { lines } = await running.driver.screen();
      const row = lines.findIndex((l) => l.includes('Banana'));
      const col = lines[row]!.indexOf('Banana');
      // dialog's box is grey (palette 7) with black text; the screen around it is blue (palette 4).
      assert.equal(rgbAt(0, 0), '0000ee', 'the backdrop');
      const cell = new Set<string>();
      for (let y = 0; y < 16; y++) for (let x = 0; x < 8; x++) cell.add(rgbAt(col * 8 + x, row * 16 + y));
      assert.deepEqual([...cell].sort(), ['000000', 'e5e5e5'], 'the B of Banana: black ink on the grey box');
      const text = await runStep(host, 'screenshot', {});
      assert.ok(
        text.status === 'ok' && text.data!.format === 'text' && String(text.data!.text).includes('Banana'),
        'with no format, the text',
      );
      const jpeg = await runStep(host, 'screenshot', { format: 'jpeg' });
      assert.equal(jpeg.status, 'failed');
    } finally {
      await running.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
);

test('the PNG renderer: a glyph in its colour, reverse video, a box-drawing line across the cell', () => {
  const plain = {
    fg: 'default',
    bg: 'default',
    bold: false,
    dim: false,
    italic: false,
    underline: false,
    inverse: false,
    invisible: false,
    strikethrough: false,
  } as const;
  const png = renderCellsPng({
    cols: 3,
    rows: 1,
    cells: [
      [
        [0, { chars: 'A', width: 1, style: { ...plain, fg: 1 } }],
        [1, { chars: ' ', width: 1, style: { ...plain, inverse: true } }],
        [2, { chars: '─', width: 1, style: plain }],
      ],
    ],
    cursor: { row: 0, col: 0, visible: false },
  });
  const img = decodePng(png)!;
  assert.deepEqual([img.width, img.height], [24, 16]);
  const at = (x: number, y: number): number => img.pixels.readUIntBE((y * img.width + x) * 3, 3);
  // Terminus's A: its crossbar is row 7, pixels 1-6 of the cell.
  assert.deepEqual(
    [0, 1, 6, 7].map((x) => at(x, 7)),
    [0x000000, 0xcd0000, 0xcd0000, 0x000000],
  );
  assert.equal(at(8, 0), 0xe5e5e5, 'reverse video: the default foreground as background');
  assert.deepEqual(
    [16, 19, 23].map((x) => at(x, 7)),
    [0xe5e5e5, 0xe5e5e5, 0xe5e5e5],
  );
  assert.equal(at(19, 3), 0x000000, 'only the line row');
  assert.equal(paletteRgb(196), 0xff0000);
  assert.equal(paletteRgb(244), 0x808080);
});

test('MCP: app_start {terminal} serves the same tools on a terminal program; page-only tools say why; app_stop ends it', async () => {
  const dir = tempDir();
  fs.writeFileSync(
    path.join(dir, 'ask.js'),
    "require('readline').createInterface({ input: process.stdin, output: process.stdout }).question('Name? ', (n) => { console.log(`Hello, ${n}!`); setTimeout(() => {}, 60000); });\n",
  );
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [path.join(ROOT, 'bin', 'perf'), 'mcp', '--caps', 'all'],
    cwd: dir,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'rehearse-test', version: '0.0.0' });
  await client.connect(transport);
  const call = async (
    name: string,
    args: Record<string, unknown> = {},
  ): Promise<{ isError: boolean; text: string; json: Record<string, any> }> => {
    const res = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { type: string; text?: string }[] };
    const text = res.content.find((c) => c.type === 'text')?.text ?? '';
    return { isError: res.isError === true, text, json: JSON.parse(text) as Record<string, any> };
  };
  try {
    const started = await call('app_start', { terminal: { command: process.execPath, args: ['ask.js'], cols: 80, rows: 24 } });
    assert.equal(started.isError, false, started.text);
    const pid = started.json.data.terminal.pid as number;
    const snap = await call('snap');
    assert.match(snap.json.data.snapshot, /Name\?/);
    assert.equal((await call('fill', { text: 'Ada' })).isError, false);
    assert.equal((await call('press_key', { key: 'Enter' })).isError, false);
    const waited = await call('wait_for', { text: 'Hello, Ada!' });
    assert.equal(waited.isError, false, waited.text);
    const status = await call('app_status');
    assert.equal(status.json.data.terminal.pid, pid);
    const restarted = await call('app_restart');
    assert.equal(restarted.isError, false, restarted.text);
    assert.notEqual(restarted.json.data.terminal.pid, pid, 'a fresh process');
    assert.equal(isAlive(pid), false, 'the old one is gone');
    assert.match((await call('snap')).json.data.snapshot, /Name\?/);
    const nav = await call('navigate', { url: '/x' });
    assert.equal(nav.isError, true);
    assert.match(nav.text, /navigate acts on a web page; this app is a terminal program/);
    const current = (await call('app_status')).json.data.terminal.pid as number;
    const stopped = await call('app_stop');
    assert.equal(stopped.json.data.terminal, true);
    assert.equal(isAlive(current), false);
  } finally {
    await client.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
