/**
 * The MCP server end to end: the SDK's Client over stdio spawning `./bin/perf mcp` (a real server
 * process, a real session daemon and Chromium) against the demo app.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { isAllowedHost, isAllowedOrigin, startMcpHttp } from '../src/mcp/http.js';
import { McpCore } from '../src/mcp/core.js';
import { allTools } from '../src/mcp/tools.js';
import * as sessionManager from '../src/session/manager.js';
import { globToRegExp, isToolAllowed, loadConfig, policyFrom } from '../src/mcp/config.js';
import { renderReply } from '../src/mcp/format.js';
import { isAlive, sleep } from '../src/processes.js';
import { STEPS, mcpArgsSchema } from '../src/steps/registry.js';
import { CAPS, DEFAULT_CAPS } from '../src/mcp/caps.js';
import { DEMO_DIR, refOf, ROOT } from './helpers.js';
import { replyOf } from './mcp-client.js';

const PERF = path.join(ROOT, 'bin', 'perf');
const has = (step: string): boolean => STEPS.some((s) => s.name === step);
/** Skip with the reason when a step another engineer is writing has not landed yet. */
const needs = (...steps: string[]): { skip: string | false } => {
  const missing = steps.filter((s) => !has(s));
  return { skip: missing.length ? `waiting for step(s): ${missing.join(', ')}` : false };
};

interface Called {
  isError: boolean;
  json: any;
  text: string;
  images: { data: string; mimeType: string }[];
}

interface Server {
  client: Client;
  cwd: string;
  stderr: () => string;
  call(name: string, args?: Record<string, unknown>): Promise<Called>;
  close(): Promise<void>;
}

const tmpDirs: string[] = [];
function tmpDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'rehearse-mcp-'));
  tmpDirs.push(d);
  // The demo app inside the working folder, as a project holds its app (serve stays inside it).
  fs.cpSync(DEMO_DIR, path.join(d, 'app'), { recursive: true });
  return d;
}

async function startServer(opts: { args?: string[]; cwd?: string } = {}): Promise<Server> {
  const cwd = opts.cwd ?? tmpDir();
  let stderr = '';
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [PERF, 'mcp', ...(opts.args ?? [])],
    cwd,
    env: { ...(process.env as Record<string, string>) },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: 'rehearse-test', version: '0.0.0' });
  await client.connect(transport);
  return {
    client,
    cwd,
    stderr: () => stderr,
    async call(name, args = {}) {
      return replyOf(await client.callTool({ name, arguments: args }));
    },
    close: () => client.close(),
  };
}

/** The snapshot text inside a snap result, whatever key the step puts it under. */
function snapText(r: Called): string {
  const data = (r.json?.data ?? {}) as Record<string, unknown>;
  const s = data.snapshot ?? data.text ?? data.yaml ?? Object.values(data).find((v) => typeof v === 'string' && v.includes('\n'));
  assert.equal(typeof s, 'string', `snap result has a snapshot text: ${r.text.slice(0, 300)}`);
  return s as string;
}

after(() => {
  for (const d of tmpDirs) fs.rmSync(d, { recursive: true, force: true });
});

async function waitGone(pid: number, timeoutMs = 8000): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end && isAlive(pid)) await sleep(50);
  return !isAlive(pid);
}

describe('without an app', () => {
  let s: Server;
  before(async () => {
    s = await startServer({ args: ['--caps', 'all'] });
  });
  after(() => s.close());

  test('--caps all lists every step with its MCP schema, the lifecycle tools and run; evaluate absent by default', async () => {
    const { tools } = await s.client.listTools();
    const names = tools.map((t) => t.name);
    for (const lifecycle of ['app_start', 'app_stop', 'app_status', 'app_logs', 'app_restart', 'doctor', 'run'])
      assert.ok(names.includes(lifecycle), lifecycle);
    for (const def of STEPS) {
      // switch_page's MCP form is the pages tool.
      if (def.name === 'evaluate' || def.mcp === false) continue;
      const tool = tools.find((t) => t.name === def.name);
      assert.ok(tool, `tool ${def.name}`);
      assert.equal(tool.description, def.description);
      assert.deepEqual(tool.inputSchema, JSON.parse(JSON.stringify(mcpArgsSchema(def))));
      assert.equal(tool.annotations?.readOnlyHint, def.readOnly && def.writesFiles !== true);
    }
    assert.equal(names.includes('evaluate'), false);
    assert.equal(tools.find((t) => t.name === 'app_status')?.annotations?.readOnlyHint, true);
    assert.equal(tools.find((t) => t.name === 'app_start')?.annotations?.readOnlyHint, false);
  });

  test(
    'a page tool answers an isError "no app: call app_start"',
    { skip: STEPS.some((d) => d.needsPage !== false && d.name !== 'evaluate') ? false : 'no page step registered yet' },
    async () => {
      const step = has('snap') ? 'snap' : STEPS.find((d) => d.needsPage !== false && d.name !== 'evaluate')!.name;
      const r = await s.call(step, {});
      assert.equal(r.isError, true);
      assert.equal(r.json.kind, 'environment');
      assert.equal(r.json.code, 'no_app');
      assert.match(r.json.message, /no app: call app_start/);
      assert.equal(r.text.includes('    at '), false, 'no stack trace');
    },
  );

  test('calling evaluate (denied by default) says how to allow it', { ...needs('evaluate') }, async () => {
    const r = await s.call('evaluate', { expression: '1' });
    assert.equal(r.isError, true);
    assert.equal(r.json.code, 'tool_denied');
    assert.match(r.json.suggestion, /--allow evaluate/);
  });

  test('bad arguments are refused naming the property, for lifecycle tools too', async () => {
    const extra = await s.call('app_start', { serve: 'app', bogus: 1 });
    assert.equal(extra.isError, true);
    assert.equal(extra.json.code, 'invalid_arguments');
    assert.match(extra.json.message, /unknown argument "bogus"/);
    const wrongType = await s.call('app_logs', { lines: 'ten' });
    assert.equal(wrongType.json.code, 'invalid_arguments');
    assert.match(wrongType.json.message, /app_logs\.lines: must be integer/);
    const run = await s.call('run', { steps: [], continue: 'yes' });
    assert.equal(run.isError, true);
    assert.match(run.json.message, /run\.(steps|continue)/);
  });

  test('app_start refuses to serve / or a parent of the working folder, naming --allow-outside', async () => {
    for (const serve of ['/', '..']) {
      const r = await s.call('app_start', { serve });
      assert.equal(r.isError, true);
      assert.equal(r.json.code, 'serve_outside_project');
      assert.match(r.json.suggestion, /--allow-outside/);
    }
  });

  test('a step given a misspelt argument names it and the closest valid one', { ...needs('tap') }, async () => {
    const r = await s.call('tap', { reff: 'e1' });
    assert.equal(r.isError, true);
    assert.equal(r.json.kind, 'usage');
    assert.match(r.json.message, /unknown argument "reff" \(did you mean "ref"\?\)/);
  });

  test('an unknown tool is an isError result with the closest names', async () => {
    const r = await s.call('app_stat', {});
    assert.equal(r.isError, true);
    assert.equal(r.json.code, 'unknown_tool');
    assert.ok(r.json.candidates.includes('app_status'));
  });

  test('app_status with nothing running; app_start with no source says what to give', async () => {
    const st = await s.call('app_status');
    assert.equal(st.isError, false);
    assert.equal(st.json.data.running, false);
    const start = await s.call('app_start', {});
    assert.equal(start.isError, true);
    assert.match(start.json.message, /serve .*url .*command/);
  });

  test('run refuses an unknown step before running any line', async () => {
    const r = await s.call('run', { steps: [{ app_status: {} }] });
    assert.equal(r.isError, true);
    assert.equal(r.json.code, 'unknown_step');
    assert.match(r.json.message, /^steps\[0\]: unknown step "app_status"/);
  });
});

