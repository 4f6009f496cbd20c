/**
 * Third-party apps for the verdict benches (issue 56 item 8) and the bisect's test history: Swagger UI with a click
 * tracker and a Tabulator grid with a scroll tracker, each slowed by `--var slow=N` (ms of main-thread work per event).
 * Lays each out in a fresh folder: the registry's own builds (swagger-ui-dist, tabulator-tables, from node_modules)
 * beside our page, and the scenario beside its `app/` folder.
 */
import { copyFileSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BENCH_MODULES } from './modules.js';

const PAGES = fileURLToPath(new URL('../../bench/verdict-pages/', import.meta.url));
const LOAD_PAGES = fileURLToPath(new URL('../../bench/load-pages/', import.meta.url));
// The installed packages' folders: tabulator-tables exports no package.json to resolve it by. swagger-ui-dist is the
// root's (a test serves it too), tabulator-tables bench/'s own.
const pkgDir = (name: string): string =>
  name === 'tabulator-tables' ? join(BENCH_MODULES, name) : fileURLToPath(new URL(`../../node_modules/${name}/`, import.meta.url));

export interface VerdictApps {
  dir: string;
  swagger: string;
  tabulator: string;
}

/** Copy the two apps and their scenarios into `dir` (a new temporary folder by default); returns the scenario paths. */
export function layOutVerdictApps(dir = mkdtempSync(join(tmpdir(), 'rehearse-verdict-apps-'))): VerdictApps {
  const app = join(dir, 'app');
  mkdirSync(app, { recursive: true });
  const swaggerDist = pkgDir('swagger-ui-dist');
  for (const f of ['swagger-ui.css', 'index.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js']) {
    copyFileSync(join(swaggerDist, f), join(app, f));
  }
  const tabulator = join(pkgDir('tabulator-tables'), 'dist');
  copyFileSync(join(tabulator, 'js', 'tabulator.min.js'), join(app, 'tabulator.min.js'));
  copyFileSync(join(tabulator, 'css', 'tabulator.min.css'), join(app, 'tabulator.min.css'));
  copyFileSync(join(LOAD_PAGES, 'petstore.json'), join(app, 'petstore.json'));
  for (const f of ['swagger.html', 'swagger-init.js', 'analytics.js', 'grid.html', 'grid.js']) copyFileSync(join(PAGES, f), join(app, f));
  for (const f of ['swagger-click.yaml', 'tabulator-scroll.yaml']) copyFileSync(join(PAGES, f), join(dir, f));
  return { dir, swagger: join(dir, 'swagger-click.yaml'), tabulator: join(dir, 'tabulator-scroll.yaml') };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const apps = layOutVerdictApps(process.argv[2]);
  process.stdout.write(`${apps.swagger}\n${apps.tabulator}\n`);
}
