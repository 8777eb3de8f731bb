/**
 * More concurrent writes than the database pool has connections (docs/processes.md P0 "Known
 * defect to fix first"): an operation must never hold its transaction's connection while asking
 * the pool for a second one, or a burst leaves every connection idle in transaction and wedges
 * the service (`/healthz` included). Pool of 5, bursts of 20 through the API, with the servicing
 * worker running its activities on the same pool.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contactPoints } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
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
    const { loanId, customerId } = await fundedLoan(ctx, lender);
    const borrower = await call(ctx, lender, 'GET', `/v1/customers/${customerId}`);
    const caseId = await openCase(ctx, lender, {
      customerRef: borrower.body.customerRef,
      caseTypeCode: 'GENERAL',
      summary: 'Past due',
    });
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

  it('field-definition publications, form-entry creates and updates all complete, serialized where they must be', async () => {
    const caseTypeCode = `POOL_${Date.now().toString(36).toUpperCase()}`;
    const created = await call(ctx, cred, 'POST', '/v1/servicing/admin/case-types', {
      caseTypeCode,
      displayName: 'Pool',
    });
    expect(created.status).toBe(201);
    const fieldDefinitions = {
      sections: [
        {
          key: 's',
          label: 'S',
          fields: [{ key: 'note', label: 'Note', type: 'TEXT', requiredAt: 'OPTIONAL' }],
        },
      ],
    };
    const publications = await within(
      Promise.all(
        Array.from({ length: burst }, () =>
          call(ctx, cred, 'PUT', `/v1/servicing/admin/case-types/${caseTypeCode}/field-definitions`, {
            fieldDefinitions,
          }),
        ),
      ),
      30_000,
    );
    expect(publications.map((p) => p.status)).toEqual(Array(burst).fill(201));
    // One version each, numbered one after the other under the case type's lock.
    expect(publications.map((p) => p.body.version).sort((a, b) => a - b)).toEqual(
      Array.from({ length: burst }, (_, i) => i + 1),
    );
    const caseId = await openCase(ctx, cred, { caseTypeCode });
    const publicationId = publications[0]?.body.publicationId;
    const entries = await within(
      Promise.all(
        Array.from({ length: burst }, () =>
          call(ctx, cred, 'POST', '/v1/form-entries', { caseId, publicationId, answers: { note: 'n' } }),
        ),
      ),
      30_000,
    );
    expect(entries.map((e) => e.status)).toEqual(Array(burst).fill(201));
    const entryId = entries[0]?.body.entryId;
    const updates = await within(
      Promise.all(
        Array.from({ length: burst }, (_, i) =>
          call(ctx, cred, 'PATCH', `/v1/form-entries/${entryId}`, {
            answers: { note: `n${i.toString(36)}x` },
            reason: 'Burst',
          }),
        ),
      ),
      30_000,
    );
    expect(updates.map((u) => u.status)).toEqual(Array(burst).fill(200));
    // Applied one after the other: each change's `before` is the value another update left.
    const history = await call(ctx, cred, 'GET', `/v1/form-entries/${entryId}/history`);
    const items = history.body.items as { changes: { before: string; after: string }[] }[];
    expect(items).toHaveLength(burst + 1);
    for (let i = 1; i < items.length; i += 1) {
      expect(items[i]?.changes[0]?.before).toBe(items[i - 1]?.changes[0]?.after);
    }
  });
  it('contact-consent updates of one contact point (half applied at once, half scheduled) all complete', async () => {
    const customer = await ctx.activities.createCustomer({
      tenantId: cred.tenant,
      firstName: 'Pia',
      lastName: 'Pool',
      contactPoints: [{ contactType: 'PHONE', value: '(415) 555-2671' }],
    });
    const caseId = await openCase(ctx, cred, { customerRef: customer.customerRef });
    const [point] = await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
      tx
        .select({ contactPointRef: contactPoints.contactPointRef })
        .from(contactPoints)
        .where(eq(contactPoints.customerId, customer.customerId)),
    );
    const contactPointRef = point?.contactPointRef;
    const updates = await within(
      Promise.all(
        Array.from({ length: burst }, (_, i) =>
          call(
            ctx,
            cred,
            'POST',
            `/v1/servicing/cases/${caseId}/contact-consent-updates`,
            {
              customerRef: customer.customerRef,
              operation: 'UPDATE_SMS_PERMISSION',
              contactPointRef,
              canReceiveSms: i % 3 === 0,
              effectiveAt: new Date(Date.now() + (i % 2 === 0 ? -60_000 : 86_400_000)).toISOString(),
              reason: 'Burst',
            },
            i % 4 === 0 ? { 'idempotency-key': newKey('pool') } : {},
          ),
        ),
      ),
      30_000,
    );
    expect(updates.map((u) => u.status)).toEqual(Array(burst).fill(200));
    expect(updates.map((u) => u.body.outcome)).toEqual(
      Array.from({ length: burst }, (_, i) => (i % 2 === 0 ? 'COMPLETED' : 'SCHEDULED')),
    );
    const health = await within(Promise.resolve(ctx.app.request('/healthz')), 5_000);
    expect(health.status).toBe(200);
  });
  it('AI session outputs on one session all complete, serialized by the session lock: versions 2..21, each once', async () => {
    const caseId = await openCase(ctx, cred, { customerRef: 'cus_3' });
    const session = await call(ctx, cred, 'POST', '/v1/servicing/ai-sessions', {
      caseId,
      customerRef: 'cus_3',
      purpose: 'Burst',
    });
    expect(session.status, JSON.stringify(session.body)).toBe(201);
    const outputs = await within(
      Promise.all(
        Array.from({ length: burst }, (_, i) =>
          call(ctx, cred, 'POST', `/v1/servicing/ai-sessions/${session.body.aiSessionId}/outputs`, {
            type: 'call_summary',
            content: `Summary ${i}`,
            citations: [],
            confidence: i % 2 === 0 ? 'high' : 'low',
          }),
        ),
      ),
      30_000,
    );
    expect(outputs.map((o) => o.status)).toEqual(Array(burst).fill(201));
    expect(outputs.map((o) => o.body.sessionVersion).sort((a, b) => a - b)).toEqual(
      Array.from({ length: burst }, (_, i) => i + 2),
    );
  });
});
