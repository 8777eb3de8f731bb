/**
 * Delinquency actions of a loan through the public API (Apache Fineract `POST/GET
 * /v1/loans/{loanId}/delinquency-actions`, `DelinquencyActionParseAndValidator`; docs/lending.md "Delinquency
 * configuration"): pauses and resumes as the list shows them, every refusal (Shape A naming the field with Fineract's
 * code, nothing stored), the loan's business date (its `lastClosedBusinessDate` + 1, or the tenant's today before its
 * first close of business), tenancy and permissions.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loans } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { addDays } from '../../domain/calendar';
import { defaultComplianceTimeZone } from '../../domain/deadlines';
import { localDate } from '../../domain/time-zone';
import { approvedLoan } from '../activities/ledger-fixtures';
import {
  type Credential,
  call,
  createTestContext,
  credentialFor,
  type TestContext,
  uniqueTenant,
} from '../support/context';
import { expectShapeA } from './helpers';
import { fundedLoan } from './payment-fixtures';

let ctx: TestContext;
let cred: Credential;
let other: Credential;
const scopes = ['lending:read', 'lending:write'];

beforeAll(async () => {
  ctx = await createTestContext({ worker: false });
  cred = await credentialFor(ctx, uniqueTenant('dla'), { scopes });
  other = await credentialFor(ctx, uniqueTenant('dlax'), { scopes });
});
afterAll(async () => ctx?.close());

const path = (loanId: number) => `/v1/loans/${loanId}/delinquency-actions`;

/** An ACTIVE loan disbursed on 2025-01-01 whose last closed business day is `lastClosed` (null: never closed). */
async function activeLoan(lastClosed: string | null = '2025-03-04'): Promise<number> {
  const loan = await fundedLoan(ctx, cred, '2025-01-01');
  await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
    tx
      .update(loans)
      .set({ lastClosedBusinessDate: lastClosed })
      .where(and(eq(loans.tenantId, cred.tenant), eq(loans.id, loan.loanId))),
  );
  return loan.loanId;
}

async function actions(loanId: number) {
  const res = await call(ctx, cred, 'GET', path(loanId));
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as {
    id: number;
    action: string;
    startDate: string;
    endDate: string | null;
    createdOn: string;
  }[];
}

async function post(loanId: number, body: Record<string, unknown>, status = 201) {
  const res = await call(ctx, cred, 'POST', path(loanId), body);
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  return res;
}

/** Sends `body`, expects a 400 naming `parameterName` with Fineract's `code`, and that nothing was stored. */
async function refused(loanId: number, body: Record<string, unknown>, parameterName: string, code: string) {
  const before = await actions(loanId);
  const res = await call(ctx, cred, 'POST', path(loanId), body);
  expectShapeA(res, 400, 'validation.msg.validation.errors.exist', [parameterName]);
  expect(res.body.errors[0].userMessageGlobalisationCode).toBe(code);
  expect(await actions(loanId)).toEqual(before);
}

