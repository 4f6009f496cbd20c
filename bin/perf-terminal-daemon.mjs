#!/usr/bin/env node
// The daemon of `perf start --terminal CMD`, as an entry point: the session manager (a lower layer)
// starts it by this public entry instead of a path into src/runner, which runs the steps it serves.
await import(new URL('../dist/src/runner/terminal-daemon.js', import.meta.url).href);
