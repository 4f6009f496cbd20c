/**
 * Validators compiled at build time (tools/gen-validators.ts, ajv's standalone code) for the schemas every
 * command compiles: the scenario and step arguments, run files and compares. ajv.compile costs each process
 * 100–330 ms per large schema (the run file's alone ~330 ms in `perf compare`), paid again by every CLI run.
 *
 * A schema is found by its content (its ajv set-up's name and a hash of its JSON), so a generated file older
 * than the code simply misses and the caller compiles at run time, as before: never a stale validator.
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { ValidateFunction } from 'ajv';

/** Which ajv set-up compiled it: the same schema under other options is another validator. */
export type AjvSetup = 'args' | 'files';

/** Where the build writes the generated modules, one per schema (a process loads only those it uses), beside this file. */
export const PRECOMPILED_DIR = 'validators.generated';

export function schemaKey(setup: AjvSetup, schema: object): string {
  return `v_${setup}_${createHash('sha1').update(JSON.stringify(schema)).digest('hex')}`;
}

const requireHere = createRequire(import.meta.url);

/** The build's validator for `schema`, or undefined (not generated: a plain `tsc`, or the schema changed since). */
export function precompiledValidator(setup: AjvSetup, schema: object): ValidateFunction | undefined {
  const key = schemaKey(setup, schema);
  try {
    return (requireHere(`./${PRECOMPILED_DIR}/${key}.cjs`) as Record<string, ValidateFunction>)[key];
  } catch {
    // Missing, or unreadable: ajv.compile at run time gives the same validator, only slower (validators.test.ts
    // fails when the build's own files do not load).
    return undefined;
  }
}
