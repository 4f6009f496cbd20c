import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HostState, StateSlot } from '../src/host-state.js';

test('host state: each slot holds its own value (even two slots of one name), and clear empties them all', () => {
  const state = new HostState();
  const a = new StateSlot<number[]>('same');
  const b = new StateSlot<string>('same');
  state.set(a, [1, 2]);
  state.set(b, 'x');
  assert.deepEqual(state.get(a), [1, 2]);
  assert.equal(state.get(b), 'x');
  state.delete(a);
  assert.equal(state.get(a), undefined);
  assert.equal(state.get(b), 'x');
  state.clear();
  assert.equal(state.get(b), undefined);
});
