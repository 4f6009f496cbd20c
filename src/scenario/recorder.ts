/**
 * Chrome DevTools Recorder JSON → a scenario. Pure: a parsed recording in, the scenario object, what
 * has no equivalent (each with its JSON path and a suggestion) and notes out; the CLI (perf import)
 * and the loader (perf run recording.json) do the reading and writing. The recording is validated
 * with @puppeteer/replay's own parser, so what the Recorder accepts is what is accepted here.
 */
import { parse as parseRecording, type Schema } from '@puppeteer/replay';
import { Document, isMap, isSeq } from 'yaml';
import { PerfError } from '../errors.js';
import { NETWORK_PROFILES, NETWORK_PROFILE_NAMES, type NetworkProfileName } from '../steps/network.js';

export interface UnsupportedItem {
  /** Where in the recording, as a JSON path: `steps[4]`, `steps[2].selectors`. */
  path: string;
  what: string;
  suggestion: string;
}

export interface Conversion {
  /** The scenario, as its YAML would hold it. */
  scenario: Record<string, unknown>;
  unsupported: UnsupportedItem[];
  /** What was left out on purpose (a close step), for stderr. */
  notes: string[];
}

export interface ConvertOptions {
  /** Serve this folder (as written in the scenario) instead of the recording's origin: `app.serve`. */
  serve?: string;
  /** Run against this origin instead of the recording's: `app.url`. */
  url?: string;
}

type Target = Record<string, string>;
type Step = Record<string, Record<string, unknown>>;

// Chrome DevTools' throttling menu writes throughput in bytes/s; the network step's unit is kbit/s (1000 bits).
const KBPS_PER_BYTE_PER_S = 8 / 1000;
// A preset is recognised when each number is within 1% of it: the Recorder stores DevTools' own
// (fractional) numbers, a hand-edited recording rounds them.
const PRESET_TOLERANCE = 0.01;
// Keys held around another key: a keyDown of one of these starts a combo rather than a press.
const MODIFIER_KEYS = new Set(['Shift', 'Control', 'Alt', 'Meta']);
const XPATH_SUGGESTION =
  'turn on the CSS or ARIA selector types in the Recorder settings and record again, ' +
  'or write the step by hand with a target (role and name, label, text, testId, css)';

/**
 * A Recorder selector in our target grammar, or undefined when it has none (xpath, a path through
 * frames or shadow roots). `formControl`: an unnamed-role ARIA name is a label (fill, select).
 */
export function selectorTarget(selector: string | string[], formControl = false): Target | undefined {
  if (Array.isArray(selector)) {
    // A path through shadow roots or frames: one element is an ordinary selector, more are not ours.
    return selector.length === 1 ? selectorTarget(selector[0]!, formControl) : undefined;
  }
  if (selector.startsWith('aria/')) {
    const m = /^aria\/(.*?)(?:\[role="([^"]+)"\])?$/.exec(selector);
    if (!m) return undefined;
    const name = m[1]!.trim();
    const role = m[2];
    if (role) return name ? { role, name } : { role };
    if (!name) return undefined;
    return formControl ? { label: name } : { text: name };
  }
  if (selector.startsWith('text/')) {
    const text = selector.slice('text/'.length).trim();
    return text ? { text } : undefined;
  }
  if (selector.startsWith('xpath/')) return undefined;
  // Our css pierces open shadow roots, as pierce/ does.
  const css = selector.startsWith('pierce/') ? selector.slice('pierce/'.length) : selector;
  return css.trim() ? { css: css.trim() } : undefined;
}

/** The first alternative our grammar expresses, or undefined. */
function firstTarget(selectors: (string | string[])[], formControl = false): Target | undefined {
  for (const s of selectors) {
    const t = selectorTarget(s, formControl);
    if (t) return t;
  }
  return undefined;
}

