#!/usr/bin/env node
/**
 * The test suite in lanes (issue 28 part 8). `node test/lanes.mjs all` is `npm test`'s runner: the whole
 * suite, every compiled dist/test/*.test.js exactly once; `node test/lanes.mjs unit` is `npm run test:unit`,
 * the inner loop (no browser, no Java, no pty).
 *
 * Every test file is named in exactly one list below, by what it starts; a file in dist/test that no list
 * names (or a name with no file) stops the run before anything starts, so a new test is never silently
 * skipped and nothing is picked up by accident.
 *   UNIT     pure code (and `perf` as a plain Node child for compare/validate): CPU only.
 *   BROWSER  real Chromium, WebKit, chromedriver, Selenium Grid (Java), pty programs, the CLI driving them.
 *   TIMING   tests whose verdicts depend on measured time (A/A with a CPU hog, jank detection, the gate's
 *            sequential verdicts on timing metrics, a pure function's own speed): they run first, one file at a
 *            time, beside no other browser and no job of normal priority. `unit` runs its pure ones
 *            (UNIT_TIMING) the same way.
 *
 * `node test/lanes.mjs stats.test.js gate.test.js` runs just those files, 2 or 3 at a time (QUIET_JOBS).
 *
 * `all` runs TIMING one file at a time, TIMING_ALONE first with nothing beside, the rest with UNIT jobs beside them,
 * one at a time at the lowest CPU priority (BESIDE_NICE), then the rest of UNIT and BROWSER side by side, 2 or 3
 * processes at a time (longest first).
 * Each job is one `node --test` process; its TAP is printed whole when it ends (the lanes would interleave
 * line by line otherwise), with a live one-line start/end per job.
 *
 * Every job runs in its own process group; on SIGINT/SIGTERM/SIGHUP (Ctrl-C, a CI timeout) or any exit
 * of this runner, each group is sent SIGTERM and, 5 s later, SIGKILL; if the runner itself is SIGKILLed,
 * its watchdog kills the groups. Browsers and servers a test starts die with it (src/processes.ts),
 * so no test process, browser or Java server outlives a killed run.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DIST = join(ROOT, 'dist', 'test');

/**
 * compare.test.js holds Monte-Carlo properties of ~50, ~30 and ~17 s at their stated 10,000 sequences:
 * split by test name into processes that run in parallel, never with fewer sequences. The patterns are
 * complements (the last part is "none of the others"), so a renamed or new test still runs exactly once.
 */
const COMPARE_PARTS = ['^\\+30% at CV 5%', '^\\+30% at CV 20%|^better: higher'];

/** Pure code: no browser, no Java, no pty. */
const UNIT = [
  'bidi-socket.test.js',
  'package-links.test.js',
  'devtools-insights-engine.test.js',
  'cli-paths.test.js',
  'history-pg.test.js',
  'compare.test.js',
  'paired.test.js',
  'report-fuzz.test.js',
  'compare-runs.test.js',
  'compare-preflight.test.js',
  'compare-samples.test.js',
  'compare-roles.test.js',
  'compare-primaries.test.js',
  'compare-rows.test.js',
  'compare-host.test.js',
  'compare-attribution.test.js',
  'compare-verdict.test.js',
  'compare-validate.test.js',
  'host-busy.test.js',
  'insight-changes.test.js',
  'perf-load-reply.test.js',
  'perf-end-summary.test.js',
  'attribution.test.js',
  'reporters.test.js',
  'stats.test.js',
  'change-points.test.js',
  'history-trends.test.js',
  'static-server.test.js',
  'page-runtime-source.test.js',
  'perf-report.test.js',
  'host-state.test.js',
  'redact.test.js',
  'settle-reports.test.js',
  'tachometer-rule.test.js',
  'sequential.test.js',
  'step-side.test.js',
  'docs.test.js',
  'validators.test.js',
  'size-tools.test.js',
  'report-sources.test.js',
  'load-metrics.test.js',
  'bidi-network.test.js',
  'load-refusals.test.js',
  'security-git.test.js',
  'bisect-follow.test.js',
  'insight-budgets.test.js',
  'engine-override.test.js',
  'schedule-plan.test.js',
];

