/** Assertions on step results and clean pages on the demo app / fixtures, shared by the action suites. */
import assert from 'node:assert/strict';
import type { StepResult } from '../src/engine/run-step.js';
import { fresh, sharedBrowser } from './helpers.js';

export type Ok = Extract<StepResult, { status: 'ok' }>;
export type Failed = Extract<StepResult, { status: 'failed' }>;

export function ok(r: StepResult): Ok {
  if (r.status !== 'ok') assert.fail(`${r.step} failed: ${JSON.stringify('error' in r ? r.error : r)}`);
  return r;
}

export function failed(r: StepResult): Failed {
  if (r.status !== 'failed') assert.fail(`${r.step} was expected to fail, got ${JSON.stringify(r)}`);
  return r;
}

/** A clean page on a demo app path such as /list.html. */
export async function demo(path: string): ReturnType<typeof fresh> {
  const { demo } = await sharedBrowser();
  return fresh(`${demo.url}${path}`);
}

/** A clean page on a test/fixtures file. */
export async function fixture(name: string): ReturnType<typeof fresh> {
  const { fixtures } = await sharedBrowser();
  return fresh(`${fixtures.url}/${name}`);
}
