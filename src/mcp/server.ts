/**
 * `perf mcp [--http PORT] [--config FILE]`: the MCP front door. stdio by default (the client spawns
 * us); Streamable HTTP on 127.0.0.1 with --http, behind a bearer token. Starts without an app; stops
 * the app it started itself when it exits.
 */
import path from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { closest, exitCodeOf, isPerfError, PerfError } from '../errors.js';
import { printable } from '../printable.js';
import { checkGridUrl } from '../session/grid.js';
import * as manager from '../session/manager.js';
import { installSignalHandlers, onShutdown } from '../processes.js';
import { CAPS, DEFAULT_CAPS } from './caps.js';
import { loadConfig } from './config.js';
import { McpCore, type SessionManager } from './core.js';
import { startMcpHttp } from './http.js';
import { newToken, removeTokenFile, writeTokenFile } from './token.js';
import { createMcpServer } from './protocol.js';
import { allTools } from './tools.js';

export { createMcpServer } from './protocol.js';
export { McpCore } from './core.js';
export { allTools } from './tools.js';

const MCP_SYNOPSIS =
  'perf mcp [--caps NAME,…] [--allow NAME,…] [--no-commands] [--http PORT [--token-file FILE]] [--config FILE] [--allow-outside] ' +
  '[--grid URL]';

export const MCP_USAGE = `Usage: ${MCP_SYNOPSIS}

Serve the rehearse steps as MCP tools (snap, tap, fill, …) plus app_start, app_stop, app_status,
run and the perf tools, in groups (caps); ${DEFAULT_CAPS.join(' and ')} are on by default.

  --caps NAME,…   The groups of tools to offer ("all" for every tool); replaces tools.caps:
${CAPS.map((c) => `                  ${c.name.padEnd(17)}${c.byDefault ? '(default) ' : ''}${c.tools.join(', ')}`).join('\n')}
  --allow NAME,…  Turn on tools that are off by default (globs): evaluate runs arbitrary JavaScript in
                  the page, e.g. --caps core,perf,devtools --allow evaluate. .perf/mcp.json cannot.
  --no-commands   app_start refuses command, terminal and desktop; perf_run a scenario that runs one;
                  perf_bisect a build, or a scenario that runs one at any commit of the range.
  --http PORT     Streamable HTTP on http://127.0.0.1:PORT/mcp instead of stdio (0 = a free port).
                  Only local clients: requests with a non-local Origin or Host are refused. Every
                  request needs "Authorization: Bearer TOKEN": a new token at each start, printed
                  on stderr and written to .perf/mcp-token (mode 0600), removed on exit.
  --token-file FILE  With --http: write the token there instead of .perf/mcp-token.
  --config FILE   Tool policy file (default .perf/mcp.json if present):
                  { "tools": { "caps": ["core", "perf"], "allow": ["*"], "deny": ["app_*"], "commands": false } }
                  allow / deny are globs with * and ?, applied on top of the caps. .perf/mcp.json may
                  only narrow; a file given with --config may also turn on evaluate ("allow": ["*", "evaluate"]).
  --allow-outside Tool arguments naming files and folders (app_start serve, perf_run out, perf_compare a, …)
                  may lie outside the working folder (/ included).
  --grid URL      A Selenium Grid 4 (http://HOST:4444) for perf_run and perf_bisect: each browser is a Grid
                  session; perf_bisect's parallel compares midpoints at once there. Where measurements
                  run is the user's choice, made here: those two tools take no Grid argument.

Register with Claude Code:  claude mcp add rehearse -- npx -y rehearse-perf mcp
                            (in a project that has rehearse-perf installed: -- npx perf mcp)
`;

export interface McpArgs {
  /** --caps, split on commas (checked when the config is loaded). */
  caps?: string[];
  /** --allow, split on commas: globs of tools off by default to turn on. */
  allow?: string[];
  /** --no-commands. */
  noCommands: boolean;
  httpPort?: number;
  tokenFile?: string;
  config?: string;
  allowOutside: boolean;
  /** --grid, checked: the Grid perf_run and perf_bisect use. */
  grid?: string;
  help: boolean;
}

const MCP_FLAGS = ['--caps', '--allow', '--no-commands', '--http', '--token-file', '--config', '--allow-outside', '--grid', '--help'];

