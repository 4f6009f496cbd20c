/**
 * What a tool call answers, independent of the MCP SDK so the CLI verbs print the very same JSON:
 * a reply is either a JSON value plus images, or an error `{kind, code, message, suggestion?,
 * candidates?}`. Replies are bounded: an agent must never receive an unbounded dump.
 */
import { infoAt, isPerfError, type Door } from '../errors.js';
import { jsonText } from '../printable.js';
import { toErrorInfo, type StepErrorInfo, type StepResult } from '../engine/run-step.js';

export interface ReplyImage {
  mimeType: 'image/png' | 'image/jpeg';
  base64: string;
}

export type ToolReply =
  | { kind: 'ok'; json: Record<string, unknown>; images: ReplyImage[] }
  | { kind: 'error'; error: StepErrorInfo & Record<string, unknown>; images: ReplyImage[] };

// 1 MiB: the response cap; large enough for a full screenshot, small enough for an agent.
export const MAX_RESPONSE_BYTES = 1024 * 1024;

export function okReply(json: Record<string, unknown>, images: ReplyImage[] = []): ToolReply {
  return { kind: 'ok', json, images };
}

export function errorReply(e: unknown, extra: Record<string, unknown> = {}): ToolReply {
  // Advice per door travels with the reply until renderReply shows it at its door (infoAt).
  const info = isPerfError(e) ? { ...e.toJSON(), ...(e.suggestions ? { suggestions: e.suggestions } : {}) } : toErrorInfo(e);
  return { kind: 'error', error: { ...info, ...extra }, images: [] };
}

/** ms rounded to 0.1: sub-microsecond digits are noise in a reply. */
function roundMs(ms: number): number {
  return Math.round(ms * 10) / 10;
}

/**
 * The JSON of one step result, without the image (sent as image content) and the epoch start time
 * (only meaningful to the perf runner). The label only when it says more than the step name.
 */
export function stepResultJson(r: StepResult): Record<string, unknown> {
  const base: Record<string, unknown> = { step: r.step, status: r.status, durationMs: roundMs(r.durationMs) };
  if (r.label !== r.step) base.label = r.label;
  switch (r.status) {
    case 'ok': {
      const { data, effect, warnings, reresolved } = r;
      return {
        ...base,
        ...(data !== undefined ? { data } : {}),
        ...(effect !== undefined ? { effect } : {}),
        ...(warnings?.length ? { warnings } : {}),
        ...(reresolved?.length ? { reresolved } : {}),
      };
    }
    case 'failed':
    case 'skipped':
      return { ...base, error: r.error };
  }
}

/** A step result as a reply: a failed step is an error reply carrying the error info only. */
export function stepReply(r: StepResult): ToolReply {
  switch (r.status) {
    case 'ok':
      return okReply(stepResultJson(r), r.image ? [r.image] : []);
    case 'skipped':
      return okReply(stepResultJson(r));
    case 'failed':
      return { kind: 'error', error: { ...r.error }, images: [] };
  }
}

export interface RenderedReply {
  isError: boolean;
  text: string;
  images: ReplyImage[];
  /** True when something was cut to respect the cap. */
  truncated: boolean;
}

const NARROW_HINT = 'narrow the request (snap: interactiveOnly, depth, within, grep; console/exceptions: limit; screenshot: a ref, jpeg)';

/**
 * Serialise a reply within `capBytes` (text plus base64 images), for `door` (default: an MCP tool call). Images that do not fit are dropped
 * with a note; then the longest strings are shortened in place so the text stays valid JSON; only
 * as a last resort is the text cut, with a note saying so.
 */
export function renderReply(reply: ToolReply, opts: { capBytes?: number; pretty?: boolean; door?: Door } = {}): RenderedReply {
  const cap = opts.capBytes ?? MAX_RESPONSE_BYTES;
  // jsonText: DEL and C1 escaped too, so a page's text in a reply is inert wherever the JSON is shown.
  const stringify = (v: unknown): string => jsonText(v, opts.pretty ? 2 : undefined);
  // The door adds its own advice here, where the reply is shown: the same error tells an agent to call
  // app_restart and a terminal user to run `perf restart`.
  const value: Record<string, unknown> = structuredClone(reply.kind === 'ok' ? reply.json : infoAt(reply.error, opts.door ?? 'mcp'));
  let truncated = false;

  const images: ReplyImage[] = [];
  let imageBytes = 0;
  const omitted: string[] = [];
  for (const img of reply.images) {
    // Half the cap at most for images: the JSON answer must always fit next to them.
    if (imageBytes + img.base64.length <= cap / 2) {
      images.push(img);
      imageBytes += img.base64.length;
    } else {
      omitted.push(`${img.mimeType} of ${Math.round((img.base64.length * 3) / 4 / 1024)} KiB`);
    }
  }
  if (omitted.length) {
    truncated = true;
    value.imageOmitted =
      `image left out (${omitted.join(', ')}): over the ${cap / 2 / 1024} KiB image share of the ` +
      `response cap; use format jpeg with a lower quality, or a ref / rect for a smaller region`;
  }

  const budget = cap - imageBytes;
  let text = stringify(value);
  // Each pass shortens the longest string; a handful of passes handles any realistic reply.
  for (let pass = 0; pass < 8 && Buffer.byteLength(text) > budget; pass++) {
    const longest = findLongestString(value);
    if (!longest || longest.value.length < 256) break;
    const excess = Buffer.byteLength(text) - budget;
    const note = `\n…[truncated: ${'{N}'} characters left out to keep the response under ${Math.round(cap / 1024)} KiB; ${NARROW_HINT}]`;
    // Escaped JSON can take up to 6 bytes per character: cut generously so one pass usually fits.
    const keep = Math.max(0, longest.value.length - Math.ceil(excess * 1.1) - note.length - 64);
    const dropped = longest.value.length - keep;
    longest.set(longest.value.slice(0, keep) + note.replace('{N}', String(dropped)));
    truncated = true;
    text = stringify(value);
  }
  if (Buffer.byteLength(text) > budget) {
    const tail =
      `\n…[response cut at ${Math.round(cap / 1024)} KiB: the rest was ` + `left out and this text is not complete JSON; ${NARROW_HINT}]`;
    text =
      Buffer.from(text)
        .subarray(0, Math.max(0, budget - Buffer.byteLength(tail)))
        .toString('utf8') + tail;
    truncated = true;
  }
  return { isError: reply.kind === 'error', text, images, truncated };
}

function findLongestString(root: unknown): { value: string; set(v: string): void } | undefined {
  let best: { value: string; set(v: string): void } | undefined;
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      node.forEach((child, i) => {
        if (typeof child === 'string') consider(child, (v) => (node[i] = v));
        else visit(child);
      });
    } else if (node && typeof node === 'object') {
      const obj = node as Record<string, unknown>;
      for (const [k, child] of Object.entries(obj)) {
        if (typeof child === 'string') consider(child, (v) => (obj[k] = v));
        else visit(child);
      }
    }
  };
  const consider = (value: string, set: (v: string) => void): void => {
    if (!best || value.length > best.value.length) best = { value, set };
  };
  visit(root);
  return best;
}