describe('POST /v1/loans/{loanId}/delinquency-actions: pause', () => {
  it('records a pause (a start in the past too) and lists it', async () => {
    const loanId = await activeLoan();
    const res = await post(loanId, {
      action: 'pause',
      startDate: '2025-02-01',
      endDate: '2025-02-15',
      locale: 'en',
    });
    expect(Object.keys(res.body)).toEqual(['resourceId']);
    const today = new Date().toISOString().slice(0, 10);
    const listed = await actions(loanId);
    expect(listed).toEqual([
      {
        id: res.body.resourceId,
        action: 'PAUSE',
        startDate: '2025-02-01',
        endDate: '2025-02-15',
        createdOn: expect.any(String),
      },
    ]);
    expect([today, addDays(today, -1)]).toContain(listed[0]!.createdOn);
    // Right after another one: no overlap (Fineract: a pause may start on the day the previous one ends).
    await post(loanId, { action: 'pause', startDate: '2025-02-15', endDate: '2025-02-20' });
    await post(loanId, { action: 'pause', startDate: '2025-01-25', endDate: '2025-02-01' });
    expect((await actions(loanId)).map((a) => a.startDate)).toEqual([
      '2025-02-01',
      '2025-02-15',
      '2025-01-25',
    ]);
  });

  it.each([
    [
      'without endDate',
      { startDate: '2025-03-01' },
      'endDate',
      'loan-delinquency-action-pause-endDate-cannot-be-blank',
    ],
    [
      'ending on its start',
      { startDate: '2025-03-01', endDate: '2025-03-01' },
      'endDate',
      'loan-delinquency-action-invalid-start-date-and-end-date',
    ],
    [
      'ending before its start',
      { startDate: '2025-03-05', endDate: '2025-03-01' },
      'endDate',
      'loan-delinquency-action-invalid-start-date-and-end-date',
    ],
    [
      'starting before the disbursement',
      { startDate: '2024-12-31', endDate: '2025-01-10' },
      'startDate',
      'loan-delinquency-action-invalid-start-date',
    ],
    [
      'overlapping the end of another',
      { startDate: '2025-02-10', endDate: '2025-02-25' },
      'startDate',
      'loan-delinquency-action-overlapping',
    ],
    [
      'overlapping the start of another',
      { startDate: '2025-01-20', endDate: '2025-02-02' },
      'startDate',
      'loan-delinquency-action-overlapping',
    ],
    [
      'containing another',
      { startDate: '2025-01-20', endDate: '2025-03-01' },
      'startDate',
      'loan-delinquency-action-overlapping',
    ],
    [
      'equal to another',
      { startDate: '2025-02-01', endDate: '2025-02-15' },
      'startDate',
      'loan-delinquency-action-overlapping',
    ],
  ])('refuses a pause %s', async (_what, dates, parameterName, code) => {
    const loanId = await activeLoan();
    await post(loanId, { action: 'pause', startDate: '2025-02-01', endDate: '2025-02-15' });
    await refused(loanId, { action: 'pause', ...dates }, parameterName, code);
  });

  it.each([
    ['an unknown action', { action: 'freeze', startDate: '2025-02-01' }, 'action'],
    ['a missing startDate', { action: 'pause', endDate: '2025-02-01' }, 'startDate'],
    [
      'a date that is not ISO',
      { action: 'pause', startDate: '01 February 2025', endDate: '2025-02-10' },
      'startDate',
    ],
    [
      'an unknown field',
      { action: 'pause', startDate: '2025-02-01', endDate: '2025-02-10', reason: 'x' },
      'reason',
    ],
  ])('refuses %s at the edge with 400 and stores nothing', async (_what, body, parameterName) => {
    const loanId = await activeLoan();
    const res = await call(ctx, cred, 'POST', path(loanId), body);
    const shape = expectShapeA(res, 400, 'validation.msg.validation.errors.exist');
    expect(shape.errors.map((e) => e.parameterName)).toContain(parameterName);
    expect(await actions(loanId)).toEqual([]);
  });
});

