/**
 * The schemas the build precompiles (tools/gen-validators.ts), by ajv set-up: exactly the objects (by content)
 * the code compiles at run time. A schema left out still works (compiled at run time); one listed here saves
 * every process that uses it its ajv.compile.
 */
import type { Options } from 'ajv';
import { ARGS_AJV_OPTIONS } from '../src/engine/validate.js';
import { FILE_AJV_OPTIONS } from '../src/json-input.js';
import type { AjvSetup } from '../src/precompiled.js';
import { scenarioSchema } from '../src/scenario/schema.js';
import { mcpArgsSchema, STEPS, stepArgsSchema } from '../src/steps/registry.js';
import { RUN_FILE_SCHEMA } from '../src/perf/run-file.js';
import { COMPARISON_SCHEMA } from '../src/perf/compare-runs.js';
import { SHARD_FILE_SCHEMA } from '../src/cli/shard.js';
import { STORAGE_STATE_SCHEMA } from '../src/drivers/storage.js';

export const SCHEMAS: Record<AjvSetup, { options: Options; schemas: object[] }> = {
  args: {
    options: ARGS_AJV_OPTIONS,
    schemas: [scenarioSchema({ forEditors: false }), ...STEPS.flatMap((def) => [stepArgsSchema(def), mcpArgsSchema(def)])],
  },
  files: { options: FILE_AJV_OPTIONS, schemas: [RUN_FILE_SCHEMA, COMPARISON_SCHEMA, SHARD_FILE_SCHEMA, STORAGE_STATE_SCHEMA] },
};
