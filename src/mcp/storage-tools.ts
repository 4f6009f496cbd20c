/**
 * storage_save / storage_load (cap `storage`, not default): the session's browser state (cookies,
 * HttpOnly included, and the web storage of the origins the session visited: PageStorage.origins) to a file, or a saved one into the
 * session, as `perf state save|load`. The file is a secret: written 0600; replies carry counts and
 * origins, never a value.
 */
import { existsSync } from 'node:fs';
import { PerfError } from '../errors.js';
import { readStorageState, writeStorageState } from '../drivers/storage.js';
import { describeState, loadSessionState, readSessionState } from '../session/storage-state.js';
import { okReply } from './format.js';
import { defineTool, type ToolDefinition } from './core.js';

const PATH_ARG = { type: 'string', minLength: 1, description: 'State file in the working folder.' } as const;

export const storageSave = defineTool({
  name: 'storage_save',
  description: 'Save cookies and web storage (a sign-in) to a 0600 file.',
  inputSchema: {
    type: 'object',
    properties: { path: PATH_ARG, overwrite: { type: 'boolean', description: 'Replace the file.' } },
    required: ['path'],
    additionalProperties: false,
  },
  // It writes a secret file (and replaces one with overwrite): never run without the client asking.
  readOnly: false,
  async run(core, args) {
    const file = core.confine('storage_save path', args.path, 'write');
    if (!args.overwrite && existsSync(file))
      throw new PerfError({
        code: 'file_exists',
        message: `storage_save: ${args.path} already exists`,
        suggestion: 'pass overwrite: true',
      });
    const t0 = performance.now();
    const state = await readSessionState(await (await core.host()).page());
    writeStorageState(file, state, 'storage_save');
    const durationMs = Math.round(performance.now() - t0);
    return okReply({ tool: 'storage_save', status: 'ok', durationMs, data: { path: args.path, mode: '0600', ...describeState(state) } });
  },
});

export const storageLoad = defineTool({
  name: 'storage_load',
  description: 'Load a saved state (storage_save, Playwright storageState); reloads the page.',
  inputSchema: { type: 'object', properties: { path: PATH_ARG }, required: ['path'], additionalProperties: false },
  readOnly: false,
  async run(core, args) {
    const file = core.confine('storage_load path', args.path, 'read');
    const state = readStorageState(file, args.path);
    const t0 = performance.now();
    const url = await loadSessionState(await (await core.host()).page(), state);
    const durationMs = Math.round(performance.now() - t0);
    return okReply({ tool: 'storage_load', status: 'ok', durationMs, data: { path: args.path, url, ...describeState(state) } });
  },
});

export const STORAGE_TOOLS: readonly ToolDefinition<any>[] = [storageSave, storageLoad];