describe('with the demo app (app_start serve)', () => {
  let s: Server;
  let chromePid: number;
  before(async () => {
    s = await startServer({ args: ['--caps', 'all'] });
    const r = await s.call('app_start', { serve: 'app', path: '/list.html' });
    assert.equal(r.isError, false, r.text + s.stderr());
    chromePid = r.json.data.chrome.pid;
  });
  after(() => s.close());

  test('app_start answers the session: app URL, page URL, Chromium', async () => {
    const st = await s.call('app_status');
    assert.equal(st.json.data.running, true);
    assert.equal(st.json.data.ownedByThisServer, true);
    assert.match(st.json.data.session.pageUrl, /^http:\/\/127\.0\.0\.1:\d+\/list\.html$/);
    assert.equal(st.json.data.session.chrome.pid, chromePid);
  });

  test('app_start with a file: URL is refused before the running app is touched', async () => {
    const r = await s.call('app_start', { url: 'file:///etc/passwd' });
    assert.equal(r.isError, true);
    assert.equal(r.json.code, 'invalid_app_url');
    const st = await s.call('app_status');
    assert.equal(st.json.data.running, true);
    assert.equal(st.json.data.session.chrome.pid, chromePid);
    assert.equal(st.json.data.alive.chrome, true);
  });

  test('snap -> tap the "Add item" ref -> the effect and the page show the new item', { ...needs('snap', 'tap', 'navigate') }, async () => {
    await s.call('navigate', { url: '/list.html' });
    const snap = await s.call('snap', { interactiveOnly: true });
    assert.equal(snap.isError, false, snap.text);
    const ref = refOf(snapText(snap), 'button', 'Add item');
    const tap = await s.call('tap', { ref });
    assert.equal(tap.isError, false, tap.text);
    assert.equal(tap.json.status, 'ok');
    assert.equal(tap.json.effect.treeChanged.changed, true);
    const after = await s.call('snap', { grep: '2001 items' });
    assert.match(snapText(after), /2001 items/);
  });

  test('tap by the string shorthand target text in a run line', { ...needs('tap', 'navigate', 'snap') }, async () => {
    const r = await s.call('run', {
      steps: [{ navigate: { url: '/list.html' } }, { tap: 'Add item' }, { tap: 'Add item' }, { snap: { grep: 'items$' } }],
    });
    assert.equal(r.isError, false, r.text);
    assert.match(JSON.stringify(r.json.results[3]), /2002 items/);
  });

  test('fill "abc" into the number field comes back verified: false', { ...needs('fill', 'navigate') }, async () => {
    await s.call('navigate', { url: '/form.html' });
    const r = await s.call('fill', { target: { label: 'Age' }, text: 'abc' });
    assert.equal(r.json.effect.text.verified, false, r.text);
    assert.equal(r.json.effect.text.value, '');
  });

  test('set_checkbox is idempotent: the second call does not toggle', { ...needs('set_checkbox', 'navigate') }, async () => {
    await s.call('navigate', { url: '/form.html' });
    const first = await s.call('set_checkbox', { target: { label: 'Subscribe to newsletter' }, value: true });
    assert.equal(first.isError, false, first.text);
    assert.equal(first.json.data.toggled, true);
    assert.equal(first.json.effect.checked.after, true);
    const second = await s.call('set_checkbox', { target: { label: 'Subscribe to newsletter' }, value: true });
    assert.equal(second.json.data.toggled, false);
    assert.equal(second.json.data.previousValue, true);
    assert.equal(second.json.effect.checked.after, true);
  });

  test('an ambiguous target is an isError result listing the candidates', { ...needs('tap', 'navigate') }, async () => {
    await s.call('navigate', { url: '/routes.html' });
    const r = await s.call('tap', { target: { text: 'Home' } });
    assert.equal(r.isError, true);
    assert.ok(Array.isArray(r.json.candidates) && r.json.candidates.length >= 2, r.text);
    assert.equal(typeof r.json.suggestion, 'string');
  });

  test('calls run one at a time in arrival order', { ...needs('navigate', 'snap') }, async () => {
    await s.call('navigate', { url: '/list.html' });
    // Sent together: the snap must see the page the navigate (sent first) opened.
    const [nav, snap] = await Promise.all([s.call('navigate', { url: '/form.html' }), s.call('snap', { grep: 'Profile' })]);
    assert.equal(nav.isError, false, nav.text);
    assert.match(snapText(snap), /Profile/);
  });

  test(
    'ten steps in one run, a q ref minted by find used later in the batch',
    { ...needs('navigate', 'find', 'fill', 'tap', 'set_checkbox', 'select_option', 'wait_for', 'expect') },
    async () => {
      const r = await s.call('run', {
        steps: [
          { navigate: { url: '/form.html' } },
          { find: { label: 'Name' } },
          { fill: { ref: 'q1', text: 'Ada' } },
          { fill: { target: { label: 'Email' }, text: 'ada@example.com' } },
          { fill: { target: { label: 'Age' }, text: '36' } },
          { set_checkbox: { target: { label: 'Subscribe to newsletter' }, value: true } },
          { select_option: { target: { label: 'Country' }, option: 'France' } },
          { tap: { target: { role: 'button', name: 'Submit' } } },
          { wait_for: { text: 'Form submitted' } },
          { expect: { target: { testId: 'result' }, textContains: '"country":"fr"' } },
        ],
      });
      assert.equal(r.isError, false, r.text);
      assert.equal(r.json.ran, 10);
      assert.equal(r.json.results.length, 10);
      assert.ok(r.json.results.every((x: { status: string }) => x.status === 'ok'));
      const ref = r.json.results[1].data;
      assert.match(JSON.stringify(ref), /q\d+/);
      assert.equal(r.json.results[2].effect.text.value, 'Ada');
    },
  );

  test('run stops at the first failure unless continue', { ...needs('navigate', 'tap') }, async () => {
    const lines = [
      { navigate: { url: '/dialog.html' } },
      { tap: { target: { text: 'No such button' }, timeoutMs: 300 } },
      { navigate: { url: '/list.html' } },
    ];
    const stopped = await s.call('run', { steps: lines });
    assert.equal(stopped.isError, true);
    assert.match(stopped.json.message, /^steps\[1\] tap failed: .*stopped; 1 later step/);
    assert.equal(stopped.json.ran, 2);
    const cont = await s.call('run', { steps: lines, continue: true });
    assert.equal(cont.isError, true);
    assert.equal(cont.json.ran, 3);
    assert.equal(cont.json.results[2].status, 'ok');
  });

  test('a screenshot comes back as image content', { ...needs('screenshot', 'navigate') }, async () => {
    await s.call('navigate', { url: '/index.html' });
    const r = await s.call('screenshot', {});
    assert.equal(r.isError, false, r.text);
    assert.equal(r.images.length, 1);
    assert.equal(r.images[0]!.mimeType, 'image/png');
    assert.equal(Buffer.from(r.images[0]!.data, 'base64').subarray(1, 4).toString(), 'PNG');
    assert.equal(r.text.includes(r.images[0]!.data.slice(0, 100)), false, 'base64 not repeated in the text');
  });

  test(
    'a stale ref is relocated when safe (reresolved) and refused on another route',
    { ...needs('snap', 'tap', 'navigate', 'reload') },
    async () => {
      await s.call('navigate', { url: '/list.html' });
      const ref = refOf(snapText(await s.call('snap', { interactiveOnly: true })), 'button', 'Add item');
      await s.call('reload', {});
      const relocated = await s.call('tap', { ref });
      assert.equal(relocated.isError, false, relocated.text);
      assert.deepEqual(relocated.json.reresolved, [ref]);
      await s.call('navigate', { url: '/form.html' });
      const submit = refOf(snapText(await s.call('snap', { interactiveOnly: true })), 'button', 'Submit');
      await s.call('navigate', { url: '/index.html' });
      const refused = await s.call('tap', { ref: submit, timeoutMs: 500 });
      assert.equal(refused.isError, true);
      assert.match(`${refused.json.message} ${refused.json.suggestion ?? ''}`, /snap/);
    },
  );

  test('actionability: a disabled button fails "enabled"', { ...needs('tap', 'navigate') }, async () => {
    await s.call('navigate', { url: '/form.html' });
    const r = await s.call('tap', { target: { testId: 'delete-account' }, timeoutMs: 800 });
    assert.equal(r.isError, true);
    assert.match(r.json.message, /is not actionable: enabled/, r.text);
  });

  test('actionability: a 0x0 button fails "visible"', { ...needs('tap', 'navigate') }, async () => {
    await s.call('navigate', { url: '/dialog.html' });
    const r = await s.call('tap', { target: { testId: 'zero-size' }, timeoutMs: 800 });
    assert.equal(r.isError, true);
    assert.match(r.json.message, /is not actionable: visible/, r.text);
  });

  test('actionability: an animated button fails "stable"', { ...needs('tap', 'navigate') }, async () => {
    await s.call('navigate', { url: '/dialog.html' });
    const r = await s.call('tap', { target: { testId: 'moving-target' }, timeoutMs: 800 });
    assert.equal(r.isError, true, r.text);
    assert.match(r.json.message, /is not actionable: stable/, r.text);
  });

  test('actionability: a button under a modal backdrop fails "receives events"', { ...needs('tap', 'navigate') }, async () => {
    await s.call('navigate', { url: '/dialog.html' });
    const open = await s.call('tap', { target: { testId: 'open-custom-modal' } });
    assert.equal(open.isError, false, open.text);
    const r = await s.call('tap', { target: { testId: 'show-toast' }, timeoutMs: 800 });
    assert.equal(r.isError, true);
    assert.match(r.json.message, /is not actionable: receives events/, r.text);
  });

  test(
    'snap diff answers only the changed lines with a (K of N lines changed) footer',
    { ...needs('snap', 'tap', 'navigate') },
    async () => {
      await s.call('navigate', { url: '/list.html' });
      await s.call('snap', {});
      await s.call('tap', { target: { role: 'button', name: 'Add item' } });
      const diff = snapText(await s.call('snap', { diff: true }));
      assert.match(diff, /^\+.*2001 items/m);
      assert.match(diff, /^-.*2000 items/m);
      assert.match(diff, /\(\d+ of \d+ lines changed\)/);
    },
  );

  test(
    'act and see what changed in one call: run with snapshot diff answers the changed lines after its last step',
    { ...needs('snap', 'tap', 'navigate') },
    async () => {
      await s.call('navigate', { url: '/list.html' });
      await s.call('snap', {});
      const r = await s.call('run', { steps: [{ tap: { target: { role: 'button', name: 'Add item' } } }], snapshot: 'diff' });
      assert.equal(r.isError, false, r.text);
      assert.equal(r.json.results.length, 1);
      assert.match(r.json.snapshot, /^\+.*2001 items/m);
      assert.match(r.json.snapshot, /^-.*2000 items/m);
    },
  );

  test('app_stop stops Chromium; page tools then answer no app', async () => {
    const r = await s.call('app_stop');
    assert.equal(r.json.data.stopped, true);
    assert.equal(await waitGone(chromePid), true);
    const st = await s.call('app_status');
    assert.equal(st.json.data.running, false);
    const page = STEPS.find((d) => d.needsPage !== false && d.name !== 'evaluate');
    if (page) {
      const after = await s.call(page.name, {});
      assert.equal(after.json.code, 'no_app');
    }
  });
});

