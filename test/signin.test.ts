/**
 * Sign in once (issue 33): a scenario's setupOnce signs in once per run and every clean repeat starts
 * signed in (an HttpOnly cookie and a localStorage value restored before app.path opens), on real
 * Chromium against a tiny sign-in app served here. The password and the session cookie appear in no
 * file under --out and in no output; a state saved by `perf state save` from a `perf start` session
 * runs the same with no sign-in at all; an expired sign-in is signed in again once; a terminal
 * scenario with setupOnce is refused at its line. Also: perf leaks and MCP perf_run storageState start
 * signed in, state save/load carry every origin visited (CDP), and a Selenium Grid run signs in once.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunFile } from '../src/perf/run-file.js';
import { firefoxBinary } from '../src/drivers/bidi/firefox.js';
import { findServerBinary, miniBrowserPath } from '../src/drivers/webdriver/server.js';
import { perfCli } from './helpers.js';
import { stdioServer, type Stdio } from './mcp-client.js';
import { gridLog, javaAvailable, sessionsAfterDelete, startStandalone, type GridProcess } from './grid-server.js';
import { startSignInApp, type SignInApp } from './fixtures/signin/app.js';

const PASSWORD = 'correct-horse-battery-7731';

interface StorageStateFile {
  origins: { origin: string; localStorage: { name: string; value: string }[]; sessionStorage: { name: string; value: string }[] }[];
}
const missingWebKit =
  findServerBinary('webkit') && miniBrowserPath() ? false : 'WebKitWebDriver not installed (apt-get install webkit2gtk-driver xvfb)';
const work = mkdtempSync(join(tmpdir(), 'rehearse-signin-'));
let app: SignInApp;

before(async () => {
  app = await startSignInApp({ password: PASSWORD, loginDelayMs: 300 });
});
after(async () => {
  await perfCli(work, ['stop'], 60_000).catch(() => undefined);
  await app.close();
  rmSync(work, { recursive: true, force: true });
});

/** perf with APP_PASSWORD in its environment (a child's env: the helper passes process.env on). */
async function perf(args: string[], timeoutMs = 240_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  process.env.APP_PASSWORD = PASSWORD;
  try {
    return await perfCli(work, args, timeoutMs);
  } finally {
    delete process.env.APP_PASSWORD;
  }
}

const SIGNED_IN_STEPS = `steps:
  - expect: { target: { testId: who }, text: "Signed in as alice" }
  - expect: { target: { testId: pref }, text: "Preference: theme-dark-from-login" }
  - tap: { target: { role: button, name: Load items } }
  - expect: { target: { role: listitem }, count: 300 }
`;

function scenario(name: string, extra: string): string {
  const file = join(work, `${name}.yaml`);
  writeFileSync(file, `name: ${name}\napp: { url: ${app.url}, path: /app }\n${extra}${SIGNED_IN_STEPS}`);
  return file;
}

const SETUP_ONCE = `setupOnce:
  - fill: { target: { label: User }, text: alice }
  - fill: { target: { label: Password }, text: "\${env.APP_PASSWORD}" }
  - tap: { target: { role: button, name: Sign in } }
  - wait_for: "Signed in as alice"
`;

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

/** No secret in any file under `out` (as text, whatever the file) nor in the command's output. */
function assertNoSecrets(out: string, r: { stdout: string; stderr: string }, secrets: string[]): void {
  const files = filesUnder(out);
  assert.ok(files.length > 0, 'the run wrote files');
  for (const s of secrets) {
    for (const f of files) assert.ok(!readFileSync(f).toString('latin1').includes(s), `${f} holds a secret`);
    assert.ok(!r.stdout.includes(s) && !r.stderr.includes(s), 'a secret in the output');
  }
}

function runFile(out: string, name: string): RunFile {
  return JSON.parse(readFileSync(join(out, `${name}-run.json`), 'utf8')) as RunFile;
}

function assertAllSignedIn(run: RunFile, stderr: string, repeats = 4): void {
  const why = JSON.stringify(run.repeats.map((x) => (x.status === 'failed' ? x.failure.error.message : x.status)));
  assert.equal(run.summary.failed, 0, `every repeat's expect steps saw the signed-in page: ${why}\n${stderr}`);
  assert.equal(run.repeats.length, repeats, 'every scheduled repeat ran');
  assert.ok(
    run.repeats.every((x) => x.retriedAfterSignIn === undefined),
    'no repeat needed a second sign-in',
  );
}

