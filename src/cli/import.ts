/**
 * perf import RECORDING.json: a Chrome DevTools Recorder recording (Export as a JSON file) as a
 * scenario YAML. The conversion is src/scenario/recorder.ts; here the file is read, the unsupported
 * steps are refused (or skipped with a warning), and the YAML is written and loaded back, so what is
 * written is a scenario that validates.
 */
import { readFileSync, statSync } from 'node:fs';
import { basename, dirname, relative, resolve } from 'node:path';
import { isPerfError, PerfError } from '../errors.js';
import { writeFileAtomic } from '../files.js';
import { convertRecording, scenarioYaml, unsupportedError } from '../scenario/recorder.js';
import { loadScenario, MAX_SCENARIO_BYTES } from '../scenario/load.js';
import { defineCommand, info, JSON_FLAG, printJson } from './command.js';

export const importCommand = defineCommand({
  name: 'import',
  summary: 'Convert a Chrome DevTools Recorder recording (JSON) into a scenario YAML',
  usage: 'import RECORDING.json [--out SCENARIO.yaml] [--skip-unsupported] [--serve DIR | --url URL] [--json]',
  details: [
    "Maps the Recorder's steps onto ours: navigate → app.url and app.path (later ones → navigate), setViewport → viewport,",
    'click / doubleClick / hover → tap / dblclick / hover, change → fill (select_option on a <select> or combobox),',
    'keyDown + keyUp → press_key, scroll → scroll, waitForElement → wait_for or expect, emulateNetworkConditions → network.',
    'Selectors: aria/Name[role="button"] → role and name, text/… → text, CSS and pierce/ → css; the first alternative that',
    'a target can express is kept. customStep, waitForExpression and xpath-only selectors have no equivalent: they are',
    'listed with their JSON path (steps[4]) and exit 2, unless --skip-unsupported leaves them out with a warning.',
    'Without --out the YAML goes to stdout. `perf run RECORDING.json` converts and runs in one go.',
  ].join('\n'),
  flags: {
    out: {
      type: 'string',
      value: 'FILE',
      description: 'Write the scenario here (it is loaded back to check it validates); default stdout.',
    },
    skipUnsupported: {
      type: 'boolean',
      description: 'Leave out the steps with no equivalent (a warning each on stderr) instead of exit 2.',
    },
    serve: { type: 'string', value: 'DIR', description: "Serve this static folder (app.serve) instead of opening the recording's origin." },
    url: { type: 'string', value: 'URL', description: "Open this origin (app.url) instead of the recording's, e.g. a local build." },
    ...JSON_FLAG,
  },
  async run(f, positionals) {
    if (positionals.length !== 1) {
      throw new PerfError({
        code: 'missing_argument',
        message: `import: expected one recording file, got ${positionals.length}`,
        suggestion: 'perf import recording.json --out scenario.yaml (DevTools → Recorder → Export → JSON)',
      });
    }
    if (f.serve !== undefined && f.url !== undefined)
      throw new PerfError({ code: 'invalid_arguments', message: 'import: give --serve or --url, not both' });
    const file = positionals[0]!;
    const out = f.out === undefined ? undefined : resolve(String(f.out));
    const text = readRecording(file);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (e) {
      throw new PerfError({
        code: 'recording_invalid',
        message: `import: ${file}: not JSON: ${e instanceof Error ? e.message : String(e)}`,
        suggestion: 'export the recording from the Recorder panel as a JSON file',
      });
    }
    // A served folder is written as the scenario will resolve it: relative to the scenario's own folder.
    const serve = f.serve === undefined ? undefined : relativeDir(out ? dirname(out) : process.cwd(), resolve(String(f.serve)));
    const { scenario, unsupported, notes } = convertRecording(json, file, {
      ...(serve !== undefined ? { serve } : {}),
      ...(f.url !== undefined ? { url: String(f.url) } : {}),
    });
    if (unsupported.length && f.skipUnsupported !== true)
      throw unsupportedError(file, unsupported, 'rerun with --skip-unsupported to leave them out (then add what they did by hand)');
    for (const u of unsupported) info(`perf: warning: skipped ${u.path}: ${u.what}; ${u.suggestion}`);
    for (const n of notes) info(`perf: ${n}`);
    const source = out ? relative(dirname(out), resolve(file)) || basename(file) : file;
    const yaml = scenarioYaml(scenario, source);
    if (!out) {
      if (f.json) printJson({ scenario, skipped: unsupported, notes });
      else process.stdout.write(yaml);
      return 0;
    }
    writeFileAtomic(out, yaml);
    try {
      loadScenario(out);
    } catch (e) {
      if (!isPerfError(e)) throw e;
      throw new PerfError({
        code: 'import_invalid',
        message: `import: the scenario written to ${out} does not validate: ${e.message}`,
        suggestion: 'this is a bug in perf import: please report it with the recording',
        cause: e,
      });
    }
    const steps = (scenario.steps as unknown[]).length;
    if (f.json) printJson({ out, steps, skipped: unsupported, notes });
    else
      info(
        `perf: wrote ${relative(process.cwd(), out) || out}: ${steps} step${steps === 1 ? '' : 's'}` +
          `${unsupported.length ? `, ${unsupported.length} skipped` : ''}` +
          `; run it with perf run ${relative(process.cwd(), out) || out}`,
      );
    return 0;
  },
});

function readRecording(file: string): string {
  try {
    const { size } = statSync(file);
    if (size > MAX_SCENARIO_BYTES) {
      throw new PerfError({
        code: 'recording_too_large',
        message: `import: ${file} is ${(size / 2 ** 20).toFixed(1)} MiB; a recording may be at most ${MAX_SCENARIO_BYTES / 2 ** 20} MiB`,
        suggestion: 'check that this is the file you meant',
      });
    }
    return readFileSync(file, 'utf8');
  } catch (e) {
    if (isPerfError(e)) throw e;
    throw new PerfError({
      code: 'unreadable_file',
      message:
        `import: cannot read ${file}: ` +
        `${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : e instanceof Error ? e.message : String(e)}`,
      suggestion: 'give the path of the JSON file the Recorder exported',
    });
  }
}

/** `to` relative to `from`, written as a scenario writes a folder (./app, ../site). */
function relativeDir(from: string, to: string): string {
  const r = relative(from, to);
  return r === '' ? '.' : r.startsWith('.') ? r : `./${r}`;
}
