/**
 * Codemod for the lines over 140 characters that prettier cannot break (issue 28 part 5): on each such
 * line, a long string literal or no-substitution template becomes a `'…' + '…'` concatenation split at
 * word boundaries or commas (a template with `${}` is split only inside its text; one spanning lines only on
 * its long lines), and a long `//` comment or
 * JSDoc line is re-wrapped (a trailing `//` comment moves above its line). Then prettier formats the
 * files it changed, which lays the concatenations out one piece a line.
 *
 *   node dist/tools/wrap-long-lines.js [--root DIR] [--no-prettier] [FOLDER…]     (default: src reporters)
 *
 * What it leaves (a long regular expression, an identifier chain, a URL without spaces) is listed by
 * check-size afterwards.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import ts from 'typescript';
import { MAX_LINE_CHARS, sourceFiles } from './check-size.js';

// Room prettier needs around a piece: two more indent levels (a call argument's continuation), the
// quotes, ` +` and a trailing comma or `)`.
const PIECE_OVERHEAD = 14;
// A piece shorter than this reads worse than a long line; deep indentation never squeezes below it.
const MIN_PIECE = 40;

interface Edit {
  start: number;
  end: number;
  text: string;
}

const width = (s: string): number => [...s].length;

/**
 * Positions (relative to `raw`) just after a space or comma that is not escaped, within [from, to): a
 * comma lets a list without spaces (CSS selectors, browser flags) break too.
 */
function textBreaks(raw: string, from: number, to: number): number[] {
  const out: number[] = [];
  for (let i = from; i < to; i++) {
    // A comma followed by a space breaks after the space, so the next piece does not start with one.
    if (raw[i] !== ' ' && (raw[i] !== ',' || raw[i + 1] === ' ')) continue;
    let slashes = 0;
    for (let j = i - 1; j >= 0 && raw[j] === '\\'; j--) slashes++;
    if (slashes % 2 === 0 && i + 1 < to) out.push(i + 1);
  }
  return out;
}

/**
 * Per long line of the literal's source (a template may span lines): breaks that keep each piece
 * within `budget` (else the first one past it), balanced in width.
 */
function chooseBreaks(raw: string, breaks: number[], budget: number, isLong: (line: number) => boolean): number[] {
  const chosen: number[] = [];
  let lineStart = 0;
  raw.split('\n').forEach((text, k) => {
    const lineEnd = lineStart + text.length;
    const here = isLong(k) ? breaks.filter((b) => b > lineStart && b < lineEnd) : [];
    let cur = lineStart;
    while (here.length && width(raw.slice(cur, lineEnd)) > budget) {
      // Pieces of about equal width, so the last one is not a stray word.
      const rest = width(raw.slice(cur, lineEnd));
      const target = rest / Math.ceil(rest / budget);
      const fits = here.filter((b) => b > cur && width(raw.slice(cur, b)) <= budget);
      const balanced = fits.find((b) => width(raw.slice(cur, b)) >= target);
      const next = balanced ?? (fits.length ? fits[fits.length - 1] : here.find((b) => b > cur));
      if (next === undefined) break;
      chosen.push(next);
      cur = next;
    }
    lineStart = lineEnd + 1;
  });
  return chosen;
}

/** Contexts where a literal must stay one literal (its text is a name or a type, not a value). */
function mustStayWhole(node: ts.Node): boolean {
  const p = node.parent;
  return (
    ts.isImportDeclaration(p) ||
    ts.isExportDeclaration(p) ||
    ts.isExternalModuleReference(p) ||
    ts.isLiteralTypeNode(p) ||
    ts.isModuleDeclaration(p) ||
    ts.isImportTypeNode(p) ||
    ts.isExpressionStatement(p) ||
    ts.isTaggedTemplateExpression(p) ||
    ((ts.isPropertyAssignment(p) || ts.isPropertySignature(p) || ts.isMethodDeclaration(p) || ts.isEnumMember(p)) && p.name === node)
  );
}

const LOOSER_THAN_PLUS = new Set([
  ts.SyntaxKind.PlusToken,
  ts.SyntaxKind.EqualsToken,
  ts.SyntaxKind.PlusEqualsToken,
  ts.SyntaxKind.EqualsEqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsEqualsToken,
  ts.SyntaxKind.AmpersandAmpersandToken,
  ts.SyntaxKind.BarBarToken,
  ts.SyntaxKind.QuestionQuestionToken,
  ts.SyntaxKind.CommaToken,
]);