test('setupOnce signs in once; three clean repeats start signed in; no secret in --out or the output', { timeout: 300_000 }, async () => {
  const before = app.signIns();
  const file = scenario('once', SETUP_ONCE);
  const r = await perf(['run', file, '--repeat', '3', '--out', 'out-once']);
  assert.ok(r.code === 0 || r.code === 1, r.stderr);
  assert.equal(app.signIns() - before, 1, 'one sign-in for the whole run');
  const out = join(work, 'out-once');
  assertAllSignedIn(runFile(out, 'once'), r.stderr);
  assertNoSecrets(out, r, [PASSWORD, ...app.sessionIds()]);
});

test(
  'perf state save from a perf start session; perf run --storage-state FILE runs signed in with no sign-in',
  { timeout: 300_000 },
  async () => {
    // The session in the default state folder (./.perf of the working folder), which the step verbs use.
    const start = await perf(['start', '--url', app.url, '--path', '/login', '--json'], 90_000);
    assert.equal(start.code, 0, start.stderr);
    for (const args of [
      ['fill', '--target', '{"label":"User"}', '--text', 'alice'],
      ['fill', '--target', '{"label":"Password"}', '--text', PASSWORD],
      ['tap', '--target', '{"role":"button","name":"Sign in"}'],
      ['wait_for', '--text', 'Signed in as alice'],
    ]) {
      const v = await perf(args, 60_000);
      assert.equal(v.code, 0, `${args.join(' ')}: ${v.stderr}`);
    }
    const save = await perf(['state', 'save', 'state.json', '--json'], 60_000);
    assert.equal(save.code, 0, save.stderr);
    const saved = JSON.parse(save.stdout) as { cookies: number; origins: string[] };
    assert.ok(saved.cookies >= 1 && saved.origins.includes(app.url), save.stdout);
    assert.equal(statSync(join(work, 'state.json')).mode & 0o777, 0o600, 'a state file is a secret: 0600');
    await perf(['stop'], 60_000);

    const before = app.signIns();
    const file = scenario('from-file', '');
    const r = await perf(['run', file, '--repeat', '3', '--out', 'out-file', '--storage-state', 'state.json']);
    assert.ok(r.code === 0 || r.code === 1, r.stderr);
    assert.equal(app.signIns() - before, 0, 'the saved state is the sign-in');
    const out = join(work, 'out-file');
    assertAllSignedIn(runFile(out, 'from-file'), r.stderr);
    assertNoSecrets(out, r, [PASSWORD, ...app.sessionIds()]);

    const bad = join(work, 'bad-state.json');
    writeFileSync(bad, JSON.stringify({ version: 1, cookies: [{ name: 'x' }], origins: [] }));
    const refused = await perf(['run', file, '--repeat', '1', '--out', 'out-bad', '--storage-state', 'bad-state.json'], 60_000);
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /bad-state\.json: not a storage state file/);
  },
);

test('an expired sign-in: the failed repeat signs in again once, is retried and says so', { timeout: 300_000 }, async () => {
  const before = app.signIns();
  const file = scenario('expired', SETUP_ONCE);
  // The sign-in opens /app (1st request, sent to /login) and comes back to it signed in (2nd); the first
  // repeat's (the 3rd) finds its session gone.
  app.expireAt(3);
  const r = await perf(['run', file, '--repeat', '2', '--warmup', '0', '--out', 'out-expired']);
  assert.ok(r.code === 0 || r.code === 1, r.stderr);
  const run = runFile(join(work, 'out-expired'), 'expired');
  assert.equal(app.signIns() - before, 2, 'signed in again once');
  assert.equal(run.repeats[0]?.retriedAfterSignIn, true, 'the first repeat was retried after signing in again');
  assert.equal(run.repeats[1]?.retriedAfterSignIn, undefined);
  assert.equal(run.summary.failed, 0, r.stderr);
});

test(
  'WebKit over WebDriver: setupOnce signs in once; the cookie and localStorage are restored in every new session',
  {
    timeout: 300_000,
    skip: missingWebKit,
  },
  async () => {
    const before = app.signIns();
    const file = scenario('webkit', `browser: { engine: webkit }\n${SETUP_ONCE}`);
    const r = await perf(['run', file, '--repeat', '3', '--warmup', '0', '--out', 'out-webkit']);
    assert.ok(r.code === 0 || r.code === 1, r.stderr);
    assert.equal(app.signIns() - before, 1, 'one sign-in for the whole run');
    const out = join(work, 'out-webkit');
    assertAllSignedIn(runFile(out, 'webkit'), r.stderr, 3);
    assertNoSecrets(out, r, [PASSWORD, ...app.sessionIds()]);
  },
);