/**
 * Browsers, Java, pty programs, dependency-cruiser and tsc as tools; verdicts that do not depend on time. Longest first
 * (bisect, bisect-exit, shard and gate-baselines run their independent cases at once since issue 28's test-time pass).
 */
const BROWSER = [
  'firefox.test.js',
  'firefox-swagger.test.js',
  'firefox-emulation.test.js',
  'firefox-navigation.test.js',
  'firefox-against.test.js',
  'package-install.test.js',
  'npx-registry.test.js',
  'devtools-insights.test.js',
  'bisect-grid.test.js',
  'grid-hub.test.js',
  'bisect.test.js',
  'history-store.test.js',
  'leaks.test.js',
  'security-pipe.test.js',
  'signin.test.js',
  'bisect-exit.test.js',
  'tabs.test.js',
  'shard.test.js',
  'gate-baselines.test.js',
  'gate-budgets.test.js',
  'insight-budgets-run.test.js',
  'runner.test.js',
  'grid.test.js',
  'mcp.test.js',
  'lifecycle-webdriver.test.js',
  'examples.test.js',
  'first-screen.test.js',
  'load.test.js',
  'load-requests.test.js',
  'session.test.js',
  'security-files.test.js',
  'hostile-files.test.js',
  'deps.test.js',
  'targets.test.js',
  'webdriver.test.js',
  'load-webdriver.test.js',
  'cli-lifecycle.test.js',
  'read-steps.test.js',
  'html-report.test.js',
  'desktop.test.js',
  'cli-verbs.test.js',
  'terminal-session.test.js',
  'mcp-economy.test.js',
  'actions.test.js',
  'snap.test.js',
  'terminal-trace.test.js',
  'network.test.js',
  'perf-steps.test.js',
  'memory-metrics.test.js',
  'terminal.test.js',
  'actions-forms.test.js',
  'recorder.test.js',
  'readme-ci-flow.test.js',
  'keep-going.test.js',
  'deadlines.test.js',
  'terminal-orphans.test.js',
  'overlay-steps.test.js',
  'names.test.js',
  'scenario.test.js',
  'nav-steps.test.js',
  'pty.test.js',
  'mcp-security.test.js',
  'security-store.test.js',
  'viewport-steps.test.js',
  'terminal-secrets.test.js',
  'html-attribution.test.js',
  'app.test.js',
  'against-drivers.test.js',
  'metrics.test.js',
  'errors.test.js',
  'webdriver-timeout.test.js',
  'heap.test.js',
  'frames-one-paint.test.js',
  'schedule-drivers.test.js',
  'firefox-network-idle.test.js',
];

/** Pure code that asserts on its own speed: alone, after the parallel jobs. None today (a timing is never asserted). */
const UNIT_TIMING = [];

/** Verdicts that depend on measured time: run alone, one file at a time, before the other lanes start. */
const TIMING = [
  ...UNIT_TIMING,
  'gate.test.js',
  'history-gate.test.js',
  'host-busy-e2e.test.js',
  'perf-measure.test.js',
  'attribution-run.test.js',
  'load-gate.test.js',
];

/**
 * Timing files that tell their arms apart by the CPU other processes used (a repeat's host record): in `all` they run
 * first, before any UNIT job starts beside the timing files. A nice-19 job still takes an idle core, and reads as another
 * job's load in both arms: beside one, host-busy-e2e's quiet arm read 58–64 % foreign CPU instead of 46–47 % (CI with a
 * busy core, 6 runs each), its candidate's hog no longer stood out, and a run came out undecided without naming it.
 */
// load-gate too: it compares a stored baseline with a later run, and which UNIT job ran beside each one changed the
// milliseconds between them (CI: load.fcpMs +62 % on unchanged code, which no host mark explained).
const TIMING_ALONE = ['host-busy-e2e.test.js', 'load-gate.test.js'];

/**
 * The inner loop runs the same seeded Monte-Carlo properties (deterministic: a seed gives the same
 * sequences every time) at a fifth of their counts, so it stays under a minute on 2 cores; `all`, the
 * full suite CI runs, keeps the stated counts (10,000 gate sequences, 4,000 noise-rule ones, 300 + 200 fuzz files).
 */
