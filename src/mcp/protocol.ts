/**
 * One SDK Server over the core: the low-level Server (not McpServer) so our JSON Schemas go out
 * verbatim as inputSchema and ajv, not zod, validates arguments with our error text.
 */
import { readFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpCore } from './core.js';
import { renderReply } from './format.js';

export const SERVER_NAME = 'rehearse';

export function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version?: string };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

const INSTRUCTIONS = [
  'rehearse drives a web app in a real Chromium.',
  'Start the app with app_start (serve a folder, open a url, or run a command), or use a session started with `perf start`.',
  'Read the page with snap: every interactive node carries [ref=eN]; act on ' +
    'refs with tap, fill, set_checkbox, select_option, press_key, scroll.',
  'Each action answers an effect block read back from the page (what the element holds now); check effect.*.verified.',
  'find/observe mint q refs that re-resolve on every use. Use run for several steps in one call.',
  'Failures are isError results {kind, code, message, suggestion, candidates}: follow the suggestion.',
].join(' ');

export function createMcpServer(core: McpCore): Server {
  const server = new Server({ name: SERVER_NAME, version: packageVersion() }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: core.listed().map((t): Tool => ({
      name: t.name,
      description: t.description,
      inputSchema: t.inputSchema as Tool['inputSchema'],
      annotations: { readOnlyHint: t.readOnly },
    })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (req, extra): Promise<CallToolResult> => {
    const token = req.params._meta?.progressToken;
    const progress =
      token === undefined
        ? undefined
        : (value: number, total?: number, message?: string): void => {
            // Best effort: a client that went away must not fail the tool call itself.
            extra
              .sendNotification({
                method: 'notifications/progress',
                params: {
                  progressToken: token,
                  progress: value,
                  ...(total !== undefined ? { total } : {}),
                  ...(message ? { message } : {}),
                },
              })
              .catch(() => undefined);
          };
    const reply = await core.call(req.params.name, req.params.arguments ?? {}, { signal: extra.signal, ...(progress ? { progress } : {}) });
    const rendered = renderReply(reply);
    return {
      content: [
        { type: 'text', text: rendered.text },
        ...rendered.images.map((img) => ({ type: 'image' as const, data: img.base64, mimeType: img.mimeType })),
      ],
      ...(rendered.isError ? { isError: true } : {}),
    };
  });

  return server;
}