test(
  'Firefox over BiDi: setupOnce signs in once; the HttpOnly cookie and localStorage are restored in every new user context',
  { timeout: 300_000, skip: firefoxBinary() ? false : 'Firefox not installed (apt-get install firefox-esr)' },
  async () => {
    const before = app.signIns();
    const file = scenario('firefox', `browser: { engine: firefox }\n${SETUP_ONCE}`);
    const r = await perf(['run', file, '--repeat', '3', '--warmup', '0', '--out', 'out-firefox']);
    assert.ok(r.code === 0 || r.code === 1, r.stderr);
    assert.equal(app.signIns() - before, 1, 'one sign-in for the whole run');
    const out = join(work, 'out-firefox');
    const run = runFile(out, 'firefox');
    assert.equal(run.env.browser.driver, 'bidi');
    assert.equal(run.env.restartMode, 'context');
    assertAllSignedIn(run, r.stderr, 3);
    assertNoSecrets(out, r, [PASSWORD, ...app.sessionIds()]);
  },
);

test('perf leaks signs in once (setupOnce) and its one page opens signed in', { timeout: 300_000 }, async () => {
  const before = app.signIns();
  // The steps expect the signed-in page: a page that opened on the sign-in form fails the first iteration (exit 1, no JSON).
  const file = scenario('leaks-signed-in', SETUP_ONCE);
  const r = await perf(['leaks', file, '--iterations', '2', '--out', 'out-leaks', '--json']);
  assert.ok(r.code === 0 || r.code === 1, r.stderr);
  const doc = JSON.parse(r.stdout) as { verdict: string; iterations: number; kind: string };
  assert.equal(doc.iterations, 2, r.stdout);
  assert.equal(doc.kind, 'heap');
  assert.equal(app.signIns() - before, 1, 'one sign-in for the leaks run');
  assert.ok(!r.stdout.includes(PASSWORD) && !r.stderr.includes(PASSWORD), 'the password in no output');
});

/** A real `perf mcp` server over stdio in `cwd`; each call's reply text, parsed, with isError. */
function mcpServer(cwd: string): Promise<Stdio> {
  // A perf_run of signed-in repeats outlasts the SDK's 60 s default on a loaded host.
  return stdioServer(cwd, { name: 'rehearse-signin-test', callTimeoutMs: 240_000 });
}

