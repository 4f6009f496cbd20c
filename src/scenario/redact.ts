/**
 * Values a scenario read from the environment (`${env.NAME}`: tokens, passwords, private hosts) must
 * not end up in a run file, a report or a trace that CI keeps as an artifact. Every place they can
 * reach (the app URL, step labels and so metric names, error messages) is rewritten to `${env.NAME}`.
 * A value is replaced where it stands as a whole token (not inside a longer run of letters and
 * digits), so a short value such as "1" does not mangle timestamps.
 */
import type { Scenario } from './load.js';

type Secrets = Scenario['secrets'];

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
