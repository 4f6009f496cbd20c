/**
 * The history store's trust findings of issue 57, on the built CLI, the MCP server, real SQLite files and a real
 * PostgreSQL (test/pg-server.ts):
 *   4. a PostgreSQL password, in the URL's userinfo or any credential query parameter, is shown nowhere: not by
 *      history add|prune|show|changes (text and --json), not in a driver's error, not by MCP perf_history;
 *   6. a hostile SQLite history (a view as schema_version running a 10^10-step query, a trigger, a table not as perf
 *      creates it) is refused before anything in it runs, the MCP server keeps answering, and SIGTERM ends a process
 *      while a long statement runs;
 *   7. reading never creates or changes a file (notes.txt, app.db, a missing path) and refuses one that is not a
 *      history; every MCP tool that writes says so (readOnlyHint false).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { openSqlite } from '../src/history/sqlite.js';
import { hideCredentials, shownLocation } from '../src/url.js';
import { perfCli, ROOT } from './helpers.js';
import { stdioServer } from './mcp-client.js';
import { postgresBin, POSTGRES_MISSING, startPostgres, type PgServer } from './pg-server.js';

const work = mkdtempSync(join(tmpdir(), 'rehearse-security-store-'));
const RUN = join(ROOT, 'baselines/routes.json');
// A CLI call answers in about a second; a minute covers a loaded 2-core machine. A hang is what these tests catch.
const CLI_MS = 60_000;
// 10^10 steps: hours of CPU, so a process that "finishes" it within a test's time never ran it.
const ENDLESS = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 10000000000) SELECT max(x) AS version FROM c';
let server: PgServer | undefined;

before(async () => {
  if (postgresBin()) server = await startPostgres();
});
after(async () => {
  await server?.stop();
  rmSync(work, { recursive: true, force: true });
});

function folder(name: string): string {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  copyFileSync(RUN, join(dir, 'run.json'));
  return dir;
}

const sha1 = (file: string): string => createHash('sha1').update(readFileSync(file)).digest('hex');

test('shownLocation: scheme, user, host, port and database only; hideCredentials masks credential parameters', () => {
  const cases: [string, string][] = [
    ['postgres://ada:pw1@db:5432/perf', 'postgres://ada@db:5432/perf'],
    ['postgresql://ada@db/perf?password=pw2&sslmode=require', 'postgresql://ada@db/perf'],
    ['postgres://db/perf?sslpassword=pw3&sslkey=/k/pw4.pem&passfile=/k/pw5', 'postgres://db/perf'],
    ['postgres://ada:pw6@/perf?host=/run/postgresql&port=5433', 'postgres://ada@%2Frun%2Fpostgresql:5433/perf'],
    ['postgres://x@db/perf?user=bob', 'postgres://bob@db/perf'],
    ['postgres://ada:pw7@db/perf#pw8', 'postgres://ada@db/perf'],
    ['postgres://ada:pw9@[bad/perf', 'postgres://(unparseable URL)'],
    ['.perf/history.sqlite', '.perf/history.sqlite'],
  ];
  for (const [url, shown] of cases) assert.equal(shownLocation(url), shown, url);
  assert.equal(
    hideCredentials('at postgres://ada:pw@db/x?sslmode=require&password=pw2&sslkey=/k/key.pem "x"'),
    'at postgres://ada:***@db/x?sslmode=require&password=***&sslkey=*** "x"',
  );
});

test('4: a PostgreSQL password in the URL or its query is shown by no CLI verb, error or MCP reply', { timeout: 120_000 }, async () => {
  if (!server) assert.fail(POSTGRES_MISSING);
  const admin = new pg.Client({ connectionString: server.url, connectionTimeoutMillis: 10_000 });
  await admin.connect();
  await admin.query('CREATE DATABASE sec');
  await admin.end();
  // Trust authentication: the server takes any password, so every secret below reaches the driver for real.
  const url = `${server.url.replace('postgres@', 'postgres:SECRETa@').replace(/\/postgres$/, '/sec')}?password=SECRETb&sslpassword=SECRETc&passfile=/SECRETd`;
  const shown = `postgres://postgres@127.0.0.1:${server.port}/sec`;
  const down = 'postgres://u:SECRETe@127.0.0.1:1/x?password=SECRETf&sslkey=/tmp/SECRETg.pem';
  const dir = folder('pg');
  const env = { PERF_HISTORY: url };
  const outputs: string[] = [];
  const cli = async (args: string[], code: number, e: Record<string, string> = env): Promise<string> => {
    const r = await perfCli(dir, args, CLI_MS, e);
    outputs.push(r.stdout, r.stderr);
    assert.equal(r.code, code, `perf ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  assert.equal(JSON.parse(await cli(['history', 'add', 'run.json', '--json'], 0)).history, shown);
  await cli(['history', 'add', 'run.json', '--history', url], 0, {});
  assert.equal(JSON.parse(await cli(['history', 'show', '--json'], 0)).history, shown);
  await cli(['history', 'show', 'nope'], 2);
  assert.equal(JSON.parse(await cli(['history', 'changes', '--json'], 0)).history, shown);
  await cli(['history', 'changes'], 0);
  assert.equal(JSON.parse(await cli(['history', 'prune', '--keep-runs', '5', '--json'], 0)).history, shown);
  assert.match(await cli(['history', 'prune', '--keep-runs', '5'], 0), new RegExp(`from ${shown.replace(/[.]/g, '\\.')}\\n`));
  // A server that is not there, a key file that is not there, a scheme that is not PostgreSQL's: errors, no secret.
  await cli(['history', 'show', '--history', down], 3, {});
  await cli(['history', 'add', 'run.json', '--history', down], 3, {});
  await cli(['history', 'show', '--history', 'mysql://u:SECRETh@db/x?password=SECRETi'], 2, {});

  const mcp = await stdioServer(dir, { name: 'security-store-pg', args: ['--caps', 'core,history'], env });
  try {
    const ok = await mcp.call('perf_history', {});
    assert.equal(ok.isError, false, ok.text);
    assert.equal(ok.json.history, shown);
    outputs.push(ok.text);
    const refused = await mcp.call('perf_history', { history: down });
    assert.equal(refused.isError, true);
    outputs.push(refused.text, mcp.stderr());
  } finally {
    await mcp.close();
  }
  const all = outputs.join('\n');
  assert.match(all, /cannot connect|SECRETg|no such file/i, 'the down server was tried');
  assert.doesNotMatch(all, /SECRET/);
});

/** A file with a view where perf's schema_version table belongs, its query running 10^10 steps when read. */
function hostileView(file: string): void {
  mkdirSync(join(file, '..'), { recursive: true });
  const db = new Database(file);
  db.exec(`CREATE VIEW schema_version AS ${ENDLESS}`);
  db.close();
}

