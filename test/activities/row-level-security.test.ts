/**
 * Row-level security (docs/design.md §3): a tenant transaction sees and writes only its own tenant's rows,
 * even when the query forgets its tenant filter.
 */
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDb } from '../../db/client';
import {
  caseEffects,
  cases,
  caseTypeFieldPublications,
  caseTypes,
  evidence,
  formEntries,
  formEntryHistory,
  idempotencyKeys,
  interactions,
  outboxEvents,
  privacyRequestEvidence,
  privacyRequests,
  tasks,
} from '../../db/schema';
import { withPlatformTransaction, withTenantTransaction } from '../../db/tenant-tx';
import { type ActivityHarness, createHarness, newTenant } from './helpers';

let h: ActivityHarness;
let tenantA: string;
let tenantB: string;
let caseA: number;

const tenantTables = {
  caseTypes,
  cases,
  caseEffects,
  tasks,
  interactions,
  evidence,
  privacyRequests,
  privacyRequestEvidence,
  outboxEvents,
  idempotencyKeys,
  caseTypeFieldPublications,
  formEntries,
  formEntryHistory,
} as const;

beforeAll(async () => {
  h = createHarness();
  tenantA = await newTenant(h, 'rls-a');
  tenantB = await newTenant(h, 'rls-b');
  // Tenant A gets a row in every tenant table.
  const a = h.activities;
  caseA = (
    await a.openCase({ tenantId: tenantA, customerRef: 'cus_a', caseTypeCode: 'PRIVACY', summary: 'A' })
  ).caseId;
  const { interactionId } = await a.logInteraction({
    tenantId: tenantA,
    customerRef: 'cus_a',
    caseId: caseA,
    channel: 'EMAIL',
    direction: 'INBOUND',
    summary: 'A',
  });
  const { evidenceId } = await a.addEvidence({
    tenantId: tenantA,
    caseId: caseA,
    evidenceType: 'LETTER',
    description: 'A',
  });
  const request = await a.openPrivacyRequest({
    tenantId: tenantA,
    customerRef: 'cus_a',
    requestType: 'ACCESS',
    regime: 'CCPA_CPRA',
    summary: 'A',
    caseId: caseA,
    sourceInteractionId: interactionId,
  });
  await a.fulfilPrivacyRequest({
    tenantId: tenantA,
    requestId: request.requestId,
    outcome: 'FULFILLED',
    outcomeReason: 'A',
    evidenceIds: [evidenceId],
  });
  const publication = await a.publishFieldDefinitions({
    tenantId: tenantA,
    caseTypeCode: 'PRIVACY',
    fieldDefinitions: {
      sections: [
        {
          key: 's',
          label: 'S',
          fields: [{ key: 'note', label: 'Note', type: 'TEXT', requiredAt: 'OPTIONAL' }],
        },
      ],
    },
  });
  await a.createFormEntry({
    tenantId: tenantA,
    caseId: caseA,
    publicationId: publication.publicationId,
    answers: { note: 'A' },
  });
  await a.closeCase({ tenantId: tenantA, caseId: caseA, outcomeCode: 'RESOLVED', closureReason: 'A' });
  await h.platform.claimIdempotencyKey({
    tenantId: tenantA,
    environment: 'sandbox',
    clientId: 'cli_a',
    key: 'k1',
    fingerprint: 'f',
    routeTemplate: '/v1/x',
  });
});
afterAll(async () => h?.close());

describe('row-level security', () => {
  it("tenant A's rows exist in every tenant table (seen by the owner role)", async () => {
    const counts = await withPlatformTransaction(h.db, async (tx) => {
      const out: Record<string, number> = {};
      for (const [name, table] of Object.entries(tenantTables)) {
        out[name] = (await tx.select().from(table).where(eq(table.tenantId, tenantA))).length;
      }
      return out;
    });
    for (const [name, count] of Object.entries(counts)) expect(count, name).toBeGreaterThan(0);
  });

  it("a transaction of tenant B sees none of tenant A's rows, even without a tenant filter", async () => {
    const seen = await withTenantTransaction(h.db, tenantB, async (tx) => {
      const out: Record<string, string[]> = {};
      for (const [name, table] of Object.entries(tenantTables)) {
        out[name] = (await tx.select({ tenantId: table.tenantId }).from(table)).map((r) => r.tenantId);
      }
      return out;
    });
    for (const [name, owners] of Object.entries(seen)) {
      expect(
        owners.filter((t) => t !== tenantB),
        name,
      ).toEqual([]);
    }
    // Tenant B still sees its own rows (its default case types), so the query itself works.
    expect(seen.caseTypes?.length).toBeGreaterThan(0);
  });

  it("tenant A's own transaction sees its rows", async () => {
    const own = await withTenantTransaction(h.db, tenantA, (tx) =>
      tx.select().from(cases).where(eq(cases.id, caseA)),
    );
    expect(own).toHaveLength(1);
  });

  it("a transaction of tenant B cannot change or delete tenant A's rows", async () => {
    const result = await withTenantTransaction(h.db, tenantB, async (tx) => ({
      updated: await tx.update(cases).set({ summary: 'hijacked' }).where(eq(cases.id, caseA)).returning(),
      // case_effects is append-only (no DELETE at all); tasks are deletable, but not across tenants.
      deleted: await tx.delete(tasks).where(eq(tasks.caseId, caseA)).returning(),
    }));
    expect(result).toEqual({ updated: [], deleted: [] });
    const [row] = await withTenantTransaction(h.db, tenantA, (tx) =>
      tx.select().from(cases).where(eq(cases.id, caseA)),
    );
    expect(row?.summary).toBe('A');
  });

  it('a transaction of tenant B cannot insert a row for tenant A', async () => {
    await expect(
      withTenantTransaction(h.db, tenantB, (tx) =>
        tx
          .insert(cases)
          .values({ tenantId: tenantA, customerRef: 'x', caseTypeCode: 'GENERAL', summary: 'planted' }),
      ),
    ).rejects.toThrow();
    const planted = await withTenantTransaction(h.db, tenantA, (tx) =>
      tx.select().from(cases).where(eq(cases.summary, 'planted')),
    );
    expect(planted).toEqual([]);
  });

  it('runs tenant transactions as the non-owner role, and the next transaction on the connection is not', async () => {
    // One connection, so the platform transaction reuses the tenant transaction's session.
    const single = createDb(inject('databaseUrl'), { maxConnections: 1 });
    const whoAmI = sql`select current_user as role, coalesce(current_setting('app.tenant_id', true), '') as tenant`;
    try {
      const inside = await withTenantTransaction(
        single.db,
        tenantB,
        async (tx) => (await tx.execute(whoAmI))[0],
      );
      expect(inside).toEqual({ role: 'lending_app', tenant: tenantB });
      const after = await withPlatformTransaction(single.db, async (tx) => (await tx.execute(whoAmI))[0]);
      expect(after?.role).not.toBe('lending_app');
      expect(after?.tenant).toBe('');
      const seenAsOwner = await withPlatformTransaction(single.db, (tx) =>
        tx.select().from(cases).where(eq(cases.id, caseA)),
      );
      expect(seenAsOwner).toHaveLength(1);
    } finally {
      await single.close();
    }
  });
});
