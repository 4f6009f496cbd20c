/**
 * The tarball is the product (issue 58 item 2): every relative link in the README and docs/*.md names a file that
 * `npm pack` ships, so the docs read from node_modules/rehearse-perf or the registry's page have no dead link.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { ROOT } from './helpers.js';

/** The files `npm pack` would put in the tarball (scripts skipped: `prepack` would rebuild dist/ under other tests). */
function packedFiles(): Set<string> {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' });
  const [pack] = JSON.parse(out) as { files: { path: string }[] }[];
  return new Set(pack!.files.map((f) => f.path));
}

/** Every link target of a Markdown file: `[text](target)` and `![alt](target)`, outside code spans and blocks. */
export function markdownLinks(text: string): string[] {
  const prose = text.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!);
}

/** A link's target as a path inside the package, or null for one that leaves it (a URL, mail, an anchor in the page). */
export function packagePath(fromFile: string, target: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) return null;
  const file = decodeURIComponent(target.split('#')[0]!);
  return posix.normalize(posix.join(posix.dirname(fromFile), file)).replace(/\/$/, '');
}

test('markdownLinks and packagePath: what counts as a link into the package', { timeout: 10_000 }, () => {
  const text =
    'see [cli](docs/cli.md#flags), ![shot](report-run.png), [site](https://x.dev/a) and `[no](code.md)`\n```\n[no](block.md)\n```';
  assert.deepEqual(markdownLinks(text), ['docs/cli.md#flags', 'report-run.png', 'https://x.dev/a']);
  assert.equal(packagePath('README.md', 'docs/cli.md#flags'), 'docs/cli.md');
  assert.equal(packagePath('docs/gate.md', '../README.md'), 'README.md');
  assert.equal(packagePath('docs/gate.md', 'history.md'), 'docs/history.md');
  assert.equal(packagePath('docs/gate.md', '#top'), null);
  assert.equal(packagePath('README.md', 'https://example.com'), null);
});

test('every relative link of README.md and docs/*.md resolves to a file in the tarball', { timeout: 60_000 }, () => {
  const packed = packedFiles();
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`);
  const sources = ['README.md', ...docs];
  let checked = 0;
  const dead: string[] = [];
  for (const source of sources) {
    assert.ok(packed.has(source), `${source} itself is in the tarball`);
    for (const target of markdownLinks(readFileSync(join(ROOT, source), 'utf8'))) {
      const inPackage = packagePath(source, target);
      if (inPackage === null) continue;
      checked++;
      // A folder link (docs/) resolves when the tarball has a file under it.
      const ok = packed.has(inPackage) || [...packed].some((f) => f.startsWith(`${inPackage}/`));
      if (!ok) dead.push(`${source}: ${target}`);
    }
  }
  assert.ok(checked > 30, `the README and docs link to each other (${checked} relative links checked)`);
  assert.deepEqual(dead, [], 'links to files the tarball does not ship');
});
