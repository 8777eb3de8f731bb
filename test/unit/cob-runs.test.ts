/**
 * The pure parts of close of business (docs/processes.md P7 "The run"; domain/lending/cob-runs.ts): the day
 * a scheduled launch closes in every kind of time zone (ahead of and behind UTC, half-hour offsets, the date line,
 * both DST changes, month, year and leap-day ends), a day that has ended, the start spec and the tenant's schedule,
 * the error text a run stores, and the chunk activity's heartbeat after each loan (workers/activities.ts).
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';
import type { Activities } from '../../activities';
import { storedCobError } from '../../activities/lending/close-cob-chunk';
import { addDays } from '../../domain/calendar';
import {
  closeOfBusinessStartSpec,
  cobBusinessDateOfLaunch,
  cobDayHasEnded,
  cobScheduleTime,
} from '../../domain/lending/cob-runs';
import { instantOfLocal, localDate } from '../../domain/time-zone';
import { asTemporalActivities } from '../../workers/activities';
import { closeOfBusinessSchedule } from '../../workflows/lending/close-of-business/client';

const zones = [
  'America/Los_Angeles',
  'America/New_York',
  'America/Sao_Paulo',
  'UTC',
  'Europe/London',
  'Asia/Kolkata',
  'Australia/Adelaide',
  'Pacific/Auckland',
  'Pacific/Kiritimati',
  'Pacific/Pago_Pago',
];

describe('cobBusinessDateOfLaunch', () => {
  it('closes the local day before the launch, every day of 2024–2025 in every zone', () => {
    for (const zone of zones) {
      for (let d = '2024-01-01'; d <= '2025-12-31'; d = addDays(d, 1)) {
        const at = instantOfLocal(
          d,
          { hour: cobScheduleTime.hour, minute: cobScheduleTime.minute, second: 0 },
          zone,
        );
        expect(localDate(at, zone), `${zone} ${d}`).toBe(d);
        expect(cobBusinessDateOfLaunch(at, zone), `${zone} ${d}`).toBe(addDays(d, -1));
      }
    }
  });

  it('reads the launch instant in the tenant zone, not in UTC', () => {
    // 2025-02-14 00:30 in Auckland is 2025-02-13 11:30 UTC (and 2025-02-13 03:30 in Los Angeles).
    const at = Date.parse('2025-02-13T11:30:00Z');
    expect(cobBusinessDateOfLaunch(at, 'Pacific/Auckland')).toBe('2025-02-13');
    expect(cobBusinessDateOfLaunch(at, 'UTC')).toBe('2025-02-12');
    expect(cobBusinessDateOfLaunch(at, 'America/Los_Angeles')).toBe('2025-02-12');
    // Across DST in Los Angeles: the nights of 9 March (spring forward) and 2 November (fall back) 2025.
    expect(cobBusinessDateOfLaunch(Date.parse('2025-03-10T07:30:00Z'), 'America/Los_Angeles')).toBe(
      '2025-03-09',
    );
    expect(cobBusinessDateOfLaunch(Date.parse('2025-11-03T08:30:00Z'), 'America/Los_Angeles')).toBe(
      '2025-11-02',
    );
    // A leap day and a year end.
    expect(cobBusinessDateOfLaunch(Date.parse('2024-03-01T00:30:00Z'), 'UTC')).toBe('2024-02-29');
    expect(cobBusinessDateOfLaunch(Date.parse('2026-01-01T00:30:00Z'), 'UTC')).toBe('2025-12-31');
  });
});

describe('cobDayHasEnded', () => {
  it('is true only for days before the tenant’s today', () => {
    expect(cobDayHasEnded('2025-02-09', '2025-02-10')).toBe(true);
    expect(cobDayHasEnded('2025-02-10', '2025-02-10')).toBe(false);
    expect(cobDayHasEnded('2025-02-11', '2025-02-10')).toBe(false);
  });
});

describe('closeOfBusinessStartSpec', () => {
  it('names the whole-tenant run by the day, a run of named loans by its run id too', () => {
    const whole = closeOfBusinessStartSpec({
      tenantId: 't1',
      runId: 'cob_a',
      businessDate: '2025-02-10',
      loanIds: null,
    });
    expect(whole).toMatchObject({
      workflowType: 'closeOfBusinessWorkflow',
      workflowId: 'close-of-business/t1/2025-02-10',
      taskQueue: 'lending',
      tenantId: 't1',
      idReusePolicy: 'REJECT_DUPLICATE',
    });
    expect(whole.staticSummary).toContain('2025-02-10');
    const named = closeOfBusinessStartSpec({
      tenantId: 't1',
      runId: 'cob_b',
      businessDate: '2025-02-10',
      loanIds: [3, 7],
    });
    expect(named.workflowId).toBe('close-of-business/t1/2025-02-10/cob_b');
    expect(named.staticSummary).toContain('2 named loan(s)');
  });
});

describe('closeOfBusinessSchedule', () => {
  it('launches daily at 00:30 in the tenant zone, with the zone in the launcher input', () => {
    const schedule = closeOfBusinessSchedule('t1', 'Asia/Kolkata');
    expect(schedule.scheduleId).toBe('close-of-business/t1');
    expect(schedule.spec).toEqual({ calendars: [{ hour: 0, minute: 30 }], timezone: 'Asia/Kolkata' });
    expect(schedule.action).toMatchObject({
      type: 'startWorkflow',
      workflowType: 'closeOfBusinessLauncherWorkflow',
      taskQueue: 'lending',
      args: [{ tenantId: 't1', timeZone: 'Asia/Kolkata' }],
    });
  });
});

describe('storedCobError', () => {
  it('drops the parameters of a failed query, keeps other messages, bounds the length', () => {
    expect(storedCobError('Failed query: update "loans" set x = $1\nparams: 2025-02-10,tenant-a,5')).toBe(
      'Failed query: update "loans" set x = $1',
    );
    expect(storedCobError('Loan 5 was not found.')).toBe('Loan 5 was not found.');
    expect(storedCobError(undefined)).toBe('unknown error');
    expect(storedCobError('x'.repeat(5000))).toHaveLength(1000);
  });
});

describe('the chunk activity heartbeats after each loan', () => {
  it('hands the chunk an onProgress that heartbeats', async () => {
    const stub = {
      closeCobChunk: async (input: { onProgress?: () => void }) => {
        for (let i = 0; i < 3; i++) input.onProgress?.();
        return { closed: 3, skipped: 0, failed: 0 };
      },
    } as unknown as Activities;
    const env = new MockActivityEnvironment();
    let beats = 0;
    env.on('heartbeat', () => {
      beats += 1;
    });
    const result = await env.run(
      asTemporalActivities(stub).closeCobChunk as (input: unknown) => Promise<unknown>,
      { tenantId: 't1', runId: 'cob_a', businessDate: '2025-02-10', loanIds: [1, 2, 3] },
    );
    expect(result).toEqual({ closed: 3, skipped: 0, failed: 0 });
    expect(beats).toBe(3);
  });
});
