/**
 * `perf` entry: dispatches to a command, an MCP server or a step verb, and is the one place where
 * errors become an exit code and a stderr line (DESIGN.md "Exit codes").
 */
import { readFileSync } from 'node:fs';
import { closest, exitCodeOf, isPerfError, PerfError, type Door } from '../errors.js';
import { printable } from '../printable.js';
import { installSignalHandlers } from '../processes.js';
import { hideCredentials } from '../url.js';
import { flagsHelp, parseFlags } from './args.js';
import type { CommandDefinition } from './command.js';

/**
 * A command by name, its module loaded only when it runs: `perf run` needs the runner and every step,
 * `perf compare`, `perf status` or a step verb do not, and loading all of them cost every command ~0.3 s.
 */
interface CommandEntry {
  name: string;
  /** A command of the session of `perf start`: its advice may name `perf restart`, `perf logs`. */
  session?: true;
  load(): Promise<CommandDefinition>;
}

/** Every command, in the order `perf --help` lists them. Step verbs are added from the registry. */
const COMMAND_ENTRIES: readonly CommandEntry[] = [
  { name: 'run', load: async () => (await import('./run.js')).runCommand },
  { name: 'compare', load: async () => (await import('./compare.js')).compareCommand },
  { name: 'gate', load: async () => (await import('./gate.js')).gateCommand },
  { name: 'merge', load: async () => (await import('./merge.js')).mergeCommand },
  { name: 'selftest', load: async () => (await import('./selftest.js')).selftestCommand },
  { name: 'leaks', load: async () => (await import('./leaks.js')).leaksCommand },
  { name: 'bisect', load: async () => (await import('./bisect.js')).bisectCommand },
  { name: 'history', load: async () => (await import('./history.js')).historyCommand },
  { name: 'metrics', load: async () => (await import('./metrics.js')).metricsCommand },
  { name: 'replay', load: async () => (await import('./replay.js')).replayCommand },
  { name: 'import', load: async () => (await import('./import.js')).importCommand },
  { name: 'report', load: async () => (await import('./report.js')).reportCommand },
  { name: 'validate', load: async () => (await import('./validate.js')).validateCommand },
  { name: 'schema', load: async () => (await import('./validate.js')).schemaCommand },
  { name: 'start', session: true, load: async () => (await import('./lifecycle.js')).startCommand },
  { name: 'stop', session: true, load: async () => (await import('./lifecycle.js')).stopCommand },
  { name: 'status', session: true, load: async () => (await import('./lifecycle.js')).statusCommand },
  { name: 'logs', session: true, load: async () => (await import('./lifecycle.js')).logsCommand },
  { name: 'restart', session: true, load: async () => (await import('./lifecycle.js')).restartCommand },
  { name: 'doctor', session: true, load: async () => (await import('./lifecycle.js')).doctorCommand },
  { name: 'state', session: true, load: async () => (await import('./state.js')).stateCommand },
];

/** Every command's definition (for `perf --help` and the generated docs/cli.md): loads them all. */
export async function commands(): Promise<readonly CommandDefinition[]> {
  const defs = await Promise.all(COMMAND_ENTRIES.map((c) => c.load()));
  // A command's entry and its definition name it once each: a mismatch is a bug caught by the first --help.
  defs.forEach((d, i) => {
    if (d.name !== COMMAND_ENTRIES[i]!.name) throw new Error(`command entry ${COMMAND_ENTRIES[i]!.name} loads ${d.name}`);
  });
  return defs;
}

/** The step verbs, from the step registry (loaded only when a name is not a command). */
async function stepNames(): Promise<string[]> {
  return (await import('../steps/registry.js')).stepNames();
}

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

async function mainHelp(): Promise<string> {
  const all = await commands();
  const width = Math.max(...all.map((c) => c.name.length), 8) + 2;
  const steps = await stepNames();
  return [
    `perf ${toolVersion()} — rehearse: scenario runner and performance harness (Chromium, WebKit, Tauri, terminal programs)`,
    '',
    'Usage: perf <command> [flags]     perf <command> --help',
    '',
    'Commands:',
    ...all.map((c) => `  ${c.name.padEnd(width)}${c.summary}`),
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
    process.stdout.write((await mainHelp()) + '\n');
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-v') {
    process.stdout.write(toolVersion() + '\n');
    return 0;
  }
  const command = COMMAND_ENTRIES.find((c) => c.name === name);
  if (command) return runDefinition(await command.load(), rest);
  if (name === 'mcp') {
    const { runMcp } = (await import(new URL('../mcp/server.js', import.meta.url).href)) as { runMcp(argv: string[]): Promise<number> };
    return runMcp(rest);
  }
  const steps = await stepNames();
  if (steps.includes(name)) {
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
  const near = closest(name, [...COMMAND_ENTRIES.map((c) => c.name), ...EXTERNAL, ...steps]);
  throw new PerfError({
    code: 'unknown_command',
    message: `unknown command "${name}"${near.length ? `; did you mean ${near.map((n) => `"${n}"`).join(' or ')}?` : ''}`,
    suggestion: 'run `perf --help` for the list of commands',
    candidates: near,
  });
}

/**
 * Which door a command line is, so an error's default advice fits it: a step verb or a lifecycle
 * command works on a session, `perf mcp` serves agents, everything else (run, gate, compare…) starts
 * and ends its own app and browser, where "restart the app" means nothing.
 */
export async function doorOf(command: string | undefined): Promise<Door> {
  if (command === 'mcp') return 'mcp';
  if (command === undefined) return 'run';
  const entry = COMMAND_ENTRIES.find((c) => c.name === command);
  if (entry) return entry.session ? 'session' : 'run';
  return (await stepNames()).includes(command) ? 'session' : 'run';
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
    code = reportError(e, await doorOf(argv[0]).catch((): Door => 'run'));
    // `git bisect run` reads 2–4 as "bad": under --bisect-exit an error skips the commit or stops the bisect instead.
    if (argv[0] === 'run' && argv.includes('--bisect-exit')) {
      const { bisectErrorCode } = await import('./against.js');
      code = bisectErrorCode(isPerfError(e) ? e.kind : 'internal');
    }
  }
  process.exitCode = code;
  setTimeout(() => {
    if (process.env.PERF_DEBUG) process.stderr.write(`perf: still running ${LINGER_MS} ms after the command finished; exiting\n`);
    process.exit(code);
  }, LINGER_MS).unref();
}
