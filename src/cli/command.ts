/** A CLI command is a defineCommand({...}) literal listed in src/cli/main.ts. */
import { jsonText, plainText, printable } from '../printable.js';
import { hideCredentials } from '../url.js';
import type { FlagSpecs, FlagValues } from './args.js';

export interface CommandDefinition {
  name: string;
  /** One line for `perf --help`. */
  summary: string;
  /** Usage line(s) after `perf`, e.g. "start --serve DIR | --url URL [--path P]". */
  usage: string;
  /** Longer help text: what it does, examples. */
  details?: string;
  flags: FlagSpecs;
  /** Verbs of a command (`perf history add|prune|show|changes`): `perf NAME VERB` runs the verb with its own flags. */
  subcommands?: readonly CommandDefinition[];
  /** Returns the exit code. Throws PerfError for usage/environment problems. */
  run(flags: FlagValues, positionals: string[]): Promise<number>;
}

export function defineCommand(def: CommandDefinition): CommandDefinition {
  return def;
}

/**
 * Results go to stdout; --json prints exactly one JSON document there (control characters escaped, C1
 * included). URL credentials are shown as user:***@.
 */
export function printJson(value: unknown): void {
  process.stdout.write(hideCredentials(jsonText(value, 2)) + '\n');
}

/**
 * A text result on stdout (a report, a list): one last pass of the sanitiser (src/printable.ts), so nothing
 * a scenario, a page, a commit or a file put in it acts on the terminal; `color` keeps the report's colours.
 */
export function printText(text: string, color = false): void {
  process.stdout.write(plainText(text, { sgr: color }));
}

/** A line on stderr; control characters it quotes (a name, a path, a message) are shown as \u escapes. */
export function info(line: string): void {
  process.stderr.write(printable(hideCredentials(line)) + '\n');
}

export const ALLOW_OUTSIDE_FLAG = {
  allowOutside: {
    type: 'boolean',
    description: "Let `serve` name a folder outside the project (the scenario's folder and the working folder), even / or a parent of it.",
  },
} as const satisfies FlagSpecs;
export const JSON_FLAG = {
  json: { type: 'boolean', description: 'Print one JSON document on stdout instead of text.' },
} as const satisfies FlagSpecs;

/** The first screen shows what decides; this prints the rest (the run file and the html report always hold it). */
export const ALL_FLAG = {
  all: {
    type: 'boolean',
    description:
      'Print every metric row and every changed metric, not just the screen that decides (verdict, budgets, the metrics ' +
      'that decide, the top findings). The run file and the html report always hold them all.',
  },
} as const satisfies FlagSpecs;