const INNER_LOOP_ENV = { GATE_SEQUENCES: '2000', NOISE_SEQUENCES: '800', FUZZ_RUNS: '60', FUZZ_COMPARES: '40' };
let childEnv = process.env;

/**
 * Jobs at a time (TEST_JOBS overrides): 3 when nothing else loads the machine, 2 when something does. A browser test
 * waits on its pages for much of its time (its job's CPU is about half its wall time), so two jobs left 2 quiet
 * cores ~15 % idle: measured there, the lanes took 825 s with 2 and 692 s with 3, every test passing. Beside
 * another job's load (CI), a third would only oversubscribe the browsers each test starts: 2, one per core.
 * Decided once, from the machine's busy CPU over LOAD_SAMPLE_MS before any job starts (as make -l reads the load).
 */
const QUIET_JOBS = 3;
const SHARED_JOBS = 2;
// Others' CPU before the run, in cores, from which the machine counts as shared: one CPU hog reads ~1.0, an idle box ~0.02.
const SHARED_CORES = 0.5;
// Long enough to see a steady load; a second is all the run waits for it.
const LOAD_SAMPLE_MS = 1000;
// A killed run's processes get this long to close their browsers before SIGKILL.
const KILL_GRACE_MS = 5000;
/**
 * 19, the lowest priority: the timing files' own processes (nice 0) take a core from a nice-19 job whenever they
 * want one (CFS weights 1024 against 15), so the pure-CPU jobs run on what they leave idle: alone, the timing files
 * waited on their pages for most of their 176 s (68 cpu-s in their jobs), and the UNIT lane is ~120 cpu-s. Measured
 * on 2 quiet cores: every UNIT job finished beside them, the lanes took 825 s instead of 857 s, and the timing files
 * 205 s instead of 176 s (a nice-19 job still costs them caches and the odd wake-up) with the same verdicts.
 */
const BESIDE_NICE = 19;
// After a job's process exits, its output pipes get this long to drain before the job counts as done.
const PIPE_GRACE_MS = 2000;
// --test-force-exit ends a file whose tests are done but which left a handle open; test/blocking-stdio.mjs keeps it from
// cutting the file's last results (see there).
const BLOCKING_STDIO = pathToFileURL(join(ROOT, 'test', 'blocking-stdio.mjs')).href;
const NODE_TEST = [`--import=${BLOCKING_STDIO}`, '--test', '--test-concurrency=1', '--test-timeout=900000', '--test-force-exit'];
// Each job prints the CPU seconds it and the descendants it reaped used (test/with-cpu.mjs): a lower bound (a killed
// browser's helper processes are reaped by init, not by the job), beside the machine's busy CPU for the whole run.
const WITH_CPU = join(ROOT, 'test', 'with-cpu.mjs');

// node --test names a file's own test by its path: seen at the top level, the file's results never arrived.
const OWN_RESULTS_LOST = new RegExp(`^(?:not )?ok \\d+ - ${DIST.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/\\S+\\.test\\.js$`, 'm');

/** One node --test process: files, and a name pattern when a file is split. */
function jobsOf(files) {
  return files.flatMap((file) => {
    if (file !== 'compare.test.js') return [{ name: file, args: [join(DIST, file)] }];
    // node 20 runs every test whose ancestor matches; the file's root test is named "<root>", so the
    // complement must not match it.
    const rest = `^(?!<root>$)(?!${COMPARE_PARTS.map((p) => `(?:${p.replace(/^\^/, '')})`).join('|')})`;
    return [...COMPARE_PARTS, rest].map((pattern, i) => ({
      name: `${file} part ${i + 1}/${COMPARE_PARTS.length + 1}`,
      split: file,
      args: [`--test-name-pattern=${pattern}`, join(DIST, file)],
    }));
  });
}

