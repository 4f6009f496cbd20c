/**
 * perf_insight, perf_trace and mark round trips; interactions attributed to steps; a navigation inside
 * the measured steps.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { SessionHost } from '../src/engine/host.js';
import { fresh, sharedBrowser } from './helpers.js';
import { failed, ok, wheelList } from './perf-helpers.js';

const { demo, fixtures } = await sharedBrowser();
const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'rehearse-perf-')));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A janky scroll measured in attribution mode on a host whose working folder is `tmp`. */
async function jankSession(): Promise<{ host: SessionHost; report: Record<string, any> }> {
  const { host, session } = await fresh(`${demo.url}/list.html?jank=1`);
  host.cwd = tmp;
  await ok(host, 'perf_begin', {});
  await ok(host, 'mark', { name: 'scroll-start' });
  await wheelList(session.page);
  return { host, report: await ok(host, 'perf_end', { full: true }) };
}

const shared = jankSession();

test('perf_insight returns the rows behind an insight: the worst frames and the functions that ran in them', async () => {
  const { host, report } = await shared;
  const row = report.insights.find((i: { id: string }) => i.id === 'framesOverBudget');
  assert.ok(row, `insights: ${JSON.stringify(report.insights.map((i: { id: string }) => i.id))}`);
  const d = await ok(host, 'perf_insight', { id: 'framesOverBudget', token: report.sessionToken });
  assert.equal(d.token, report.sessionToken);
  assert.equal(d.title, row.title);
  assert.ok(d.rows.length >= 3 && d.rows.length <= 10);
  // Sorted worst first; each frame lists what ran in it.
  assert.ok(d.rows[0].ms >= d.rows[d.rows.length - 1].ms);
  const names = new Set(d.rows.flatMap((r: { blocks: { name: string }[] }) => r.blocks.map((b) => b.name)));
  assert.ok(names.has('forceLayoutThrash') || names.has('burnCpu'), `blocks: ${[...names].join(', ')}`);
});

test('perf_insight for blockSelfMs lists the function and the frames where it weighed most', async () => {
  const { host } = await shared;
  const d = await ok(host, 'perf_insight', 'blockSelfMs');
  const fn = d.rows[0].function;
  assert.ok(['forceLayoutThrash', 'burnCpu'].includes(fn));
  const frames = d.rows.filter((r: Record<string, unknown>) => 'frameAtMs' in r);
  assert.ok(frames.length >= 1 && frames.length <= 5, `${frames.length} frame rows`);
  // Each frame row is the first row's function: not said again in each.
  assert.ok(frames.every((r: { function?: string; selfMs: number }) => r.function === undefined && r.selfMs > 0));
});

test('perf_insight errors name what to read instead: unknown id, an insight that did not fire, a stale token', async () => {
  const { host, report } = await shared;
  const unknown = await failed(host, 'perf_insight', { id: 'framesOverBudgt' });
  assert.equal(unknown.code, 'unknown_insight');
  assert.match(unknown.message, /did you mean "framesOverBudget"/);
  const notFired = await failed(host, 'perf_insight', { id: 'longInteraction' });
  assert.equal(notFired.code, 'insight_not_fired');
  assert.ok(notFired.candidates?.includes('framesOverBudget'));
  const stale = await failed(host, 'perf_insight', { id: 'framesOverBudget', token: 'ps-00000000' });
  assert.equal(stale.code, 'stale_session_token');
  assert.deepEqual(stale.candidates, [report.sessionToken]);
});

test('perf_trace writes Chrome Trace Event JSON that parses and covers the measured window', async () => {
  const { host, report } = await shared;
  const d = await ok(host, 'perf_trace', { out: 'traces/jank.json' });
  assert.equal(d.path, path.join(tmp, 'traces/jank.json'));
  assert.equal(d.dataLoss, false);
  const json = JSON.parse(fs.readFileSync(d.path, 'utf8')) as {
    traceEvents: { name: string; ts: number; ph: string; cat: string }[];
    metadata: Record<string, unknown>;
  };
  assert.equal(json.traceEvents.length, d.events);
  assert.equal(json.metadata.sessionToken, report.sessionToken);
  const begin = json.traceEvents.find((e) => e.name === 'rehearse:perf_begin');
  const end = json.traceEvents.find((e) => e.name === 'rehearse:perf_end');
  assert.ok(begin && end, 'both session marks are in the trace');
  const timed = json.traceEvents.filter((e) => e.ph !== 'M' && e.ts > 0).map((e) => e.ts);
  assert.ok(Math.min(...timed) <= begin.ts);
  assert.ok(Math.max(...timed) >= end.ts);
  // The window is the session: as long as perf_end measured it (µs vs ms, within a frame).
  assert.ok(Math.abs((end.ts - begin.ts) / 1000 - report.metrics.durationMs) < report.metrics.durationMs * 0.25 + 50);
  // Frame pipeline events are in it (what Perfetto's frame tracks read).
  assert.ok(json.traceEvents.some((e) => e.name === 'PipelineReporter'));
  // The user's mark is in the trace too.
  assert.ok(json.traceEvents.some((e) => e.name === 'scroll-start' && e.cat === 'blink.user_timing'));
});

