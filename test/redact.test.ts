import assert from 'node:assert/strict';
import { test } from 'node:test';
import { redactChunks, redactText, secretSpans } from '../src/scenario/redact.js';

const secrets = [
  { name: 'TOKEN', value: 'hunter2-Pa55' },
  { name: 'PIN', value: '1' },
];

test('a stream cut anywhere redacts as the whole text does, keeping one chunk per chunk', () => {
  const text = 'login hunter2-Pa55 then 1 and 2026-12-01 and xhunter2-Pa55 and hunter2-Pa55!';
  let seed = 7;
  const rand = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  for (let trial = 0; trial < 2000; trial++) {
    const chunks: string[] = [];
    for (let at = 0; at < text.length;) {
      const len = 1 + rand(6);
      chunks.push(text.slice(at, at + len));
      at += len;
    }
    const out = redactChunks(chunks, secrets);
    assert.equal(out.length, chunks.length);
    assert.equal(out.join(''), redactText(text, secrets));
  }
});

test('an escape sequence ending in a letter bounds a secret like a space does', () => {
  assert.deepEqual(redactChunks(['\x1b[1;11H', 'hunter2-Pa55', '\r\n'], secrets), ['\x1b[1;11H', '${env.TOKEN}', '\r\n']);
  assert.deepEqual(redactChunks(['Ahunter2-Pa55'], secrets), ['Ahunter2-Pa55'], 'inside a longer word: not the secret');
});

// The escape sequences of a stream, in order: what a redaction must leave in place for a replay to draw.
const ESCAPES = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[ -/]*[0-~])/g;
const escapesOf = (s: string): string[] => s.match(ESCAPES) ?? [];
/** What a terminal would show, in write order: escapes and control characters out. */
const visible = (s: string): string => s.replace(ESCAPES, '').replace(/[\x00-\x1f\x7f]/g, '');

test('a secret echoed one character at a time between escape sequences is found in what the terminal shows', () => {
  const secret = 'hunter2-Pa55';
  const ways: [string, (c: string, i: number) => string][] = [
    ['a cursor position before each character', (c, i) => `\x1b[5;${11 + i}H${c}`],
    ['a cursor-forward before each character', (c) => `\x1b[C${c}`],
    ['a colour around each character', (c, i) => `\x1b[3${i % 8}m${c}\x1b[0m`],
    ['ncurses style: charset and colour reset before each', (c) => `\x1b(B\x1b[m${c}`],
    ['a placeholder after each, erased', (c) => `${c}_\b`],
    ['a line editor echo with a typo rubbed out', (c, i) => (i === 3 ? `x\b \b${c}` : c)],
    ['each character masked after it is drawn', (c) => `${c}\b*`],
    ['each character masked with a cursor-back', (c) => `${c}\x1b[D*`],
  ];
  for (const [what, draw] of ways) {
    const chunks = ['Password: ', ...[...secret].map(draw), '\x1b[24;1HINSERT', '\r\n'];
    const out = redactChunks(chunks, secrets);
    assert.equal(out.length, chunks.length, what);
    const joined = out.join('');
    assert.deepEqual(escapesOf(joined), escapesOf(chunks.join('')), `${what}: every escape sequence stays`);
    const rest = visible(joined).replace('Password: ', '').replace('${env.TOKEN}', '').replace('INSERT', '');
    assert.ok(!/[hunterPa5]/.test(rest), `${what}: no character of the secret is left: ${JSON.stringify(joined)}`);
    assert.equal(joined.split('${env.TOKEN}').length, 2, `${what}: one \${env.TOKEN} where it started: ${JSON.stringify(joined)}`);
    assert.ok(out[1]!.includes('${env.TOKEN}'), `${what}: in the chunk of its first character`);
    assert.ok(joined.endsWith('\x1b[24;1HINSERT\r\n'), `${what}: what follows is untouched`);
  }
});

test('whole tokens only, escapes or not: a longer word holding the value is left alone', () => {
  const spaced = (s: string): string[] => [...s].map((c) => `\x1b[C${c}`);
  const glued = ['Ah', ...spaced('unter2-Pa55')];
  assert.deepEqual(redactChunks(glued, secrets), glued, 'a letter right before its first character');
  const tail = [...spaced('hunter2-Pa5'), '5x'];
  assert.deepEqual(redactChunks(tail, secrets), tail, 'a letter right after its last character');
  assert.equal(redactChunks(['x1y', 'and 12 and 1'], secrets).join(''), 'x1yand 12 and ${env.PIN}');
  // An escape sequence bounds a token like a space: a secret drawn after a colour change is one.
  assert.deepEqual(redactChunks(['abc\x1b[1m1\x1b[0m'], secrets), ['abc\x1b[1m${env.PIN}\x1b[0m']);
});

test('typed key by key, a typo rubbed out with DEL in between, across chunks', () => {
  const keys = [...'hunt', 'q', '\x7f', ...'er2-Pa55', '\r'];
  const out = redactChunks(keys, secrets);
  assert.equal(out.length, keys.length);
  assert.equal(out.join(''), '${env.TOKEN}q\x7f\r');
});

test('random escapes and erased characters inside a secret, cut into random chunks: never a character of it left', () => {
  const secret = 'hunter2-Pa55';
  let seed = 11;
  const rand = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const noise = ['\x1b[C', '\x1b[31m', '\x1b[0m', '\x1b[3;7H', '\x1b]0;title\x07', 'z\b', '\x1b(B', ''];
  for (let trial = 0; trial < 500; trial++) {
    const text = 'pw: ' + [...secret].map((c) => noise[rand(noise.length)] + c).join('') + ' ok';
    const chunks: string[] = [];
    for (let at = 0; at < text.length;) {
      const len = 1 + rand(5);
      chunks.push(text.slice(at, at + len));
      at += len;
    }
    const joined = redactChunks(chunks, secrets).join('');
    assert.equal(visible(joined).replace(/z/g, ''), 'pw: ${env.TOKEN} ok', JSON.stringify(text));
    assert.deepEqual(escapesOf(joined), escapesOf(text));
  }
});

test('secretSpans: where each secret stands as a whole token, for masking a screen', () => {
  assert.deepEqual(secretSpans('pw hunter2-Pa55 pin 1 x1', secrets), [
    { from: 3, to: 15, name: 'TOKEN' },
    { from: 20, to: 21, name: 'PIN' },
  ]);
});