/** Bytes of the tools/list answer, as a client receives it (JSON). */
async function listBytes(s: Server): Promise<{ bytes: number; names: string[] }> {
  const r = await s.client.listTools();
  return { bytes: JSON.stringify(r).length, names: r.tools.map((t) => t.name) };
}

describe('caps and the size of what an agent reads', () => {
  // Playwright MCP 0.0.83 lists 25 tools in 20,296 bytes by default and 72 in 45,612 with every
  // capability on (issue 13, measured with this SDK client); ours must not cost more. With every cap on,
  // the margin under that went to perf_load (issue 29): no more than Playwright's own figure now.
  // Issue 58: at most 0.75 × Playwright MCP's 20,296 (20,358 before): screenshot moved to the viewport cap, select_option
  // to forms-extra, pages to navigation-extra; press_key stays in core (a terminal program is driven by keys), listing
  // key, repeat and ref (its modifiers are the key's combination, its target stays in scenario files); expect lists
  // visible: false, not its twin hidden; perf_insight (it reads memory) no timeoutMs; within's two forms as one type
  // list; descriptions shortened, every argument keeping one. 14,986 B with perf_end's full and perf_insight's several ids.
  const DEFAULT_LIST_MAX_BYTES = 15_000;
  // + 800: the opt-in storage cap (storage_save, storage_load; issue 33), two tools of ~400 bytes each.
  // + 1,000: perf_bisect and perf_history (issues 31, 32), opt-in tools for a CI question Playwright MCP has no tool
  // for; the shared target and ref descriptions were shortened at the same time (~500 bytes over 17 tools).
  // + 90: perf_run's storageState argument (issue 33: start every repeat from a saved sign-in), its one schema entry.
  // + 358: `pages` (tabs and popups; issue 33), the size of its declaration in the list.
  const ALL_LIST_MAX_BYTES = 45_612 + 800 + 1_000 + 90 + 358;

  test('every tool is in exactly one cap', () => {
    for (const t of allTools()) {
      const caps = CAPS.filter((c) => c.tools.includes(t.name)).map((c) => c.name);
      assert.equal(caps.length, 1, `${t.name} is in caps ${JSON.stringify(caps)}`);
    }
    const names = new Set(allTools().map((t) => t.name));
    for (const c of CAPS) for (const t of c.tools) assert.ok(names.has(t), `cap ${c.name} names an unknown tool ${t}`);
  });

  test(`the default tool list is the default caps' tools, in at most ${DEFAULT_LIST_MAX_BYTES} bytes`, async () => {
    const s = await startServer();
    try {
      const { bytes, names } = await listBytes(s);
      const want = CAPS.filter((c) => DEFAULT_CAPS.includes(c.name))
        .flatMap((c) => c.tools)
        .filter((n) => n !== 'evaluate');
      assert.deepEqual([...names].sort(), [...want].sort());
      assert.ok(bytes <= DEFAULT_LIST_MAX_BYTES, `default tools/list is ${bytes} bytes`);
      // Shorter, not silent: every argument keeps a description, but find's target fields, which its own names.
      const { tools } = await s.client.listTools();
      for (const t of tools)
        for (const [k, v] of Object.entries((t.inputSchema.properties ?? {}) as Record<string, { description?: string }>))
          if (!(t.name === 'find' && k !== 'limit' && k !== 'timeoutMs')) assert.ok(v.description, `${t.name}.${k} has a description`);
      // The perf tools are kept (issue 58), and press_key (a terminal program is driven by keys).
      for (const n of ['perf_begin', 'perf_end', 'perf_load', 'perf_insight', 'perf_run', 'perf_compare', 'press_key'])
        assert.ok(names.includes(n), n);
    } finally {
      await s.close();
    }
  });

  test('an argument a tool leaves to scenario files is refused naming the run step line that takes it', async () => {
    const s = await startServer();
    try {
      const r = await s.call('press_key', { key: 'Enter', target: { label: 'Name' } });
      assert.equal(r.json.code, 'invalid_arguments', r.text);
      assert.match(r.json.message, /^press_key: unknown argument "target"; expected one of: key, repeat, ref, timeoutMs, snapshot$/);
      assert.match(r.json.suggestion, /a run step line takes it: run \{steps: \[\{"press_key": \{"target": …\}\}\]\}/);
      const typo = await s.call('press_key', { key: 'Enter', reff: 'e1' });
      assert.equal(typo.json.suggestion, 'see the inputSchema of press_key', 'a typo is not a scenario-only argument');
      const none = await s.call('app_status', { verbose: true });
      assert.equal(none.json.message, 'app_status: unknown argument "verbose"; it takes no arguments');
    } finally {
      await s.close();
    }
  });

  test("the caps tables of docs/mcp.md and the README list each cap's tools, no more, no fewer", () => {
    for (const file of ['docs/mcp.md', 'README.md']) {
      const doc = fs.readFileSync(path.join(ROOT, file), 'utf8');
      for (const cap of CAPS) {
        const row = new RegExp('^\\| `' + cap.name + '`(?: \\(default\\))? \\| (.*) \\|$', 'm').exec(doc);
        assert.ok(row, `${file} has a row for the ${cap.name} cap`);
        // Tool names are the backquoted words that are not inside a parenthesis (notes name flags and files).
        const listed = [...row[1]!.replace(/\([^)]*\)/g, '').matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!);
        assert.deepEqual(listed.sort(), [...cap.tools].sort(), `${file}: the ${cap.name} cap`);
      }
    }
  });

  test('docs/mcp.md states the tool counts and bytes the server lists now (default caps and --caps all)', async () => {
    const doc = fs.readFileSync(path.join(ROOT, 'docs/mcp.md'), 'utf8');
    for (const [row, args] of [
      ['rehearse, default caps', []],
      ['rehearse, `--caps all`', ['--caps', 'all']],
    ] as const) {
      const m = new RegExp(`^\\| ${row.replace(/[`|]/g, '\\$&')} \\| (\\d+) \\| ([\\d,]+) \\|$`, 'm').exec(doc);
      assert.ok(m, `docs/mcp.md has the row "${row}"`);
      const s = await startServer({ args: [...args] });
      try {
        const { bytes, names } = await listBytes(s);
        assert.deepEqual([Number(m[1]), Number(m[2]!.replace(/,/g, ''))], [names.length, bytes], `docs/mcp.md's "${row}" row`);
      } finally {
        await s.close();
      }
    }
  });

  test(`--caps all lists every tool in at most ${ALL_LIST_MAX_BYTES} bytes`, async () => {
    const s = await startServer({ args: ['--caps', 'all'] });
    try {
      const { bytes, names } = await listBytes(s);
      assert.equal(names.length, allTools().length - 1, 'all but evaluate (denied by default)');
      assert.ok(bytes <= ALL_LIST_MAX_BYTES, `--caps all tools/list is ${bytes} bytes`);
    } finally {
      await s.close();
    }
  });

  test('a tool outside the enabled caps says which cap enables it, also inside run', async () => {
    const s = await startServer();
    try {
      const r = await s.call('hover', { ref: 'e1' });
      assert.equal(r.isError, true);
      assert.equal(r.json.code, 'tool_not_enabled');
      assert.match(r.json.message, /tool "hover" is in the pointer-extra cap/);
      assert.match(r.json.suggestion, /--caps core,perf,pointer-extra/);
      const inRun = await s.call('run', { steps: [{ snap: {} }, { hover: { ref: 'e1' } }] });
      assert.equal(inRun.isError, true);
      assert.match(inRun.json.message, /steps\[1\]: tool "hover" is in the pointer-extra cap/);
    } finally {
      await s.close();
    }
  });

  test('scenario-only arguments (label, optional) are not offered to agents', async () => {
    const s = await startServer();
    try {
      const tap = (await s.client.listTools()).tools.find((t) => t.name === 'tap')!;
      const props = Object.keys(tap.inputSchema.properties ?? {});
      assert.equal(props.includes('label'), false);
      assert.equal(props.includes('optional'), false);
      assert.equal('description' in tap.inputSchema, false, 'one description per tool');
      const r = await s.call('tap', { ref: 'e1', label: 'x' });
      assert.equal(r.isError, true);
      assert.equal(r.json.code, 'invalid_arguments');
    } finally {
      await s.close();
    }
  });

  test('an unknown cap is refused at start: exit 2 naming the known caps', () => {
    const r = spawnSync(process.execPath, [PERF, 'mcp', '--caps', 'core,pointer-xtra'], {
      timeout: 120_000,
      cwd: tmpDir(),
      encoding: 'utf8',
      input: '',
    });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /--caps: unknown cap "pointer-xtra"; did you mean "pointer-extra"\?/);
  });

  test('with --caps all and evaluate allowed, every tool answers through a real client', async () => {
    const cwd = tmpDir();
    fs.writeFileSync(path.join(cwd, 'all.json'), JSON.stringify({ tools: { caps: ['all'], allow: ['*', 'evaluate'] } }));
    // A budget written in a unit: perf_run's reply shows its median in that unit beside the value in ms.
    const tiny = fs.readFileSync(path.join(ROOT, 'scenarios', 'form-submit.yaml'), 'utf8') + 'budgets: [ "durationMs < 60s" ]\n';
    fs.writeFileSync(path.join(cwd, 'tiny.yaml'), tiny);
    const s = await startServer({ cwd, args: ['--config', 'all.json'] });
    const called = new Set<string>();
    const ok = async (name: string, args: Record<string, unknown> = {}): Promise<Called> => {
      const r = await s.call(name, args);
      called.add(name);
      assert.equal(r.isError, false, `${name} ${JSON.stringify(args)}: ${r.text.slice(0, 400)}`);
      return r;
    };
    try {
      await ok('app_status');
      await ok('app_start', { serve: 'app', path: '/form.html' });
      await ok('snap');
      await ok('find', { role: 'button', name: 'Submit' });
      // find by a form control's label, as its description says (the MCP list once dropped label with the step label).
      const byLabel = await ok('find', { label: 'Email' });
      assert.deepEqual(
        byLabel.json.data.matches.map((m: { role: string; name: string }) => [m.role, m.name]),
        [['textbox', 'Email']],
      );
      await ok('observe');
      await ok('get_routes');
      await ok('screenshot');
      await ok('console');
      await ok('exceptions');
      await ok('evaluate', { expression: '1 + 1' });
      // A stand-in for a Tauri app's IPC: the web page the server drives has none of its own.
      await ok('evaluate', { expression: 'window.__TAURI_INTERNALS__ = { invoke: async (cmd, args) => ({ cmd, args }) }, 1' });
      assert.deepEqual((await ok('tauri_invoke', { command: 'echo', args: { n: 1 } })).json.data.value, { cmd: 'echo', args: { n: 1 } });
      await ok('fill', { target: { label: 'Name' }, text: 'Ada' });
      await ok('type', { target: { label: 'Email' }, text: 'a@b.c' });
      await ok('clear', { target: { label: 'Email' } });
      await ok('focus', { target: { label: 'Name' } });
      await ok('blur');
      await ok('press_key', { key: 'Tab' });
      await ok('select_option', { target: { label: 'Country' }, option: 'France' });
      await ok('set_checkbox', { target: { label: 'Subscribe to newsletter' }, value: true });
      await ok('tap', { target: { label: 'Pro' } });
      await ok('hover', { target: { label: 'Name' } });
      await ok('dblclick', { target: { label: 'Name' } });
      await ok('right_click', { target: { label: 'Name' } });
      await ok('triple_click', { target: { label: 'Name' } });
      await ok('drag', { target: { label: 'Name' }, dx: 5, dy: 0 });
      await ok('scroll', { direction: 'down', pixels: 100 });
      await ok('wait_for', { text: 'Name' });
      await ok('wait_for_network_idle', { idleMs: 100 });
      await ok('expect', { target: { label: 'Name' }, visible: true });
      await ok('dismiss_modals');
      await ok('reset_overlays');
      await ok('resize_viewport', { width: 800, height: 600 });
      await ok('device_profile', { reset: true });
      await ok('network', { profile: 'fast-4g' });
      await ok('network', { profile: 'none' });
      await ok('perf_load');
      await ok('perf_begin', { mode: 'timing' });
      await ok('mark', { name: 'middle' });
      const end = await ok('perf_end');
      await ok('perf_trace', { out: 'trace.json' });
      // perf_end's summary lists each insight in one line starting with its id.
      const line = (end.json.data.insights ?? [])[0] as string | undefined;
      const insight = line ? { id: line.slice(0, line.indexOf(':')) } : undefined;
      const detail = await s.call('perf_insight', { id: insight?.id ?? 'no-such-insight' });
      called.add('perf_insight');
      // With no insight to show, a typed error naming the ids is the answer, not a protocol failure.
      if (insight) assert.equal(detail.isError, false, detail.text);
      else assert.equal(detail.json.kind, 'usage', detail.text);
      await ok('navigate', { url: '/list.html' });
      await ok('navigate_back');
      await ok('reload');
      await ok('run', { steps: [{ snap: {} }] });
      const run = await ok('perf_run', { scenario: 'tiny.yaml', repeat: 1, warmup: 0 });
      const file = run.json.data?.run?.path ?? run.json.run?.path;
      assert.equal(typeof file, 'string', run.text.slice(0, 400));
      const budget = (run.json.data?.run ?? run.json.run)?.budgets?.[0] as { expr: string; value: number; median: string; pass: boolean };
      assert.equal(budget.expr, 'durationMs < 60s');
      assert.equal(budget.pass, true);
      assert.match(budget.median, /^\d+\.\d{3} s$/, 'the median in seconds, as the limit was written');
      await ok('perf_compare', { a: file, b: file });
      const leaks = await ok('perf_leaks', { scenario: 'tiny.yaml', iterations: 2 });
      assert.ok(Buffer.byteLength(leaks.text) <= 6 * 1024, `perf_leaks replied ${Buffer.byteLength(leaks.text)} bytes`);
      // Nothing was recorded here: perf_history says so (test/history-trends.test.ts reads a real history).
      const hist = await s.call('perf_history', {});
      called.add('perf_history');
      assert.equal(hist.isError, true);
      assert.match(hist.text, /no history at/);
      await ok('app_logs');
      await ok('app_restart');
      await ok('doctor');
      await ok('storage_save', { path: 'state.json' });
      await ok('storage_load', { path: 'state.json' });
      assert.equal((await ok('pages', { action: 'list' })).json.data.count, 1);
      // perf_bisect needs a git repository: outside one, a usage error saying so, not a protocol failure.
      const bisect = await s.call('perf_bisect', { good: 'HEAD~1', bad: 'HEAD', scenario: 'tiny.yaml' });
      called.add('perf_bisect');
      assert.equal(bisect.isError, true, bisect.text);
      assert.match(bisect.text, /git/);
      // parallel needs the server's Grid (perf mcp --grid): without one, said before anything runs.
      const speculative = await s.call('perf_bisect', { good: 'HEAD~1', bad: 'HEAD', scenario: 'tiny.yaml', parallel: 2 });
      assert.equal(speculative.isError, true, speculative.text);
      assert.match(speculative.text, /parallel 2 needs a Selenium Grid/);
      assert.match(speculative.text, /perf mcp --grid/);
      // signal acts on a terminal program: on a web page it answers why, by name.
      const sig = await s.call('signal', { name: 'INT' });
      called.add('signal');
      assert.equal(sig.isError, true);
      assert.match(sig.text, /signal acts on a terminal program; this app is a web page/);
      await ok('app_stop');
      const missing = allTools()
        .map((t) => t.name)
        .filter((n) => !called.has(n));
      assert.deepEqual(missing, []);
    } finally {
      await s.close();
    }
  });
});

