/**
 * `perf run --against` runs both arms in one Chromium over CDP: a scenario on WebDriver (WebKit,
 * chromedriver) or on a terminal program is refused with exit 2 before any browser or program starts,
 * instead of being measured on Chromium without a word.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './helpers.js';

test(
  'perf run --against refuses a WebDriver or terminal scenario: exit 2 naming the file and what to run instead',
  { timeout: 60_000 },
  () => {
    const dir = mkdtempSync(join(tmpdir(), 'rehearse-against-drivers-'));
    try {
      cpSync(join(ROOT, 'scenarios/app'), join(dir, 'app'), { recursive: true });
      const dialog = readFileSync(join(ROOT, 'scenarios/dialog.yaml'), 'utf8');
      writeFileSync(join(dir, 'webkit.yaml'), `${dialog}\nbrowser: { engine: webkit }\n`);
      writeFileSync(join(dir, 'chromedriver.yaml'), `${dialog}\nbrowser: { driver: webdriver }\n`);
      writeFileSync(
        join(dir, 'less.yaml'),
        'name: less\napp: { terminal: { command: less, args: [/etc/hostname] } }\nsteps:\n  - press_key: { key: q }\n',
      );
      for (const file of ['webkit.yaml', 'chromedriver.yaml', 'less.yaml']) {
        const r = spawnSync(process.execPath, [join(ROOT, 'bin/perf'), 'run', file, '--against', file, '--out', 'out'], {
          cwd: dir,
          encoding: 'utf8',
          timeout: 30_000,
        });
        assert.equal(r.status, 2, `${file}: ${r.stderr}`);
        assert.match(r.stderr, new RegExp(`run --against: .*${file} runs on .*one Chromium over CDP`), file);
        assert.match(r.stderr, /perf compare/);
        assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