/** A copy of a real history (recorded by the CLI into `base`) that `tamper` then changes with SQL. */
function tampered(dir: string, base: string, name: string, tamper: string): string {
  copyFileSync(join(dir, base), join(dir, name));
  const db = new Database(join(dir, name));
  db.exec(tamper);
  db.close();
  return join(dir, name);
}

test('6: a hostile history is refused before anything in it runs; the file is left as it was', { timeout: 120_000 }, async () => {
  const dir = folder('hostile');
  const view = join(dir, '.perf', 'history.sqlite');
  hostileView(view);
  const before = sha1(view);
  const verbs = [
    ['history', 'show'],
    ['history', 'changes', '--json'],
    ['history', 'prune', '--keep-runs', '1'],
    ['history', 'add', 'run.json'],
  ];
  for (const [i, r] of (await Promise.all(verbs.map((args) => perfCli(dir, args, CLI_MS)))).entries()) {
    assert.equal(r.code, 2, `perf ${verbs[i]!.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /not a rehearse history: it holds a view "schema_version"/);
  }
  assert.equal(sha1(view), before);
  assert.deepEqual(readdirSync(join(dir, '.perf')), ['history.sqlite'], 'not turned to WAL, nothing beside it');

  const base = await perfCli(dir, ['history', 'add', 'run.json', '--history', 'base.sqlite'], CLI_MS);
  assert.equal(base.code, 0, base.stderr);
  const cases: [string, string, RegExp][] = [
    ['trigger.sqlite', 'CREATE TRIGGER t AFTER INSERT ON runs BEGIN DELETE FROM samples; END', /a trigger "t"/],
    ['index.sqlite', 'CREATE INDEX evil ON samples (value)', /index "evil", which perf never creates/],
    [
      'runs.sqlite',
      "PRAGMA foreign_keys = OFF; DROP TABLE runs; CREATE TABLE runs (id INTEGER PRIMARY KEY, x AS (printf('%.*c', 1000000000, 'x')))",
      /table "runs" is not the one perf creates/,
    ],
    ['gone.sqlite', 'DROP INDEX runs_by_commit', /index "runs_by_commit" of schema version 3 is missing/],
    ['stat.sqlite', 'ANALYZE', /table "sqlite_stat1", which perf never creates/],
  ];
  await Promise.all(
    cases.map(async ([name, tamper, why]) => {
      const file = tampered(dir, 'base.sqlite', name, tamper);
      const kept = sha1(file);
      for (const verb of [['show'], ['add', 'run.json']]) {
        const r = await perfCli(dir, ['history', ...verb, '--history', name], CLI_MS);
        assert.equal(r.code, 2, `${name} ${verb[0]}: ${r.stderr}`);
        assert.match(r.stderr, why, name);
      }
      assert.equal(sha1(file), kept, name);
    }),
  );
});

test('6: the MCP server refuses a hostile default history and keeps answering', { timeout: 60_000 }, async () => {
  const dir = folder('hostile-mcp');
  hostileView(join(dir, '.perf', 'history.sqlite'));
  const mcp = await stdioServer(dir, { name: 'security-store-hostile', args: ['--caps', 'core,history'], callTimeoutMs: 30_000 });
  try {
    const r = await mcp.call('perf_history', {});
    assert.equal(r.isError, true);
    assert.match(r.text, /history_not_ours/);
    assert.match(r.text, /view \\?"schema_version\\?"/);
    assert.ok((await mcp.names()).includes('perf_history'), 'still answers');
  } finally {
    await mcp.close();
  }
});

test('6: a history statement runs with trusted_schema off, and SIGTERM ends the process while one runs', { timeout: 60_000 }, async () => {
  const db = await openSqlite(':memory:');
  try {
    assert.deepEqual(await db.tx((q) => q('PRAGMA trusted_schema')), [{ trusted_schema: 0 }]);
  } finally {
    await db.close();
  }
  // The CLI's own signal handlers (processes.ts), then a statement that would run for hours through the store's query.
  const child = join(work, 'endless.mjs');
  writeFileSync(
    child,
    `import { installSignalHandlers } from ${JSON.stringify(join(ROOT, 'dist/src/processes.js'))};\n` +
      `import { openSqlite } from ${JSON.stringify(join(ROOT, 'dist/src/history/sqlite.js'))};\n` +
      'installSignalHandlers();\n' +
      "const db = await openSqlite(':memory:');\n" +
      "process.stdout.write('querying\\n');\n" +
      `await db.tx((q) => q(${JSON.stringify(ENDLESS)}));\n` +
      "process.stdout.write('finished\\n');\n",
  );
  const p = spawn(process.execPath, [child], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  await new Promise<void>((resolve) => p.stdout.on('data', (d: Buffer) => ((out += d.toString()), out.includes('querying') && resolve())));
  await new Promise((r) => setTimeout(r, 500));
  p.kill('SIGTERM');
  const ended = await Promise.race([
    new Promise<NodeJS.Signals | null>((r) => p.once('exit', (_c, sig) => r(sig))),
    new Promise<'hung'>((r) => setTimeout(() => r('hung'), 15_000)),
  ]);
  if (ended === 'hung') p.kill('SIGKILL');
  assert.equal(ended, 'SIGTERM', `SIGTERM during the statement: ${ended}; stdout ${out}`);
  assert.doesNotMatch(out, /finished/);
});

test('7: reading creates and changes nothing, and refuses a file that is not a history', { timeout: 120_000 }, async () => {
  const dir = folder('read');
  writeFileSync(join(dir, 'notes.txt'), '');
  writeFileSync(join(dir, 'text.txt'), 'hello\n');
  const app = new Database(join(dir, 'app.db'));
  app.exec("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users (name) VALUES ('ada')");
  app.close();
  const r = await perfCli(dir, ['history', 'add', 'run.json', '--history', 'h.sqlite'], CLI_MS);
  assert.equal(r.code, 0, r.stderr);
  const files = (): string[] => readdirSync(dir).sort();
  const sums = (): Record<string, string> => Object.fromEntries(files().map((f) => [f, sha1(join(dir, f))]));
  const listed = files();
  const kept = sums();

  const refusals: [string, RegExp][] = [
    ['notes.txt', /not a rehearse history: the file is empty/],
    ['text.txt', /not a rehearse history: it is not a SQLite database/],
    ['app.db', /not a rehearse history: it holds table "users"/],
    ['missing.sqlite', /no history at .*missing\.sqlite/],
    ['nested/missing.sqlite', /no history at/],
  ];
  // show and changes read alike (readTrends); prune changes a history that must exist.
  const calls = refusals.flatMap(([file, why]) =>
    [['show'], ['prune', '--keep-runs', '0']].map(async ([verb, ...rest]) => {
      const out = await perfCli(dir, ['history', verb!, `--history=${file}`, ...rest], CLI_MS);
      assert.equal(out.code, 2, `${verb} ${file}: ${out.stderr}`);
      assert.match(out.stderr, why, `${verb} ${file}`);
    }),
  );
  // A recorder refuses someone else's file too; it creates only where nothing is.
  const adds = ['notes.txt', 'text.txt', 'app.db'].map(async (file) => {
    const out = await perfCli(dir, ['history', 'add', 'run.json', `--history=${file}`], CLI_MS);
    assert.equal(out.code, 2, `add ${file}: ${out.stderr}`);
  });
  await Promise.all([...calls, ...adds]);
  const show = await perfCli(dir, ['history', 'show', '--json', '--history', 'h.sqlite'], CLI_MS);
  assert.equal(show.code, 0, show.stderr);

  const mcp = await stdioServer(dir, { name: 'security-store-read', args: ['--caps', 'core,history'] });
  try {
    for (const [file, why] of refusals) {
      const reply = await mcp.call('perf_history', { history: file });
      assert.equal(reply.isError, true, file);
      assert.match(reply.json.message, why, file);
    }
    const ok = await mcp.call('perf_history', { history: 'h.sqlite' });
    assert.equal(ok.isError, false, ok.text);
  } finally {
    await mcp.close();
  }
  // SQLite's own -wal/-shm beside a WAL history are the only files a read may leave; every other byte is as it was.
  assert.deepEqual(
    files().filter((f) => !/^h\.sqlite-(wal|shm)$/.test(f)),
    listed,
  );
  for (const [f, sum] of Object.entries(kept)) assert.equal(sha1(join(dir, f)), sum, f);
  assert.ok(!existsSync(join(dir, 'nested')));
  // app.db is still in rollback-journal mode: header bytes 18 and 19 are 1 (2 would be WAL).
  const header = readFileSync(join(dir, 'app.db')).subarray(18, 20);
  assert.deepEqual([...header], [1, 1]);
});

// Every tool an MCP client may run without asking: each changes nothing (no page, app, file or database).
const READ_ONLY_TOOLS = [
  'app_logs',
  'app_status',
  'console',
  'doctor',
  'exceptions',
  'expect',
  'find',
  'get_routes',
  'mark',
  'observe',
  'perf_begin',
  'perf_compare',
  'perf_end',
  'perf_history',
  'perf_insight',
  'snap',
  'wait_for',
  'wait_for_network_idle',
];

test(
  '7: readOnlyHint holds for every tool: a tool that writes a file is never read-only; doctor creates nothing',
  { timeout: 60_000 },
  async () => {
    const dir = folder('hints');
    const mcp = await stdioServer(dir, { name: 'security-store-hints', args: ['--caps', 'all', '--allow', 'evaluate'] });
    try {
      const { tools } = await mcp.client.listTools();
      const hint = (name: string): boolean | undefined => tools.find((t) => t.name === name)?.annotations?.readOnlyHint;
      assert.ok(tools.length > 40, `${tools.length} tools`);
      for (const t of tools) {
        assert.equal(typeof t.annotations?.readOnlyHint, 'boolean', t.name);
        // An argument naming a file to write, or whether to replace one, means the tool writes.
        const props = Object.keys((t.inputSchema as { properties?: object }).properties ?? {});
        if (props.some((p) => ['path', 'out', 'overwrite'].includes(p))) assert.equal(t.annotations?.readOnlyHint, false, t.name);
      }
      assert.deepEqual(
        tools
          .filter((t) => t.annotations?.readOnlyHint)
          .map((t) => t.name)
          .sort(),
        READ_ONLY_TOOLS,
      );
      for (const writer of [
        'storage_save',
        'storage_load',
        'screenshot',
        'perf_trace',
        'perf_run',
        'perf_leaks',
        'perf_bisect',
        'evaluate',
      ])
        assert.equal(hint(writer), false, writer);
      // doctor is read-only: its out-folder check writes no probe and creates no folder.
      const doctor = await mcp.call('doctor', { outDir: 'not-yet/out' });
      assert.equal(doctor.isError, false, doctor.text);
      const check = (doctor.json.data.checks as { name: string; ok: boolean; detail: string }[]).find((c) => c.name === 'out folder');
      assert.equal(check?.ok, true, JSON.stringify(check));
      assert.ok(!existsSync(join(dir, 'not-yet')), 'doctor created the out folder');
    } finally {
      await mcp.close();
    }
  },
);