describe('perf_load', () => {
  test('measures a load of the current page: load metrics, the LCP element and the 5 largest requests, in at most 6 KB', async () => {
    const s = await startServer();
    try {
      assert.equal((await s.call('app_start', { serve: 'app', path: '/list.html' })).isError, false);
      const r = await s.call('perf_load');
      assert.equal(r.isError, false, r.text.slice(0, 400));
      assert.ok(Buffer.byteLength(r.text) <= 6 * 1024, `${Buffer.byteLength(r.text)} bytes`);
      const d = r.json.data;
      assert.match(d.url, /^http:\/\/127\.0\.0\.1:\d+\/list\.html$/, 'the current page, by default');
      assert.equal(d.cache, 'warm');
      assert.equal(typeof d.metrics['load.fcpMs'], 'number');
      assert.equal(typeof d.metrics['load.transferBytes'], 'number');
      assert.ok(
        Object.keys(d.metrics).every((m) => m.startsWith('load.')),
        'the load metrics only',
      );
      assert.match(d.lcpElement, /\S/);
      assert.ok(d.top.length >= 1 && d.top.length <= 5, `${d.top.length} requests`);
      const sizes = d.top.map((q: { transferBytes: number }) => q.transferBytes);
      assert.deepEqual(
        sizes,
        [...sizes].sort((x, y) => y - x),
        'largest first',
      );
      assert.ok(
        d.top.some((q: { url: string }) => q.url.endsWith('/list.js')),
        JSON.stringify(d.top),
      );
      // A cold load of another page: the cache cleared, so every request went over the wire again.
      const cold = await s.call('perf_load', { url: '/dialog.html', cache: 'cold' });
      assert.equal(cold.isError, false, cold.text.slice(0, 400));
      assert.match(cold.json.data.url, /\/dialog\.html$/);
      assert.ok(cold.json.data.metrics['load.transferBytes'] > 0);
      // A window of the agent's own is never thrown away: refused, and still there for perf_end.
      assert.equal((await s.call('perf_begin', { mode: 'timing' })).isError, false);
      const open = await s.call('perf_load');
      assert.equal(open.isError, true);
      assert.equal(open.json.code, 'session_already_open');
      assert.match(open.json.suggestion, /perf_end/);
      assert.equal((await s.call('perf_end')).isError, false);
    } finally {
      await s.close();
    }
  });

  test('on a terminal program: refused with an isError result that says why', async () => {
    const s = await startServer();
    try {
      assert.equal((await s.call('app_start', { terminal: { command: 'cat' } })).isError, false);
      const r = await s.call('perf_load');
      assert.equal(r.isError, true);
      assert.equal(r.json.code, 'unsupported_on_driver');
      assert.match(r.json.message, /perf_load acts on a web page; this app is a terminal program/);
      await s.call('app_stop');
    } finally {
      await s.close();
    }
  });
});