/** The parts of a split file must run each of its tests exactly once, whatever the names became. */
function checkSplits(results) {
  const problems = [];
  for (const file of new Set(results.flatMap((r) => (r.job.split ? [r.job.split] : [])))) {
    const parts = results.filter((r) => r.job.split === file);
    const ran = parts.reduce((s, r) => s + r.tests - r.skipped, 0);
    if (parts.some((r) => r.tests !== parts[0].tests) || ran !== parts[0].tests)
      problems.push(`${file}: its ${parts.length} parts ran ${ran} tests of ${parts[0].tests}; fix COMPARE_PARTS in test/lanes.mjs`);
  }
  for (const p of problems) process.stderr.write(`lanes: ${p}\n`);
  return problems.length === 0;
}

function checkLists() {
  if (!existsSync(DIST)) throw new Error(`lanes: ${DIST} is missing; run tsc -p tsconfig.json first`);
  const listed = [...UNIT, ...BROWSER, ...TIMING];
  const twice = listed.filter((f, i) => listed.indexOf(f) !== i);
  const built = readdirSync(DIST).filter((f) => f.endsWith('.test.js'));
  const unlisted = built.filter((f) => !listed.includes(f));
  const missing = listed.filter((f) => !built.includes(f));
  const problems = [
    ...twice.map((f) => `${f} is in two lanes`),
    ...unlisted.map((f) => `${f} is in no lane: add it to UNIT, BROWSER or TIMING in test/lanes.mjs`),
    ...missing.map((f) => `${f} is listed in test/lanes.mjs but not built (renamed or removed?)`),
    ...TIMING_ALONE.filter((f) => !TIMING.includes(f)).map((f) => `${f} is in TIMING_ALONE but not in TIMING`),
  ];
  if (problems.length > 0) throw new Error(`lanes:\n  ${problems.join('\n  ')}`);
}

const running = new Set();
let stopping = false;

/**
 * SIGKILL cannot be caught: a watchdog process holds a pipe from this runner and, when it closes (whatever
 * ended the runner), kills every job group still open. The runner tells it `+PGID` and `-PGID` as jobs
 * start and end, so it never signals a group that is done (whose id the kernel may reuse).
 */
const WATCHDOG = `
const open = new Set();
let buf = '';
process.stdin.on('data', (d) => {
  buf += d;
  for (let i = buf.indexOf('\\n'); i >= 0; i = buf.indexOf('\\n')) {
    const line = buf.slice(0, i);
    buf = buf.slice(i + 1);
    (line[0] === '+' ? open.add : open.delete).call(open, Number(line.slice(1)));
  }
});
process.stdin.on('end', () => {
  for (const g of open) try { process.kill(-g, 'SIGKILL'); } catch {}
  process.exit(0);
});
`;
const watchdog = spawn(process.execPath, ['-e', WATCHDOG], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
watchdog.unref();
watchdog.stdin.on('error', () => undefined);
// The pipe must not keep this runner alive once its jobs are done.
watchdog.stdin._handle?.unref?.();
const tellWatchdog = (line) => watchdog.stdin.write(`${line}\n`);

function killGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {
    /* the group is gone */
  }
}

function killAll(signal) {
  for (const child of running) killGroup(child.pid, signal);
}

