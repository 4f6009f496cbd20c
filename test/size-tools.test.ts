/**
 * tools/check-size.ts and tools/wrap-long-lines.ts (issue 28 part 5) on small sources: what the check
 * reports, and that the codemod's rewrite is the same program (each literal evaluates to the same
 * string) with no line over 140 characters after prettier.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import vm from 'node:vm';
import * as prettier from 'prettier';
import ts from 'typescript';
import { functionFindings, lineFindings, MAX_LINE_CHARS } from '../tools/check-size.js';
import { wrapLongLines, wrapWords } from '../tools/wrap-long-lines.js';

const words = (n: number, w = 'lorem'): string => Array.from({ length: n }, (_, i) => `${w}${i}`).join(' ');
const body = (n: number): string => Array.from({ length: n }, (_, i) => `  x += ${i};`).join('\n');

test('check-size: ordinary functions over 100 lines, in-page modules over 200, lines over 140', { timeout: 30_000 }, () => {
  const src = `export function small() {\n${body(98)}\n}\nexport const big = () => {\n${body(99)}\n};\n`;
  assert.deepEqual(
    functionFindings('src/x.ts', src).map((f) => f.kind === 'function' && [f.name, f.lines, f.max]),
    [['big', 101, 100]],
  );
  const mod = `export function snapshotModule() {\n${body(150)}\n}\n`;
  assert.deepEqual(functionFindings('src/drivers/runtime/snapshot.ts', mod), [], 'a module of 152 lines is within 200');
  assert.equal(functionFindings('src/perf/report.ts', mod).length, 1, 'the same function elsewhere is an ordinary one');
  const lines = lineFindings('src/x.ts', `ok\n${'a'.repeat(MAX_LINE_CHARS)}\n${'é'.repeat(MAX_LINE_CHARS + 1)}\n`);
  assert.deepEqual(
    lines.map((f) => f.line),
    [3],
    'counted in characters, not bytes',
  );
});

/** The values of every `const NAME = …` in a TypeScript source, run in a fresh context. */
function values(src: string): Record<string, unknown> {
  const js = ts.transpileModule(src, { compilerOptions: { module: ts.ModuleKind.None, target: ts.ScriptTarget.ES2022 } }).outputText;
  const names = [...src.matchAll(/const (\w+) =/g)].map((m) => m[1]!);
  // As JSON: the objects come from another realm, so compare their content, not their prototypes.
  const program = `${js.replace(/\bconst\b/g, 'var')}\nJSON.stringify({${names.join(',')}})`;
  const got = vm.runInNewContext(program, { n: 7, f: (s: string) => s });
  return JSON.parse(got as string) as Record<string, unknown>;
}

test('wrap-long-lines: strings, templates and comments fit in 140 columns and mean the same', { timeout: 60_000 }, async () => {
  const src = [
    `const a = '${words(30)}';`,
    `const b = \`${words(12)} \${n} ${words(14, 'ipsum')} \${n + 1} done\`;`,
    `const c = f(\`${words(30, 'tpl')}\`).length;`,
    `const d = '${'sel,'.repeat(40)}end';`,
    `const h = '${words(30, 'len')}'.length;`,
    `// ${words(30, 'comment')}`,
    `const e = 1; // ${words(25, 'trailing')}`,
    `/**`,
    ` * ${words(30, 'doc')}`,
    ` */`,
    `const g = { 'key-${words(40, 'key')}': 1 };`,
    '',
  ].join('\n');
  const out = await prettier.format(wrapLongLines('src/x.ts', src), { parser: 'typescript', printWidth: 140, singleQuote: true });
  assert.deepEqual(values(out), values(src));
  const long = out.split('\n').filter((l) => [...l].length > MAX_LINE_CHARS);
  assert.equal(long.length, 1, `only the property name stays whole:\n${long.join('\n')}`);
  assert.match(long[0]!, /'key-key0/);
  for (const w of ['comment29', 'trailing24', 'doc29']) assert.ok(out.includes(w), `${w} kept`);
  assert.match(out, /\/\/ trailing0[^\n]*\n(\/\/[^\n]*\n)*const e = 1;/, 'a trailing comment moves above its line');
  assert.deepEqual(wrapWords('aa bb cc', 5), ['aa bb', 'cc']);
});