describe('config and lifetime', () => {
  test('tools.deny from --config hides tools; calling one is refused with how to allow it', async () => {
    const cwd = tmpDir();
    fs.writeFileSync(path.join(cwd, 'policy.json'), JSON.stringify({ tools: { caps: ['all'], deny: ['app_*', 'doctor'] } }));
    const s = await startServer({ cwd, args: ['--config', 'policy.json'] });
    try {
      const names = (await s.client.listTools()).tools.map((t) => t.name);
      assert.equal(
        names.some((n) => n.startsWith('app_')),
        false,
      );
      assert.equal(names.includes('doctor'), false);
      assert.ok(names.includes('run'));
      // deny given without evaluate: evaluate is allowed.
      if (has('evaluate')) assert.ok(names.includes('evaluate'));
      const r = await s.call('app_status');
      assert.equal(r.isError, true);
      assert.equal(r.json.code, 'tool_denied');
      assert.match(r.json.message, /policy\.json/);
    } finally {
      await s.close();
    }
  });

  test('.perf/mcp.json in the working folder is read without --config', async () => {
    const cwd = tmpDir();
    fs.mkdirSync(path.join(cwd, '.perf'));
    fs.writeFileSync(
      path.join(cwd, '.perf', 'mcp.json'),
      JSON.stringify({ tools: { caps: ['core', 'lifecycle-extra'], allow: ['app_*'] } }),
    );
    const s = await startServer({ cwd });
    try {
      const names = (await s.client.listTools()).tools.map((t) => t.name).sort();
      assert.deepEqual(names, ['app_logs', 'app_restart', 'app_start', 'app_status', 'app_stop']);
    } finally {
      await s.close();
    }
  });

  test('a bad config file: exit 2 and a clear message on stderr', () => {
    const cwd = tmpDir();
    fs.writeFileSync(path.join(cwd, 'bad.json'), '{ "tools": { "deny": "evaluate" } }');
    const r = spawnSync(process.execPath, [PERF, 'mcp', '--config', 'bad.json'], { timeout: 120_000, cwd, encoding: 'utf8', input: '' });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /bad\.json: config\.tools\.deny: must be array/);
    assert.equal(r.stdout, '');
  });

  test('on exit (stdin closed) the server stops the app it started', async () => {
    const s = await startServer();
    const r = await s.call('app_start', { serve: 'app' });
    assert.equal(r.isError, false, r.text);
    const chrome = r.json.data.chrome.pid as number;
    await s.close();
    assert.equal(await waitGone(chrome), true);
    assert.equal(fs.existsSync(path.join(s.cwd, '.perf', 'state.json')), false);
  });

  test('a session started by `perf start` is used but left running on exit', async () => {
    const cwd = tmpDir();
    const start = spawnSync(process.execPath, [PERF, 'start', '--serve', 'app', '--path', '/form.html'], {
      timeout: 120_000,
      cwd,
      encoding: 'utf8',
    });
    assert.equal(start.status, 0, start.stderr);
    const state = JSON.parse(fs.readFileSync(path.join(cwd, '.perf', 'state.json'), 'utf8')) as { chrome: { pid: number } };
    try {
      const s = await startServer({ cwd });
      const st = await s.call('app_status');
      assert.equal(st.json.data.running, true);
      assert.equal(st.json.data.ownedByThisServer, false);
      if (has('snap')) assert.match(snapText(await s.call('snap', { grep: 'Profile' })), /Profile/);
      await s.close();
      await sleep(300);
      assert.equal(isAlive(state.chrome.pid), true);
    } finally {
      spawnSync(process.execPath, [PERF, 'stop'], { timeout: 120_000, cwd, encoding: 'utf8' });
    }
    assert.equal(await waitGone(state.chrome.pid), true);
  });

  test('--http: Streamable HTTP on 127.0.0.1 with the token; a foreign Origin is refused', { timeout: 120_000 }, async () => {
    const cwd = tmpDir();
    const child = spawn(process.execPath, [PERF, 'mcp', '--http', '0'], { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let err = '';
        child.stderr.on('data', (d: Buffer) => {
          err += d.toString();
          const m = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err);
          if (m) resolve(m[1]!);
        });
        child.once('exit', (code) => reject(new Error(`exited ${code}: ${err}`)));
      });
      const token = fs.readFileSync(path.join(cwd, '.perf', 'mcp-token'), 'utf8');
      const client = new Client({ name: 'rehearse-test', version: '0.0.0' });
      const authorization = `Bearer ${token}`;
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization } } }));
      const names = (await client.listTools()).tools.map((t) => t.name);
      assert.ok(names.includes('app_start'));
      const st = (await client.callTool({ name: 'app_status', arguments: {} })) as { content: { text: string }[] };
      assert.equal(JSON.parse(st.content[0]!.text).data.running, false);
      await client.close();
      const evil = await fetch(url, {
        method: 'POST',
        headers: { origin: 'http://evil.example', authorization, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
        }),
      });
      assert.equal(evil.status, 403);
    } finally {
      child.kill('SIGTERM');
    }
  });
});