/** One job; `nice` (test/with-cpu.mjs sets it before the test process starts, which inherits it) lowers its priority. */
function runJob(job, nice) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [WITH_CPU, ...NODE_TEST, ...job.args], {
      cwd: ROOT,
      env: nice === undefined ? childEnv : { ...childEnv, LANES_NICE: String(nice) },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    process.stderr.write(`lanes: start ${job.name} (process group ${child.pid}${nice === undefined ? '' : `, nice ${nice}`})\n`);
    running.add(child);
    tellWatchdog(`+${child.pid}`);
    const out = [];
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => out.push(d));
    let finished = false;
    const finish = (code, signal) => {
      if (finished) return;
      finished = true;
      running.delete(child);
      // Whatever the job left in its group (a leaked browser, a server) goes with it; the group id stays
      // reserved while any member lives, so this reaches only our processes.
      killGroup(child.pid, 'SIGKILL');
      tellWatchdog(`-${child.pid}`);
      const seconds = (Date.now() - started) / 1000;
      const text = Buffer.concat(out).toString('utf8');
      const count = (what) => Number(new RegExp(`^# ${what} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
      const cpu = Number(/^# cpu-seconds ([\d.]+)$/m.exec(text)?.[1] ?? NaN);
      // Lost results, which node --test still counts as passing: no summary at all, or the file itself reported as one
      // test (its process ended before any of its own results reached the runner: a process.exit() in a test).
      const lost = !/^# tests \d+$/m.test(text) ? 'no TAP summary' : OWN_RESULTS_LOST.test(text) ? 'the file ended early' : undefined;
      const ok = code === 0 && !lost;
      process.stdout.write(`\n# ===== ${job.name} =====\n${text}`);
      process.stderr.write(
        `lanes: ${ok ? 'ok  ' : 'FAIL'} ${job.name} in ${seconds.toFixed(1)} s${Number.isNaN(cpu) ? '' : `, cpu ${cpu.toFixed(1)} s`}` +
          ` (pass ${count('pass')}, fail ${count('fail')}` +
          `${signal ? `, killed by ${signal}` : ''}${code === 0 && lost ? `, ${lost}: results lost` : ''})\n`,
      );
      resolve({
        job,
        ok,
        seconds,
        cpu: Number.isNaN(cpu) ? 0 : cpu,
        pass: count('pass'),
        fail: count('fail'),
        tests: count('tests'),
        skipped: count('skipped'),
      });
    };
    child.on('close', finish);
    // A process that left the group but kept our pipe open must not hold the run: 'close' gets this long.
    child.on('exit', (code, signal) => setTimeout(() => finish(code, signal), PIPE_GRACE_MS));
  });
}

/** Runs jobs `width` at a time, in the order given. */
async function pool(jobs, width) {
  const queue = [...jobs];
  const results = [];
  const worker = async () => {
    // Once a signal is stopping the run, nothing new starts.
    for (let job = queue.shift(); job && !stopping; job = queue.shift()) results.push(await runJob(job));
  };
  await Promise.all(Array.from({ length: Math.min(width, jobs.length) }, worker));
  return results;
}

/**
 * Longest first across both lanes (LPT): the UNIT jobs still waiting (in `all`, those the timing files did not
 * leave room for) start beside the Grid files and the rest fill in behind.
 */
function interleave(unit, browser) {
  const out = [];
  for (let i = 0; i < Math.max(unit.length, browser.length); i++) {
    if (i < browser.length) out.push(browser[i]);
    if (i < unit.length) out.push(unit[i]);
  }
  return out;
}

/**
 * The whole suite: TIMING_ALONE first with nothing beside, then the rest of TIMING at normal priority, one file at a
 * time, with the UNIT jobs (no browser, no daemon: nothing of theirs is still closing when a timing file starts)
 * beside it at BESIDE_NICE, one at a time;
 * once TIMING is done, the UNIT jobs not yet started join BROWSER at normal priority. A nice-19 job still
 * running then finishes beside them, yielding to them.
 */
async function allLanes(jobs) {
  const alone = await pool(jobsOf(TIMING.filter((f) => TIMING_ALONE.includes(f))), 1);
  const unit = jobsOf(UNIT);
  let timingDone = false;
  const beside = (async () => {
    const out = [];
    while (!timingDone && !stopping && unit.length > 0) out.push(await runJob(unit.shift(), BESIDE_NICE));
    return out;
  })();
  const timing = await pool(jobsOf(TIMING.filter((f) => !TIMING_ALONE.includes(f))), 1);
  timingDone = true;
  const rest = await pool(interleave(unit, jobsOf(BROWSER)), jobs);
  return [...alone, ...timing, ...(await beside), ...rest];
}

/** The machine's busy CPU seconds so far (every process, this run's and any other's; not stolen time); undefined off Linux. */
async function machineBusySeconds() {
  // The suite runs on the build (npm test compiles first): the runner's own /proc/stat reader.
  const { cpuTicks } = await import('../dist/src/runner/host-speed.js');
  const ticks = cpuTicks()?.busy;
  // USER_HZ: /proc/stat counts in ticks of 1/100 s on every Linux Node supports.
  return ticks === undefined ? undefined : ticks / 100;
}

