/**
 * The MCP server's config file (`.perf/mcp.json` in the working folder, or `--config FILE`): which
 * tools an agent may see and call. Caps (caps.ts) pick the groups of tools; allow / deny globs apply
 * on top. `evaluate` runs arbitrary code in the page, so it is off unless the user turns it on from the
 * command line (`--allow evaluate`, or a file named with `--config`): the implicit `.perf/mcp.json`
 * comes with the project (a cloned repo) and may only narrow what the defaults and the flags allow.
 */
import fs from 'node:fs';
import path from 'node:path';
import { closest, PerfError } from '../errors.js';
import { bestErrors, compile, describeAjvError } from '../engine/validate.js';
import type { FromSchema } from '../schema-types.js';
import { ALL_CAPS, CAPS, DEFAULT_CAPS, capOf, resolveCaps } from './caps.js';

export interface ToolPolicy {
  /** The enabled caps (names). A tool in no cap is always enabled. */
  caps: string[];
  allow: string[];
  deny: string[];
  /** Tools off by default for safety (DEFAULT_DENY) that stay off: not lifted by --allow or a --config file. */
  offByDefault: string[];
  /** Who turned off the app_start sources that run a program (command, terminal, desktop); undefined: allowed. */
  commandsOffBy: string | undefined;
}

export interface McpConfig {
  tools: ToolPolicy;
  /** The file it came from, or undefined for the built-in defaults (used in messages). */
  source: string | undefined;
}

/** Tools that are off unless the command line turns them on: evaluate runs arbitrary code in the page. */
export const DEFAULT_DENY: readonly string[] = ['evaluate'];
export const DEFAULT_CONFIG_PATH = path.join('.perf', 'mcp.json');

const CONFIG_SCHEMA = {
  type: 'object',
  properties: {
    $schema: { type: 'string', description: 'Editor hint; ignored.' },
    tools: {
      type: 'object',
      description: 'Which tools are listed and callable.',
      properties: {
        caps: {
          type: 'array',
          items: { type: 'string', enum: [...CAPS.map((c) => c.name), ALL_CAPS] },
          description:
            `Groups of tools to offer (perf mcp --caps overrides). Default ` + `${JSON.stringify(DEFAULT_CAPS)}; "all" for every tool.`,
        },
        allow: {
          type: 'array',
          items: { type: 'string' },
          description: 'Glob patterns (* and ?) of tools to offer. Default ["*"]. Only a --config file may turn on evaluate.',
        },
        deny: {
          type: 'array',
          items: { type: 'string' },
          description: 'Glob patterns of tools to hide, applied after allow. Default []; evaluate is off unless perf mcp --allow evaluate.',
        },
        commands: {
          type: 'boolean',
          description:
            'false: app_start refuses command, terminal and desktop, and perf_run a scenario whose app is one (they run programs). ' +
            'Default true.',
        },
      },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
} as const;

type RawTools = NonNullable<FromSchema<typeof CONFIG_SCHEMA>['tools']>;

/** How far a policy may widen past the defaults. */
export interface PolicyTrust {
  /** The file was named on the command line (--config): it may turn on what is off by default. */
  fromCommandLine: boolean;
  /** `perf mcp --allow` globs: they lift the default deny of the tools they match. */
  lifted?: readonly string[];
}

/** `*` any run of characters, `?` one character; everything else literal; whole-name match. */
export function globToRegExp(glob: string): RegExp {
  const body = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${body}$`);
}

export function matchesAny(name: string, patterns: readonly string[]): boolean {
  return patterns.some((p) => globToRegExp(p).test(name));
}

/**
 * Build the policy from a parsed file. A tool off by default stays off unless `--allow` names it, or a
 * file from the command line names it literally in `allow` (`"allow": ["*", "evaluate"]`) or gives its
 * own `deny` list. The project's file cannot turn it on; its `deny` adds to the default.
 */
export function policyFrom(raw: RawTools | undefined, trust: PolicyTrust, commandsOffBy?: string): ToolPolicy {
  const allow = raw?.allow ?? ['*'];
  const turnedOn = (name: string): boolean =>
    matchesAny(name, trust.lifted ?? []) || (trust.fromCommandLine && (raw?.deny !== undefined || allow.includes(name)));
  const offByDefault = DEFAULT_DENY.filter((name) => !turnedOn(name));
  return { caps: raw?.caps ?? [...DEFAULT_CAPS], allow, deny: raw?.deny ?? [], offByDefault, commandsOffBy };
}

/** Whether the tool's cap is enabled (a tool in no cap always is). */
export function isToolInCaps(name: string, policy: ToolPolicy): boolean {
  const cap = capOf(name);
  return cap === undefined || policy.caps.includes(cap.name);
}

export function isToolAllowed(name: string, policy: ToolPolicy): boolean {
  if (!isToolInCaps(name, policy) || policy.offByDefault.includes(name)) return false;
  return matchesAny(name, policy.allow) && !matchesAny(name, policy.deny);
}

/** The command line's part of the policy: `--caps`, `--allow`, `--no-commands`. */
export interface PolicyFlags {
  caps?: readonly string[];
  allow?: readonly string[];
  /** false: `--no-commands`. */
  commands?: boolean;
}

/**
 * Read the config: `explicit` (from --config) must exist; the default path is optional. Throws a
 * PerfError (usage, exit 2) naming the file and the problem. `knownTools` lets it warn about
 * patterns that match nothing (likely a typo), returned as `warnings`, as is a project file that tries
 * to turn on a tool that is off by default.
 */
export function loadConfig(opts: { cwd: string; explicit?: string; knownTools: readonly string[]; flags?: PolicyFlags }): {
  config: McpConfig;
  warnings: string[];
} {
  const file = path.resolve(opts.cwd, opts.explicit ?? DEFAULT_CONFIG_PATH);
  const flags = opts.flags ?? {};
  // --caps replaces the file's caps.
  const capsFlag = flags.caps ? { caps: resolveCaps(flags.caps, 'perf mcp --caps') } : {};
  const trust: PolicyTrust = { fromCommandLine: opts.explicit !== undefined, ...(flags.allow ? { lifted: flags.allow } : {}) };
  const flagOff = flags.commands === false ? 'perf mcp --no-commands' : undefined;
  const raw = readConfigFile(file, opts.explicit !== undefined);
  if (raw === undefined) {
    const tools = policyFrom(capsFlag, trust, flagOff);
    return { config: { tools, source: undefined }, warnings: flagWarnings(flags, tools.caps) };
  }
  const warnings: string[] = [];
  for (const pattern of [...(raw.allow ?? []), ...(raw.deny ?? [])]) {
    if (!opts.knownTools.some((t) => globToRegExp(pattern).test(t))) {
      const near = closest(pattern, opts.knownTools).map((n) => `"${n}"`);
      const hint = near.length ? ` (did you mean ${near.join(' or ')}?)` : '';
      warnings.push(`MCP config ${file}: pattern "${pattern}" matches no tool${hint}`);
    }
  }
  const caps = raw.caps ? { caps: resolveCaps(raw.caps, `MCP config ${file} tools.caps`) } : {};
  const merged = { ...raw, ...caps, ...capsFlag };
  const commandsOffBy = flagOff ?? (raw.commands === false ? `the MCP config ${file} (tools.commands: false)` : undefined);
  const tools = policyFrom(merged, trust, commandsOffBy);
  warnings.push(...flagWarnings(flags, tools.caps));
  if (!trust.fromCommandLine) {
    const wanted = policyFrom(merged, { ...trust, fromCommandLine: true });
    for (const name of DEFAULT_DENY.filter((n) => isToolAllowed(n, wanted) && !isToolAllowed(n, tools))) {
      const withCap = capOf(name) ? ` (with --caps …,${capOf(name)!.name})` : '';
      const why = `a project's .perf/mcp.json cannot turn it on; pass --allow ${name} to perf mcp${withCap}`;
      warnings.push(`MCP config ${file}: "${name}" stays off: ${why}`);
    }
  }
  return { config: { tools, source: file }, warnings };
}

