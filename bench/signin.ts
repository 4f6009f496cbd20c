/**
 * Sign in once (issue 33 target): a sign-in app whose identity provider takes 1.5 s, one 5-repeat
 * scenario (plus its warmup) signing in once in setupOnce against the same scenario signing in in
 * `setup` every repeat. Figures: each run's wall time (the `perf run` process, end to end), their
 * ratio (target ≤ 0.4×), the server's sign-in count for each (target 1 against 6), and whether every
 * repeat saw the signed-in page (no failed repeat).
 *
 *   npm run bench:signin [-- --delay-ms 1500] [--repeat 5] [--engine webkit]
 *
 * `--engine webkit` runs both scenarios in WebKit over WebDriver (WebKitWebDriver under Xvfb), the
 * issue's second target: the state is restored by the WebDriver cookies API and storage by script.
 *
 * In Chromium, the same flow in Playwright (bench/signin-playwright.ts: storageState once, or a sign-in
 * per context) is timed too, as the peer: it measures nothing, so its ratio is what the flow allows
 * without our instrumentation (its newContext({ storageState }) visits each saved origin to restore it).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunFile } from '../src/perf/run-file.js';
import { startSignInApp } from '../test/fixtures/signin/app.js';

const PERF = fileURLToPath(new URL('../../bin/perf', import.meta.url));
const PLAYWRIGHT_SIDE = fileURLToPath(new URL('./signin-playwright.js', import.meta.url));
const PASSWORD = 'bench-password-4410';
// 10 minutes: five repeats with a 1.5 s sign-in each take well under a minute; a hung run must still end.
const RUN_TIMEOUT_MS = 600_000;

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

/** The engine the scenarios name: chromium (CDP, the default) or webkit (WebDriver). */
function engine(): 'chromium' | 'webkit' {
  const i = process.argv.indexOf('--engine');
  const e = i >= 0 ? process.argv[i + 1] : 'chromium';
  if (e !== 'chromium' && e !== 'webkit') throw new Error(`--engine: expected chromium or webkit, got ${e}`);
  return e;
}

const SIGN_IN = `  - fill: { target: { label: User }, text: alice }
  - fill: { target: { label: Password }, text: "\${env.APP_PASSWORD}" }
  - tap: { target: { role: button, name: Sign in } }
  - wait_for: "Signed in as alice"
`;
const STEPS = `steps:
  - expect: { target: { testId: who }, text: "Signed in as alice" }
  - tap: { target: { role: button, name: Load items } }
  - expect: { target: { role: listitem }, count: 300 }
`;

/** A node child (`perf …`, the Playwright side), killed after RUN_TIMEOUT_MS; its exit code and stderr. */
function runChild(args: string[], cwd: string): Promise<{ status: number | null; stderr: string }> {
  const child = spawn(process.execPath, args, { cwd, env: { ...process.env, APP_PASSWORD: PASSWORD, GITHUB_STEP_SUMMARY: '' } });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout.resume();
  const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
  return new Promise((resolve) =>
    child.once('exit', (status) => {
      clearTimeout(timer);
      resolve({ status, stderr });
    }),
  );
}

/** The Playwright flow's wall time and sign-ins for once and every, and their ratio (printed). */
async function playwrightSide(
  app: Awaited<ReturnType<typeof startSignInApp>>,
  repeat: number,
  dir: string,
): Promise<{ onceMs: number; everyMs: number; ratio: number }> {
  const ms: Record<'once' | 'every', number> = { once: 0, every: 0 };
  for (const mode of ['once', 'every'] as const) {
    const before = app.signIns();
    const t0 = performance.now();
    const r = await runChild([PLAYWRIGHT_SIDE, app.url, mode, String(repeat)], dir);
    ms[mode] = performance.now() - t0;
    if (r.status !== 0) throw new Error(`playwright ${mode}: exit ${r.status}\n${r.stderr}`);
    console.log(`playwright ${mode.padEnd(5)} wall ${(ms[mode] / 1000).toFixed(1)} s, sign-ins ${app.signIns() - before}`);
  }
  const ratio = Number((ms.once / ms.every).toFixed(3));
  console.log(`playwright ratio (storageState once / sign-in every context): ${ratio.toFixed(2)}× (the peer; it measures nothing)`);
  return { onceMs: Math.round(ms.once), everyMs: Math.round(ms.every), ratio };
}

async function main(): Promise<void> {
  const delayMs = arg('delay-ms', 1500);
  const repeat = arg('repeat', 5);
  const eng = engine();
  const browser = eng === 'webkit' ? 'browser: { engine: webkit }\n' : '';
  const app = await startSignInApp({ password: PASSWORD, loginDelayMs: delayMs });
  const dir = mkdtempSync(join(tmpdir(), 'rehearse-bench-signin-'));
  try {
    const rows: { name: string; wallMs: number; signIns: number; failed: number; measured: number }[] = [];
    for (const [name, key] of [
      ['once', 'setupOnce'],
      ['every', 'setup'],
    ] as const) {
      const file = join(dir, `${name}.yaml`);
      writeFileSync(file, `name: ${name}\napp: { url: ${app.url}, path: /app }\n${browser}${key}:\n${SIGN_IN}${STEPS}`);
      const before = app.signIns();
      const t0 = performance.now();
      // Asynchronously: the app answers from this process.
      const r = await runChild([PERF, 'run', file, '--repeat', String(repeat), '--out', join(dir, 'out'), '--quiet'], dir);
      const wallMs = performance.now() - t0;
      if (r.status !== 0 && r.status !== 1) throw new Error(`perf run ${name}: exit ${r.status}\n${r.stderr}`);
      const run = JSON.parse(readFileSync(join(dir, 'out', `${name}-run.json`), 'utf8')) as RunFile;
      rows.push({ name, wallMs, signIns: app.signIns() - before, failed: run.summary.failed, measured: run.summary.measured });
    }
    const [once, every] = rows as [(typeof rows)[0], (typeof rows)[0]];
    for (const r of rows)
      console.log(
        `${r.name.padEnd(6)} wall ${(r.wallMs / 1000).toFixed(1)} s, sign-ins ${r.signIns}, measured ${r.measured}, failed ${r.failed}`,
      );
    const ratio = once.wallMs / every.wallMs;
    console.log(`ratio (setupOnce / setup every repeat): ${ratio.toFixed(2)}× (target ≤ 0.40×); identity provider ${delayMs} ms; ${eng}`);
    const peer = eng === 'chromium' ? await playwrightSide(app, repeat, dir) : undefined;
    console.log(
      JSON.stringify({ engine: eng, delayMs, repeat, ratio: Number(ratio.toFixed(3)), rows, ...(peer ? { playwright: peer } : {}) }),
    );
  } finally {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
