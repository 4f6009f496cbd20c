/**
 * Where the benches' peers are installed: bench/'s own package (bench/deps.mjs), not the root's node_modules, which
 * keeps only what the product and the tests use.
 */
import { fileURLToPath } from 'node:url';

// This file runs from dist/bench/.
export const BENCH_MODULES = fileURLToPath(new URL('../../bench/node_modules/', import.meta.url));
