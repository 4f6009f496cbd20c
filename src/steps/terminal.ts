/**
 * The steps on a terminal program (app.terminal): the same names and meanings as on a page, acting
 * on screen cells through the terminal contract. Each input answers with its latency (written → the
 * screen settled) and whether the screen changed; text edits read the cursor line back.
 */
import { PerfError } from '../errors.js';
import { confinedPath, writeFileNoFollow } from '../files.js';
import { asModifiers, parseKeyCombo, type TerminalActionTiming, type TerminalTargetSpec } from '../page/index.js';
import type { StepOutput, TargetSpec, TerminalStepContext } from './define.js';

// How often an assertion re-reads the screen while it waits: a screen settles in tens of ms.
const POLL_MS = 25;

/** A step's ref / target as a terminal target: ref (t3), text, contains, or a row/col cell. */
export function terminalTarget(args: { ref?: string; target?: TargetSpec }, step: string): TerminalTargetSpec {
  if (args.ref !== undefined) return { ref: args.ref };
  const t = args.target as (TargetSpec & { row?: number; col?: number }) | undefined;
  if (t?.row !== undefined && t.col !== undefined) return { row: t.row, col: t.col };
  if (t?.text !== undefined) return { text: t.text };
  if (t?.contains !== undefined) return { contains: t.contains };
  throw new PerfError({
    code: 'invalid_arguments',
    message: `${step}: on a terminal, give ref (t3 from snap) or target { text | contains | row + col }`,
  });
}

function inputOutput(t: TerminalActionTiming, data: Record<string, unknown> = {}): StepOutput {
  return {
    data: {
      ...data,
      ...(t.latencyMs !== undefined ? { latencyMs: Math.round(t.latencyMs * 100) / 100 } : {}),
      bytesOut: t.bytesOut,
      ...(t.settled ? {} : { settled: false }),
    },
    effect: { treeChanged: { changed: t.bytesOut > 0 } },
    ...(t.settled ? {} : { warnings: ['the screen was still changing when the step ended (a program that redraws continuously)'] }),
  };
}

export async function terminalSnap(
  ctx: TerminalStepContext,
  args: { grep?: string; diff?: boolean; maxBytes?: number; within?: string },
): Promise<StepOutput> {
  const s = await ctx.terminal.snapshot({
    ...(args.grep ? { grep: args.grep } : {}),
    ...(args.diff ? { diff: true } : {}),
    ...(args.maxBytes ? { maxBytes: args.maxBytes } : {}),
    ...(args.within ? { within: args.within } : {}),
  });
  return { data: { snapshot: s.text, bytes: s.bytes, ...(s.truncated ? { truncated: true } : {}) } };
}

export async function terminalPointer(
  ctx: TerminalStepContext,
  step: string,
  args: { ref?: string; target?: TargetSpec },
  clickCount: number | 'hover',
): Promise<StepOutput> {
  const at = await ctx.terminal.resolve(terminalTarget(args, step));
  const t = clickCount === 'hover' ? await ctx.terminal.hover(at.row, at.col) : await ctx.terminal.click(at.row, at.col, { clickCount });
  return inputOutput(t, { target: at.label, row: at.row, col: at.col, ...(at.ref ? { ref: at.ref } : {}) });
}

/** Type (key by key) or fill (one paste) at the cursor, then read the cursor line back. */
export async function terminalText(
  ctx: TerminalStepContext,
  step: 'type' | 'fill',
  args: { ref?: string; target?: TargetSpec; text: string },
): Promise<StepOutput> {
  if (args.ref !== undefined || args.target !== undefined) {
    // A field is where the cursor is: a target elsewhere would need a click the program may not take.
    const at = await ctx.terminal.resolve(terminalTarget(args, step));
    const { cursor } = await ctx.terminal.screen();
    if (at.row !== cursor.row)
      throw new PerfError({
        code: 'not_at_cursor',
        kind: 'failed',
        message: `${step}: ${at.label} is on row ${at.row}, the cursor on row ${cursor.row}`,
        suggestion: 'move the cursor there with keys (press_key), or drop the target to type at the cursor',
      });
  }
  const t = step === 'type' ? await ctx.terminal.type(args.text) : await ctx.terminal.paste(args.text);
  const { lines, cursor } = await ctx.terminal.screen();
  const value = lines[cursor.row] ?? '';
  // A multi-line text ends on a later row; its last line is what the cursor line shows.
  const last = args.text.split(/\r?\n/).pop() ?? '';
  const out = inputOutput(t);
  return { ...out, effect: { ...out.effect, text: { verified: value.includes(last), value, expected: args.text } } };
}

