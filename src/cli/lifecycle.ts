/** perf start | stop | status | logs | restart | doctor */
import { START_OPTIONS } from '../session/state.js';
import { flagsOf } from './run-options.js';
import { restartSession, runDoctor, sessionLogs, sessionStatus, startSession, stopSession, type SessionState } from '../session/manager.js';
import { ALLOW_OUTSIDE_FLAG, defineCommand, info, JSON_FLAG, printJson } from './command.js';

const STATE_DIR_FLAG = { stateDir: { type: 'string', value: 'DIR', description: 'Folder of the session state file. Default ./.perf' } } as const;

function describeState(s: SessionState): string {
  return [
    `app      ${s.appUrl} (${s.app.kind}${s.app.pid ? `, pid ${s.app.pid}` : ''})`,
    `page     ${s.pageUrl}`,
    `chrome   ${s.chrome.version} pid ${s.chrome.pid}, ${s.chrome.headless ? 'headless' : 'headed'}, ${s.chrome.wsEndpoint}`,
    `session  pid ${s.daemonPid}, state in ${s.stateDir}/state.json`,
  ].join('\n');
}

export const startCommand = defineCommand({
  name: 'start',
  summary: 'Start the app (if needed) and a Chromium, and keep them running for step verbs and MCP',
  usage: 'start (--serve DIR | --url URL | --command CMD [--url URL]) [--path /P] [--headed] [--spa]',
  details: 'Examples:\n  perf start --serve scenarios/app --path /list.html\n  perf start --command "npm run preview -- --port ${PORT}"\n  perf start --url http://127.0.0.1:5173',
  flags: {
    ...flagsOf(START_OPTIONS, 'serve', 'url', 'command', 'path'),
    headed: { type: 'boolean', description: 'Show the browser window instead of running headless.' },
    ...flagsOf(START_OPTIONS, 'spa'),
    ...ALLOW_OUTSIDE_FLAG,
    ...STATE_DIR_FLAG,
    ...JSON_FLAG,
  },
  async run(f) {
    const state = await startSession({
      ...(f.serve !== undefined ? { serve: f.serve as string } : {}),
      ...(f.url !== undefined ? { url: f.url as string } : {}),
      ...(f.command !== undefined ? { command: f.command as string } : {}),
      ...(f.path !== undefined ? { path: f.path as string } : {}),
      ...(f.spa ? { spa: true } : {}),
      ...(f.allowOutside ? { allowOutside: true } : {}),
      headless: f.headed !== true,
      ...(f.stateDir ? { stateDir: f.stateDir as string } : {}),
    });
    if (f.json) printJson(state);
    else process.stdout.write(`started\n${describeState(state)}\n`);
    return 0;
  },
});

export const stopCommand = defineCommand({
  name: 'stop',
  summary: 'Stop the session started by `perf start` (app and Chromium)',
  usage: 'stop',
  flags: { ...STATE_DIR_FLAG, ...JSON_FLAG },
  async run(f) {
    const res = await stopSession((f.stateDir as string | undefined) ?? undefined);
    if (f.json) printJson(res);
    else process.stdout.write(res.stopped ? `stopped (pids ${res.pids.join(', ')})\n` : 'no session was running\n');
    return 0;
  },
});

export const statusCommand = defineCommand({
  name: 'status',
  summary: 'Say whether the session is running and whether each recorded process is alive',
  usage: 'status',
  flags: { ...STATE_DIR_FLAG, ...JSON_FLAG },
  async run(f) {
    const st = await sessionStatus((f.stateDir as string | undefined) ?? undefined);
    if (f.json) {
      printJson(st);
    } else if (!st.state) {
      process.stdout.write('no session (start one with `perf start --serve DIR`)\n');
    } else {
      const yes = (b: boolean | null): string => (b === null ? 'n/a' : b ? 'alive' : 'DEAD');
      process.stdout.write(
        `${st.running ? 'running' : 'NOT running'} for ${Math.round((st.uptimeMs ?? 0) / 1000)} s\n${describeState(st.state)}\nprocesses: session ${yes(st.alive.daemon)}, chrome ${yes(st.alive.chrome)}, app ${yes(st.alive.app)}\n`,
      );
    }
    // Status is a question, not a judgement: a stopped session is a normal answer.
    return 0;
  },
});

export const logsCommand = defineCommand({
  name: 'logs',
  summary: "Print the last lines of the app's output and Chromium's log",
  usage: 'logs [--lines N]',
  flags: { lines: { type: 'number', description: 'How many lines of each log. Default 100' }, ...STATE_DIR_FLAG, ...JSON_FLAG },
  async run(f) {
    const logs = sessionLogs((f.stateDir as string | undefined) ?? undefined, (f.lines as number | undefined) ?? 100);
    if (f.json) printJson(logs);
    else process.stdout.write(`== app ==\n${logs.app.join('\n') || '(no output)'}\n== chrome ==\n${logs.chrome.join('\n') || '(no output)'}\n`);
    return 0;
  },
});

export const restartCommand = defineCommand({
  name: 'restart',
  summary: 'Stop and start the session again with the same options',
  usage: 'restart',
  flags: { ...STATE_DIR_FLAG, ...JSON_FLAG },
  async run(f) {
    const state = await restartSession((f.stateDir as string | undefined) ?? undefined);
    if (f.json) printJson(state);
    else process.stdout.write(`restarted\n${describeState(state)}\n`);
    return 0;
  },
});

export const doctorCommand = defineCommand({
  name: 'doctor',
  summary: 'Check Node, Chromium (found, launchable, version), a free loopback port, a writable out folder, and which WebDriver servers are installed',
  usage: 'doctor [--out DIR]',
  flags: { out: { type: 'string', value: 'DIR', description: 'Out folder to check. Default build/perf' }, ...JSON_FLAG },
  async run(f) {
    const report = await runDoctor({ ...(f.out ? { outDir: f.out as string } : {}) });
    if (f.json) printJson(report);
    else {
      for (const c of report.checks) {
        process.stdout.write(`${c.ok ? 'ok  ' : c.optional ? 'miss' : 'FAIL'}  ${c.name.padEnd(18)} ${c.detail}\n`);
        if (!c.ok && c.fix) process.stdout.write(`      ${''.padEnd(18)} fix: ${c.fix}\n`);
      }
    }
    if (!report.ok) info('perf doctor: some checks failed');
    return report.ok ? 0 : 3;
  },
});

