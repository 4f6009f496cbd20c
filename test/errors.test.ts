/**
 * Typed errors: every code thrown is declared once (src/error-codes.ts) and every declared code is
 * thrown; the kinds map to DESIGN.md "Exit codes"; each door shows advice that applies there.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { DOORS, ERRORS, doorSuggestion, exitCodeOf, infoAt, keepGoingAdvice, PerfError, type ErrorCode } from '../src/errors.js';
import { doorOf, reportError } from '../src/cli/main.js';
import { errorReply, renderReply, stepReply } from '../src/mcp/format.js';
import { toErrorInfo } from '../src/engine/run-step.js';
import { TargetClosedError, WebDriverTimeoutError } from '../src/drivers/errors.js';
import { ROOT } from './helpers.js';

const DECLARED = Object.keys(ERRORS);
const SNAKE = /^[a-z][a-z0-9]*(_[a-z0-9]+)+$|^[a-z]+$/;

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sourceFiles(p, out);
    else if (p.endsWith('.ts')) out.push(p);
  }
  return out;
}

const FILES = [...sourceFiles(join(ROOT, 'src')), ...sourceFiles(join(ROOT, 'reporters'))].map((file) => ({
  file: relative(ROOT, file),
  source: ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true),
}));

function visitAll(fn: (node: ts.Node, file: string) => void): void {
  for (const { file, source } of FILES) {
    const visit = (n: ts.Node): void => {
      fn(n, file);
      ts.forEachChild(n, visit);
    };
    visit(source);
  }
}

/** The string literals an expression can yield (through `a ? 'x' : 'y'`), else undefined. */
function literals(e: ts.Expression): string[] | undefined {
  if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) return [e.text];
  if (ts.isParenthesizedExpression(e)) return literals(e.expression);
  if (ts.isConditionalExpression(e)) {
    const a = literals(e.whenTrue);
    const b = literals(e.whenFalse);
    return a && b ? [...a, ...b] : undefined;
  }
  return undefined;
}

test('every error code in the sources is declared in src/error-codes.ts, and every declared code is used', { timeout: 60_000 }, () => {
  // Codes given in an object literal: `code: 'x'` (a PerfError, or error data such as a step result's)
  // and `invalidCode: 'x'` (a JSON file kind). Keyboard codes ('Enter', 'KeyA') are not snake_case.
  const undeclared: string[] = [];
  visitAll((n, file) => {
    if (!ts.isPropertyAssignment(n) || !ts.isIdentifier(n.name) || !/^(code|[a-z]+Code)$/.test(n.name.text)) return;
    for (const code of literals(n.initializer) ?? []) {
      if (SNAKE.test(code) && !Object.hasOwn(ERRORS, code)) undeclared.push(`${file}: ${code}`);
    }
  });
  assert.deepEqual(undeclared, [], 'codes thrown but not declared');

  // A declared code is in use when its literal appears anywhere outside the declarations.
  const used = new Set<string>();
  visitAll((n, file) => {
    if (file === join('src', 'error-codes.ts')) return;
    if (ts.isStringLiteral(n) && Object.hasOwn(ERRORS, n.text)) used.add(n.text);
  });
  assert.deepEqual(
    DECLARED.filter((c) => !used.has(c)),
    [],
    'declared codes no source throws',
  );
  assert.ok(DECLARED.length > 150, `${DECLARED.length} codes`);
});