/** Jobs at a time for this run, and why, in the words the run prints. */
async function jobsWidth(lane, files) {
  if (process.env.TEST_JOBS !== undefined) return { jobs: Math.max(1, Number(process.env.TEST_JOBS)), why: 'TEST_JOBS' };
  // A third job only fills the time browser jobs wait on their pages: not in the pure-CPU lanes, not for two files.
  if (files.length > 0 ? files.length <= SHARED_JOBS : lane === 'unit' || lane === 'timing')
    return { jobs: SHARED_JOBS, why: 'one per core; TEST_JOBS overrides' };
  const b0 = await machineBusySeconds();
  await new Promise((resolve) => setTimeout(resolve, LOAD_SAMPLE_MS));
  const b1 = await machineBusySeconds();
  if (b0 === undefined || b1 === undefined) return { jobs: SHARED_JOBS, why: 'no /proc/stat to read the load from' };
  const cores = (b1 - b0) / (LOAD_SAMPLE_MS / 1000);
  const shared = cores >= SHARED_CORES;
  return {
    jobs: shared ? SHARED_JOBS : QUIET_JOBS,
    why:
      `other processes kept ${cores.toFixed(2)} cores busy before the run: ` +
      `the machine is ${shared ? 'shared' : 'quiet'}; TEST_JOBS overrides`,
  };
}

async function main(lane, files) {
  checkLists();
  const { jobs, why } = await jobsWidth(lane, files);
  process.stderr.write(`lanes: ${jobs} jobs at a time (${why})\n`);
  const t0 = Date.now();
  const busy0 = await machineBusySeconds();
  let results;
  switch (files.length > 0 ? 'files' : lane) {
    case 'files':
      results = await pool(jobsOf(files), jobs);
      break;
    case 'unit':
      childEnv = { ...process.env, ...INNER_LOOP_ENV };
      results = [...(await pool(jobsOf(UNIT), jobs)), ...(await pool(jobsOf(UNIT_TIMING), 1))];
      break;
    case 'browser':
      results = await pool(jobsOf(BROWSER), jobs);
      break;
    case 'timing':
      results = await pool(jobsOf(TIMING), 1);
      break;
    case 'all':
      results = await allLanes(jobs);
      break;
    default:
      throw new Error(`lanes: unknown lane "${lane}" (unit, browser, timing, all, or test files such as stats.test.js)`);
  }
  const splitsOk = checkSplits(results);
  const failed = results.filter((r) => !r.ok);
  const sum = (k) => results.reduce((s, r) => s + r[k], 0);
  const busy1 = await machineBusySeconds();
  const machine = busy0 !== undefined && busy1 !== undefined ? `, machine busy ${(busy1 - busy0).toFixed(0)} cpu-s` : '';
  process.stderr.write(
    `lanes: ${files.length > 0 ? files.join(' ') : lane}: ${results.length} jobs, ${sum('pass')} tests passed, ${sum('fail')} failed, ` +
      `${((Date.now() - t0) / 1000).toFixed(1)} s, jobs' cpu ≥ ${sum('cpu').toFixed(0)} s${machine}${failed.length ? `; failed jobs: ${failed.map((r) => r.job.name).join(', ')}` : ''}\n`,
  );
  return failed.length === 0 && splitsOk ? 0 : 1;
}

for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
  ['SIGHUP', 129],
]) {
  process.on(signal, () => {
    stopping = true;
    process.stderr.write(`lanes: ${signal}: stopping ${running.size} jobs\n`);
    killAll('SIGTERM');
    setTimeout(() => {
      killAll('SIGKILL');
      process.exit(code);
    }, KILL_GRACE_MS).unref();
    // Exit as soon as every group is gone; the timer above is the backstop.
    const poll = setInterval(() => {
      if (running.size === 0) process.exit(code);
    }, 100);
    poll.unref();
  });
}
process.on('exit', () => killAll('SIGKILL'));

const args = process.argv.slice(2);
main(
  args[0] ?? 'all',
  args.filter((a) => a.endsWith('.test.js')).map((a) => basename(a)),
).then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  },
);
