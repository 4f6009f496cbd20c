/**
 * Every error code perf throws, declared once: its exit kind (DESIGN.md "Exit codes") and a default
 * suggestion that fits the door the error is shown at. A throw site may pass a more specific
 * suggestion; the edges (src/cli/main.ts, src/mcp/format.ts) fall back to the door's default here.
 */

/** What kind of failure, which decides the exit code at the CLI edge (DESIGN.md "Exit codes"). */
export type PerfErrorKind =
  /** The thing judged failed: regression, budget, assertion, every repeat failed. Exit 1. */
  | 'failed'
  /** Invalid usage or input: bad flags, bad scenario, unreadable run file. Exit 2. */
  | 'usage'
  /** Environment problem: no browser, app did not start, port taken. Exit 3. */
  | 'environment'
  /** A bug in perf: an error no code path meant to throw. Exit 4, so CI never reads it as "regressed". */
  | 'internal';

/**
 * Where an error is shown, which decides what advice applies: `run` is `perf run/gate/compare/report`
 * (a fresh app and browser per run: nothing to restart by hand), `session` is `perf start` and the
 * step verbs on its session, `mcp` is an agent's tool call.
 */
export type Door = 'run' | 'session' | 'mcp';
export const DOORS: readonly Door[] = ['run', 'session', 'mcp'];

/** One suggestion for every door, or one per door where the advice differs. */
export type DoorSuggestion = string | Readonly<Record<Door, string>>;

export interface ErrorDecl {
  /** The kind a throw site gets when it names none. */
  readonly kind: PerfErrorKind;
  /** Every kind a throw site may give (default: only `kind`), for a code whose weight depends on where it is raised. */
  readonly kinds?: readonly PerfErrorKind[];
  readonly suggestion: DoorSuggestion;
}

// Advice shared by several codes, so that the doors say the same thing in the same words.
const RESTART: Record<Door, string> = {
  run: 'each run starts its own app and browser: check the app (its output on stderr) and `perf doctor`, then run again',
  session: 'run `perf restart` (or `perf status` to see what ended)',
  mcp: 'call app_restart (or app_status to see what ended)',
};
const START: Record<Door, string> = {
  run: 'give the scenario an app (app.serve, app.url, app.command, app.terminal or app.desktop)',
  session: 'run `perf start --serve DIR | --url URL | --terminal CMD` first',
  mcp: 'call app_start first',
};
/** A step that fails every repeat: `fix` it, or run on with the door's own name for keep-going. */
export function keepGoingAdvice(fix: string): Record<Door, string> {
  const run = `${fix}; --keep-going runs every repeat anyway`;
  return { run, session: run, mcp: `${fix}; keepGoing: true runs every repeat anyway` };
}
const SNAP = 'snap to see the page as it is now, then use one of its refs';
const RUN_FILE = 'pass a run file written by `perf run --out` (or `perf gate`)';
const STATS = 'this is a bug in perf: the statistics were given input they cannot use; report it with the run files';