/** A `change` on a <select> is a select_option: told by a CSS alternative naming the tag, or the combobox/listbox role. */
function isSelect(selectors: (string | string[])[]): boolean {
  return selectors
    .flat()
    .some(
      (s) =>
        /^aria\/.*\[role="(combobox|listbox)"\]$/.test(s) ||
        (!/^(aria|text|xpath)\//.test(s) && /(^|[\s>+~(,]|pierce\/)select(?=$|[#.[:\s>+~,)])/i.test(s)),
    );
}

/** A network step's arguments for DevTools' numbers (bytes/s, ms): a preset when they match one. */
export function networkArgs(c: { download: number; upload: number; latency: number }): Record<string, unknown> {
  // DevTools' "No throttling" is -1/-1/0; its "Offline" is 0/0/0.
  if (c.download < 0 && c.upload < 0 && c.latency <= 0) return { profile: 'none' };
  if (c.download === 0 && c.upload === 0 && c.latency === 0) return { profile: 'offline' };
  const latencyMs = c.latency;
  const downloadKbps = c.download * KBPS_PER_BYTE_PER_S;
  const uploadKbps = c.upload * KBPS_PER_BYTE_PER_S;
  const near = (a: number, b: number): boolean => Math.abs(a - b) <= PRESET_TOLERANCE * Math.max(Math.abs(b), 1);
  const preset = NETWORK_PROFILE_NAMES.find((n: NetworkProfileName) => {
    const p = NETWORK_PROFILES[n];
    return !p.offline && near(latencyMs, p.latencyMs) && near(downloadKbps, p.downloadKbps) && near(uploadKbps, p.uploadKbps);
  });
  if (preset) return { profile: preset };
  return { latencyMs, downloadKbps: Math.round(downloadKbps * 1000) / 1000, uploadKbps: Math.round(uploadKbps * 1000) / 1000 };
}

/**
 * A recording's text as the scenario holds it: every `${` written `$${`, which the loader reads back
 * as a literal `${`. A recording is data: a `${env.NAME}` in it must be typed as written, never read
 * from the environment of whoever runs it.
 */
function literal<T>(value: T): T {
  // A function, not the string '$${': in a replacement string `$$` stands for one `$`.
  if (typeof value === 'string') return value.replaceAll('${', () => '$${') as T;
  if (Array.isArray(value)) return value.map(literal) as T;
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, literal(v)])) as T;
  return value;
}

/** The scenario name from the recording's title: the characters a run file name may hold. */
function slug(title: string): string {
  const s = title
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9_.-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return s || 'recording';
}

/** What a conversion gathers as it walks the recording's steps in order. */
interface Walk {
  readonly opts: ConvertOptions;
  readonly scenario: Record<string, unknown>;
  readonly steps: Step[];
  readonly unsupported: UnsupportedItem[];
  readonly notes: string[];
  /** The origin of the first navigation: a later one to it becomes a path. */
  origin: string | undefined;
  /** Whether the first navigation was seen: before it, viewport and network belong to the scenario. */
  opened: boolean;
  /** Scroll steps hold absolute positions (scrollTo); ours are deltas from where the last one left. */
  readonly scrolled: Map<string, { x: number; y: number }>;
  /** Modifiers held down, in the order pressed; those used by a key press; keys pressed and not yet released. */
  readonly held: string[];
  readonly heldUsed: Set<string>;
  readonly pressed: Set<string>;
}

function refuse(c: Walk, path: string, what: string, suggestion: string): void {
  c.unsupported.push({ path, what, suggestion });
}

function targetOf(c: Walk, step: Schema.StepWithSelectors, at: string, formControl = false): Target | undefined {
  const t = firstTarget(step.selectors, formControl);
  if (!t)
    refuse(
      c,
      `${at}.selectors`,
      `${step.type} with only selectors our targets cannot express (${step.selectors.flat().slice(0, 3).join(', ')})`,
      XPATH_SUGGESTION,
    );
  return t;
}

function parseFlow(json: unknown, shown: string): Schema.UserFlow {
  try {
    return parseRecording(json);
  } catch (e) {
    throw new PerfError({
      code: 'recording_invalid',
      message: `${shown}: not a Chrome DevTools Recorder recording: ${e instanceof Error ? e.message : String(e)}`,
      suggestion: 'export it from the Recorder panel with "Export as a JSON file"',
    });
  }
}

/** Validate (with @puppeteer/replay's parser) and convert a recording. PerfError `recording_invalid` (usage) when it is not one. */
export function convertRecording(json: unknown, shown: string, opts: ConvertOptions = {}): Conversion {
  const flow = parseFlow(json, shown);
  const description = literal(`Imported from the Chrome DevTools Recorder recording "${flow.title}".`);
  const c: Walk = {
    opts,
    scenario: { name: slug(flow.title), description },
    steps: [],
    unsupported: [],
    notes: [],
    origin: undefined,
    opened: false,
    scrolled: new Map(),
    held: [],
    heldUsed: new Set(),
    pressed: new Set(),
  };
  flow.steps.forEach((step, i) => convertStep(c, step, `steps[${i}]`));
  if (!c.opened)
    refuse(
      c,
      'steps',
      'no navigate step: the recording never opens a page',
      'record from a page load (the Recorder adds the navigate step when recording starts)',
    );
  if (c.held.length) c.notes.push(`modifier ${c.held.join('+')} still held at the end of the recording: left out`);
  if (c.steps.length === 0 && c.opened)
    refuse(c, 'steps', 'nothing to measure after the first navigation', 'record at least one interaction after the page opens');
  // The order the examples are written in: what the app is, how the page is emulated, then the steps.
  const { name, app, viewport, network } = c.scenario;
  const ordered = { name, description, app, ...(viewport ? { viewport } : {}), ...(network ? { network } : {}), steps: literal(c.steps) };
  return { scenario: ordered, unsupported: c.unsupported, notes: c.notes };
}