test('--http sessions are capped (least recently used closed first) and expire when idle', async () => {
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'rehearse-mcp-cap-'));
  const tools = allTools();
  const core = new McpCore({
    manager: sessionManager,
    config: loadConfig({ cwd, knownTools: tools.map((t) => t.name) }).config,
    tools,
    cwd,
  });
  const token = 'test-token';
  const http = await startMcpHttp(core, 0, { auth: { token, where: 'the test' }, maxSessions: 4, idleMs: 400 });
  const initialize = async (): Promise<string> => {
    const r = await fetch(http.url, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'loop', version: '1' } },
      }),
    });
    await r.text();
    assert.equal(r.status, 200);
    return r.headers.get('mcp-session-id')!;
  };
  const ping = async (id: string): Promise<number> => {
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const session = { 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' };
    const body = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' });
    const r = await fetch(http.url, { method: 'POST', headers: { ...headers, ...session }, body });
    await r.text();
    return r.status;
  };
  try {
    const first = await initialize();
    for (let i = 0; i < 200; i++) await initialize();
    assert.equal(http.sessionCount(), 4, 'a loop of initializes keeps at most maxSessions alive');
    assert.equal(await ping(first), 404, 'the least recently used session was closed');
    const recent = await initialize();
    assert.equal(await ping(recent), 200);
    await sleep(1200);
    assert.equal(http.sessionCount(), 0, 'idle sessions expire');
    assert.equal(await ping(recent), 404);
  } finally {
    await http.close();
    fs.rmSync(cwd, { recursive: true, force: true });
  }
});

