/**
 * applyWireBytes (src/drivers/webdriver/bidi-network.ts): the page's Resource Timing list with the bytes BiDi's
 * network events counted, matched by URL in start order. The events themselves come from the real Firefox in
 * test/firefox.test.ts; here the matching rules, each with a case that would read differently without it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LoadRequest } from '../src/drivers/measure.js';
import { applyWireBytes, type WireRequest } from '../src/drivers/webdriver/bidi-network.js';

const O = 'http://127.0.0.1:8080';
const req = (file: string, type: LoadRequest['type'], transferBytes: number): LoadRequest => ({
  url: `${O}/${file}`,
  type,
  startMs: 0,
  responseStartMs: null,
  endMs: 1,
  transferBytes,
  renderBlocking: false,
});
const wire = (file: string, bytes: number | undefined, more: Partial<WireRequest> = {}): WireRequest => ({
  url: `${O}/${file}`,
  finalUrl: `${O}/${file}`,
  done: true,
  fromCache: false,
  bytes,
  ...more,
});

test('each request takes the bytes BiDi counted for it; the same URL twice is matched first with first', { timeout: 10_000 }, () => {
  const page = [req('index.html', 'document', 712), req('a.js', 'script', 441), req('a.js', 'script', 441)];
  const r = applyWireBytes(page, [wire('index.html', 601), wire('a.js', 321), wire('a.js', 330)]);
  assert.deepEqual(
    r.requests.map((x) => x.transferBytes),
    [601, 321, 330],
  );
  assert.deepEqual(r.notes, []);
});

test('a cache hit is 0; a response BiDi gave no size keeps Resource Timing’s figure, and a note says so', { timeout: 10_000 }, () => {
  const page = [req('a.css', 'stylesheet', 948), req('b.png', 'image', 23403), req('c.woff', 'font', 31064)];
  const r = applyWireBytes(page, [wire('a.css', 0, { fromCache: true }), wire('b.png', undefined), wire('c.woff', 0)]);
  assert.deepEqual(
    r.requests.map((x) => x.transferBytes),
    [0, 23403, 31064],
  );
  assert.equal(r.notes.length, 1);
  assert.match(r.notes[0]!, /^2 request\(s\) had no size in BiDi's network events.*b\.png, .*c\.woff/);
});

test('a redirected request matches by its first URL; one still in flight is not used', { timeout: 10_000 }, () => {
  const page = [req('old.js', 'script', 441), req('slow.js', 'script', 500)];
  const r = applyWireBytes(page, [wire('old.js', 520, { finalUrl: `${O}/new.js` }), wire('slow.js', 99, { done: false })]);
  assert.deepEqual(
    r.requests.map((x) => x.transferBytes),
    [520, 500],
  );
});

test(
  'requests BiDi saw outside the page’s list are noted with their bytes, not added; data: and the favicon are not',
  { timeout: 10_000 },
  () => {
    const page = [req('index.html', 'document', 712)];
    const seen = [wire('index.html', 601), wire('frame/x.js', 300), wire('frame/y.css', 200), wire('favicon.ico', 900)];
    const r = applyWireBytes(page, [...seen, { ...wire('', 0), url: 'data:,', finalUrl: 'data:,' }]);
    assert.equal(r.requests.length, 1);
    assert.equal(r.notes.length, 1);
    assert.match(r.notes[0]!, /^2 request\(s\) BiDi saw are not in the page's Resource Timing .*: 500 B, e\.g\. .*frame\/x\.js/);
  },
);
