/**
 * The repeat schedule per driver capability (src/runner/records.ts schedulePlan): a driver that records no CPU
 * profile (its defineDriver lacks cpuProfile) gets timing repeats only, whatever the plan asked; a profiling one the
 * plan as asked. Pure: the registry's literals, no browser.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { canProfile, type DriverName } from '../src/drivers/define.js';
import { DRIVERS, getDriver } from '../src/drivers/registry.js';
import { againstPlan } from '../src/runner/against.js';
import { watchesNetwork } from '../src/runner/cdp-browser.js';
import { repeatSchedule, repeatSlots, schedulePlan, warmupMode, type TimingPlan } from '../src/runner/records.js';

const on = (driver: DriverName): { browser: { driver: DriverName } } => ({ browser: { driver } });
const PLANS: TimingPlan[] = [false, true, 'only'];

test('the drivers that record no CPU profile say so in their defineDriver literal, with the reason a user reads', () => {
  const profiling = DRIVERS.filter(canProfile).map((d) => d.name);
  assert.deepEqual(profiling, ['cdp']);
  for (const d of DRIVERS.filter((x) => !canProfile(x))) {
    const why = d.lacks.cpuProfile!;
    assert.match(why, /no CPU profile|not profiled/, `${d.name}: ${why}`);
    assert.match(why, /timing repeat/, `${d.name}: the reason names what the schedule does instead`);
  }
});

test('cdp: the schedule as asked (A…; T,A,T,T,A,T…; T,T,T…), the warm-up profiled unless no repeat is', () => {
  assert.deepEqual(repeatSchedule(3, schedulePlan(false, [on('cdp')])), ['attribution', 'attribution', 'attribution']);
  assert.deepEqual(repeatSchedule(4, schedulePlan(true, [on('cdp')])), [
    'timing',
    'attribution',
    'timing',
    'timing',
    'attribution',
    'timing',
  ]);
  assert.deepEqual(repeatSchedule(3, schedulePlan('only', [on('cdp')])), ['timing', 'timing', 'timing']);
  assert.equal(warmupMode(schedulePlan(false, [on('cdp')])), 'attribution');
  assert.equal(warmupMode(schedulePlan(true, [on('cdp')])), 'attribution');
  assert.equal(warmupMode(schedulePlan('only', [on('cdp')])), 'timing');
});

test('bidi, webdriver, pty: timing repeats only, one per unit, warm-up included, whatever the plan asked', () => {
  for (const driver of ['bidi', 'webdriver', 'pty'] as const) {
    assert.equal(canProfile(getDriver(driver)), false, driver);
    for (const asked of PLANS) {
      const plan = schedulePlan(asked, [on(driver)]);
      assert.equal(plan, 'only', `${driver}, asked ${String(asked)}`);
      assert.deepEqual(repeatSchedule(5, plan), Array<string>(5).fill('timing'), `${driver}, asked ${String(asked)}`);
      // A sequential run's later units follow the same plan: no attribution repeat appears at look 2.
      assert.deepEqual(repeatSlots(5, 9, plan), Array<string>(4).fill('timing'), `${driver}, asked ${String(asked)}`);
      assert.equal(warmupMode(plan), 'timing', `${driver}, asked ${String(asked)}`);
    }
  }
});

test('two arms follow one plan: profiled only when both drivers profile', () => {
  for (const asked of PLANS) {
    assert.equal(schedulePlan(asked, [on('cdp'), on('cdp')]), asked);
    assert.equal(schedulePlan(asked, [on('cdp'), on('bidi')]), 'only');
    assert.equal(schedulePlan(asked, [on('pty'), on('cdp')]), 'only');
  }
});

test('a compare resolves its plan once (againstPlan): as asked, else timing unless the scenario says no; both drivers allow it', () => {
  const arm = (driver: DriverName, timing: { timing: boolean; timingSet: boolean }) => ({ ...on(driver), ...timing });
  const unset = { timing: false, timingSet: false };
  assert.equal(againstPlan(on('cdp'), arm('cdp', unset), undefined), true, 'an interleaved compare times by default');
  assert.equal(againstPlan(on('cdp'), arm('cdp', { timing: false, timingSet: true }), undefined), false);
  assert.equal(againstPlan(on('cdp'), arm('cdp', { timing: false, timingSet: true }), 'only'), 'only', 'the flag wins');
  for (const asked of [undefined, ...PLANS]) assert.equal(againstPlan(on('bidi'), arm('cdp', unset), asked), 'only');
});

test("a run watches a repeat's network from the browser where its trace or load needs it, not in a timing repeat of steps", () => {
  const steps = { measure: 'steps' as const };
  const load = { measure: 'load' as const };
  // The timing repeat of steps is spared the Network domain's events (+31 % wall on 30 fetches beside a busy core).
  assert.equal(watchesNetwork(steps, { mode: 'timing', restart: 'context' }), false);
  assert.equal(watchesNetwork(steps, { mode: 'timing', restart: 'browser' }), false);
  // The attribution repeat's trace names the page's code as a fetch's initiator, not the in-page counter's wrapper.
  assert.equal(watchesNetwork(steps, { mode: 'attribution', restart: 'context' }), true);
  // A measured load enables the domain anyway; a reload restart keeps one page (watched once, for good) for the arm.
  assert.equal(watchesNetwork(load, { mode: 'timing', restart: 'context' }), true);
  assert.equal(watchesNetwork(steps, { mode: 'timing', restart: 'reload' }), true);
});
