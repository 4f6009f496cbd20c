/** perf start | stop | status | logs | restart | doctor */
import { PerfError } from '../errors.js';
import { START_OPTIONS } from '../session/state.js';
import { flagsOf } from './args.js';
import {
  restartSession,
  runDoctor,
  sessionLogs,
  sessionStatus,
  startSession,
  stopSession,
  type AnySessionState,
  type StartOptions,
} from '../session/manager.js';
import { aliveWord, onSessionDriver } from '../session/drivers/index.js';
import { ALLOW_OUTSIDE_FLAG, defineCommand, info, JSON_FLAG, printJson, printText } from './command.js';
import type { FlagValues } from './args.js';

const STATE_DIR_FLAG = {
  stateDir: { type: 'string', value: 'DIR', description: 'Folder of the session state file. Default ./.perf' },
} as const;

function describeState(s: AnySessionState): string {
  return onSessionDriver(s, (d, st) => d.describe(st)).join('\n');
}

const DESKTOP = START_OPTIONS.desktop;

// What needs a shell: expansions, pipes, lists, redirections, globs, subshells.
const SHELL_SYNTAX = /[$`|&;<>()*?[\]{}~!#\n]/;

/**
 * `--terminal "CMD"` as the program and its arguments: plain words and quotes are split here, so the
 * program itself runs in the pty (signals and `perf status` see it); anything a shell must read
 * runs under `sh -c`.
 */
export function terminalCommand(line: string): { command: string; args: string[] } {
  if (SHELL_SYNTAX.test(line)) return { command: 'sh', args: ['-c', line] };
  const words: string[] = [];
  let word: string | undefined;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"' && i + 1 < line.length) word += line[++i]!;
      else word += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      word ??= '';
    } else if (c === '\\' && i + 1 < line.length) {
      word = (word ?? '') + line[++i]!;
    } else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else {
      word = (word ?? '') + c;
    }
  }
  if (quote)
    throw new PerfError({
      code: 'invalid_flag',
      message: `--terminal: unclosed ${quote} in "${line}"`,
      suggestion: 'close the quote, e.g. --terminal "vim \'my notes.txt\'"',
    });
  if (word !== undefined) words.push(word);
  if (words.length === 0)
    throw new PerfError({
      code: 'invalid_flag',
      message: '--terminal needs the program to run',
      suggestion: 'e.g. perf start --terminal "less README.md"',
    });
  return { command: words[0]!, args: words.slice(1) };
}

/** The terminal program of `perf start --terminal`, from its flags. */
function terminalOptions(f: FlagValues): Pick<StartOptions, 'terminal'> {
  if (f.terminal === undefined) {
    if (f.cols !== undefined || f.rows !== undefined)
      throw new PerfError({
        code: 'invalid_flag',
        message: `start: --${f.cols !== undefined ? 'cols' : 'rows'} sizes a terminal program: it needs --terminal CMD`,
        suggestion: 'e.g. perf start --terminal "htop" --cols 120 --rows 40',
      });
    return {};
  }
  return {
    terminal: {
      ...terminalCommand(f.terminal as string),
      ...(f.cols !== undefined ? { cols: f.cols as number } : {}),
      ...(f.rows !== undefined ? { rows: f.rows as number } : {}),
    },
  };
}

/** The browser and desktop options of `perf start`, read from its flags. */
function driverOptions(f: FlagValues): Pick<StartOptions, 'driver' | 'engine' | 'webdriver' | 'desktop' | 'grid'> {
  const args = f.desktopArg as string[] | undefined;
  const desktopDriver = f.desktopDriver as string | undefined;
  if (f.desktop === undefined && (args !== undefined || desktopDriver !== undefined)) {
    throw new PerfError({
      code: 'invalid_flag',
      message: `start: ${args !== undefined ? '--desktop-arg' : '--desktop-driver'} needs --desktop BIN (the app it is for)`,
      suggestion: 'e.g. perf start --desktop ./src-tauri/target/debug/my-app --desktop-driver tauri',
    });
  }
  return {
    // The values are checked where the MCP app_start's are, in the session manager.
    ...(f.driver !== undefined ? { driver: f.driver as 'cdp' | 'webdriver' | 'bidi' } : {}),
    ...(f.engine !== undefined ? { engine: f.engine as 'chromium' | 'webkit' | 'firefox' } : {}),
    ...(f.webdriver !== undefined ? { webdriver: f.webdriver as string } : {}),
    ...(f.grid !== undefined ? { grid: f.grid as string } : {}),
    ...(f.desktop !== undefined
      ? {
          desktop: {
            binary: f.desktop as string,
            ...(args ? { args } : {}),
            ...(desktopDriver ? { driver: desktopDriver as 'tauri' | 'webkit' } : {}),
          },
        }
      : {}),
  };
}

export const startCommand = defineCommand({
  name: 'start',
  summary:
    'Start the app (if needed) and a browser (Chromium, WebKit over WebDriver, or Firefox over WebDriver BiDi), a ' +
    'desktop app or a terminal program, and keep them running for step verbs and MCP',
  usage:
    'start (--serve DIR | --url URL | --command CMD [--url URL] | --desktop BIN | --terminal CMD [--cols N] [--rows N]) ' +
    '[--path /P] [--headed] [--spa] [--engine chromium|webkit|firefox] [--driver cdp|webdriver|bidi] [--webdriver URL] [--grid URL]',
  details:
    'A Chromium session listens for DevTools on a 127.0.0.1 port (in .perf/state.json): that is how the step verbs and an MCP ' +
    'server reach it, and any other local user on this machine can connect to it too and drive the browser, its ' +
    'cookies included (docs/scenarios.md, "Only you drive it"). `perf run`, `gate`, `leaks` and `bisect` drive the ' +
    'browsers they launch over a pipe only they hold.\n\n' +
    'Examples:\n  perf start --serve scenarios/app --path /list.html\n  perf start --command "npm run preview -- --port ' +
    '${PORT}"\n  perf start --url http://127.0.0.1:5173\n  perf start --serve scenarios/app --engine webkit\n  perf start ' +
    '--serve scenarios/app --engine firefox\n  perf start ' +
    '--desktop ./src-tauri/target/debug/my-app --desktop-driver tauri\n ' +
    ' perf start --terminal "vim notes.txt" --cols 100 --rows 30',
  flags: {
    ...flagsOf(START_OPTIONS, 'serve', 'url', 'command', 'path'),
    headed: { type: 'boolean', description: 'Show the browser window instead of running headless.' },
    ...flagsOf(START_OPTIONS, 'spa'),
    // The schema's descriptions are terse (every agent reads app_start's); help adds the flag's context.
    engine: {
      type: 'string',
      value: 'chromium|webkit|firefox',
      description: `Browser engine: ${START_OPTIONS.engine.description} Default chromium.`,
    },
    driver: {
      type: 'string',
      value: 'cdp|webdriver|bidi',
      description: `Browser protocol (webdriver: chromedriver for Chromium). ${START_OPTIONS.driver.description}`,
    },
    webdriver: { type: 'string', value: 'URL', description: `${START_OPTIONS.webdriver.description} Default: start one.` },
    grid: {
      type: 'string',
      value: 'URL',
      description:
        'A Selenium Grid 4 (http://HOST:4444): Chromium runs there as a Grid session, driven ' +
        'over CDP through its se:cdp endpoint; the session is deleted on stop. The app must ' +
        'be reachable from the node (app.serve binds 127.0.0.1: a node on this machine).',
    },
    desktop: {
      type: 'string',
      value: 'BIN',
      description: `${DESKTOP.description} BIN: its executable (a path from the working folder, or a name on PATH).`,
    },
    desktopArg: {
      type: 'multi',
      value: 'ARG',
      description:
        `An argument of the --desktop app; ${DESKTOP.properties.args.description}` +
        ` Repeatable; --desktop-arg=-x for one starting with -.`,
    },
    desktopDriver: {
      type: 'string',
      value: 'tauri|webkit',
      description: `The --desktop app's server: tauri-driver or WebKitWebDriver. ${DESKTOP.properties.driver.description}`,
    },
    terminal: {
      type: 'string',
      value: 'CMD',
      description:
        'A terminal program instead of a page, run in a pseudo-terminal kept by the session ' +
        '(plain words run the program directly; shell syntax runs under sh -c).',
    },
    cols: { type: 'number', value: 'N', description: 'With --terminal: its width in columns. Default 100.' },
    rows: { type: 'number', value: 'N', description: 'With --terminal: its height in rows. Default 30.' },
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
      ...driverOptions(f),
      ...terminalOptions(f),
      ...(f.headed === true || f.terminal === undefined ? { headless: f.headed !== true } : {}),
      ...(f.stateDir ? { stateDir: f.stateDir as string } : {}),
    });
    if (f.json) printJson(state);
    else printText(`started\n${describeState(state)}\n`);
    return 0;
  },
});