describe('POST /v1/loans/{loanId}/delinquency-actions: resume', () => {
  it('ends the active pause on the loan’s business date (lastClosedBusinessDate + 1); a later pause may reuse the rest', async () => {
    const loanId = await activeLoan('2025-03-04');
    await post(loanId, { action: 'pause', startDate: '2025-03-01', endDate: '2025-03-20' });
    const resumed = await post(loanId, { action: 'resume', startDate: '2025-03-05' });
    const listed = await actions(loanId);
    expect(listed[1]).toEqual({
      id: resumed.body.resourceId,
      action: 'RESUME',
      startDate: '2025-03-05',
      endDate: null,
      createdOn: expect.any(String),
    });
    // The pause now ends on 2025-03-05: a pause after it no longer overlaps.
    await post(loanId, { action: 'pause', startDate: '2025-03-10', endDate: '2025-03-25' });
    await refused(
      loanId,
      { action: 'resume', startDate: '2025-03-05' },
      'startDate',
      'loan-delinquency-action-resume-should-be-unique',
    );
  });

  it('uses the tenant’s today before the loan’s first close of business', async () => {
    const loanId = await activeLoan(null);
    const today = localDate(Date.now(), defaultComplianceTimeZone);
    await post(loanId, { action: 'pause', startDate: addDays(today, -3), endDate: addDays(today, 10) });
    await refused(
      loanId,
      { action: 'resume', startDate: addDays(today, 1) },
      'startDate',
      'loan-delinquency-action-invalid-start-date',
    );
    await post(loanId, { action: 'resume', startDate: today });
  });

  it.each([
    [
      'with an endDate',
      { startDate: '2025-03-05', endDate: '2025-03-10' },
      'endDate',
      'loan-delinquency-action-resume-should-have-no-end-date',
    ],
    [
      'not on the business date',
      { startDate: '2025-03-06' },
      'startDate',
      'loan-delinquency-action-invalid-start-date',
    ],
  ])('refuses a resume %s', async (_what, dates, parameterName, code) => {
    const loanId = await activeLoan('2025-03-04');
    await post(loanId, { action: 'pause', startDate: '2025-03-01', endDate: '2025-03-20' });
    await refused(loanId, { action: 'resume', ...dates }, parameterName, code);
  });

  it('refuses a resume without an active pause', async () => {
    const loanId = await activeLoan('2025-03-04');
    await refused(
      loanId,
      { action: 'resume', startDate: '2025-03-05' },
      'startDate',
      'loan-delinquency-action-resume-should-be-on-pause',
    );
    await post(loanId, { action: 'pause', startDate: '2025-02-01', endDate: '2025-02-15' });
    await refused(
      loanId,
      { action: 'resume', startDate: '2025-03-05' },
      'startDate',
      'loan-delinquency-action-resume-should-be-on-pause',
    );
  });
});

describe('the loan', () => {
  it('must be ACTIVE: an approved loan not yet disbursed is refused naming loanId', async () => {
    const loan = await approvedLoan(ctx, cred.tenant);
    await refused(
      loan.loanId,
      { action: 'pause', startDate: '2025-02-01', endDate: '2025-02-10' },
      'loanId',
      'loan-delinquency-action-invalid-loan-state',
    );
  });

  it('of another tenant answers 404 to both routes and stores nothing', async () => {
    const loanId = await activeLoan();
    const body = { action: 'pause', startDate: '2025-02-01', endDate: '2025-02-10' };
    expectShapeA(await call(ctx, other, 'POST', path(loanId), body), 404, 'error.msg.resource.not.found');
    expectShapeA(await call(ctx, other, 'GET', path(loanId)), 404, 'error.msg.resource.not.found');
    expect(await actions(loanId)).toEqual([]);
  });

  it('needs CREATE_DELINQUENCY_ACTION to write and READ_LOAN to read', async () => {
    const loanId = await activeLoan();
    const reader = await credentialFor(ctx, cred.tenant, { scopes, permissions: ['READ_LOAN'] });
    const writer = await credentialFor(ctx, cred.tenant, {
      scopes,
      permissions: ['CREATE_DELINQUENCY_ACTION'],
    });
    const body = { action: 'pause', startDate: '2025-02-01', endDate: '2025-02-10' };
    expectShapeA(await call(ctx, reader, 'POST', path(loanId), body), 403, 'error.msg.not.authorized');
    expectShapeA(await call(ctx, writer, 'GET', path(loanId)), 403, 'error.msg.not.authorized');
    expect((await call(ctx, reader, 'GET', path(loanId))).body).toEqual([]);
    expect((await call(ctx, writer, 'POST', path(loanId), body)).status).toBe(201);
  });

  it('replays a request with the same Idempotency-Key and stores one action', async () => {
    const loanId = await activeLoan();
    const body = { action: 'pause', startDate: '2025-02-01', endDate: '2025-02-10' };
    const headers = { 'Idempotency-Key': `dla-${Math.random().toString(36).slice(2)}` };
    const first = await call(ctx, cred, 'POST', path(loanId), body, headers);
    const second = await call(ctx, cred, 'POST', path(loanId), body, headers);
    expect(first.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(await actions(loanId)).toHaveLength(1);
  });
});