test('perf_trace refuses to overwrite unless asked, and refuses paths outside the working folder', async () => {
  const { host } = await shared;
  await ok(host, 'perf_trace', { out: 'again.json' });
  const exists = await failed(host, 'perf_trace', { out: 'again.json' });
  assert.equal(exists.code, 'file_exists');
  assert.match(exists.suggestion ?? '', /overwrite: true/);
  const replaced = await ok(host, 'perf_trace', { out: 'again.json', overwrite: true });
  assert.ok(replaced.bytes > 1000);
  for (const out of ['../escape.json', '/tmp/escape.json']) {
    const e = await failed(host, 'perf_trace', { out });
    assert.equal(e.code, 'path_outside_workdir');
    assert.equal(e.kind, 'usage');
  }
  assert.equal(fs.existsSync(path.join(path.dirname(tmp), 'escape.json')), false);
});

test('perf_trace never writes through a symlink at its target, even with overwrite', async () => {
  const { host } = await shared;
  const victim = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'rehearse-victim-')), 'victim.txt');
  fs.writeFileSync(victim, 'keep me');
  fs.symlinkSync(victim, path.join(tmp, 'linked-trace.json'));
  const e = await failed(host, 'perf_trace', { out: 'linked-trace.json', overwrite: true });
  assert.equal(e.code, 'path_is_symlink');
  assert.equal(fs.readFileSync(victim, 'utf8'), 'keep me');
});

test('mark appears in the report at its time in the session', async () => {
  const { report } = await shared;
  const marks = report.summary.marks as { name: string; atMs: number }[];
  assert.deepEqual(
    marks.map((m) => m.name),
    ['scroll-start'],
  );
  assert.ok(marks[0]!.atMs >= 0 && marks[0]!.atMs < report.metrics.durationMs);
  // A mark is a marker, not measured work.
  assert.equal(report.metrics['steps.mark.ms'], undefined);
  // The size bound cuts ranked lists before the user's own marks.
  assert.equal(report.omitted.marks, 0);
});

test('the report stays within 6 KB and counts what each ranked list cut', async () => {
  const { report } = await shared;
  assert.ok(Buffer.byteLength(JSON.stringify(report)) <= 6 * 1024);
  assert.ok(report.insights.length <= 6);
  // What a list kept plus what it cut is the whole list.
  assert.equal(report.summary.frames.worst.length + report.omitted.worstFrames, report.metrics['frames.painted']);
  for (const [k, v] of Object.entries(report.omitted)) assert.ok(Number.isInteger(v) && (v as number) >= 0, `${k}=${String(v)}`);
  assert.ok(report.summary.blocksBySelf.length <= 10);
});

test('perf_insight and perf_trace before any closed session: no_closed_session', async () => {
  const { host } = await fresh(`${demo.url}/list.html`);
  const e = await failed(host, 'perf_insight', { id: 'framesOverBudget' });
  assert.equal(e.code, 'no_closed_session');
  await ok(host, 'perf_begin', { mode: 'timing' });
  const open = await failed(host, 'perf_trace', { out: 'x.json' });
  assert.equal(open.code, 'no_closed_session');
  assert.match(open.message, /still open/);
});

test('clicks are interactions attributed to their steps, with their breakdown; a slow one fires longInteraction', async () => {
  const { host } = await fresh(`${fixtures.url}/perf-slow-click.html`);
  await ok(host, 'perf_begin', { mode: 'timing' });
  await ok(host, 'tap', { target: { text: 'Instant' }, label: 'instant click' });
  await ok(host, 'tap', { target: { text: 'Quick' }, label: 'quick click' });
  await ok(host, 'tap', { target: { text: 'Slow' }, label: 'slow click' });
  const r = await ok(host, 'perf_end', { full: true });
  assert.equal(r.refused, false);
  // All three count (performance.interactionCount, also those under Event Timing's 16 ms floor).
  assert.equal(r.metrics['interactions.count'], 3);
  const steps = r.interactions.map((i: { step: string }) => i.step);
  assert.ok(steps.includes('quick click') && steps.includes('slow click'), JSON.stringify(steps));
  assert.ok(steps.every((s: string) => ['instant click', 'quick click', 'slow click'].includes(s)));
  assert.ok(r.metrics['interactions.latencyMs.worst'] >= 300);
  assert.ok(r.metrics['steps.slow click.ms'] >= 300);
  const slow = r.interactions[0];
  assert.equal(slow.step, 'slow click');
  assert.equal(slow.type, 'click');
  assert.equal(slow.target, 'button#slow "Slow"');
  assert.ok(slow.processingMs >= 290, `processing ${slow.processingMs}`);
  // Event Timing rounds the duration to 8 ms: the parts add up to it within that.
  assert.ok(Math.abs(slow.inputDelayMs + slow.processingMs + slow.presentationMs - slow.latencyMs) <= 8);
  const li = r.insights.find((i: { id: string }) => i.id === 'longInteraction');
  assert.ok(li);
  assert.match(li.title, /step slow click/);
  assert.match(li.title, /mostly processing/);
  const d = await ok(host, 'perf_insight', { id: 'longInteraction' });
  assert.deepEqual(
    d.rows.map((row: { step: string }) => row.step),
    ['slow click'],
  );
});

