/**
 * tauri-driver from npm, run as a process: `@crabnebula/tauri-driver` ships the driver as a native
 * module per platform (its Linux x64 build is an optional dependency of ours) whose `run(args)` is
 * the whole program. The wrapper package itself is not installed: it lists platform packages the
 * registry does not have, which `npm ci` refuses.
 */
import { createRequire } from 'node:module';

interface TauriDriverModule {
  run(args: string[], binName: string | null): Promise<void>;
}

const mod = createRequire(import.meta.url)('@crabnebula/tauri-driver-linux-x64-gnu') as TauriDriverModule;
mod.run(process.argv.slice(2), 'tauri-driver').catch((e: unknown) => {
  process.stderr.write(`tauri-driver: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
