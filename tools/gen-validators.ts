/**
 * Build step: the validators of the schemas every command compiles, as ajv standalone code, one CommonJS module
 * per schema in dist/src/validators.generated/ (see src/precompiled.ts). Run after tsc: `node dist/tools/gen-validators.js`.
 * CommonJS so that it loads synchronously where a validator is asked for; ajv's runtime helpers are required from
 * node_modules as ajv's own compiled code would use them.
 */
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import standalone from 'ajv/dist/standalone/index.js';
import { ensureDir, writeFileAtomic } from '../src/files.js';
import { PRECOMPILED_DIR, schemaKey, type AjvSetup } from '../src/precompiled.js';
import { SCHEMAS } from './validator-schemas.js';

// CommonJS default export seen from ESM: the function is the module's `default` property.
const standaloneCode = standalone.default;

/** One CommonJS module per schema, named by its key. */
function generate(dir: string): { count: number; bytes: number } {
  const wanted = new Set<string>();
  let count = 0;
  let bytes = 0;
  for (const [setup, { options, schemas }] of Object.entries(SCHEMAS) as [AjvSetup, (typeof SCHEMAS)[AjvSetup]][]) {
    for (const [key, body] of new Map(schemas.map((x) => [schemaKey(setup, x), x]))) {
      wanted.add(`${key}.cjs`);
      // Named by content: a file that exists is this schema's validator already (the inner loop rebuilds in ~0 s).
      if (existsSync(`${dir}/${key}.cjs`)) continue;
      const ajv = new Ajv({ ...options, code: { source: true } });
      // A schema with an $id is found by it (ajv refuses a second name); the export is named by the key either way.
      const id = (body as { $id?: string }).$id;
      ajv.addSchema(body, id === undefined ? key : undefined);
      const source = standaloneCode(ajv, { [key]: id ?? key });
      // Atomically: a file that exists counts as current, so a killed build must not leave half of one.
      writeFileAtomic(`${dir}/${key}.cjs`, source);
      count++;
      bytes += source.length;
    }
  }
  // Validators of schemas that no longer exist go.
  for (const f of readdirSync(dir)) if (!wanted.has(f)) rmSync(`${dir}/${f}`);
  return { count, bytes };
}

const dir = fileURLToPath(new URL(`../src/${PRECOMPILED_DIR}`, import.meta.url));
ensureDir(dir, 'gen-validators');
const { count, bytes } = generate(dir);
// stderr: npm runs this in `prepack` inside `npm pack --json` / `npm publish --json`, whose stdout must stay one JSON document.
console.error(`gen-validators: ${count} validators written (${(bytes / 1024).toFixed(0)} KB), the rest current, in ${dir}`);
