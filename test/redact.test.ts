import assert from 'node:assert/strict';
import { test } from 'node:test';
import { redactChunks, redactText } from '../src/scenario/redact.js';

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
    for (let at = 0; at < text.length; ) {
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
