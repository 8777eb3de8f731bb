/**
 * workers/activities.ts: a long-running operation (`heartbeatingActivities`, a boarding chunk) heartbeats every 5 s
 * while it runs and stops when it ends; other operations never heartbeat. Fake timers stand in for the minutes.
 * The heartbeating operations are named by `activityNames`, typed by the activities: a name that is no activity's
 * (misspelled, or the activity renamed) fails the typecheck (the `@ts-expect-error` below) and this test.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Activities, createActivities, type Deps } from '../../activities';
import {
  activityNames,
  asTemporalActivities,
  heartbeatingActivities,
  progressReportingActivities,
} from '../../workers/activities';

/** Operations that take `ms` (fake time). */
function slowOperations(ms: number): Activities {
  const slow = async () => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return {};
  };
  return { boardBoardingChunk: slow, validateBoardingPage: slow } as unknown as Activities;
}

/** Runs `name` of the wrapped operations in a mock activity context for `ms`; returns the heartbeats counted. */
async function heartbeatsOf(name: 'boardBoardingChunk' | 'validateBoardingPage', ms: number) {
  const env = new MockActivityEnvironment();
  let beats = 0;
  env.on('heartbeat', () => {
    beats += 1;
  });
  const run = env.run(
    asTemporalActivities(slowOperations(ms))[name] as (input: unknown) => Promise<unknown>,
    {},
  );
  await vi.advanceTimersByTimeAsync(ms);
  await run;
  const atEnd = beats;
  await vi.advanceTimersByTimeAsync(20_000);
  return { atEnd, later: beats };
}

describe('heartbeats of long-running operations', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('a boarding chunk heartbeats every 5 s while it runs, and stops when it ends', async () => {
    expect(await heartbeatsOf('boardBoardingChunk', 26_000)).toEqual({ atEnd: 5, later: 5 });
  });

  it('other operations do not heartbeat', async () => {
    expect(await heartbeatsOf('validateBoardingPage', 26_000)).toEqual({ atEnd: 0, later: 0 });
  });

  it('names only registered activities, and only heartbeating ones report progress', () => {
    const registered = Object.keys(createActivities({} as Deps));
    for (const name of heartbeatingActivities) expect(registered).toContain(name);
    for (const name of progressReportingActivities) expect([...heartbeatingActivities]).toContain(name);
    // @ts-expect-error: not an activity's name; the typecheck refuses it.
    expect([...activityNames('closeCobChunks')]).toEqual(['closeCobChunks']);
  });
});
