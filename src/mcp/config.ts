/**
 * The MCP server's config file (`.perf/mcp.json` in the working folder, or `--config FILE`): which
 * tools an agent may see and call. Caps (caps.ts) pick the groups of tools; allow / deny globs apply
 * on top. `evaluate` runs arbitrary code in the page, so it is denied unless the user opts in.
 */
import fs from 'node:fs';
import path from 'node:path';
import { closest, PerfError } from '../errors.js';
import { bestErrors, compile, describeAjvError } from '../engine/validate.js';
import { ALL_CAPS, CAPS, DEFAULT_CAPS, capOf, resolveCaps } from './caps.js';

export interface ToolPolicy {
  /** The enabled caps (names). A tool in no cap is always enabled. */
  caps: string[];
  allow: string[];
  deny: string[];
}

export interface McpConfig {
  tools: ToolPolicy;
  /** The file it came from, or undefined for the built-in defaults (used in messages). */
  source: string | undefined;
}

/** Tools that are denied unless the config allows them by name or gives its own `deny` list. */
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
        caps: { type: 'array', items: { type: 'string', enum: [...CAPS.map((c) => c.name), ALL_CAPS] }, description: `Groups of tools to offer (perf mcp --caps overrides). Default ${JSON.stringify(DEFAULT_CAPS)}; "all" for every tool.` },
        allow: { type: 'array', items: { type: 'string' }, description: 'Glob patterns (* and ?) of tools to offer. Default ["*"].' },
        deny: { type: 'array', items: { type: 'string' }, description: 'Glob patterns of tools to hide, applied after allow. Default ["evaluate"].' },
      },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
} as const;

/** `*` any run of characters, `?` one character; everything else literal; whole-name match. */
export function globToRegExp(glob: string): RegExp {
  const body = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${body}$`);
}

export function matchesAny(name: string, patterns: readonly string[]): boolean {
  return patterns.some((p) => globToRegExp(p).test(name));
}

/**
 * Build the policy from a parsed file. A `deny` list given replaces the default; without one, the
 * default deny still applies except to tools the `allow` list names literally (so
 * `"allow": ["*", "evaluate"]` turns evaluate on).
 */
export function policyFrom(raw: { caps?: string[]; allow?: string[]; deny?: string[] } | undefined): ToolPolicy {
  const allow = raw?.allow ?? ['*'];
  const deny = raw?.deny ?? DEFAULT_DENY.filter((name) => !allow.includes(name));
  return { caps: raw?.caps ?? [...DEFAULT_CAPS], allow, deny };
}

/** Whether the tool's cap is enabled (a tool in no cap always is). */
export function isToolInCaps(name: string, policy: ToolPolicy): boolean {
  const cap = capOf(name);
  return cap === undefined || policy.caps.includes(cap.name);
}

export function isToolAllowed(name: string, policy: ToolPolicy): boolean {
  return isToolInCaps(name, policy) && matchesAny(name, policy.allow) && !matchesAny(name, policy.deny);
}

/**
 * Read the config: `explicit` (from --config) must exist; the default path is optional. Throws a
 * PerfError (usage, exit 2) naming the file and the problem. `knownTools` lets it warn about
 * patterns that match nothing (likely a typo), returned as `warnings`.
 */
export function loadConfig(opts: { cwd: string; explicit?: string; knownTools: readonly string[]; caps?: readonly string[] }): { config: McpConfig; warnings: string[] } {
  const file = path.resolve(opts.cwd, opts.explicit ?? DEFAULT_CONFIG_PATH);
  // --caps replaces the file's caps.
  const capsFlag = opts.caps ? { caps: resolveCaps(opts.caps, 'perf mcp --caps') } : {};
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if (opts.explicit === undefined && (e as NodeJS.ErrnoException).code === 'ENOENT') {
      return { config: { tools: policyFrom(capsFlag), source: undefined }, warnings: [] };
    }
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
      suggestion: 'expected e.g. { "tools": { "allow": ["*"], "deny": ["evaluate"] } }',
      cause: e,
    });
  }
  const validate = compile(CONFIG_SCHEMA);
  if (!validate(parsed)) {
    const first = bestErrors(validate.errors ?? [])[0]!;
    throw new PerfError({
      code: 'config_invalid',
      message: `MCP config ${file}: ${describeAjvError(first, 'config').message}`,
      suggestion: 'expected e.g. { "tools": { "allow": ["*"], "deny": ["evaluate"] } }',
    });
  }
  const tools = (parsed as { tools?: { caps?: string[]; allow?: string[]; deny?: string[] } }).tools;
  const warnings: string[] = [];
  for (const pattern of [...(tools?.allow ?? []), ...(tools?.deny ?? [])]) {
    if (!opts.knownTools.some((t) => globToRegExp(pattern).test(t))) {
      const near = closest(pattern, opts.knownTools);
      warnings.push(`MCP config ${file}: pattern "${pattern}" matches no tool${near.length ? ` (did you mean ${near.map((n) => `"${n}"`).join(' or ')}?)` : ''}`);
    }
  }
  const caps = tools?.caps ? { caps: resolveCaps(tools.caps, `MCP config ${file} tools.caps`) } : {};
  return { config: { tools: policyFrom({ ...tools, ...caps, ...capsFlag }), source: file }, warnings };
}