/** One recorded step: refused when it is in another tab or a frame, else converted by its type. */
function convertStep(c: Walk, step: Schema.Step, at: string): void {
  if ('target' in step && step.target !== undefined && step.target !== 'main') {
    refuse(
      c,
      at,
      `${step.type} in another tab or window (target "${step.target}")`,
      'record the flow in one tab; a scenario drives one page',
    );
    return;
  }
  if ('frame' in step && step.frame && step.frame.length > 0) {
    refuse(
      c,
      at,
      `${step.type} inside an iframe (frame ${JSON.stringify(step.frame)})`,
      'targets resolve in the top document: write the step by hand, or drive the framed page on its own',
    );
    return;
  }
  switch (step.type) {
    case 'navigate':
    case 'setViewport':
    case 'emulateNetworkConditions':
      return pageStep(c, step);
    case 'click':
    case 'doubleClick':
    case 'hover': {
      const target = targetOf(c, step, at);
      if (!target) return;
      const name =
        step.type === 'hover' ? 'hover' : step.type === 'doubleClick' ? 'dblclick' : step.button === 'secondary' ? 'right_click' : 'tap';
      c.steps.push({ [name]: { target } });
      return;
    }
    case 'change': {
      const select = isSelect(step.selectors);
      const target = targetOf(c, step, at, true);
      if (!target) return;
      c.steps.push(select ? { select_option: { target, option: step.value } } : { fill: { target, text: step.value } });
      return;
    }
    case 'keyDown':
    case 'keyUp':
      return keyStep(c, step);
    case 'scroll':
      return scrollStep(c, step, at);
    case 'waitForElement':
      return waitForElementStep(c, step, at);
    default:
      return unconvertible(c, step, at);
  }
}

/** navigate, setViewport, network conditions: before the first navigation they set up the scenario itself. */
function pageStep(c: Walk, step: Schema.NavigateStep | Schema.SetViewportStep | Schema.EmulateNetworkConditionsStep): void {
  switch (step.type) {
    case 'navigate': {
      const url = new URL(step.url);
      if (!c.opened) {
        c.opened = true;
        c.origin = url.origin;
        const path = literal(`${url.pathname}${url.search}${url.hash}`);
        // --serve (a folder) and --url are literal text too: the shell has already expanded what it would.
        c.scenario.app =
          c.opts.serve !== undefined ? { serve: literal(c.opts.serve), path } : { url: literal(c.opts.url ?? url.origin), path };
      } else {
        c.steps.push({ navigate: { url: url.origin === c.origin ? `${url.pathname}${url.search}${url.hash}` : step.url } });
      }
      return;
    }
    case 'setViewport': {
      const viewport = { width: step.width, height: step.height, dpr: step.deviceScaleFactor, mobile: step.isMobile, touch: step.hasTouch };
      if (!c.opened) c.scenario.viewport = viewport;
      else c.steps.push({ resize_viewport: viewport });
      return;
    }
    case 'emulateNetworkConditions': {
      const args = networkArgs(step);
      if (!c.opened) {
        if (args.profile !== 'none') c.scenario.network = args;
      } else c.steps.push({ network: args });
      return;
    }
  }
}

/** keyDown / keyUp pairs become press_key; modifiers held around a key become its modifiers. */
function keyStep(c: Walk, step: Schema.KeyDownStep | Schema.KeyUpStep): void {
  if (step.type === 'keyDown') {
    if (MODIFIER_KEYS.has(step.key)) {
      if (!c.held.includes(step.key)) c.held.push(step.key);
      return;
    }
    for (const m of c.held) c.heldUsed.add(m);
    c.pressed.add(step.key);
    c.steps.push({ press_key: c.held.length ? { key: step.key, modifiers: [...c.held] } : { key: step.key } });
    return;
  }
  const h = c.held.indexOf(step.key);
  if (h >= 0) {
    c.held.splice(h, 1);
    // A modifier pressed and released alone is a press of its own.
    if (!c.heldUsed.delete(step.key)) c.steps.push({ press_key: { key: step.key } });
    return;
  }
  // The keyUp of a pressed key completes its press_key; one without a keyDown (the press began before the recording) says nothing.
  c.pressed.delete(step.key);
}

