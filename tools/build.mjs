#!/usr/bin/env node
/**
 * The install-time build: every .ts of src/, reporters/ and tools/ turned into JavaScript one file at a time with
 * TypeScript's own `transpileModule`, the tsconfig's options unchanged, no type check. `tsc -p tsconfig.json`
 * type-checks the whole program (tests included) and took 24 s of a fresh clone's 38 s `npm ci` on a quiet machine;
 * this takes about 6. The output is the same JavaScript tsc writes (tsconfig sets `isolatedModules`, so tsc rejects
 * any file whose emit would need the whole program). `npm test` and `npm run build` still run the full tsc.
 */
import ts from 'typescript';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
// What bin/perf and the package need; test/ is compiled by `npm test` itself.
const FOLDERS = ['src', 'reporters', 'tools'];

const configFile = ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile);
if (configFile.error) throw new Error(ts.flattenDiagnosticMessageText(configFile.error.messageText, '\n'));
const { options } = ts.convertCompilerOptionsFromJson(configFile.config.compilerOptions, ROOT);
// transpileModule sees one file, not package.json's "type": "module", so NodeNext would emit CommonJS here; ES2022
// modules are what NodeNext emits for an ES module, and resolution plays no part in a one-file emit.
const compilerOptions = { ...options, module: ts.ModuleKind.ES2022, moduleResolution: ts.ModuleResolutionKind.Bundler };
const outDir = options.outDir ?? join(ROOT, 'dist');

function* sources(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* sources(p);
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) yield p;
  }
}

let files = 0;
for (const folder of FOLDERS) {
  for (const file of sources(join(ROOT, folder))) {
    const rel = relative(ROOT, file);
    const out = join(outDir, rel.replace(/\.ts$/, '.js'));
    const { outputText, sourceMapText, diagnostics } = ts.transpileModule(readFileSync(file, 'utf8'), {
      compilerOptions,
      fileName: file,
      reportDiagnostics: true,
    });
    if (diagnostics?.length) {
      const text = ts.formatDiagnostics(diagnostics, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => ROOT, getNewLine: () => '\n' });
      process.stderr.write(text);
      process.exit(1);
    }
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, outputText);
    if (sourceMapText) writeFileSync(`${out}.map`, sourceMapText);
    files++;
  }
}
process.stderr.write(`build: ${files} files into ${relative(ROOT, outDir)}/ (no type check: npm run build has it)\n`);
