/**
 * Values a scenario read from the environment (`${env.NAME}`: tokens, passwords, private hosts) must
 * not end up in a run file, a report or a trace that CI keeps as an artifact. Every place they can
 * reach (the app URL, step labels and so metric names, error messages) is rewritten to `${env.NAME}`.
 * A value is replaced where it stands as a whole token (not inside a longer run of letters and
 * digits), so a short value such as "1" does not mangle timestamps.
 */
import type { Scenario } from './load.js';

type Secrets = Scenario['secrets'];

// ECMA-48 control sequences (CSI … final byte), OSC strings (ended by BEL or ST), and two-byte escapes.
const ESCAPE_SEQUENCE = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])/g;

function patterns(secrets: Secrets): { re: RegExp; name: string }[] {
  // Longest first: a value that contains another is replaced whole.
  return [...secrets]
    .sort((a, b) => b.value.length - a.value.length)
    .map(({ name, value }) => ({ name, re: new RegExp(`(?<![A-Za-z0-9])${value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![A-Za-z0-9])`, 'g') }));
}

function replaceAll(text: string, ps: { re: RegExp; name: string }[]): string {
  return ps.reduce((acc, { re, name }) => acc.replace(re, `\${env.${name}}`), text);
}

/** `text` with every secret value replaced by `${env.NAME}`. */
export function redactText(text: string, secrets: Secrets): string {
  return secrets.length === 0 ? text : replaceAll(text, patterns(secrets));
}

/**
 * A stream cut into chunks (a recording's inputs, one per keystroke; its output, one per read) with
 * every secret replaced as if the chunks were one text: a password typed key by key spans many
 * chunks. A match's `${env.NAME}` goes in the chunk where it starts; the rest of it is removed from
 * the chunks it spans, so each chunk keeps its place (and its time).
 */
export function redactChunks(chunks: readonly string[], secrets: Secrets): string[] {
  if (secrets.length === 0) return [...chunks];
  // Terminal escape sequences end in letters ("ESC[1;11H" then the echo of what was typed): blanked
  // to NULs of the same length, so they bound a token like a space and every position stays put.
  const whole = chunks.join('').replace(ESCAPE_SEQUENCE, (m) => '\0'.repeat(m.length));
  const cuts: { from: number; to: number; name: string }[] = [];
  for (const { re, name } of patterns(secrets)) {
    for (const m of whole.matchAll(re)) {
      const from = m.index;
      const to = from + m[0].length;
      // Longest first: a shorter secret inside a longer one's match is already covered.
      if (!cuts.some((c) => from < c.to && to > c.from)) cuts.push({ from, to, name });
    }
  }
  if (cuts.length === 0) return [...chunks];
  const out: string[] = [];
  let at = 0;
  for (const chunk of chunks) {
    let text = '';
    for (let i = 0; i < chunk.length; i++) {
      const pos = at + i;
      const cut = cuts.find((c) => pos >= c.from && pos < c.to);
      if (!cut) text += chunk[i];
      else if (pos === cut.from) text += `\${env.${cut.name}}`;
    }
    out.push(text);
    at += chunk.length;
  }
  return out;
}

/** A deep copy of `value` with secrets replaced in every string and every object key. */
export function redactSecrets<T>(value: T, secrets: Secrets): T {
  if (secrets.length === 0) return value;
  const ps = patterns(secrets);
  const text = (s: string): string => replaceAll(s, ps);
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return text(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [text(k), walk(x)]));
    return v;
  };
  return walk(value) as T;
}