// One wheel notch per 100 px asked for, 3 when no amount is given: what terminals scroll by default.
const PX_PER_NOTCH = 100;
const DEFAULT_NOTCHES = 3;

/** scroll on a terminal: wheel notches through mouse reporting, at a target cell or the screen's centre. */
export async function terminalScroll(
  ctx: TerminalStepContext,
  args: { ref?: string; target?: TargetSpec; direction?: 'up' | 'down' | 'left' | 'right'; pixels?: number; dy?: number },
): Promise<StepOutput> {
  if (args.direction === 'left' || args.direction === 'right')
    throw new PerfError({ code: 'invalid_arguments', message: 'scroll: a terminal scrolls up or down only' });
  const amount =
    args.dy ??
    (args.direction === 'up' ? -(args.pixels ?? DEFAULT_NOTCHES * PX_PER_NOTCH) : (args.pixels ?? DEFAULT_NOTCHES * PX_PER_NOTCH));
  const notches = Math.sign(amount) * Math.max(1, Math.round(Math.abs(amount) / PX_PER_NOTCH));
  const at =
    args.ref !== undefined || args.target !== undefined
      ? await ctx.terminal.resolve(terminalTarget(args, 'scroll'))
      : { row: Math.floor(ctx.terminal.size.rows / 2), col: Math.floor(ctx.terminal.size.cols / 2) };
  return inputOutput(await ctx.terminal.scroll(at.row, at.col, notches), { notches });
}

export async function terminalPressKey(
  ctx: TerminalStepContext,
  args: { key: string; modifiers?: readonly string[]; repeat?: number },
): Promise<StepOutput> {
  const combo = parseKeyCombo(args.key);
  const t = await ctx.terminal.pressKey(combo.key, [...combo.modifiers, ...asModifiers(args.modifiers)], args.repeat ?? 1);
  return inputOutput(t, { key: args.key });
}

export async function terminalWaitFor(
  ctx: TerminalStepContext,
  args: { text?: string; textGone?: string; idleMs?: number },
): Promise<StepOutput> {
  if (args.text === undefined && args.textGone === undefined && args.idleMs === undefined) {
    throw new PerfError({
      code: 'invalid_arguments',
      message: 'wait_for: give text, textGone or idleMs',
      suggestion: 'e.g. wait_for: { text: "Saved" }',
    });
  }
  const started = Date.now();
  await ctx.terminal.waitFor({
    ...(args.text !== undefined ? { text: args.text } : {}),
    ...(args.textGone !== undefined ? { textGone: args.textGone } : {}),
    ...(args.idleMs !== undefined ? { idleMs: args.idleMs } : {}),
    timeoutMs: Math.max(1, ctx.deadline - Date.now()),
  });
  return { data: { waitedMs: Date.now() - started } };
}