test('exit kinds map as DESIGN.md "Exit codes" says', { timeout: 10_000 }, () => {
  // DESIGN.md: 1 the thing judged failed · 2 invalid usage or input · 3 environment problem · 4 internal error.
  assert.deepEqual([exitCodeOf('failed'), exitCodeOf('usage'), exitCodeOf('environment'), exitCodeOf('internal')], [1, 2, 3, 4]);
  const exit = (code: ErrorCode): number => exitCodeOf(new PerfError({ code, message: 'm' }).kind);
  // The examples DESIGN.md names, each by the code perf throws for it.
  const examples: [ErrorCode, number][] = [
    ['assertion_failed', 1], // assertion failed
    ['expect_failed', 1],
    ['unknown_flag', 2], // bad flags
    ['invalid_flag', 2],
    ['scenario_invalid', 2], // bad scenario
    ['run_file_unreadable', 2], // unreadable run file
    ['run_file_invalid', 2],
    ['chrome_not_found', 3], // no browser found
    ['app_start_timeout', 3], // app did not start
    ['app_exited', 3],
    ['port_taken', 3], // port taken
    ['internal_error', 4], // a bug
    ['target_closed', 3],
    ['webdriver_timeout', 3],
  ];
  for (const [code, want] of examples) assert.equal(exit(code), want, code);
  // A code with several kinds lists its default among them; a site's kind applies where allowed.
  for (const [code, decl] of Object.entries(ERRORS)) {
    const kinds: readonly string[] | undefined = 'kinds' in decl ? decl.kinds : undefined;
    if (kinds) assert.ok(kinds.includes(decl.kind), code);
  }
  assert.equal(new PerfError({ code: 'stale_ref', kind: 'failed', message: 'm' }).kind, 'failed');
});

// Verbs that exist in one door only: a session's CLI verbs, or MCP tools.
const SESSION_ONLY = /perf (restart|logs|status|stop)\b/;
const MCP_ONLY = /\bapp_(restart|start|logs|status|stop)\b/;
// One option, a flag on the command line and an argument over MCP.
const CLI_FLAG = /--keep-going\b/;
const MCP_ARGUMENT = /\bkeepGoing\b/;

test('every default suggestion names only what exists at its door', { timeout: 10_000 }, () => {
  const wrong: string[] = [];
  for (const code of DECLARED) {
    for (const door of DOORS) {
      const s = doorSuggestion(code, door);
      assert.ok(s, `${code} has a suggestion at ${door}`);
      if (door !== 'session' && SESSION_ONLY.test(s)) wrong.push(`${code} @${door}: ${s}`);
      if (door !== 'mcp' && MCP_ONLY.test(s)) wrong.push(`${code} @${door}: ${s}`);
      if (door === 'mcp' ? CLI_FLAG.test(s) : MCP_ARGUMENT.test(s)) wrong.push(`${code} @${door}: ${s}`);
    }
  }
  assert.deepEqual(wrong, []);
});

test('below the edges, no string names a door-only verb: the edges add the advice', { timeout: 60_000 }, () => {
  const below = /^(src\/(engine|steps|page|drivers|runner|perf|scenario)|reporters)\//;
  const found: string[] = [];
  visitAll((n, file) => {
    if (!below.test(file.split('\\').join('/'))) return;
    if (
      (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n) || ts.isTemplateHead(n)) &&
      (SESSION_ONLY.test(n.text) || MCP_ONLY.test(n.text))
    )
      found.push(`${file}: ${n.text}`);
  });
  assert.deepEqual(found, []);
});

