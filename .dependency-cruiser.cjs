/**
 * Import rules checked by `npm test` (docs: DESIGN.md "Layers"). No exceptions list. Every folder of
 * src, the reporters and the src/ root files have a rule. A process is never started by a path into
 * a layer above (test/deps.test.ts checks the `new URL(…, import.meta.url)` paths too).
 */
module.exports = {
  forbidden: [
    ...[
      ['runner', ['cli', 'mcp']],
      ['scenario', ['cli', 'mcp', 'runner']],
      ['engine', ['cli', 'mcp', 'runner', 'scenario']],
      ['steps', ['cli', 'mcp', 'runner', 'scenario', 'engine', 'session', 'drivers']],
      ['perf', ['cli', 'mcp', 'runner', 'scenario', 'engine', 'steps', 'page', 'session']],
      ['page', ['cli', 'mcp', 'runner', 'scenario', 'engine', 'steps', 'perf', 'session']],
      ['session', ['cli', 'mcp', 'runner', 'scenario', 'engine', 'steps', 'page', 'perf']],
      ['drivers', ['cli', 'mcp', 'runner', 'scenario', 'engine', 'steps', 'page', 'perf', 'session']],
      ['history', ['cli', 'mcp', 'runner', 'scenario', 'engine', 'steps', 'page', 'session', 'drivers']],
    ].map(([from, above]) => ({
      name: `${from}-points-down`,
      severity: 'error',
      comment: `src/${from} may not import ${above.join(', ')}: layers point down (cli / mcp → runner → scenario → engine → steps → page / perf → drivers; session composes a driver for the runner and the hosts).`,
      from: { path: `^src/${from}/` },
      to: { path: `^src/(${above.join('|')})/` },
    })),
    {
      name: 'cli-is-the-top',
      severity: 'error',
      comment: 'src/cli is the CLI edge: it uses src and reporters, never the tests, benches or tools beside them.',
      from: { path: '^src/cli/' },
      to: { path: '^(test|bench|tools|bin)/' },
    },
    {
      name: 'mcp-points-down',
      severity: 'error',
      comment: 'src/mcp is the MCP edge, beside the CLI: it may not import src/cli or the reporters (it answers in its own format).',
      from: { path: '^src/mcp/' },
      to: { path: '^(src/cli|reporters)/' },
    },
    {
      name: 'reporters-are-pure',
      severity: 'error',
      comment: 'reporters/ are pure (data in, text out): they read src/perf data types and the src/ root files, nothing that runs an app.',
      from: { path: '^reporters/' },
      to: { path: '^src/(?!perf/)[^/]+/' },
    },
    {
      name: 'reporters-start-nothing',
      severity: 'error',
      comment: 'reporters/ are pure: no processes, sockets or servers.',
      from: { path: '^reporters/' },
      to: { path: '^(node:)?(child_process|net|http|https|worker_threads)$', dependencyTypes: ['core'] },
    },
    {
      name: 'root-files-at-the-bottom',
      severity: 'error',
      comment: 'The files at the src/ root (errors, files, url, json-input, …) are shared by every layer: they import no folder of src.',
      from: { path: '^src/[^/]+$' },
      to: { path: '^src/[^/]+/' },
    },
    {
      name: 'src-is-not-the-tests',
      severity: 'error',
      comment: 'Shipped code (src, reporters) never imports the tests, the benches or the tools.',
      from: { path: '^(src|reporters)/' },
      to: { path: '^(test|bench|tools)/' },
    },
    {
      name: 'one-driver-behind-the-contract',
      severity: 'error',
      comment: 'Above the drivers only the composition (runner, session) names a driver; page, perf and engine see the driver-neutral contract (src/drivers/*.ts, src/drivers/runtime).',
      from: { path: '^src/(page|perf|engine|steps|scenario|cli|mcp)/' },
      to: { path: '^src/drivers/(?!runtime/)[^/]+/' },
    },
    {
      name: 'no-driver-imports-another',
      severity: 'error',
      comment: 'A driver is self-contained: it may use the shared contract, never another driver.',
      from: { path: '^src/drivers/([^/]+)/' },
      to: { path: '^src/drivers/(?!runtime/)([^/]+)/', pathNot: '^src/drivers/$1/' },
    },
    { name: 'no-circular', severity: 'error', comment: 'Layers point down only: a cycle means one of them points up.', from: {}, to: { circular: true } },
    { name: 'cdp-client-in-cdp-driver-only', severity: 'error', comment: 'Only src/drivers/cdp speaks CDP.', from: { pathNot: '^src/drivers/cdp/' }, to: { path: '(^|node_modules/)(chrome-remote-interface|devtools-protocol)(/|$)' } },
    {
      name: 'ws-in-bidi-socket-only',
      severity: 'error',
      comment: 'Only the one BiDi socket (src/drivers/bidi-socket.ts, shared by the bidi and webdriver drivers) and the bidi driver (its relay serves BiDi) speak WebSocket (ws).',
      from: { pathNot: '^src/drivers/(bidi-socket\\.ts$|bidi/)' },
      to: { path: '(^|node_modules/)ws(/|$)' },
    },
    {
      name: 'bidi-socket-in-drivers-only',
      severity: 'error',
      comment: 'src/drivers/bidi-socket.ts sits beside the contract only so two drivers can share it: it is protocol, so nothing above the drivers imports it.',
      from: { path: '^(src/(?!drivers/)|reporters/)' },
      to: { path: '^src/drivers/bidi-socket\\.ts$' },
    },
    { name: 'pty-libraries-in-pty-driver-only', severity: 'error', comment: 'Only src/drivers/pty speaks to a pseudo-terminal (node-pty) and its screen model (xterm).', from: { pathNot: '^src/drivers/pty/' }, to: { path: '(^|node_modules/)(@lydell/node-pty|@xterm/headless)(/|$)' } },
    { name: 'databases-in-history-only', severity: 'error', comment: 'Only src/history speaks to a database (SQLite, PostgreSQL).', from: { pathNot: '^src/history/' }, to: { path: '(^|node_modules/)(better-sqlite3|pg)(/|$)' } },
    { name: 'mcp-sdk-in-mcp-only', severity: 'error', comment: 'Only src/mcp knows the MCP SDK.', from: { pathNot: '^src/mcp/' }, to: { path: '(^|node_modules/)@modelcontextprotocol/' } },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(dist|node_modules)/' },
  },
};