test('a navigation inside the measured steps: the new document is measured too', async () => {
  // Tracing is one per browser: the shared session must be done before this one starts its own.
  await shared;
  const { host } = await fresh(`${demo.url}/list.html`);
  await ok(host, 'perf_begin', { mode: 'timing' });
  // dialog.html animates without end, so the window paints many frames however starved the renderer is. A static
  // page showed its new document and the click in one frame on a loaded CI host (CI-48: 1 painted frame in 136 ms), and
  // one painted frame is what a window of pure waiting can show too, so the session was rightly refused.
  await ok(host, 'navigate', { url: '/dialog.html' });
  await ok(host, 'tap', { target: { role: 'button', name: 'Show toast' }, label: 'toggle' });
  const r = await ok(host, 'perf_end', { full: true });
  assert.equal(r.refused, false, `${r.reason} ${JSON.stringify(r.missingReasons)} ${JSON.stringify(r.summary)}`);
  assert.ok(r.summary.navigations >= 1);
  assert.match(r.env.url, /dialog\.html$/);
  // The click on the new document was seen by the probe the navigation re-installed: counted (interactionCount counts
  // clicks under Event Timing's 16 ms floor too, which a quick one on an animating page can be), and any entry listed
  // for it is the step's.
  assert.ok(r.metrics['interactions.count'] >= 1, JSON.stringify(r.metrics));
  assert.ok(
    r.interactions.every((i: { step: string }) => i.step === 'toggle'),
    JSON.stringify(r.interactions),
  );
  // Loading dialog.html laid it out and styled it: counted across the document change.
  assert.ok(r.metrics['counters.layouts'] >= 1);
  assert.ok(r.metrics['counters.styleRecalcs'] >= 1);
  assert.equal(typeof r.metrics['steps.navigate.ms'], 'number');
});

test('layout shifts without input add up in layoutShift.score', async () => {
  const { host, session } = await fresh(`${fixtures.url}/perf-shift.html`);
  await ok(host, 'perf_begin', { mode: 'timing' });
  await session.page.evaluate('window.startShifts()');
  await new Promise((r) => setTimeout(r, 900));
  const r = await ok(host, 'perf_end', { full: true });
  assert.equal(r.coverage.layoutShift, 'read');
  // Four 60 px banners push the whole text down: each shift moves a visible block.
  assert.ok(r.metrics['layoutShift.score'] > 0.01, `score ${r.metrics['layoutShift.score']}`);
  assert.equal(r.summary.layoutShift, r.metrics['layoutShift.score']);
});

test('when tracing cannot start, the in-page rAF counter stands in for frames and the gap is reported', async () => {
  const { host, session } = await fresh(`${demo.url}/list.html`);
  // Someone else's trace is running: perf_begin's Tracing.start is refused.
  await session.page.send('Tracing.start', { transferMode: 'ReturnAsStream' });
  try {
    await ok(host, 'perf_begin', { mode: 'timing' });
    await wheelList(session.page, 10);
    const r = await ok(host, 'perf_end', { full: true });
    assert.equal(r.refused, false);
    assert.equal(r.coverage.trace, 'missing');
    assert.match(r.missingReasons.trace, /Tracing\.start failed/);
    assert.equal(r.coverage.liveness, 'read');
    assert.equal(r.summary.frames.source, 'raf');
    assert.ok(r.metrics['frames.painted'] >= 10);
    const sm = r.insights.find((i: { id: string }) => i.id === 'sourcesMissing');
    assert.ok(sm);
    assert.match(sm.title, /frames/);
    const e = await failed(host, 'perf_trace', { out: 'none.json' });
    assert.equal(e.code, 'no_trace');
  } finally {
    const done = session.page.waitForEvent('Tracing.tracingComplete');
    await session.page.send('Tracing.end');
    const { stream } = await done;
    if (stream) await session.page.send('IO.close', { handle: stream });
  }
});
