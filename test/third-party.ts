/**
 * Two real third-party pages for the snapshot comparisons (test and bench/mcp-economy.ts), built
 * from npm packages (dev dependencies) into a folder the static server can serve:
 *   swagger/  Swagger UI (swagger-ui-dist) showing a small vendored pet store API: an app with
 *             collapsible operations, buttons, inputs and a long list;
 *   reveal/   the reveal.js demo deck (reveal.js): a long document of slides, links and code.
 * Only files from the packages are copied; the pet store spec is ours (test/fixtures/third-party).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const SWAGGER_FILES = [
  'index.html',
  'index.css',
  'swagger-ui.css',
  'swagger-ui-bundle.js',
  'swagger-ui-standalone-preset.js',
  'favicon-16x16.png',
  'favicon-32x32.png',
  'LICENSE',
];

/** The pages, relative to the folder buildThirdPartySite filled. */
export const THIRD_PARTY_PAGES = [
  { name: 'Swagger UI (swagger-ui-dist)', path: '/swagger/index.html', ready: 'opblock' },
  { name: 'reveal.js demo (reveal.js)', path: '/reveal/demo.html', ready: 'slides' },
] as const;

export function buildThirdPartySite(dir: string): void {
  const swagger = path.join(dir, 'swagger');
  fs.mkdirSync(swagger, { recursive: true });
  const dist = path.join(ROOT, 'node_modules', 'swagger-ui-dist');
  for (const f of SWAGGER_FILES) fs.copyFileSync(path.join(dist, f), path.join(swagger, f));
  fs.copyFileSync(path.join(ROOT, 'test', 'fixtures', 'third-party', 'petstore.json'), path.join(swagger, 'petstore.json'));
  // The package's initializer loads the public petstore over the internet; this one, the local spec.
  fs.writeFileSync(
    path.join(swagger, 'swagger-initializer.js'),
    "window.onload = function () {\n  window.ui = SwaggerUIBundle({ url: './petstore.json', dom_id: '#swagger-ui', deepLinking: true, presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], plugins: [SwaggerUIBundle.plugins.DownloadUrl], layout: 'StandaloneLayout' });\n};\n",
  );
  const reveal = path.join(dir, 'reveal');
  const pkg = path.join(ROOT, 'node_modules', 'reveal.js');
  fs.mkdirSync(reveal, { recursive: true });
  // Remote images (static.slid.es) are dropped: no network here, and a hanging fetch would hold the load event.
  const demo = fs
    .readFileSync(path.join(pkg, 'demo.html'), 'utf8')
    .replace(/(src|data-background-image|data-background-video|data-background-iframe)="https?:\/\/[^"]*"/g, '$1=""');
  fs.writeFileSync(path.join(reveal, 'demo.html'), demo);
  fs.cpSync(path.join(pkg, 'dist'), path.join(reveal, 'dist'), { recursive: true });
  fs.copyFileSync(path.join(pkg, 'LICENSE'), path.join(reveal, 'LICENSE'));
}

// Roles a user acts on: Playwright's AI snapshot refs every node (generic containers too); the
// coverage of refs counts these.
const ACTIONABLE = new Set([
  'link',
  'button',
  'textbox',
  'searchbox',
  'spinbutton',
  'checkbox',
  'radio',
  'switch',
  'combobox',
  'listbox',
  'option',
  'slider',
  'tab',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'treeitem',
]);

/** `role "name"` of the actionable elements a snapshot (ours or Playwright's) gives a ref to; names without whitespace, as the two join inline text differently. */
export function actionableRefs(snapshot: string): string[] {
  const out: string[] = [];
  for (const line of snapshot.split('\n')) {
    if (!/\[ref=[a-z0-9]+\]/.test(line)) continue;
    const m = /-\s+([a-z]+)(?:\s+"((?:[^"\\]|\\.)*)")?/.exec(line);
    if (m && ACTIONABLE.has(m[1]!)) out.push(`${m[1]} "${(m[2] ?? '').replace(/[\s\u200B-\u200D\u2060\uFEFF]+/g, '')}"`);
  }
  return out;
}

/** Playwright's ref'd actionable elements ours lacks. One it leaves unnamed (a name repeating its contents) matches any of ours with the role. */
export function refsMissing(peer: string, ours: string): string[] {
  const have = actionableRefs(ours);
  return actionableRefs(peer).filter((e) => !have.includes(e) && !(e.endsWith(' ""') && have.some((o) => o.startsWith(e.slice(0, -2)))));
}