/** A state file made by signing in over HTTP (one sign-in on the server): its cookie and the localStorage the login page writes. */
async function signedInStateFile(name: string): Promise<string> {
  const res = await fetch(`${app.url}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user: 'alice', password: PASSWORD }),
  });
  const sid = /sid=([0-9a-f]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1];
  assert.ok(sid, 'the fixture set a session cookie');
  const state = {
    version: 1,
    cookies: [{ name: 'sid', value: sid, domain: '127.0.0.1', path: '/', expires: -1, httpOnly: true, secure: false, sameSite: 'Lax' }],
    origins: [{ origin: app.url, localStorage: [{ name: 'signin-pref', value: 'theme-dark-from-login' }], sessionStorage: [] }],
  };
  writeFileSync(join(work, name), JSON.stringify(state), { mode: 0o600 });
  return name;
}

test(
  'MCP perf_run storageState: every repeat starts signed in from the file, confined to the working folder',
  { timeout: 300_000 },
  async () => {
    const stateFile = await signedInStateFile('mcp-state.json');
    scenario('mcp-file', '');
    const before = app.signIns();
    const s = await mcpServer(work);
    try {
      const r = await s.call('perf_run', { scenario: 'mcp-file.yaml', repeat: 3, warmup: 0, out: 'out-mcp', storageState: stateFile });
      assert.equal(r.isError, false, r.text);
      assert.deepEqual(r.json.run.repeats, { counted: 3, measured: 3, refused: 0, failed: 0, warmup: 0 }, r.text);
      assert.equal(app.signIns() - before, 0, 'the state file is the sign-in');
      assert.ok(!r.text.includes(PASSWORD) && !app.sessionIds().some((id) => r.text.includes(id)), 'no secret in the reply');
      const outside = await s.call('perf_run', { scenario: 'mcp-file.yaml', repeat: 1, storageState: '../elsewhere.json' });
      assert.equal(outside.isError, true, outside.text);
      assert.match(outside.text, /perf_run storageState/);
      const compare = await s.call('perf_run', { scenario: 'mcp-file.yaml', against: 'mcp-file.yaml', storageState: stateFile });
      assert.equal(compare.isError, true, compare.text);
      assert.match(compare.text, /storageState applies to one scenario/);
    } finally {
      await s.close();
    }
  },
);

/** A second origin (http://localhost:PORT): /write stores a token in its localStorage and sessionStorage, /read shows the stored one. */
async function otherOrigin(): Promise<{ url: string; close: () => Promise<void> }> {
  const page = (body: string): string =>
    `<!doctype html><html><head><title>Other</title></head><body><p id="out"></p><script>${body}</script></body></html>`;
  const server = createServer((req, res) => {
    const write =
      "localStorage.setItem('other-token', 'token-from-the-localhost-origin'); sessionStorage.setItem('other-tab', 'tab-value-of-localhost');" +
      "document.getElementById('out').textContent = 'written';";
    const read = "document.getElementById('out').textContent = 'Other: ' + (localStorage.getItem('other-token') ?? 'none');";
    res.writeHead(200, { 'content-type': 'text/html' }).end(page(req.url === '/write' ? write : read));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://localhost:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

test(
  'CDP: perf state save keeps the localStorage of every origin the session visited; state load brings both back',
  { timeout: 300_000 },
  async () => {
    const other = await otherOrigin();
    const verb = async (args: string[]): Promise<void> => {
      const v = await perf(args, 90_000);
      assert.equal(v.code, 0, `${args.join(' ')}: ${v.stderr}`);
    };
    try {
      const before = app.signIns();
      await verb(['start', '--url', app.url, '--path', '/login']);
      await verb(['fill', '--target', '{"label":"User"}', '--text', 'alice']);
      await verb(['fill', '--target', '{"label":"Password"}', '--text', PASSWORD]);
      await verb(['tap', '--target', '{"role":"button","name":"Sign in"}']);
      await verb(['wait_for', '--text', 'Signed in as alice']);
      // The page leaves 127.0.0.1 for the other origin: its storage is read from there.
      await verb(['navigate', '--url', `${other.url}/write`]);
      await verb(['wait_for', '--text', 'written']);
      const save = await perf(['state', 'save', 'two-origins.json', '--json'], 90_000);
      assert.equal(save.code, 0, save.stderr);
      const saved = JSON.parse(readFileSync(join(work, 'two-origins.json'), 'utf8')) as StorageStateFile;
      const at = (origin: string) => saved.origins.find((o) => o.origin === origin);
      assert.deepEqual(at(app.url)?.localStorage.find((i) => i.name === 'signin-pref')?.value, 'theme-dark-from-login', save.stdout);
      assert.deepEqual(at(other.url)?.localStorage, [{ name: 'other-token', value: 'token-from-the-localhost-origin' }]);
      assert.deepEqual(
        at(other.url)?.sessionStorage,
        [{ name: 'other-tab', value: 'tab-value-of-localhost' }],
        'the current origin: sessionStorage too',
      );
      await verb(['stop']);

      // A new browser with nothing stored: the load brings both origins back.
      await verb(['start', '--url', other.url, '--path', '/read']);
      await verb(['wait_for', '--text', 'Other: none']);
      await verb(['state', 'load', 'two-origins.json']);
      await verb(['wait_for', '--text', 'Other: token-from-the-localhost-origin']);
      await verb(['navigate', '--url', `${app.url}/app`]);
      await verb(['wait_for', '--text', 'Preference: theme-dark-from-login']);
      assert.equal(app.signIns() - before, 1, "signed in once, by hand; the loaded state is the second session's sign-in");
    } finally {
      await perf(['stop'], 60_000).catch(() => undefined);
      await other.close();
    }
  },
);

test(
  'Selenium Grid: setupOnce signs in once; every repeat, each a Grid session of its own, starts signed in',
  { timeout: 400_000, skip: javaAvailable() ? false : 'needs java and /usr/bin/chromedriver (.ci/run installs them)' },
  async () => {
    let grid: GridProcess | undefined;
    try {
      grid = await startStandalone();
      const before = app.signIns();
      // restart: browser: every repeat is a new Grid session, restored from the saved state before app.path opens.
      const file = scenario('on-grid', `browser: { endpoint: "selenium+${grid.url}", restart: browser }\n${SETUP_ONCE}`);
      const r = await perf(['run', file, '--repeat', '3', '--warmup', '0', '--out', 'out-grid'], 360_000);
      assert.ok(r.code === 0 || r.code === 1, r.stderr);
      assert.equal(app.signIns() - before, 1, 'one sign-in for the whole run');
      const out = join(work, 'out-grid');
      assertAllSignedIn(runFile(out, 'on-grid'), r.stderr, 3);
      assertNoSecrets(out, r, [PASSWORD, ...app.sessionIds()]);
      const created = (gridLog(grid).match(/Session created by the Node/g) ?? []).length;
      assert.ok(created >= 3, `a Grid session per repeat (${created} created)`);
      assert.equal(await sessionsAfterDelete(grid.url), 0, 'no session left on the Grid');
    } finally {
      await grid?.stop();
    }
  },
);

test('a terminal scenario with setupOnce is refused at its line (exit 2)', { timeout: 60_000 }, async () => {
  const file = join(work, 'term.yaml');
  writeFileSync(file, 'name: term\napp:\n  terminal: { command: cat }\nsetupOnce:\n  - press_key: Enter\nsteps:\n  - press_key: Enter\n');
  const r = await perf(['validate', file], 60_000);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /term\.yaml:5:\d+.*setupOnce is not available on the pty driver/);
});
