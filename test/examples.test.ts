import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadScenario } from '../src/scenario/load.js';
import { repeatSchedule, runScenario } from '../src/runner/run.js';
import { PerfError } from '../src/errors.js';
import { ROOT } from './helpers.js';

const out = mkdtempSync(join(tmpdir(), 'rehearse-examples-'));
after(() => rmSync(out, { recursive: true, force: true }));

function variantsOf(file: string): (string | undefined)[] {
  try {
    loadScenario(file);
    return [undefined];
  } catch (e) {
    if (e instanceof PerfError && e.code === 'variant_required') return e.candidates ?? [];
    throw e;
  }
}

const files = readdirSync(join(ROOT, 'scenarios'))
  .filter((f) => f.endsWith('.yaml'))
  .sort();
for (const f of files) {
  const file = join(ROOT, 'scenarios', f);
  for (const variant of variantsOf(file)) {
    test(`example ${f}${variant ? ` --variant ${variant}` : ''} runs: 2 repeats measured, every step ok`, async () => {
      const sc = loadScenario(file, variant ? { variant } : {});
      const { run } = await runScenario(sc, { label: 'test', outDir: out, repeat: 2, warmup: 0 });
      const failures = run.repeats.flatMap((r) =>
        r.status === 'failed'
          ? [`${r.failure.label ?? r.failure.phase}: ${r.failure.error.message}`]
          : r.status === 'refused'
            ? [`refused: ${r.reason}`]
            : [],
      );
      assert.deepEqual(failures, []);
      // A scenario with `timing: true` adds an attribution repeat after every other timing one.
      assert.equal(run.summary.measured, repeatSchedule(2, sc.timing).length);
      assert.ok((run.summary.metrics['frames.painted']?.median ?? 0) > 1);
      if (variant === 'phone') assert.deepEqual([run.env.viewport.width, run.env.viewport.dpr, run.env.cpuThrottle], [375, 3, 4]);
      if (variant === 'slow-4g') assert.equal(run.env.network?.profile, 'slow-4g');
    });
  }
}
