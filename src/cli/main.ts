/**
 * `perf` entry: dispatches to a command, an MCP server or a step verb, and is the one place where
 * errors become an exit code and a stderr line (DESIGN.md "Exit codes").
 */
import { readFileSync } from 'node:fs';
import { closest, exitCodeOf, isPerfError, PerfError, printable, type Door } from '../errors.js';
import { stepNames } from '../steps/registry.js';
import { installSignalHandlers } from '../processes.js';
import { hideCredentials } from '../url.js';
import { flagsHelp, parseFlags } from './args.js';
import type { CommandDefinition } from './command.js';
import { doctorCommand, logsCommand, restartCommand, startCommand, statusCommand, stopCommand } from './lifecycle.js';
import { runCommand, schemaCommand, validateCommand } from './run.js';
import { compareCommand } from './compare.js';
import { gateCommand } from './gate.js';
import { mergeCommand } from './merge.js';
import { selftestCommand } from './selftest.js';
import { metricsCommand } from './metrics.js';
import { replayCommand } from './replay.js';
import { importCommand } from './import.js';
import { reportCommand } from './report.js';
import { leaksCommand } from './leaks.js';
import { historyCommand } from './history.js';

/** Every command, in the order `perf --help` lists them. Step verbs are added from the registry. */
export const COMMANDS: readonly CommandDefinition[] = [
  runCommand,
  compareCommand,
  gateCommand,
  mergeCommand,
  selftestCommand,
  leaksCommand,
  historyCommand,
  metricsCommand,
  replayCommand,
  importCommand,
  reportCommand,
  validateCommand,
  schemaCommand,
  startCommand,
  stopCommand,
  statusCommand,
  logsCommand,
  restartCommand,
  doctorCommand,
];

// Served by other modules with their own flag handling.
const EXTERNAL = ['mcp'] as const;

export function toolVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
    return pkg.version;
  } catch {
    return 'unknown';
  }
}

function mainHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length), 8) + 2;
  const steps = stepNames();
  return [
    `perf ${toolVersion()} — rehearse: scenario runner and performance harness (Chromium, WebKit, Tauri, terminal programs)`,
    '',
    'Usage: perf <command> [flags]     perf <command> --help',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}${c.summary}`),
    `  ${'mcp'.padEnd(width)}Serve the steps as MCP tools (stdio, or --http PORT)`,
    '',
    steps.length ? `Step verbs (against the session of \`perf start\`): ${steps.join(', ')}` : '',
    '',
    'Exit codes: 0 ok · 1 judged failed · 2 invalid usage or input · 3 environment problem · 4 internal error (a bug in perf; report it)',
  ]
    .filter((l, i, a) => !(l === '' && a[i - 1] === ''))
    .join('\n');
}

function commandHelp(c: CommandDefinition): string {
  return [
    `perf ${c.usage}`,
    '',
    c.summary + '.',
    ...(c.details ? ['', c.details] : []),
    ...(c.subcommands ? ['', 'Verbs:', ...c.subcommands.map((s) => `  perf ${s.usage}\n      ${s.summary}.`)] : []),
    '',
    'Flags:',
    flagsHelp(c.flags),
    '  -h, --help   Show this help.',
  ].join('\n');
}

/** A command, or the verb of a command with subcommands (`perf history add …`), with its own flags and help. */
async function runDefinition(command: CommandDefinition, rest: string[]): Promise<number> {
  const sub = command.subcommands?.find((s) => s.name === rest[0]);
  if (sub) return runDefinition({ ...sub, name: `${command.name} ${sub.name}` }, rest.slice(1));
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(commandHelp(command) + '\n');
    return 0;
  }
  const { flags, positionals } = parseFlags(rest, command.flags, command.name);
  return command.run(flags, positionals);
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    if (name === 'help' && rest[0]) return main([rest[0], '--help']);
    process.stdout.write(mainHelp() + '\n');
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-v') {
    process.stdout.write(toolVersion() + '\n');
    return 0;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (command) return runDefinition(command, rest);
  if (name === 'mcp') {
    const { runMcp } = (await import(new URL('../mcp/server.js', import.meta.url).href)) as { runMcp(argv: string[]): Promise<number> };
    return runMcp(rest);
  }
  if (stepNames().includes(name)) {
    const verbs = (await import(new URL('./verbs.js', import.meta.url).href)) as {
      runVerb(step: string, argv: string[]): Promise<number>;
      verbHelp(step: string): string;
    };
    if (rest.includes('--help') || rest.includes('-h')) {
      process.stdout.write(verbs.verbHelp(name) + '\n');
      return 0;
    }
    return verbs.runVerb(name, rest);
  }
  const near = closest(name, [...COMMANDS.map((c) => c.name), ...EXTERNAL, ...stepNames()]);
  throw new PerfError({
    code: 'unknown_command',
    message: `unknown command "${name}"${near.length ? `; did you mean ${near.map((n) => `"${n}"`).join(' or ')}?` : ''}`,
    suggestion: 'run `perf --help` for the list of commands',
    candidates: near,
  });
}

// The commands that act on the session of `perf start`: their advice may name `perf restart`, `perf logs`.
const SESSION_COMMANDS: ReadonlySet<string> = new Set(
  [startCommand, stopCommand, statusCommand, logsCommand, restartCommand, doctorCommand].map((c) => c.name),
);

/**
 * Which door a command line is, so an error's default advice fits it: a step verb or a lifecycle
 * command works on a session, `perf mcp` serves agents, everything else (run, gate, compare…) starts
 * and ends its own app and browser, where "restart the app" means nothing.
 */
export function doorOf(command: string | undefined): Door {
  if (command === 'mcp') return 'mcp';
  if (command !== undefined && (SESSION_COMMANDS.has(command) || stepNames().includes(command))) return 'session';
  return 'run';
}

/**
 * Print an error as one line (plus a hint), never a stack for a user mistake. Anything but a PerfError
 * is a bug in perf: exit 4, which CI never mistakes for 1 (regressed).
 */
export function reportError(e: unknown, door: Door = 'run'): number {
  if (isPerfError(e)) {
    process.stderr.write(`perf: ${printable(hideCredentials(e.message))}\n`);
    const suggestion = e.suggestionAt(door);
    if (suggestion) process.stderr.write(`  hint: ${printable(hideCredentials(suggestion))}\n`);
    // One line of JSON, last, so `2>&1 | tail -n1` recovers it.
    if (e.salvage !== undefined) process.stderr.write(`${JSON.stringify(e.salvage)}\n`);
    return exitCodeOf(e.kind);
  }
  const err = e as Error;
  process.stderr.write(
    `perf: internal error: ${printable(hideCredentials(err?.message ?? String(e)))}\n ` +
      ` hint: this is a bug in perf; set PERF_DEBUG=1 for the stack and report it\n`,
  );
  if (process.env.PERF_DEBUG) process.stderr.write(`${err?.stack ?? ''}\n`);
  return exitCodeOf('internal');
}

// 10 s after the command has finished: every close it does is bounded (5 s for a WebSocket's closing
// handshake); a handle still open past that is a leak, and must not keep a CI job waiting.
const LINGER_MS = 10_000;

export async function cli(argv: string[]): Promise<void> {
  installSignalHandlers();
  let code: number;
  try {
    code = await main(argv);
  } catch (e) {
    code = reportError(e, doorOf(argv[0]));
  }
  process.exitCode = code;
  setTimeout(() => {
    if (process.env.PERF_DEBUG) process.stderr.write(`perf: still running ${LINGER_MS} ms after the command finished; exiting\n`);
    process.exit(code);
  }, LINGER_MS).unref();
}
