/**
 * Flag parsing for the CLI: declared flags only, typed, with the closest valid name on a typo.
 * Accepts --flag value, --flag=value, bare boolean flags and --no-flag.
 */
import { closest, PerfError } from '../errors.js';
import type { JsonSchema } from '../schema-types.js';

/**
 * list: repeatable and comma-separated; multi: repeatable, commas kept (values may contain them); optional: a value
 * that may be left out (`--history` alone is true), given with `=` or as the next argument when `takes` matches it.
 */
export type FlagType = 'string' | 'boolean' | 'number' | 'list' | 'multi' | 'optional';

export interface FlagSpec {
  type: FlagType;
  description: string;
  /** One-letter alias, e.g. h for --help. */
  short?: string;
  /** Shown in help as the value placeholder. */
  value?: string;
  /** optional flags: the next argument is their value only when it matches (else it stays a positional). */
  takes?: RegExp;
}

export type FlagSpecs = Record<string, FlagSpec>;
export type FlagValues = Record<string, string | boolean | number | string[] | undefined>;

export function camelToKebab(s: string): string {
  return s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** Parse argv against specs (keys are camelCase; flags are their kebab-case form). */
export function parseFlags(argv: readonly string[], specs: FlagSpecs, command: string): { flags: FlagValues; positionals: string[] } {
  const byFlag = new Map<string, string>();
  for (const [key, spec] of Object.entries(specs)) {
    byFlag.set(camelToKebab(key), key);
    if (spec.short) byFlag.set(spec.short, key);
  }
  const flags: FlagValues = {};
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      positionals.push(arg);
      continue;
    }
    const body = arg.replace(/^--?/, '');
    const eq = body.indexOf('=');
    let name = eq >= 0 ? body.slice(0, eq) : body;
    let inline: string | undefined = eq >= 0 ? body.slice(eq + 1) : undefined;
    let negated = false;
    if (!byFlag.has(name) && name.startsWith('no-') && byFlag.has(name.slice(3))) {
      name = name.slice(3);
      negated = true;
    }
    const key = byFlag.get(name);
    if (!key) {
      const near = closest(
        name,
        [...byFlag.keys()].filter((k) => k.length > 1),
      );
      throw new PerfError({
        code: 'unknown_flag',
        message: `${command}: unknown flag --${name}${near.length ? `; did you mean ${near.map((n) => `--${n}`).join(' or ')}?` : ''}`,
        suggestion: `see \`perf ${command} --help\``,
        candidates: near.map((n) => `--${n}`),
      });
    }
    const spec = specs[key]!;
    if (spec.type === 'boolean') {
      if (inline !== undefined && !['true', 'false'].includes(inline)) {
        throw new PerfError({ code: 'invalid_flag', message: `${command}: --${name} takes true or false, got "${inline}"` });
      }
      flags[key] = negated ? false : inline === undefined ? true : inline === 'true';
      continue;
    }
    if (spec.type === 'optional') {
      const next = argv[i + 1];
      if (inline === undefined && next !== undefined && spec.takes?.test(next)) {
        inline = next;
        i++;
      }
      flags[key] = inline ?? true;
      continue;
    }
    if (inline === undefined) {
      const next = argv[i + 1];
      if (next === undefined || (next.startsWith('--') && next.length > 2)) {
        throw new PerfError({
          code: 'missing_flag_value',
          message: `${command}: --${name} needs a value${spec.value ? ` (${spec.value})` : ''}`,
        });
      }
      inline = next;
      i++;
    }
    switch (spec.type) {
      case 'string':
        flags[key] = inline;
        break;
      case 'number': {
        const n = Number(inline);
        if (inline.trim() === '' || !Number.isFinite(n)) {
          throw new PerfError({ code: 'invalid_flag', message: `${command}: --${name} takes a number, got "${inline}"` });
        }
        flags[key] = n;
        break;
      }
      case 'list':
        flags[key] = [...((flags[key] as string[] | undefined) ?? []), ...inline.split(',').filter(Boolean)];
        break;
      case 'multi':
        flags[key] = [...((flags[key] as string[] | undefined) ?? []), inline];
        break;
    }
  }
  return { flags, positionals };
}

/** The flags part of a command's --help. */
export function flagsHelp(specs: FlagSpecs): string {
  const rows = Object.entries(specs).map(([key, s]) => {
    const left =
      `${s.short ? `-${s.short}, ` : '    '}--${camelToKebab(key)}` +
      `${s.type === 'boolean' ? '' : ` ${s.value ?? (s.type === 'number' ? 'N' : 'VALUE')}`}`;
    return { left, right: s.description };
  });
  const width = Math.max(...rows.map((r) => r.left.length), 10) + 2;
  return rows.map((r) => `  ${r.left.padEnd(width)}${r.right}`).join('\n');
}

/** Value placeholders shown in help for the run options that take one. */
const PLACEHOLDERS: Record<string, string> = {
  out: 'DIR',
  label: 'L',
  maxRepeat: 'N',
  budgetS: 'S',
  serve: 'DIR',
  url: 'URL',
  command: 'CMD',
  path: '/P',
};

/**
 * CLI flags for run options declared once as JSON Schema (runner/options.ts): the same names,
 * types and descriptions as MCP perf_run's arguments.
 */
export function flagsOf(options: Record<string, JsonSchema>, ...names: string[]): FlagSpecs {
  return Object.fromEntries(
    names.map((name) => {
      const o = options[name]!;
      const type = o.type === 'boolean' ? 'boolean' : o.type === 'string' ? 'string' : 'number';
      return [name, { type, description: String(o.description), ...(PLACEHOLDERS[name] ? { value: PLACEHOLDERS[name] } : {}) }];
    }),
  );
}