export const stopCommand = defineCommand({
  name: 'stop',
  summary: 'Stop the session started by `perf start` (app and browser)',
  usage: 'stop',
  flags: { ...STATE_DIR_FLAG, ...JSON_FLAG },
  async run(f) {
    const res = await stopSession((f.stateDir as string | undefined) ?? undefined);
    if (f.json) printJson(res);
    else printText(res.stopped ? `stopped (pids ${res.pids.join(', ')})\n` : 'no session was running\n');
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
      printText('no session (start one with `perf start --serve DIR`)\n');
    } else {
      const { text, note } = onSessionDriver(st.state, (d, s) => d.processes(s, st.alive));
      printText(
        `${st.running ? 'running' : 'NOT running'} for ${Math.round((st.uptimeMs ?? 0) / 1000)} s\n${describeState(st.state)}` +
          `\nprocesses: session ${aliveWord(st.alive.daemon)}${text}${note ? `\n${note}` : ''}\n`,
      );
    }
    // Status is a question, not a judgement: a stopped session is a normal answer.
    return 0;
  },
});

export const logsCommand = defineCommand({
  name: 'logs',
  summary: "Print the last lines of the app's output and the browser's log (Chromium's, or the WebDriver server's)",
  usage: 'logs [--lines N]',
  flags: { lines: { type: 'number', description: 'How many lines of each log. Default 100' }, ...STATE_DIR_FLAG, ...JSON_FLAG },
  async run(f) {
    const logs = sessionLogs((f.stateDir as string | undefined) ?? undefined, (f.lines as number | undefined) ?? 100);
    if (f.json) printJson(logs);
    else {
      const section = (name: string, lines: string[] | undefined): string =>
        lines ? `== ${name} ==\n${lines.join('\n') || '(no output)'}\n` : '';
      printText(
        section(logs.chrome || logs.webdriver ? 'app' : 'program', logs.app) +
          section('chrome', logs.chrome) +
          section('webdriver', logs.webdriver),
      );
    }
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
    else printText(`restarted\n${describeState(state)}\n`);
    return 0;
  },
});

export const doctorCommand = defineCommand({
  name: 'doctor',
  summary:
    'Check Node, Chromium (found, launchable, version), a free loopback port, ' +
    'a writable out folder, and which WebDriver servers are installed',
  usage: 'doctor [--out DIR]',
  flags: { out: { type: 'string', value: 'DIR', description: 'Out folder to check. Default build/perf' }, ...JSON_FLAG },
  async run(f) {
    const report = await runDoctor({ ...(f.out ? { outDir: f.out as string } : {}) });
    if (f.json) printJson(report);
    else {
      for (const c of report.checks) {
        printText(`${c.ok ? 'ok  ' : c.optional ? 'miss' : 'FAIL'}  ${c.name.padEnd(18)} ${c.detail}\n`);
        if (!c.ok && c.fix) printText(`      ${''.padEnd(18)} fix: ${c.fix}\n`);
      }
    }
    if (!report.ok) info('perf doctor: some checks failed');
    return report.ok ? 0 : 3;
  },
});
