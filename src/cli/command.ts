/** A CLI command is a defineCommand({...}) literal listed in src/cli/main.ts. */
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

/** Results go to stdout; --json prints exactly one JSON document there. URL credentials are shown as user:***@. */
export function printJson(value: unknown): void {
  process.stdout.write(hideCredentials(JSON.stringify(value, null, 2)) + '\n');
}

export function info(line: string): void {
  process.stderr.write(hideCredentials(line) + '\n');
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