/** Whether `a + b` may stand where the literal stands without parentheses. */
function plusFitsHere(node: ts.Node): boolean {
  const p = node.parent;
  if ((ts.isCallExpression(p) || ts.isNewExpression(p)) && p.expression !== node) return true;
  if (ts.isBinaryExpression(p)) return LOOSER_THAN_PLUS.has(p.operatorToken.kind);
  return (
    ts.isVariableDeclaration(p) ||
    ts.isPropertyAssignment(p) ||
    ts.isPropertyDeclaration(p) ||
    ts.isParameter(p) ||
    ts.isArrayLiteralExpression(p) ||
    ts.isReturnStatement(p) ||
    ts.isThrowStatement(p) ||
    ts.isArrowFunction(p) ||
    ts.isConditionalExpression(p) ||
    ts.isTemplateSpan(p) ||
    ts.isParenthesizedExpression(p) ||
    ts.isCaseClause(p)
  );
}

/** The literal's source with ` + ` joins inserted at the chosen breaks, or undefined when it cannot be split. */
function splitLiteral(
  node: ts.StringLiteral | ts.NoSubstitutionTemplateLiteral | ts.TemplateExpression,
  sf: ts.SourceFile,
  budget: number,
  isLong: (line: number) => boolean,
) {
  const start = node.getStart(sf);
  const raw = sf.text.slice(start, node.end);
  const quote = raw[0]!;
  const ranges: [number, number][] = ts.isTemplateExpression(node)
    ? [node.head, ...node.templateSpans.map((s) => s.literal)].map((lit) => {
        const a = lit.getStart(sf) - start + 1;
        const b = lit.end - start - (ts.isTemplateTail(lit) ? 1 : 2);
        return [a, b] as [number, number];
      })
    : [[1, raw.length - 1]];
  const breaks = chooseBreaks(
    raw,
    // The edges of a template's text parts are text positions too (`${a}` + `${b}`), even when it is empty.
    // A break at either end would leave an empty piece.
    [...new Set(ranges.flatMap(([a, b]) => [a, ...textBreaks(raw, a, b), b]))]
      .filter((p) => p > 1 && p < raw.length - 1)
      .sort((x, y) => x - y),
    budget,
    isLong,
  );
  if (breaks.length === 0) return undefined;
  let out = '';
  let last = 0;
  for (const b of breaks) {
    out += `${raw.slice(last, b)}${quote} + ${quote}`;
    last = b;
  }
  out += raw.slice(last);
  return plusFitsHere(node) ? out : `(${out})`;
}

