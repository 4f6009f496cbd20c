/**
 * Preloaded (`--import`) into every lanes job's `node --test` process and, through its exec arguments, into the test
 * file's own process. Node 20 streams a test file's results to the runner over the file process's stdout, a pipe,
 * and a pipe's writes are asynchronous on Linux: `--test-force-exit` then calls process.exit() with the last tests'
 * results still queued, and the runner reports fewer tests than ran, passing (nodejs/node#64833; CI-31 lost
 * scenario.test.js's last test this way). Blocking writes reach the pipe before write() returns, so nothing is
 * queued when the process exits. Measured on a 60-test file with a leaked handle and a busy core: tests lost in
 * 9 of 20 runs without this, in 0 of 20 with it.
 */
for (const stream of [process.stdout, process.stderr]) stream._handle?.setBlocking?.(true);