export const ERRORS = {
  ambiguous_page: { kind: 'usage', suggestion: 'name the page by index, or by a longer part of its title or URL' },
  ambiguous_target: { kind: 'usage', suggestion: 'use one of the refs, or a { row, col } cell' },
  app_cwd_missing: { kind: 'usage', suggestion: 'check the path (relative paths resolve against the scenario file)' },
  app_exited: { kind: 'environment', suggestion: 'run the command by hand in that folder to see why it stops' },
  app_http_error: {
    kind: 'failed',
    suggestion: {
      run: "check app.path, and the app's output on stderr",
      session: "check --path, and the app's output (`perf logs`)",
      mcp: "check the app's path, and its output (app_logs for the app of app_start)",
    },
  },
  app_spawn_failed: { kind: 'environment', suggestion: 'check that /bin/sh exists and the working folder is readable' },
  app_start_timeout: {
    kind: 'environment',
    suggestion: 'check that the command binds the port it is given (${PORT}), or raise startTimeoutMs',
  },
  app_unreachable: {
    kind: 'environment',
    suggestion: 'start the app first, check the URL and port, or let rehearse start it with `command`',
  },
  assertion_failed: { kind: 'failed', suggestion: 'snap to see the screen' },
  bad_alpha: { kind: 'usage', suggestion: 'use a significance level between 0 and 1, e.g. 0.05' },
  bad_change_options: { kind: 'usage', suggestion: STATS },
  bad_count: { kind: 'usage', suggestion: STATS },
  bisect_build: { kind: 'environment', suggestion: 'run the --build command by hand in a checkout of that commit to see why it fails' },
  bisect_endpoints: {
    kind: 'environment',
    suggestion: 'check that the scenario runs at both commits: perf run SCENARIO in a checkout of each',
  },
  bisect_git: { kind: 'usage', suggestion: 'run perf bisect inside a git repository, GOOD and BAD naming commits of it' },
  bisect_range: {
    kind: 'usage',
    suggestion: 'perf bisect GOOD BAD SCENARIO, with GOOD an ancestor of BAD and the scenario in the repository',
  },
  bad_level: { kind: 'usage', suggestion: 'use a confidence level between 0 and 1, e.g. 0.95' },
  bad_ref: {
    kind: 'usage',
    suggestion: 'name a commit by its hash, a branch or a tag (e.g. HEAD~3, v1.2.0): a git ref never starts with "-"',
  },
  bad_p_value: { kind: 'usage', suggestion: STATS },
  bad_probability: { kind: 'usage', suggestion: STATS },
  bad_quantile: { kind: 'usage', suggestion: STATS },
  bad_sequential_design: {
    kind: 'usage',
    suggestion: 'use 0 < alpha < 1 and strictly increasing information fractions in (0, 1], the last one the final look',
  },
  bad_thresholds: { kind: 'usage', suggestion: 'set thresholds like { warn: 10%, error: 25% } in the scenario' },
  body_too_large: { kind: 'usage', suggestion: 'send smaller requests: one JSON-RPC message per POST' },
  browser_shortcut: {
    kind: 'usage',
    suggestion: {
      run: 'use the navigate or reload step for what the browser would do; press other keys for the page',
      session: 'use `perf navigate` / `perf reload` (or `perf restart`) for what the browser would do; press other keys for the page',
      mcp: 'use navigate / reload / app_restart for what the browser would do; press other keys for the page',
    },
  },
  cannot_uncheck_radio: { kind: 'usage', suggestion: 'set_checkbox another radio of the group to true' },
  cdp_connect_failed: {
    kind: 'environment',
    suggestion: 'check that Chrome is running with --remote-debugging-port and the endpoint is current',
  },
  chart_library_missing: { kind: 'environment', suggestion: "reinstall rehearse's dependencies (npm ci)" },
  firefox_launch_failed: { kind: 'environment', suggestion: 'run `perf doctor`; set FIREFOX_PATH to a working Firefox (ESR 128 or later)' },
  firefox_not_found: { kind: 'environment', suggestion: 'install Firefox ESR (apt-get install firefox-esr) or set FIREFOX_PATH' },
  chrome_launch_failed: { kind: 'environment', suggestion: 'run `perf doctor`; set CHROME_PATH to a working Chrome/Chromium' },
  chrome_not_found: { kind: 'environment', suggestion: 'install Chromium (e.g. apt-get install chromium) or set CHROME_PATH' },
  chrome_path_invalid: {
    kind: 'environment',
    suggestion: 'point CHROME_PATH at a Chrome/Chromium binary, or unset it to use the system Chromium',
  },
  commands_denied: { kind: 'usage', suggestion: 'start the app yourself (perf start, or your dev server) and pass its url instead' },
  compare_file_invalid: { kind: 'usage', suggestion: 'pass the JSON `perf compare A.json B.json --json` printed, or the two run files' },
  config_invalid: { kind: 'usage', suggestion: 'expected e.g. { "tools": { "caps": ["core", "perf"], "deny": ["app_*"] } }' },
  config_unreadable: { kind: 'usage', suggestion: 'pass an existing file to --config, or create .perf/mcp.json' },
  desktop_binary_invalid: {
    kind: 'usage',
    suggestion: 'build the app first (e.g. npm run tauri build -- --debug), and give the path to its executable',
  },
  desktop_not_loaded: { kind: 'failed', suggestion: "check the app's own log: its window never showed the page" },
  duplicate_metric: { kind: 'usage', suggestion: 'name each metric once in the thresholds' },
  empty_box: { kind: 'failed', suggestion: 'pick a rendered element; snap shows what is visible' },
  empty_clip: { kind: 'failed', suggestion: 'pick a visible element, or give rect' },
  empty_sample: { kind: 'usage', suggestion: STATS },
  endpoint_invalid: { kind: 'usage', suggestion: 'pass ws://127.0.0.1:9222/devtools/browser/<id> or http://127.0.0.1:9222' },
  endpoint_unreachable: {
    kind: 'environment',
    suggestion: 'start Chrome with --remote-debugging-port=PORT --remote-debugging-address=127.0.0.1, or drop `endpoint`',
  },
  evaluate_failed: { kind: 'failed', suggestion: 'check the expression in the DevTools console' },
  expect_failed: { kind: 'failed', suggestion: 'snap to see the page as it is; raise timeoutMs if the state arrives later' },
  file_exists: { kind: 'usage', suggestion: 'pass overwrite: true, or another path' },
  file_not_found: { kind: 'usage', suggestion: 'check the path' },
  grid_cdp_failed: { kind: 'environment', suggestion: "check that the Grid node's Chromium offers se:cdp (Selenium 4) and is reachable" },
  grid_session_failed: { kind: 'environment', suggestion: 'check the Grid (its /status): is it up, with a free Chromium slot?' },
  grid_session_lost: {
    kind: 'environment',
    suggestion: 'check the Grid node (its log, /status): the run stopped rather than go on on another node',
  },
  heap_snapshot_failed: {
    kind: 'environment',
    suggestion: 'check what the page is doing (a hung renderer?) and the free space of --out; a 500 MB heap takes about a minute',
  },
  import_invalid: { kind: 'usage', suggestion: 'this is a bug in perf import: please report it with the recording' },
  insight_not_fired: { kind: 'usage', suggestion: "read perf_end's metrics and summary instead" },
  internal_error: { kind: 'internal', suggestion: 'this is a bug in perf; set PERF_DEBUG=1 for the stack and report it' },
  interrupted: { kind: 'failed', suggestion: 'nothing to do: perf was asked to stop' },
  invalid_app: { kind: 'usage', suggestion: 'give one of serve, url, command, terminal or desktop' },
  invalid_app_command: { kind: 'usage', suggestion: 'give the command that starts the app, e.g. "npm run preview -- --port ${PORT}"' },
  invalid_app_url: { kind: 'usage', suggestion: 'use a full URL such as http://127.0.0.1:5173' },
  invalid_arguments: { kind: 'usage', suggestion: 'check the arguments against the step (`perf STEP --help`, or the tool schema)' },
  invalid_cast: { kind: 'usage', suggestion: 'perf replay plays asciicast v2 files (what perf_trace writes for a terminal)' },
  invalid_flag: { kind: 'usage', suggestion: 'see `perf COMMAND --help`' },
  invalid_json: { kind: 'usage', suggestion: 'send one JSON-RPC 2.0 message as the request body' },
  invalid_options: { kind: 'usage', suggestion: 'check the browser options of the scenario' },
  invalid_path: { kind: 'usage', suggestion: 'give a path of the app that starts with /' },
  invalid_port: { kind: 'usage', suggestion: 'pass a port between 1 and 65535, or omit it to use a free one' },
  invalid_target: { kind: 'usage', suggestion: 'give a ref from snap, or a text, role or cell target' },
  key_not_in_terminal: { kind: 'usage', suggestion: 'hold it with another key instead, e.g. press_key "Control+a"' },
  leaks_iteration_failed: {
    kind: 'failed',
    suggestion:
      'run the scenario once with `perf run --repeat 1` to see the step fail; the steps must bring the app back to where they started',
  },
  listen_failed: { kind: 'environment', suggestion: 'check the host and port to listen on' },
  missing_argument: { kind: 'usage', suggestion: 'see `perf COMMAND --help`' },
  missing_flag_value: { kind: 'usage', suggestion: 'give the flag a value, e.g. --repeat 5' },
  mouse_not_supported: { kind: 'usage', suggestion: 'click, or use keys to move the highlight' },
  mouse_out_of_range: { kind: 'usage', suggestion: 'use keys for cells that far out, or a smaller terminal size' },
  navigation_failed: {
    kind: 'environment',
    suggestion: {
      run: "check that the path exists in the app and the app's output on stderr",
      session: 'check that the app is running (`perf status`) and the path exists',
      mcp: 'check that the app is running (app_status) and the path exists',
    },
  },
  no_app: { kind: 'environment', suggestion: START },
  no_base_url: {
    kind: 'usage',
    suggestion: {
      run: 'pass an absolute http(s) URL, or give the scenario an app',
      session: 'pass an absolute http(s) URL, or start the app with `perf start --serve DIR | --url URL`',
      mcp: 'pass an absolute http(s) URL, or start the app with app_start',
    },
  },
  no_closed_session: { kind: 'usage', suggestion: 'run perf_begin, the steps to measure, then perf_end; then call this again' },
  no_free_port: { kind: 'environment', suggestion: 'check that the host is a local address this machine can bind' },
  history_bad_url: {
    kind: 'usage',
    suggestion: 'give --history a file path (default .perf/history.sqlite) or postgres://user:password@host:5432/db',
  },
  history_unavailable: {
    kind: 'environment',
    suggestion: 'check that the history database is reachable and writable; the run files on disk are kept and can be added later',
  },
  history_sqlite_missing: {
    kind: 'environment',
    suggestion:
      'add it to the project: npm i -D better-sqlite3 (with npm 11: npm install-scripts approve better-sqlite3), ' +
      'or use a postgres:// history',
  },
  history_not_recorded: { kind: 'usage', suggestion: 'perf history show (no scenario) lists what the history holds' },
  history_not_ours: {
    kind: 'usage',
    suggestion: {
      run: 'point --history at a history perf recorded (default .perf/history.sqlite), or at a path that does not exist yet for a new one',
      session: 'point --history at a history perf recorded (default .perf/history.sqlite)',
      mcp: 'pass history: a file perf recorded runs into, or a postgres:// URL of one',
    },
  },
  history_schema_newer: {
    kind: 'environment',
    suggestion: 'this history was written by a newer perf: upgrade perf, or use another --history',
  },
  no_history: { kind: 'failed', suggestion: 'use navigate with a path instead' },
  no_open_session: { kind: 'usage', suggestion: 'call perf_begin before the steps to measure' },
  no_session: { kind: 'environment', suggestion: START },
  no_trace: { kind: 'environment', suggestion: 'measure again: perf_begin, the steps, perf_end; then perf_trace' },
  non_finite_sample: { kind: 'usage', suggestion: STATS },
  not_a_file: { kind: 'usage', suggestion: 'write to another path' },
  not_actionable: { kind: 'failed', suggestion: 'wait for the element to be ready (wait_for), or snap to see its state' },
  not_at_cursor: {
    kind: 'failed',
    suggestion: 'move the cursor there with keys (press_key), or drop the target to type at the cursor',
  },
  not_checkable: { kind: 'usage', suggestion: 'use tap for other controls, select_option for lists' },
  not_focusable: { kind: 'failed', suggestion: 'focus a control inside it, or tap it' },
  option_not_found: { kind: 'failed', suggestion: 'tap it to open it and snap to see its options' },
  out_unusable: { kind: 'environment', kinds: ['environment', 'usage'], suggestion: 'pass a writable folder, e.g. --out build/perf' },
  page_crashed: { kind: 'environment', suggestion: RESTART },
  page_navigated: { kind: 'failed', suggestion: 'wait for the navigation (wait_for) and run snap again' },
  page_not_found: {
    kind: 'failed',
    suggestion: 'list the pages (MCP pages, or switch_page to an index); raise timeoutMs if it opens later',
  },
  path_is_hardlink: { kind: 'usage', suggestion: 'remove it first, or write to another path' },
  path_is_symlink: { kind: 'usage', suggestion: 'remove the link, or write to another path' },
  path_outside_folder: { kind: 'usage', suggestion: 'names may use letters, digits, _, . and -' },
  path_outside_workdir: { kind: 'usage', suggestion: 'give a relative path inside the working folder, e.g. "build/perf/out.json"' },
  phases_need_attribution: { kind: 'usage', suggestion: 'use perf_begin { mode: attribution, phases: true }, or drop phases' },
  port_taken: { kind: 'environment', suggestion: 'pick another port, or 0 for a free one' },
  quality_needs_jpeg: { kind: 'usage', suggestion: 'add format: jpeg, or drop quality' },
  recording_invalid: { kind: 'usage', suggestion: 'export the recording from the Recorder panel as a JSON file' },
  recording_too_large: { kind: 'usage', suggestion: 'check that this is the file you meant' },
  recording_unsupported: { kind: 'usage', suggestion: 'remove those steps in the Recorder, or write them by hand in the scenario' },
  rect_without_ref: { kind: 'usage', suggestion: 'add ref (from snap) or target, or drop rect to capture the viewport' },
  restart_browser_attached: { kind: 'usage', suggestion: 'use --restart context' },
  run_file_invalid: { kind: 'usage', suggestion: RUN_FILE },
  run_file_not_found: { kind: 'usage', suggestion: 'pass the two run files instead: perf report BASELINE.json CANDIDATE.json' },
  run_file_schema: {
    kind: 'usage',
    suggestion: 'rerun `perf run` (or `perf gate --update` for a baseline) with this version of perf',
  },
  run_file_too_large: { kind: 'usage', suggestion: RUN_FILE },
  run_file_unmeasured: { kind: 'usage', suggestion: 'fix the failing step or the refusal shown by `perf run`, then run again' },
  run_file_unreadable: { kind: 'usage', suggestion: RUN_FILE },
  run_not_saved: {
    kind: 'environment',
    suggestion: 'free space or pass --out on another disk, then run again; or save the JSON line from stderr as the run file',
  },
  runs_not_comparable: {
    kind: 'usage',
    suggestion: 'compare two runs of the same scenario and variant, or pass --force to compare them anyway',
  },
  runs_too_large: { kind: 'usage', suggestion: 'compare runs of fewer repeats (perf gate samples at most 200)' },
  runtime_error: { kind: 'failed', suggestion: SNAP },
  runtime_missing: {
    kind: 'environment',
    suggestion: 'the page may block script evaluation (CSP does not apply to CDP; check for a crashed renderer)',
  },
  scenario_invalid: { kind: 'usage', suggestion: 'check the scenario against scenario.schema.json (`perf validate FILE`)' },
  scenario_too_large: { kind: 'usage', suggestion: 'split it, or check that this is the file you meant' },
  scenario_unreadable: { kind: 'usage', suggestion: 'check the path' },
  setup_once_failed: {
    kind: 'failed',
    suggestion: 'run the setupOnce steps by hand (perf start, then the steps) to see where the sign-in stops',
  },
  serve_fallback_missing: { kind: 'usage', suggestion: 'build the app first, or point the fallback at a file inside the served folder' },
  serve_outside_project: {
    kind: 'usage',
    suggestion: 'serve the folder that holds the built app, inside the project (e.g. ./dist); pass --allow-outside if you mean it',
  },
  serve_root_missing: { kind: 'usage', suggestion: 'check the `serve` path (relative to the scenario file) or build the app first' },
  session_already_open: {
    kind: 'usage',
    suggestion: {
      run: 'measure the opening with measure: load in the scenario instead of a perf_load step',
      session: 'run `perf perf_end` first, then perf_load',
      mcp: 'call perf_end first, then perf_load',
    },
  },
  session_dead: { kind: 'environment', suggestion: RESTART },
  session_gone: { kind: 'environment', suggestion: RESTART },
  session_refused: { kind: 'usage', suggestion: 'measure an interaction that renders frames, then read its insights' },
  session_start_failed: {
    kind: 'environment',
    suggestion: { run: 'run `perf doctor`', session: 'see `perf logs`, and `perf doctor`', mcp: 'see app_logs, and doctor' },
  },
  session_start_timeout: {
    kind: 'environment',
    suggestion: { run: 'run `perf doctor`', session: 'see `perf logs`, and `perf doctor`', mcp: 'see app_logs, and doctor' },
  },
  shard_invalid: { kind: 'usage', suggestion: 'pass the shard files `perf gate --shard I/N --json` wrote' },
  stale_ref: { kind: 'usage', kinds: ['usage', 'failed'], suggestion: SNAP },
  stale_session_token: { kind: 'usage', suggestion: 'omit token to read the last measurement, or measure again' },
  start_needs_one_app: { kind: 'usage', suggestion: 'e.g. `perf start --serve scenarios/app --path /list.html`' },
  state_invalid: {
    kind: 'usage',
    suggestion: {
      run: 'delete that file (perf did not write it), then run again',
      session: 'run `perf stop` to clear it, then `perf start` again',
      mcp: 'call app_stop to clear it, then app_start again',
    },
  },
  step_fails_every_repeat: { kind: 'failed', suggestion: keepGoingAdvice('fix the step (run snap to see the page)') },
  step_summary_unwritable: {
    kind: 'environment',
    suggestion: 'unset GITHUB_STEP_SUMMARY outside GitHub Actions, or point it at a writable file',
  },
  storage_state_invalid: {
    kind: 'usage',
    suggestion: 'pass a file written by `perf state save` or MCP storage_save (or a Playwright storageState file)',
  },
  target_closed: {
    kind: 'environment',
    suggestion: {
      // Every driver raises it (a page, a browser, a WebDriver server, a terminal program): the advice names none of them.
      run: 'the app went away during the step: check its output and `perf doctor`, then run again',
      session: 'the app went away: run `perf restart`',
      mcp: 'the app went away: call app_restart',
    },
  },
  target_not_found: { kind: 'failed', suggestion: 'run snap to see the page; wait_for the element if it arrives later' },
  tauri_invoke_failed: { kind: 'failed', suggestion: "check the command's name and arguments in the app's Rust code" },
  tauri_missing: { kind: 'failed', suggestion: 'tauri_invoke drives a Tauri app: start it with app.desktop, driver tauri' },
  terminal_close_failed: {
    kind: 'environment',
    suggestion: 'a process in uninterruptible sleep (state D) waits on a device or network file system; check it with ps',
  },
  terminal_command_not_found: { kind: 'environment', suggestion: 'install it, or give its full path in app.terminal.command' },
  terminal_cwd_not_found: { kind: 'environment', suggestion: 'set app.terminal.cwd to an existing folder (relative to the scenario)' },
  terminal_exited: {
    kind: 'failed',
    suggestion: {
      run: 'the program exited before the steps ended: run it by hand to see why',
      session: 'run `perf restart` to start the program again',
      mcp: 'call app_restart to start the program again',
    },
  },
  terminal_session: { kind: 'environment', suggestion: 'send steps with `perf <step>` or an MCP tool' },
  terminal_spawn_failed: {
    kind: 'environment',
    suggestion: 'check that the machine has free ptys (ls /dev/pts) and the process limit is not reached',
  },
  timeout: { kind: 'failed', kinds: ['failed', 'environment'], suggestion: 'raise timeoutMs, or check what the page is waiting for' },
  tool_denied: { kind: 'usage', suggestion: 'restart the MCP server with --allow TOOL' },
  tool_not_enabled: { kind: 'usage', suggestion: 'restart the MCP server with --caps listing its capability' },
  trace_no_stream: { kind: 'environment', suggestion: 'measure again; if it persists, run `perf doctor`' },
  trace_unparsable: { kind: 'environment', suggestion: 'measure again; if it persists, run `perf doctor`' },
  unknown_cap: { kind: 'usage', suggestion: 'caps are listed by `perf mcp --help`' },
  unknown_command: { kind: 'usage', suggestion: 'run `perf --help` for the list of commands' },
  unknown_device: { kind: 'usage', suggestion: 'device_profile { list: true } lists the devices' },
  unknown_flag: { kind: 'usage', suggestion: 'see `perf COMMAND --help`' },
  unknown_insight: { kind: 'usage', suggestion: "read the insight ids perf_end's summary lists" },
  unknown_key: { kind: 'usage', suggestion: 'use one character or a named key (Enter, Tab, ArrowDown…); join modifiers with "+"' },
  unknown_metric: { kind: 'usage', suggestion: '`perf metrics` lists every metric' },
  unknown_modifier: { kind: 'usage', suggestion: 'modifiers are control, shift, alt, meta' },
  unknown_reporter: { kind: 'usage', suggestion: 'use --reporter with one of: table, json, markdown, junit, html' },
  unknown_signal: { kind: 'usage', suggestion: 'use a POSIX name: INT, TERM, HUP, TSTP, CONT, USR1, WINCH, KILL' },
  unknown_step: { kind: 'usage', suggestion: '`perf --help` lists the steps' },
  unknown_tool: { kind: 'usage', suggestion: 'list the tools (tools/list) to see what this server offers' },
  unreadable_file: { kind: 'usage', suggestion: 'check the path' },
  unsupported_on_driver: { kind: 'usage', suggestion: 'run this on the cdp driver (browser.driver: cdp)' },
  unsupported_url: { kind: 'usage', suggestion: 'pass a path of the app such as "/form.html", or an http:// or https:// URL' },
  variant_required: { kind: 'usage', suggestion: 'pass --variant NAME (perf validate lists them)' },
  variant_unknown: { kind: 'usage', suggestion: 'give one of the variants the scenario declares (perf validate lists them)' },
  wait_timeout: {
    kind: 'failed',
    suggestion: 'the text is a case-sensitive substring of the visible text; check it with snap { grep }, or raise timeoutMs',
  },
  webdriver_missing: { kind: 'environment', suggestion: 'install the WebDriver server the engine needs (`perf doctor` names it)' },
  webdriver_protocol: { kind: 'environment', suggestion: 'check that the endpoint is a W3C WebDriver server (its /status)' },
  webdriver_start_failed: { kind: 'environment', suggestion: 'run `perf doctor`; the WebDriver server log names the cause' },
  webdriver_timeout: {
    kind: 'environment',
    suggestion: {
      run: 'the browser or its WebDriver server hung: check the server (its /status) and the machine load, then run again',
      session: 'the browser or its WebDriver server hung: run `perf restart`',
      mcp: 'the browser or its WebDriver server hung: call app_restart',
    },
  },
  write_failed: { kind: 'environment', suggestion: 'free space on that disk or pass --out on another one' },
  xvfb_failed: { kind: 'environment', suggestion: 'set DISPLAY to a running X server, or install xvfb' },
} as const satisfies Record<string, ErrorDecl>;

export type ErrorCode = keyof typeof ERRORS;

/** The kinds a throw site may give for `C`: its declared `kinds`, else only its `kind`. */
export type KindOf<C extends ErrorCode> = C extends unknown
  ? (typeof ERRORS)[C] extends { readonly kinds: readonly (infer K)[] }
    ? K
    : (typeof ERRORS)[C]['kind']
  : never;

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERRORS, code);
}

/** The code's default advice at `door`; undefined for a code this version does not know (read back from a file). */
export function doorSuggestion(code: string, door: Door): string | undefined {
  if (!isErrorCode(code)) return undefined;
  const s: DoorSuggestion = ERRORS[code].suggestion;
  return typeof s === 'string' ? s : s[door];
}
