/** perf validate | perf schema: the scenario files alone, without the runner. */
import { PerfError } from '../errors.js';
import { printable } from '../printable.js';
import { loadScenario } from '../scenario/load.js';
import { scenarioSchema } from '../scenario/schema.js';
import { ALLOW_OUTSIDE_FLAG, defineCommand, info, JSON_FLAG, printJson, printText } from './command.js';

export const validateCommand = defineCommand({
  name: 'validate',
  summary:
    'Check scenario files (every variant) and the files and folders they name (app.serve, browser.storageState…), ' +
    'without starting a browser',
  usage: 'validate SCENARIO.yaml [SCENARIO.yaml…]',
  flags: { ...ALLOW_OUTSIDE_FLAG, ...JSON_FLAG },
  async run(f, positionals) {
    if (positionals.length === 0)
      throw new PerfError({
        code: 'missing_argument',
        message: 'validate: which scenario files?',
        suggestion: 'perf validate scenarios/*.yaml',
      });
    const results: { file: string; ok: boolean; variants: string[]; error?: string }[] = [];
    for (const file of positionals) {
      let variants: string[] = [];
      try {
        try {
          loadScenario(file, { allowOutside: f.allowOutside === true, checkFiles: true });
        } catch (e) {
          if (!(e instanceof PerfError) || e.code !== 'variant_required') throw e;
          // Check every variant: an override may be what breaks.
          variants = e.candidates ?? [];
          for (const v of variants) loadScenario(file, { variant: v, allowOutside: f.allowOutside === true, checkFiles: true });
        }
        results.push({ file, ok: true, variants });
      } catch (e) {
        if (!(e instanceof PerfError)) throw e;
        results.push({ file, ok: false, variants, error: e.message });
      }
    }
    if (f.json) printJson({ ok: results.every((r) => r.ok), files: results });
    else
      for (const r of results)
        (r.ok ? (s: string) => printText(s + '\n') : info)(
          r.ok ? `ok  ${r.file}${r.variants.length ? ` (variants: ${r.variants.join(', ')})` : ''}` : `perf: ${printable(r.error ?? '')}`,
        );
    return results.every((r) => r.ok) ? 0 : 2;
  },
});

export const schemaCommand = defineCommand({
  name: 'schema',
  summary: 'Print the JSON Schema of scenario files (for editors; also committed as scenario.schema.json)',
  usage: 'schema',
  flags: {},
  async run() {
    process.stdout.write(JSON.stringify(scenarioSchema({ forEditors: true }), null, 2) + '\n');
    return 0;
  },
});