export function parseMcpArgs(argv: readonly string[]): McpArgs {
  const out: McpArgs = { help: false, allowOutside: false, noCommands: false };
  const rest = argv[0] === 'mcp' ? argv.slice(1) : [...argv];
  for (let i = 0; i < rest.length; i++) {
    const tok = rest[i]!;
    const eq = tok.indexOf('=');
    const flag = eq > 0 ? tok.slice(0, eq) : tok;
    const inline = eq > 0 ? tok.slice(eq + 1) : undefined;
    const value = (): string => {
      const v = inline ?? rest[++i];
      if (v === undefined || (inline === undefined && v.startsWith('--'))) {
        throw new PerfError({ code: 'invalid_flag', message: `perf mcp: ${flag} needs a value`, suggestion: MCP_SYNOPSIS });
      }
      return v;
    };
    switch (flag) {
      case '--help':
      case '-h':
        out.help = true;
        break;
      case '--http': {
        const v = value();
        const port = Number(v);
        if (!/^\d+$/.test(v) || port > 65535) {
          throw new PerfError({ code: 'invalid_flag', message: `perf mcp: --http takes a port number 0-65535, got "${v}"` });
        }
        out.httpPort = port;
        break;
      }
      case '--config':
        out.config = value();
        break;
      case '--caps':
        out.caps = [...(out.caps ?? []), ...value().split(',')];
        break;
      case '--allow':
        out.allow = [
          ...(out.allow ?? []),
          ...value()
            .split(',')
            .map((p) => p.trim())
            .filter(Boolean),
        ];
        break;
      case '--no-commands':
        out.noCommands = true;
        break;
      case '--token-file':
        out.tokenFile = value();
        break;
      case '--allow-outside':
        out.allowOutside = true;
        break;
      case '--grid':
        out.grid = checkGridUrl(value(), 'perf mcp');
        break;
      default: {
        const near = closest(flag, MCP_FLAGS);
        throw new PerfError({
          code: 'invalid_flag',
          message:
            `perf mcp: unknown ${flag.startsWith('-') ? 'flag' : 'argument'} "${tok}` +
            `"${near.length ? `; did you mean ${near.join(' or ')}?` : ''}`,
          suggestion: MCP_SYNOPSIS,
          candidates: near,
        });
      }
    }
  }
  if (out.tokenFile !== undefined && out.httpPort === undefined) {
    throw new PerfError({ code: 'invalid_flag', message: 'perf mcp: --token-file applies to --http only', suggestion: 'add --http PORT' });
  }
  return out;
}

/** Run the server until the client goes away (stdio) or a signal arrives. Returns the exit code. */
export async function runMcp(argv: string[], deps: { manager?: SessionManager; cwd?: string } = {}): Promise<number> {
  let args: McpArgs;
  let core: McpCore;
  const cwd = deps.cwd ?? process.cwd();
  try {
    args = parseMcpArgs(argv);
    if (args.help) {
      process.stdout.write(MCP_USAGE);
      return 0;
    }
    const tools = allTools();
    const flags = {
      ...(args.caps ? { caps: args.caps } : {}),
      ...(args.allow ? { allow: args.allow } : {}),
      ...(args.noCommands ? { commands: false } : {}),
    };
    const explicit = args.config !== undefined ? { explicit: args.config } : {};
    const { config, warnings } = loadConfig({ cwd, ...explicit, flags, knownTools: tools.map((t) => t.name) });
    for (const w of warnings) process.stderr.write(`perf mcp: warning: ${printable(w)}\n`);
    const grid = args.grid !== undefined ? { grid: args.grid } : {};
    core = new McpCore({ manager: deps.manager ?? manager, config, tools, cwd, allowOutside: args.allowOutside, ...grid });
  } catch (e) {
    return reportStartupError(e);
  }

  // A long-running server must survive a stray rejection in a page callback: log it, keep serving.
  process.on('unhandledRejection', (reason) =>
    process.stderr.write(`perf mcp: unhandled rejection: ${String((reason as Error)?.message ?? reason)}\n`),
  );
  installSignalHandlers();
  onShutdown(() => core.shutdown());

  if (args.httpPort !== undefined) return serveHttp(core, cwd, args.httpPort, args.tokenFile);

  const server = createMcpServer(core);
  const transport = new StdioServerTransport();
  const done = new Promise<number>((resolve) => {
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      void core.shutdown().then(() => resolve(0));
    };
    // The SDK transport does not watch for end of input: a client that closed stdin has gone.
    process.stdin.once('end', end);
    process.stdin.once('close', end);
    server.onclose = end;
  });
  await server.connect(transport);
  return done;
}

/**
 * HTTP mode: a fresh token in its file (mode 0600) before the port opens, printed once with the URL;
 * the file is removed on a clean exit. Runs until SIGINT/SIGTERM, whose handler stops the owned app
 * and exits the process.
 */
async function serveHttp(core: McpCore, cwd: string, port: number, tokenFile: string | undefined): Promise<number> {
  const token = newToken();
  let http;
  let file: string;
  try {
    file = writeTokenFile(cwd, token, tokenFile);
  } catch (e) {
    return reportStartupError(e);
  }
  onShutdown(() => removeTokenFile(file, token));
  const shown = path.relative(cwd, file).startsWith('..') ? file : path.relative(cwd, file);
  try {
    http = await startMcpHttp(core, port, { auth: { token, where: file } });
  } catch (e) {
    removeTokenFile(file, token);
    return reportStartupError(e);
  }
  process.stderr.write(`perf mcp: listening on ${http.url}; send "Authorization: Bearer ${token}" (the token is also in ${shown})\n`);
  onShutdown(() => http.close());
  return new Promise<number>(() => undefined);
}

function reportStartupError(e: unknown): number {
  if (isPerfError(e)) {
    const hint = e.suggestionAt('mcp');
    process.stderr.write(printable(`perf mcp: ${e.message.replace(/^perf mcp: /, '')}\n${hint ? `  ${hint}\n` : ''}`));
    return exitCodeOf(e.kind);
  }
  // Anything but a PerfError is a bug in perf: exit 4, never 1.
  process.stderr.write(
    `perf mcp: internal error: ${printable((e as Error)?.message ?? String(e))}\n  this is a bug in perf; please report it\n`,
  );
  return exitCodeOf('internal');
}
