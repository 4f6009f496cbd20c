/**
 * The page runtime's injected source: its modules serialise standalone, join into one program that
 * names nothing but page globals, and install (idempotent, an upgrade keeping the state) even where
 * there is no DOM. What the runtime does in a page is covered by the Chromium tests (snap, targets, …).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import vm from 'node:vm';
import ts from 'typescript';
import { PAGE_RUNTIME_SOURCE, RUNTIME_MODULES, RUNTIME_VERSION } from '../src/drivers/runtime/main.js';

// In dependency order, as main.ts joins them.
const MODULES: ((...args: never[]) => unknown)[] = Object.values(RUNTIME_MODULES);

// The globals of a page the runtime may use; any other free name would be a ReferenceError there.
const PAGE_GLOBALS = [
  'Event',
  'MessageChannel',
  'MutationObserver',
  'clearTimeout',
  'document',
  'innerHeight',
  'innerWidth',
  'location',
  'navigator',
  'performance',
  'setTimeout',
  'window',
];

/** Names `source` uses without declaring them, beyond the ES2022 built-ins (the type checker's "Cannot find name"). */
function freeNames(source: string): string[] {
  const file = '/virtual/page-runtime.js';
  const options: ts.CompilerOptions = {
    allowJs: true,
    checkJs: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2022.d.ts'],
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  host.getSourceFile = (name, lang, ...rest) =>
    name === file ? ts.createSourceFile(file, source, lang) : getSourceFile(name, lang, ...rest);
  host.fileExists = (name) => name === file || fileExists(name);
  const program = ts.createProgram([file], options, host);
  const names = new Set<string>();
  for (const d of program.getSemanticDiagnostics(program.getSourceFile(file))) {
    const m = /^Cannot find name '([^']+)'/.exec(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    if (m) names.add(m[1]!);
  }
  return [...names].sort();
}

const KEY_EXPR = `globalThis[Symbol.for('rehearse.runtime')]`;
interface InstalledRuntime {
  version: string;
  stateVersion: number;
  state: { docId: string; nextQ: number; queries: Map<string, unknown> };
  shadowSeenDocs: WeakSet<object>;
  scannedDocs: WeakSet<object>;
  api: Record<string, unknown>;
  call(method: string, args: unknown[]): unknown;
}
/** A runtime call's result as the driver receives it: by value (JSON), not an object of the page's realm. */
const call = (rt: InstalledRuntime, method: string, args: unknown[]): { status: string; [k: string]: unknown } =>
  JSON.parse(JSON.stringify(rt.call(method, args)));

test('every module serialises to a standalone function, and the injected program holds them in dependency order', () => {
  let at = -1;
  for (const mod of MODULES) {
    const src = mod.toString();
    assert.match(src, new RegExp(`^function ${mod.name}\\(`), `${mod.name} serialises as a plain function declaration`);
    const fn = new Function(`return (${src});`)() as unknown;
    assert.equal(typeof fn, 'function', mod.name);
    const where = PAGE_RUNTIME_SOURCE.indexOf(src);
    assert.ok(where > at, `${mod.name} is in PAGE_RUNTIME_SOURCE after the modules it depends on`);
    at = where;
  }
  assert.doesNotThrow(() => new Function(PAGE_RUNTIME_SOURCE));
  assert.ok(PAGE_RUNTIME_SOURCE.includes(JSON.stringify(RUNTIME_VERSION)));
});

test('the injected program names nothing but page globals (no imports, module constants or emit helpers)', () => {
  assert.deepEqual(freeNames(PAGE_RUNTIME_SOURCE), PAGE_GLOBALS);
});

test('the runtime installs without a DOM, answers through its modules, and installing again is idempotent', () => {
  const ctx = vm.createContext({});
  vm.runInContext(PAGE_RUNTIME_SOURCE, ctx);
  const rt = vm.runInContext(KEY_EXPR, ctx) as InstalledRuntime;
  assert.equal(rt.version, RUNTIME_VERSION);
  assert.equal(rt.stateVersion, 1);
  assert.equal(vm.runInContext(`Object.getOwnPropertyDescriptor(globalThis, Symbol.for('rehearse.runtime')).enumerable`, ctx), false);
  assert.equal(Object.keys(rt.api).length, 29);
  assert.deepEqual(call(rt, 'resolve', [{}]), { status: 'invalid', detail: 'give a ref or a target' });
  assert.equal(call(rt, 'resolve', [{ ref: 'q7' }]).status, 'unknown_ref');
  assert.equal(call(rt, 'resolve', [{ ref: 'e1' }]).status, 'unknown_ref');
  assert.deepEqual(call(rt, 'abortAction', []), { status: 'ok' });
  assert.equal(call(rt, 'nope', []).status, 'runtime_error');
  // A query defined through the api lands in the state the target module resolves from: resolving
  // it now goes on to match its target, which needs a document.
  assert.deepEqual(call(rt, 'defineQuery', ['q7', { role: 'button' }]), { status: 'ok' });
  assert.equal(rt.state.nextQ, 8);
  assert.match(String(call(rt, 'resolve', [{ ref: 'q7' }]).detail), /document is not defined/);
  vm.runInContext(PAGE_RUNTIME_SOURCE, ctx);
  assert.equal(vm.runInContext(KEY_EXPR, ctx), rt, 'the same version is not installed twice');
});

test('a newer runtime replaces an older one and keeps its state (refs, queries) and shadow-root bookkeeping', () => {
  const ctx = vm.createContext({});
  vm.runInContext(PAGE_RUNTIME_SOURCE, ctx);
  const old = vm.runInContext(KEY_EXPR, ctx) as InstalledRuntime;
  call(old, 'defineQuery', ['q3', { text: 'Save' }]);
  vm.runInContext(`${KEY_EXPR}.version = 'older'`, ctx);
  vm.runInContext(PAGE_RUNTIME_SOURCE, ctx);
  const rt = vm.runInContext(KEY_EXPR, ctx) as InstalledRuntime;
  assert.notEqual(rt, old);
  assert.equal(rt.version, RUNTIME_VERSION);
  assert.equal(rt.state, old.state);
  assert.equal(rt.shadowSeenDocs, old.shadowSeenDocs);
  assert.equal(rt.scannedDocs, old.scannedDocs);
  assert.ok(rt.state.queries.has('q3'));

  // A runtime of another state layout: its state is not reused.
  vm.runInContext(`${KEY_EXPR}.version = 'older'; ${KEY_EXPR}.stateVersion = 0`, ctx);
  vm.runInContext(PAGE_RUNTIME_SOURCE, ctx);
  const fresh = vm.runInContext(KEY_EXPR, ctx) as InstalledRuntime;
  assert.notEqual(fresh.state, old.state);
  assert.equal(fresh.state.queries.size, 0);
});