/** expect on a terminal: the screen shows text (a line equals it, or contains it), a target is there or not. */
export async function terminalExpect(
  ctx: TerminalStepContext,
  args: {
    ref?: string;
    target?: TargetSpec;
    visible?: boolean;
    hidden?: boolean;
    text?: string;
    textContains?: string;
    cursor?: { row: number; col: number };
  },
): Promise<StepOutput> {
  const hasTarget = args.ref !== undefined || args.target !== undefined;
  const failures = async (): Promise<string[]> => {
    const { lines, cursor } = await ctx.terminal.screen();
    const out: string[] = [];
    if (args.cursor && (cursor.row !== args.cursor.row || cursor.col !== args.cursor.col))
      out.push(`the cursor is at row ${cursor.row} col ${cursor.col}, not row ${args.cursor.row} col ${args.cursor.col}`);
    if (args.text !== undefined && !lines.some((l) => l.trim() === args.text!.trim())) out.push(`no line is ${JSON.stringify(args.text)}`);
    if (args.textContains !== undefined && !lines.some((l) => l.toLowerCase().includes(args.textContains!.toLowerCase())))
      out.push(`the screen does not contain ${JSON.stringify(args.textContains)}`);
    if (hasTarget && (args.visible !== undefined || args.hidden !== undefined)) {
      const found = await ctx.terminal.resolve(terminalTarget(args, 'expect')).then(
        () => true,
        (e: unknown) => {
          if (e instanceof PerfError && /ambiguous/.test(e.code)) throw e;
          return false;
        },
      );
      if ((args.visible === true || args.hidden === false) && !found) out.push('the target is not on the screen');
      if ((args.hidden === true || args.visible === false) && found) out.push('the target is still on the screen');
    }
    return out;
  };
  for (;;) {
    const failed = await failures();
    if (failed.length === 0) return { data: { passed: true } };
    if (Date.now() >= ctx.deadline) {
      const { lines } = await ctx.terminal.screen();
      throw new PerfError({
        code: 'assertion_failed',
        kind: 'failed',
        message: `expect: ${failed.join('; ')}; the screen ends with: ${lines
          .filter((l) => l.trim())
          .slice(-4)
          .join(' | ')
          .slice(0, 300)}`,
        suggestion: 'snap to see the screen',
      });
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

export function terminalConsole(ctx: TerminalStepContext): StepOutput {
  const out = ctx.terminal.readOutput();
  return { data: { output: out.text, ...(out.droppedChars ? { droppedChars: out.droppedChars } : {}) } };
}

/**
 * The screen as text, or drawn as a PNG (format png, or a path ending in .png): what an agent reads
 * cheaply, and what a human reviews. Written to the path when one is given.
 */
export async function terminalScreenshot(
  ctx: TerminalStepContext,
  args: { path?: string; overwrite?: boolean; format?: string },
): Promise<StepOutput> {
  const png = args.format === 'png' || (args.path !== undefined && /\.png$/i.test(args.path));
  if (
    args.format === 'jpeg' ||
    (args.path !== undefined && !/\.(png|txt)$/i.test(args.path)) ||
    (args.format === 'png' && args.path !== undefined && !/\.png$/i.test(args.path))
  ) {
    throw new PerfError({
      code: 'unsupported_on_driver',
      message: 'screenshot: a terminal is captured as text (.txt) or drawn as a PNG (.png)',
      suggestion: 'give a path ending in .png or .txt, or format: png, or nothing for the text',
    });
  }
  const file = args.path !== undefined ? await confinedPath(ctx.host.cwd, args.path, 'screenshot') : undefined;
  if (png) {
    const bytes = await ctx.terminal.screenshotPng();
    if (file) writeFileNoFollow(file, bytes, { overwrite: args.overwrite === true, who: 'screenshot', shown: args.path! });
    const { cols, rows } = ctx.terminal.size;
    return {
      image: { mimeType: 'image/png', base64: bytes.toString('base64') },
      data: {
        format: 'png',
        width: bytes.readUInt32BE(16),
        height: bytes.readUInt32BE(20),
        bytes: bytes.length,
        cols,
        rows,
        ...(args.path !== undefined ? { path: args.path } : {}),
      },
    };
  }
  const { lines } = await ctx.terminal.screen();
  const text = lines.join('\n').replace(/\n+$/, '') + '\n';
  if (file) writeFileNoFollow(file, text, { overwrite: args.overwrite === true, who: 'screenshot', shown: args.path! });
  return { data: { format: 'text', text, ...(args.path !== undefined ? { path: args.path } : {}) } };
}
