/** Import rules checked by `npm test` (docs: DESIGN.md "Layers"). No exceptions list. */
module.exports = {
  forbidden: [
    ...[
      ['runner', ['cli', 'mcp']],
      ['scenario', ['cli', 'mcp', 'runner']],
      ['engine', ['cli', 'mcp', 'runner', 'scenario']],
      ['steps', ['cli', 'mcp', 'runner', 'scenario']],
      ['perf', ['cli', 'mcp', 'runner', 'scenario', 'engine', 'steps']],
      ['session', ['cli', 'mcp', 'runner', 'scenario', 'steps']],
      ['drivers', ['cli', 'mcp', 'runner', 'scenario', 'engine', 'steps', 'perf', 'session']],
    ].map(([from, above]) => ({
      name: `${from}-points-down`,
      severity: 'error',
      comment: `src/${from} may not import ${above.join(', ')}: layers point down (cli / mcp → runner → scenario → engine → steps → perf, page → drivers).`,
      from: { path: `^src/${from}/` },
      to: { path: `^src/(${above.join('|')})/` },
    })),
    { name: 'no-circular', severity: 'error', comment: 'Layers point down only: a cycle means one of them points up.', from: {}, to: { circular: true } },
    { name: 'cdp-client-in-cdp-driver-only', severity: 'error', comment: 'Only src/drivers/cdp speaks CDP.', from: { pathNot: '^src/drivers/cdp/' }, to: { path: '(^|node_modules/)(chrome-remote-interface|devtools-protocol)(/|$)' } },
    { name: 'mcp-sdk-in-mcp-only', severity: 'error', comment: 'Only src/mcp knows the MCP SDK.', from: { pathNot: '^src/mcp/' }, to: { path: '(^|node_modules/)@modelcontextprotocol/' } },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(dist|node_modules)/' },
  },
};
