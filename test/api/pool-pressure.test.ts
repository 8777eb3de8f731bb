/**
 * More concurrent writes than the database pool has connections (DESIGN-processes P0 "Known
 * defect to fix first"): an operation must never hold its transaction's connection while asking
 * the pool for a second one, or a burst leaves every connection idle in transaction and wedges
 * the service (`/healthz` included). Pool of 5, bursts of 20 through the API, with the servicing
 * worker running its activities on the same pool.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../domain/calendar';
import { promiseWorkflowId } from '../../domain/ids';
import { localDate } from '../../domain/time-zone';
import {
  type Credential,
  call,
  createTestContext,
  credentialFor,
  type TestContext,
  uniqueTenant,
} from '../support/context';
import { logInteraction, newKey, openCase } from './helpers';
import { fundedLoan } from './payment-fixtures';

const poolSize = 5;
const burst = 20;
let ctx: TestContext;
let cred: Credential;

beforeAll(async () => {
  ctx = await createTestContext({ maxConnections: poolSize });
  cred = await credentialFor(ctx, uniqueTenant('pool'));
});
afterAll(async () => ctx?.close());

/** Resolves with `promise`, or rejects when it takes longer than `ms` (a wedged pool never answers). */
function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms: the pool is wedged`)), ms);
    }),
  ]);
}

describe(`${burst} concurrent writes on a pool of ${poolSize}`, () => {
  it('privacy-request creates all complete, each with its own request and a running workflow', async () => {
    const sources = [];
    for (let i = 0; i < burst; i++) {
      const caseId = await openCase(ctx, cred, { caseTypeCode: 'PRIVACY', summary: 'DSR' });
      sources.push({ caseId, interactionId: await logInteraction(ctx, cred, caseId) });
    }
    const created = await within(
      Promise.all(
        sources.map(({ caseId, interactionId }, i) =>
          call(
            ctx,
            cred,
            'POST',
            '/v1/servicing/privacy-requests',
            {
              customerRef: 'cus_1',
              requestType: 'ACCESS',
              regime: 'CCPA_CPRA',
              summary: 'What do you hold about me?',
              caseId,
              sourceInteractionId: interactionId,
            },
            // Half with an Idempotency-Key: the key store's transactions share the pool too.
            i % 2 === 0 ? { 'idempotency-key': newKey('pool') } : {},
          ),
        ),
      ),
      30_000,
    );
    expect(created.map((c) => c.status)).toEqual(Array(burst).fill(201));
    expect(new Set(created.map((c) => c.body.requestId)).size).toBe(burst);
    const health = await within(Promise.resolve(ctx.app.request('/healthz')), 5_000);
    expect(health.status).toBe(200);
    const last = created[burst - 1]!.body.requestId as number;
    const description = await ctx.client.workflow
      .getHandle(`privacy-request/${cred.tenant}/${last}`)
      .describe();
    expect(description.status.name).toBe('RUNNING');
  });

  it('promise-to-pay creates all complete, each with its own promise and a running workflow', async () => {
    const lender = await credentialFor(ctx, cred.tenant, {
      scopes: ['servicing:read', 'servicing:write', 'lending:read', 'lending:write'],
    });
    const caseId = await openCase(ctx, lender, { caseTypeCode: 'GENERAL', summary: 'Past due' });
    const { loanId } = await fundedLoan(ctx, lender);
    const promisedDate = addDays(localDate(Date.now(), 'America/Los_Angeles'), 10);
    const created = await within(
      Promise.all(
        Array.from({ length: burst }, (_, i) =>
          call(
            ctx,
            lender,
            'POST',
            '/v1/servicing/promises',
            { caseId, loanId, amount: '10.00', currency: 'USD', promisedDate, channel: 'PHONE' },
            i % 2 === 0 ? { 'idempotency-key': newKey('pool') } : {},
          ),
        ),
      ),
      30_000,
    );
    expect(created.map((c) => c.status)).toEqual(Array(burst).fill(201));
    expect(new Set(created.map((c) => c.body.promiseId)).size).toBe(burst);
    const health = await within(Promise.resolve(ctx.app.request('/healthz')), 5_000);
    expect(health.status).toBe(200);
    const description = await ctx.client.workflow
      .getHandle(promiseWorkflowId(cred.tenant, created[burst - 1]!.body.promiseId))
      .describe();
    expect(description.status.name).toBe('RUNNING');
  });

  it('case opens, interaction logs and evidence records all complete', async () => {
    const cases = await within(
      Promise.all(
        Array.from({ length: burst }, () =>
          call(ctx, cred, 'POST', '/v1/servicing/cases', {
            customerRef: 'cus_2',
            caseTypeCode: 'GENERAL',
            summary: 'Burst',
          }),
        ),
      ),
      30_000,
    );
    expect(cases.map((c) => c.status)).toEqual(Array(burst).fill(201));
    const followUps = await within(
      Promise.all(
        cases.flatMap((c) => [
          call(ctx, cred, 'POST', '/v1/servicing/interactions', {
            customerRef: 'cus_2',
            caseId: c.body.caseId,
            channel: 'PHONE',
            direction: 'INBOUND',
            summary: 'Called',
          }),
          call(ctx, cred, 'POST', '/v1/servicing/evidence', {
            caseId: c.body.caseId,
            evidenceType: 'CALL_RECORDING',
            description: 'Recording',
          }),
        ]),
      ),
      30_000,
    );
    expect(followUps.map((f) => f.status)).toEqual(Array(2 * burst).fill(201));
  });
});
