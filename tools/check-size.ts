/**
 * `npm run lint:size` (issue 28 part 5, "small parts"): lists every ordinary function over 100 lines,
 * every in-page module function over 200 lines and every source line over 140 characters in src/ and
 * reporters/, and exits 1 when there is one. Functions are found with the TypeScript compiler API (a
 * parse, no type check), so an arrow function or a method counts as well as a declaration.
 *
 *   node dist/tools/check-size.js [--root DIR] [--lines-only] [--json] [FOLDER…]
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

// The limits: a function a reader can hold in view; prettier's printWidth (.prettierrc.json).
export const MAX_FUNCTION_LINES = 100;
// An in-page module is one function serialised into the page (its closure is the module scope), so it
// cannot be split into imports; 200 lines keeps each such module to one concern.
export const MAX_MODULE_LINES = 200;
export const MAX_LINE_CHARS = 140;

/** Files whose `…Module` / `…Runtime` / `…Main` functions are serialised into the page. */
const IN_PAGE_FILE = /^src\/drivers\/runtime\/[^/]+\.ts$|^src\/steps\/dismiss-modals\.ts$/;
const IN_PAGE_FUNCTION = /(Module|Runtime|Main)$/;

export type SizeFinding =
  | { kind: 'function'; file: string; line: number; name: string; lines: number; max: number }
  | { kind: 'line'; file: string; line: number; chars: number; max: number };

/** The name a function is known by: its own, or the variable, property or method it is assigned to. */
function functionName(node: ts.FunctionLikeDeclaration, sf: ts.SourceFile): string {
  if (node.name) return node.name.getText(sf);
  const p = node.parent;
  if ((ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p)) && p.name) return p.name.getText(sf);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  return '<anonymous>';
}

function isFunctionLike(node: ts.Node): node is ts.FunctionLikeDeclaration {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)
  );
}

/** Functions over their limit in one file's text (`file` is relative to the root, with forward slashes). */
export function functionFindings(file: string, text: string): SizeFinding[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const inPage = IN_PAGE_FILE.test(file);
  const out: SizeFinding[] = [];
  const visit = (node: ts.Node): void => {
    if (isFunctionLike(node) && node.body) {
      const first = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const last = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      const name = functionName(node, sf);
      const max = inPage && IN_PAGE_FUNCTION.test(name) ? MAX_MODULE_LINES : MAX_FUNCTION_LINES;
      if (lines > max) out.push({ kind: 'function', file, line: first + 1, name, lines, max });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** Lines over MAX_LINE_CHARS, counted in code points (what an editor shows as columns for our sources). */
export function lineFindings(file: string, text: string): SizeFinding[] {
  const out: SizeFinding[] = [];
  text.split('\n').forEach((l, i) => {
    const chars = [...l].length;
    if (chars > MAX_LINE_CHARS) out.push({ kind: 'line', file, line: i + 1, chars, max: MAX_LINE_CHARS });
  });
  return out;
}

/** Every .ts file under `dir` (relative to root; or `dir` itself, a .ts file), sorted, declaration files left out. */
export function sourceFiles(root: string, dir: string): string[] {
  if (dir.endsWith('.ts') && statSync(path.join(root, dir)).isFile()) return [dir];
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const e of readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const child = `${rel}/${e.name}`;
      if (e.isDirectory()) walk(child);
      else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.push(child);
    }
  };
  walk(dir);
  return out.sort();
}

export function checkSize(root: string, dirs: readonly string[], opts: { linesOnly?: boolean } = {}): SizeFinding[] {
  return dirs.flatMap((dir) =>
    sourceFiles(root, dir).flatMap((file) => {
      const text = readFileSync(path.join(root, file), 'utf8');
      return [...(opts.linesOnly ? [] : functionFindings(file, text)), ...lineFindings(file, text)];
    }),
  );
}

export function describeFinding(f: SizeFinding): string {
  switch (f.kind) {
    case 'function':
      return `${f.file}:${f.line}: function ${f.name} is ${f.lines} lines (max ${f.max})`;
    case 'line':
      return `${f.file}:${f.line}: line is ${f.chars} characters (max ${f.max})`;
  }
}

function main(argv: string[]): number {
  const rootAt = argv.indexOf('--root');
  const root = rootAt >= 0 ? path.resolve(argv[rootAt + 1] ?? '.') : path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  const dirs = argv.filter((a, i) => !a.startsWith('--') && argv[i - 1] !== '--root');
  const findings = checkSize(root, dirs.length ? dirs : ['src', 'reporters'], { linesOnly: argv.includes('--lines-only') });
  if (argv.includes('--json')) process.stdout.write(JSON.stringify(findings, null, 2) + '\n');
  else for (const f of findings) process.stdout.write(describeFinding(f) + '\n');
  const fns = findings.filter((f) => f.kind === 'function').length;
  process.stderr.write(`check-size: ${fns} function(s) and ${findings.length - fns} line(s) over the limits\n`);
  return findings.length ? 1 : 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = main(process.argv.slice(2));