/** Words of `text` in lines of at most `max` characters (a word longer than that stands alone). */
export function wrapWords(text: string, max: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/ +/).filter(Boolean)) {
    if (line && width(line) + 1 + width(word) > max) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

function lineStartOf(text: string, pos: number): number {
  return text.lastIndexOf('\n', pos - 1) + 1;
}

function indentOf(text: string, lineStart: number): string {
  return /^[ \t]*/.exec(text.slice(lineStart))![0];
}

/** Edits for the long `//` comments: re-wrapped in place, or moved above the code they trail. */
function commentEdits(sf: ts.SourceFile, longLines: Set<number>): Edit[] {
  const text = sf.text;
  const seen = new Set<number>();
  const edits: Edit[] = [];
  const onComment = (pos: number, end: number, kind: ts.CommentKind): void => {
    if (seen.has(pos)) return;
    seen.add(pos);
    if (kind === ts.SyntaxKind.SingleLineCommentTrivia) {
      if (!longLines.has(sf.getLineAndCharacterOfPosition(pos).line)) return;
      const lineStart = lineStartOf(text, pos);
      const indent = indentOf(text, lineStart);
      const body = text.slice(pos + 2, end).trim();
      const wrapped = wrapWords(body, MAX_LINE_CHARS - width(indent) - 3).map((l) => `${indent}// ${l}`);
      if (text.slice(lineStart, pos).trim() === '') edits.push({ start: lineStart, end, text: wrapped.join('\n') });
      else {
        // Trailing: the comment goes above its line, and the code keeps its own line.
        let codeEnd = pos;
        while (codeEnd > lineStart && /[ \t]/.test(text[codeEnd - 1]!)) codeEnd--;
        edits.push({ start: codeEnd, end, text: '' }, { start: lineStart, end: lineStart, text: wrapped.join('\n') + '\n' });
      }
    } else edits.push(...blockCommentEdits(text, pos, end, sf, longLines));
  };
  const visit = (node: ts.Node): void => {
    ts.forEachLeadingCommentRange(text, node.pos, onComment);
    ts.forEachTrailingCommentRange(text, node.end, onComment);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  ts.forEachLeadingCommentRange(text, sf.endOfFileToken.pos, onComment);
  return edits;
}

/** Long lines of a block comment: ` * text` lines re-wrapped with the same prefix; a one-line `/** … *\/` opened up. */
function blockCommentEdits(text: string, pos: number, end: number, sf: ts.SourceFile, longLines: Set<number>): Edit[] {
  const edits: Edit[] = [];
  const first = sf.getLineAndCharacterOfPosition(pos).line;
  const last = sf.getLineAndCharacterOfPosition(end).line;
  for (let line = first; line <= last; line++) {
    if (!longLines.has(line)) continue;
    const ls = sf.getPositionOfLineAndCharacter(line, 0);
    const le = line + 1 < sf.getLineStarts().length ? sf.getPositionOfLineAndCharacter(line + 1, 0) - 1 : text.length;
    const src = text.slice(ls, le);
    const oneLine = /^([ \t]*)\/\*\*(.*)\*\/\s*$/.exec(src);
    const star = /^([ \t]*\* ?)(.*)$/.exec(src);
    if (oneLine && first === last) {
      const indent = oneLine[1]!;
      const body = wrapWords(oneLine[2]!.trim(), MAX_LINE_CHARS - width(indent) - 3).map((l) => `${indent} * ${l}`);
      edits.push({ start: ls, end: le, text: [`${indent}/**`, ...body, `${indent} */`].join('\n') });
    } else if (star && line !== first) {
      const prefix = star[1]!.endsWith(' ') ? star[1]! : `${star[1]} `;
      const body = wrapWords(star[2]!, MAX_LINE_CHARS - width(prefix)).map((l) => `${prefix}${l}`);
      edits.push({ start: ls, end: le, text: body.join('\n') });
    }
  }
  return edits;
}

/** Edits for the long literals: each on a long line, longer than its line's piece budget. */
function literalEdits(sf: ts.SourceFile, longLines: Set<number>): Edit[] {
  const edits: Edit[] = [];
  const visit = (node: ts.Node): void => {
    const literal = ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node);
    if (literal && !mustStayWhole(node)) {
      const start = node.getStart(sf);
      const first = sf.getLineAndCharacterOfPosition(start).line;
      const last = sf.getLineAndCharacterOfPosition(node.end).line;
      const indent = width(indentOf(sf.text, lineStartOf(sf.text, start)));
      const budget = Math.max(MIN_PIECE, MAX_LINE_CHARS - indent - PIECE_OVERHEAD);
      const isLong = (k: number): boolean => longLines.has(first + k);
      if (Array.from({ length: last - first + 1 }, (_, k) => k).some(isLong)) {
        const text = splitLiteral(node, sf, budget, isLong);
        if (text !== undefined) {
          edits.push({ start, end: node.end, text });
          return;
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return edits;
}

/** The file's text with its long literals split and long comments wrapped (unchanged when there is nothing to do). */
export function wrapLongLines(file: string, text: string): string {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const longLines = new Set<number>();
  text.split('\n').forEach((l, i) => width(l) > MAX_LINE_CHARS && longLines.add(i));
  if (longLines.size === 0) return text;
  const edits = [...literalEdits(sf, longLines), ...commentEdits(sf, longLines)].sort((a, b) => b.start - a.start || b.end - a.end);
  let out = text;
  let floor = Infinity;
  for (const e of edits) {
    if (e.end > floor) continue; // overlaps an edit already applied: leave it for check-size to report
    out = out.slice(0, e.start) + e.text + out.slice(e.end);
    floor = e.start;
  }
  return out;
}

async function main(argv: string[]): Promise<number> {
  const rootAt = argv.indexOf('--root');
  const root = rootAt >= 0 ? path.resolve(argv[rootAt + 1] ?? '.') : path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  const dirs = argv.filter((a, i) => !a.startsWith('--') && argv[i - 1] !== '--root');
  const changed: string[] = [];
  for (const file of (dirs.length ? dirs : ['src', 'reporters']).flatMap((d) => sourceFiles(root, d))) {
    const abs = path.join(root, file);
    const before = readFileSync(abs, 'utf8');
    let after = wrapLongLines(file, before);
    if (after === before) continue;
    if (!argv.includes('--no-prettier')) {
      const options = await prettier.resolveConfig(abs);
      after = await prettier.format(after, { ...options, filepath: abs });
    }
    writeFileSync(abs, after);
    changed.push(file);
  }
  for (const f of changed) process.stdout.write(`wrap-long-lines: ${f}\n`);
  process.stderr.write(`wrap-long-lines: ${changed.length} file(s) changed\n`);
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  process.exitCode = await main(process.argv.slice(2));