test('a closed page: "perf restart" only in a session, app_restart only over MCP, neither in perf run', { timeout: 10_000 }, async () => {
  // What the engine records for a page that went away: no advice of its own (run files keep it so).
  const info = toErrorInfo(new TargetClosedError('Inspector.detached: target closed'));
  assert.equal(info.code, 'target_closed');
  assert.equal(info.suggestion, undefined);
  const run = infoAt(info, 'run').suggestion!;
  assert.doesNotMatch(run, /restart/);
  assert.match(infoAt(info, 'session').suggestion!, /perf restart/);
  assert.match(infoAt(info, 'mcp').suggestion!, /app_restart/);

  // The MCP edge: a failed step's reply carries the MCP advice.
  const failed = { step: 'tap', label: 'tap', durationMs: 1, startedAt: 0, status: 'failed' as const, error: info };
  const mcpReply = JSON.parse(renderReply(stepReply(failed)).text) as { code: string; suggestion: string };
  assert.equal(mcpReply.code, 'target_closed');
  assert.match(mcpReply.suggestion, /app_restart/);
  // The same reply printed by a CLI verb (perf tap) carries the session's.
  const verbReply = JSON.parse(renderReply(stepReply(failed), { door: 'session' }).text) as { suggestion: string };
  assert.match(verbReply.suggestion, /perf restart/);

  // The CLI edge: `perf run` prints the run door's hint, `perf snap` the session's.
  const crashed = new PerfError({ code: 'page_crashed', message: 'the renderer crashed' });
  const [runDoor, snapDoor] = [await doorOf('run'), await doorOf('snap')];
  const runHint = stderrOf(() => reportError(crashed, runDoor));
  assert.equal(runHint.exit, 3);
  assert.match(runHint.text, /hint: each run starts its own app and browser/);
  assert.doesNotMatch(runHint.text, /restart/);
  assert.match(stderrOf(() => reportError(crashed, snapDoor)).text, /hint: run `perf restart`/);
  assert.match(JSON.parse(renderReply(errorReply(crashed)).text).suggestion, /app_restart/);

  // A throw site's own suggestion wins at every door.
  const own = new PerfError({ code: 'page_crashed', message: 'm', suggestion: 'free memory' });
  for (const door of DOORS) assert.equal(own.suggestionAt(door), 'free memory');
});

test('a WebDriver request timeout is its own error: which command, which server, how long', { timeout: 10_000 }, () => {
  const e = new WebDriverTimeoutError('execute script', 'http://127.0.0.1:4444', 1500);
  // Still a closed target for the driver (the page counts as gone), but reported as what it is.
  assert.ok(e instanceof TargetClosedError);
  const info = toErrorInfo(e);
  assert.equal(info.code, 'webdriver_timeout');
  assert.equal(info.kind, 'environment');
  assert.match(info.message, /^execute script: no answer from the WebDriver server in 1500 ms \(http:\/\/127\.0\.0\.1:4444\)/);
  assert.doesNotMatch(infoAt(info, 'run').suggestion!, /restart/);
  assert.match(infoAt(info, 'mcp').suggestion!, /app_restart/);
});

test('doors: step verbs and lifecycle commands are the session door, mcp its own, the rest the run door', { timeout: 10_000 }, async () => {
  for (const c of ['run', 'gate', 'compare', 'report', 'merge', 'validate', undefined]) assert.equal(await doorOf(c), 'run', String(c));
  for (const c of ['start', 'stop', 'restart', 'status', 'logs', 'doctor', 'snap', 'tap']) assert.equal(await doorOf(c), 'session', c);
  assert.equal(await doorOf('mcp'), 'mcp');
});

function stderrOf(fn: () => number): { exit: number; text: string } {
  const write = process.stderr.write;
  let text = '';
  process.stderr.write = ((chunk: string | Uint8Array): boolean => {
    text += String(chunk);
    return true;
  }) as typeof process.stderr.write;
  try {
    return { exit: fn(), text };
  } finally {
    process.stderr.write = write;
  }
}

test("a throw site's advice per door: each door names keep-going its own way, with the step's own advice kept", { timeout: 10_000 }, () => {
  const e = new PerfError({ code: 'step_fails_every_repeat', message: 'm', suggestion: keepGoingAdvice('use one of the refs') });
  const cli = stderrOf(() => reportError(e, 'run')).text;
  assert.match(cli, /hint: use one of the refs; --keep-going runs every repeat anyway/);
  assert.doesNotMatch(cli, MCP_ARGUMENT);
  const mcp = JSON.parse(renderReply(errorReply(e)).text) as Record<string, unknown>;
  assert.equal(mcp.suggestion, 'use one of the refs; keepGoing: true runs every repeat anyway');
  assert.equal(mcp.suggestions, undefined, 'the reply carries one suggestion, that of its door');
  assert.match(JSON.parse(renderReply(errorReply(e), { door: 'session' }).text).suggestion, /; --keep-going runs/);
  // What logs and files keep (toJSON) is the run door's text.
  assert.equal(e.toJSON().suggestion, 'use one of the refs; --keep-going runs every repeat anyway');
});