function scrollStep(c: Walk, step: Schema.ScrollStep, at: string): void {
  const hasSelectors = 'selectors' in step && Array.isArray(step.selectors) && step.selectors.length > 0;
  const target = hasSelectors ? targetOf(c, step as Schema.ScrollElementStep, at) : undefined;
  if (hasSelectors && !target) return;
  const key = target ? JSON.stringify(target) : 'page';
  const from = c.scrolled.get(key) ?? { x: 0, y: 0 };
  const to = { x: step.x ?? from.x, y: step.y ?? from.y };
  c.scrolled.set(key, to);
  const delta = { ...(to.x !== from.x ? { dx: to.x - from.x } : {}), ...(to.y !== from.y ? { dy: to.y - from.y } : {}) };
  if (Object.keys(delta).length === 0) return;
  c.steps.push({ scroll: { ...(target ? { target } : {}), ...delta } });
}

function waitForElementStep(c: Walk, step: Schema.WaitForElementStep, at: string): void {
  if (step.properties || step.attributes) {
    refuse(c, at, 'waitForElement with properties or attributes', 'write an expect step by hand (text, textContains, value, checked)');
    return;
  }
  if (step.count !== undefined && (step.operator ?? '==') !== '==') {
    refuse(c, at, `waitForElement with count ${step.operator} ${step.count}`, 'write an expect step by hand with count (an exact number)');
    return;
  }
  const target = targetOf(c, step, at);
  if (!target) return;
  if (step.count !== undefined) c.steps.push({ expect: { target, count: step.count } });
  else if (step.visible === false) c.steps.push({ expect: { target, hidden: true } });
  else if (Object.keys(target).length === 1 && target.text !== undefined) c.steps.push({ wait_for: { text: target.text } });
  else c.steps.push({ expect: { target, visible: true } });
}

/** The step types with no equivalent (or none needed: close), each with what to do instead. */
function unconvertible(c: Walk, step: Schema.Step, at: string): void {
  switch (step.type) {
    case 'waitForExpression':
      refuse(
        c,
        at,
        'waitForExpression (a JavaScript condition)',
        "replace it with wait_for (text) or expect (a target's text, value, " +
          'visibility); evaluate runs an expression once but does not wait',
      );
      return;
    case 'customStep':
      refuse(c, at, `customStep "${step.name}"`, "write the equivalent steps by hand (perf <step> --help lists each step's arguments)");
      return;
    case 'close':
      c.notes.push(`${at}: close left out: every repeat ends its page itself`);
      return;
    default:
      refuse(c, at, `step type ${step.type}`, 'write the equivalent step by hand');
  }
}

/** The refusal of a recording with unsupported steps: each with its JSON path and suggestion (exit 2). */
export function unsupportedError(shown: string, items: UnsupportedItem[], hint: string): PerfError {
  return new PerfError({
    code: 'recording_unsupported',
    message:
      `${shown}: ${items.length} recorded step${items.length === 1 ? ' has' : 's have'} no equivalent:\n` +
      `${items.map((u) => `  ${u.path}: ${u.what}; ${u.suggestion}`).join('\n')}`,
    suggestion: hint,
  });
}

/** The scenario as YAML, headed by a comment naming the recording it came from. */
export function scenarioYaml(scenario: Record<string, unknown>, source: string, schemaRef?: string): string {
  const doc = new Document(scenario);
  // One line per step (`- tap: { target: { role: button, name: Submit } }`), as the examples are written.
  const list = doc.get('steps', true);
  if (isSeq(list))
    for (const item of list.items) if (isMap(item)) for (const pair of item.items) if (isMap(pair.value)) pair.value.flow = true;
  for (const key of ['app', 'viewport', 'network']) {
    const node = doc.get(key, true);
    if (isMap(node)) node.flow = true;
  }
  doc.commentBefore = [
    ...(schemaRef ? [` yaml-language-server: $schema=${schemaRef}`] : []),
    ` Imported by perf import from the Chrome DevTools Recorder recording ${source}.`,
    ' Edit freely: it is an ordinary scenario now.',
  ].join('\n');
  return doc.toString({ lineWidth: 0, flowCollectionPadding: true });
}

/**
 * A recording's text as scenario YAML, for `perf run recording.json`: unsupported steps refuse it
 * (perf import --skip-unsupported writes a scenario without them).
 */
export function recordingAsYaml(text: string, shown: string): string {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new PerfError({
      code: 'recording_invalid',
      message: `${shown}: not JSON: ${e instanceof Error ? e.message : String(e)}`,
      suggestion: 'a .json scenario is a Chrome DevTools Recorder recording (Export as a JSON file); scenarios of our own are YAML',
    });
  }
  const { scenario, unsupported } = convertRecording(json, shown);
  if (unsupported.length)
    throw unsupportedError(
      shown,
      unsupported,
      `perf import ${shown} --skip-unsupported --out scenario.yaml writes a scenario without them, to edit and run`,
    );
  return scenarioYaml(scenario, shown);
}