/** `--allow` patterns that lift nothing, or lift a tool whose cap is off: likely a mistake. */
function flagWarnings(flags: PolicyFlags, caps: readonly string[]): string[] {
  const warnings: string[] = [];
  for (const pattern of flags.allow ?? []) {
    const lifted = DEFAULT_DENY.filter((n) => globToRegExp(pattern).test(n));
    if (lifted.length === 0) {
      const off = DEFAULT_DENY.join(', ');
      warnings.push(`--allow "${pattern}" matches nothing that is off by default (${off}); caps and tools.allow choose the other tools`);
    }
    for (const name of lifted) {
      const cap = capOf(name);
      if (cap && !caps.includes(cap.name)) {
        warnings.push(`--allow ${name}: its cap ${cap.name} is off; add it, e.g. --caps ${[...caps, cap.name].join(',')}`);
      }
    }
  }
  return warnings;
}

/** The file's `tools`, or undefined when the default file is absent. */
function readConfigFile(file: string, explicit: boolean): RawTools | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if (!explicit && (e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new PerfError({
      code: 'config_unreadable',
      message: `cannot read MCP config ${file}: ${(e as Error).message}`,
      suggestion: 'pass an existing file to --config, or create .perf/mcp.json',
      cause: e,
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new PerfError({
      code: 'config_invalid',
      message: `MCP config ${file} is not valid JSON: ${(e as Error).message}`,
      suggestion: 'expected e.g. { "tools": { "caps": ["core", "perf"], "deny": ["app_*"] } }',
      cause: e,
    });
  }
  const validate = compile(CONFIG_SCHEMA);
  if (!validate(parsed)) {
    const first = bestErrors(validate.errors ?? [])[0]!;
    throw new PerfError({
      code: 'config_invalid',
      message: `MCP config ${file}: ${describeAjvError(first, 'config').message}`,
      suggestion: 'expected e.g. { "tools": { "caps": ["core", "perf"], "deny": ["app_*"] } }',
    });
  }
  return (parsed as FromSchema<typeof CONFIG_SCHEMA>).tools ?? {};
}
