/**
 * Build step: the validators of the schemas every command compiles, as ajv standalone code, into
 * dist/src/validators.generated.cjs (see src/precompiled.ts). Run after tsc: `node dist/tools/gen-validators.js`.
 * CommonJS so that it loads synchronously where a validator is asked for; ajv's runtime helpers are required from
 * node_modules as ajv's own compiled code would use them.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import standalone from 'ajv/dist/standalone/index.js';

// CommonJS default export seen from ESM: the function is the module's `default` property.
const standaloneCode = standalone.default;
import { PRECOMPILED_DIR, schemaKey, type AjvSetup } from '../src/precompiled.js';
import { SCHEMAS } from './validator-schemas.js';

/** One CommonJS module per schema, named by its key. */
function generate(dir: string): { count: number; bytes: number } {
  let count = 0;
  let bytes = 0;
  for (const [setup, { options, schemas }] of Object.entries(SCHEMAS) as [AjvSetup, (typeof SCHEMAS)[AjvSetup]][]) {
    for (const schema of new Map(schemas.map((x) => [schemaKey(setup, x), x]))) {
      const [key, body] = schema;
      const ajv = new Ajv({ ...options, code: { source: true } });
      // A schema with an $id is found by it (ajv refuses a second name); the export is named by the key either way.
      const id = (body as { $id?: string }).$id;
      ajv.addSchema(body, id === undefined ? key : undefined);
      const source = standaloneCode(ajv, { [key]: id ?? key });
      writeFileSync(`${dir}/${key}.cjs`, source);
      count++;
      bytes += source.length;
    }
  }
  return { count, bytes };
}

const dir = fileURLToPath(new URL(`../src/${PRECOMPILED_DIR}`, import.meta.url));
// A fresh folder: validators of schemas that no longer exist go with it.
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const { count, bytes } = generate(dir);
console.log(`gen-validators: ${count} validators, ${(bytes / 1024).toFixed(0)} KB in ${dir}`);