describe('units', () => {
  test('glob patterns: * and ? over the whole name', () => {
    assert.equal(globToRegExp('app_*').test('app_start'), true);
    assert.equal(globToRegExp('app_*').test('xapp_start'), false);
    assert.equal(globToRegExp('ta?').test('tap'), true);
    assert.equal(globToRegExp('perf.x').test('perfax'), false);
  });

  test('policy: evaluate denied by default; a --config file may turn it on, a project file only with --allow', () => {
    const cli = { fromCommandLine: true };
    const project = { fromCommandLine: false };
    assert.equal(isToolAllowed('evaluate', policyFrom(undefined, cli)), false);
    assert.equal(isToolAllowed('tap', policyFrom(undefined, cli)), true);
    // evaluate is in the devtools cap, off by default: allowing it needs that cap too.
    assert.equal(isToolAllowed('evaluate', policyFrom({ allow: ['*', 'evaluate'] }, cli)), false);
    assert.equal(isToolAllowed('evaluate', policyFrom({ caps: ['devtools'], allow: ['*', 'evaluate'] }, cli)), true);
    assert.equal(isToolAllowed('evaluate', policyFrom({ caps: ['devtools'], deny: [] }, cli)), true);
    assert.equal(isToolAllowed('evaluate', policyFrom({ caps: ['devtools'], allow: ['*', 'evaluate'] }, project)), false);
    assert.equal(isToolAllowed('evaluate', policyFrom({ caps: ['devtools'], deny: [] }, project)), false);
    assert.equal(isToolAllowed('evaluate', policyFrom({ caps: ['devtools'] }, { ...project, lifted: ['eval*'] })), true);
    const fileDenies = policyFrom({ caps: ['devtools'], deny: ['evaluate'] }, { ...project, lifted: ['evaluate'] });
    assert.equal(isToolAllowed('evaluate', fileDenies), false, 'the file narrows');
    assert.equal(isToolAllowed('tap', policyFrom({ allow: ['snap'] }, cli)), false);
    assert.equal(isToolAllowed('hover', policyFrom(undefined, cli)), false, 'pointer-extra is off by default');
  });

  test('origin and host checks: local only', () => {
    assert.equal(isAllowedOrigin(undefined), true);
    assert.equal(isAllowedOrigin('http://127.0.0.1:3000'), true);
    assert.equal(isAllowedOrigin('http://localhost'), true);
    assert.equal(isAllowedOrigin('http://evil.example'), false);
    assert.equal(isAllowedOrigin('http://127.0.0.1.evil.example'), false);
    assert.equal(isAllowedOrigin('https://localhost:1'), false);
    assert.equal(isAllowedHost('127.0.0.1:4000'), true);
    assert.equal(isAllowedHost('attacker.example:4000'), false);
  });

  test('responses are capped at 1 MiB: a long string is cut with a note and the JSON stays valid', () => {
    const big = 'line\n'.repeat(400_000);
    const out = renderReply({ kind: 'ok', json: { step: 'snap', data: { snapshot: big, nodes: 3 } }, images: [] });
    assert.ok(Buffer.byteLength(out.text) <= 1024 * 1024);
    assert.equal(out.truncated, true);
    const parsed = JSON.parse(out.text) as { data: { snapshot: string; nodes: number } };
    assert.equal(parsed.data.nodes, 3);
    assert.match(parsed.data.snapshot, /truncated: \d+ characters left out .* narrow the request/);
  });

  test('an image over the cap is left out with a note', () => {
    const out = renderReply({ kind: 'ok', json: { step: 'screenshot' }, images: [{ mimeType: 'image/png', base64: 'A'.repeat(600_000) }] });
    assert.equal(out.images.length, 0);
    assert.match(JSON.parse(out.text).imageOmitted, /use format jpeg/);
  });
});
