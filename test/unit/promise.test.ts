/**
 * Promise-to-pay rules (domain/servicing/promise.ts; docs/processes.md P4): the promised date against today in the
 * tenant's time zone and the 90-day horizon, the watch window and its deadline (end of promisedDate + 3 days,
 * across a DST change), and the outcome of a sum paid.
 */
import { describe, expect, it } from 'vitest';
import {
  checkPromisedDate,
  computePromiseWindow,
  promiseOutcomeOf,
  promiseStartSpec,
} from '../../domain/servicing/promise';

// 2026-03-01T06:30Z is still 2026-02-28 in Los Angeles (UTC−8) but 2026-03-01 in London.
const nowMs = Date.parse('2026-03-01T06:30:00Z');

describe('checkPromisedDate', () => {
  it('refuses a date before today in the tenant zone, accepts today', () => {
    expect(checkPromisedDate('2026-02-27', nowMs, 'America/Los_Angeles')).toEqual({
      ok: false,
      reason: 'PAST',
    });
    expect(checkPromisedDate('2026-02-28', nowMs, 'America/Los_Angeles')).toEqual({ ok: true });
    expect(checkPromisedDate('2026-02-28', nowMs, 'Europe/London')).toEqual({ ok: false, reason: 'PAST' });
    expect(checkPromisedDate('2026-03-01', nowMs, 'Europe/London')).toEqual({ ok: true });
  });

  it('accepts up to 90 days ahead, not 91', () => {
    expect(checkPromisedDate('2026-05-29', nowMs, 'America/Los_Angeles')).toEqual({ ok: true });
    expect(checkPromisedDate('2026-05-30', nowMs, 'America/Los_Angeles')).toEqual({
      ok: false,
      reason: 'BEYOND_HORIZON',
    });
  });
});

describe('computePromiseWindow', () => {
  it('watches from the local creation date to promisedDate + 3; the deadline is the start of the day after', () => {
    expect(
      computePromiseWindow({
        createdAtMs: nowMs,
        promisedDate: '2026-03-05',
        timeZone: 'America/Los_Angeles',
      }),
    ).toEqual({
      windowStartDate: '2026-02-28',
      windowEndDate: '2026-03-08',
      // 2026-03-08 is the DST change in the US: midnight of 03-09 is UTC−7.
      deadlineAtMs: Date.parse('2026-03-09T07:00:00Z'),
      deadlineAt: '2026-03-09T00:00:00-07:00',
    });
  });
});

describe('promiseOutcomeOf', () => {
  it('KEPT once paid in full, at any time; otherwise nothing before the deadline', () => {
    expect(promiseOutcomeOf({ amount: '100.00', paidAmount: '100.00', atDeadline: false })).toBe('KEPT');
    expect(promiseOutcomeOf({ amount: '100.00', paidAmount: '150.5', atDeadline: false })).toBe('KEPT');
    expect(promiseOutcomeOf({ amount: '100.00', paidAmount: '99.99', atDeadline: false })).toBeNull();
    expect(promiseOutcomeOf({ amount: '100.00', paidAmount: '0.00', atDeadline: false })).toBeNull();
  });

  it('at the deadline: a part is PARTIALLY_KEPT, nothing is BROKEN, in full is KEPT', () => {
    expect(promiseOutcomeOf({ amount: '100.00', paidAmount: '0.01', atDeadline: true })).toBe(
      'PARTIALLY_KEPT',
    );
    expect(promiseOutcomeOf({ amount: '100.00', paidAmount: '0', atDeadline: true })).toBe('BROKEN');
    expect(promiseOutcomeOf({ amount: '100', paidAmount: '100.000000', atDeadline: true })).toBe('KEPT');
  });
});

describe('promiseStartSpec', () => {
  it('starts promise/<tenant>/<promiseId> on the servicing queue with TenantId, CaseId and LoanId', () => {
    const spec = promiseStartSpec({
      tenantId: 'acme',
      promiseId: 12,
      caseId: 3,
      loanId: 9,
      amount: '100.00',
      currency: 'USD',
      promisedDate: '2026-03-05',
      deadlineAtMs: 1,
    });
    expect(spec).toMatchObject({
      workflowType: 'promiseWorkflow',
      workflowId: 'promise/acme/12',
      taskQueue: 'servicing',
      tenantId: 'acme',
      searchAttributes: { CaseId: 3, LoanId: '9' },
      idReusePolicy: 'REJECT_DUPLICATE',
    });
  });
});
