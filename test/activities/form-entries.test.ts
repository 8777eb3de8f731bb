/**
 * Case types, field-definition publications and form entries on the real PostgreSQL: every write runs twice
 * under the same request key and leaves one row, one history item and one effect (docs/conventions.md §11); the ON_CLOSE check
 * of `closeCase` (docs/processes.md P4).
 */
import { asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caseTypeFieldPublications, caseTypes, formEntries, formEntryHistory } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import type { FieldDefinitions } from '../../domain/servicing/form-fields';
import {
  type ActivityHarness,
  createHarness,
  effectsOf,
  expectDomainError,
  newRequestKey,
  newTenant,
} from './helpers';

let h: ActivityHarness;
let tenant: string;

beforeAll(async () => {
  h = createHarness();
  tenant = await newTenant(h, 'forms');
});
afterAll(async () => h?.close());

const definitions: FieldDefinitions = {
  sections: [
    {
      key: 'main',
      label: 'Main',
      fields: [
        { key: 'reason', label: 'Reason', type: 'TEXT', requiredAt: 'ON_CREATE' },
        { key: 'outcome', label: 'Outcome', type: 'ENUM', requiredAt: 'ON_CLOSE', options: ['DONE'] },
      ],
    },
  ],
};

let n = 0;
async function typedCase(): Promise<{ caseTypeCode: string; publicationId: number; caseId: number }> {
  n += 1;
  const caseTypeCode = `ACT_FORMS_${n.toString(36).toUpperCase()}`;
  await h.activities.createCaseType({ tenantId: tenant, caseTypeCode, displayName: 'Forms' });
  const { publicationId } = await h.activities.publishFieldDefinitions({
    tenantId: tenant,
    caseTypeCode,
    fieldDefinitions: definitions,
  });
  const { caseId } = await h.activities.openCase({
    tenantId: tenant,
    customerRef: 'cus_1',
    caseTypeCode,
    summary: 'Forms',
  });
  return { caseTypeCode, publicationId, caseId };
}

function rows<T>(query: (tx: Parameters<Parameters<typeof withTenantTransaction>[2]>[0]) => Promise<T>) {
  return withTenantTransaction(h.db, tenant, query);
}

describe('case types and publications', () => {
  it('createCaseType twice with the same request key creates one type; without it the second is a duplicate', async () => {
    const requestKey = newRequestKey();
    const input = { tenantId: tenant, requestKey, caseTypeCode: 'ACT_TWICE', displayName: 'Twice' };
    const first = await h.activities.createCaseType(input);
    expect(await h.activities.createCaseType(input)).toEqual(first);
    expect(
      await rows((tx) => tx.select().from(caseTypes).where(eq(caseTypes.code, 'ACT_TWICE'))),
    ).toHaveLength(1);
    await expectDomainError(
      h.activities.createCaseType({ ...input, requestKey: newRequestKey() }),
      'error.msg.case.type.duplicate',
    );
  });

  it('publishFieldDefinitions twice with the same request key publishes one version; another key the next', async () => {
    const { caseTypeCode } = await typedCase();
    const requestKey = newRequestKey();
    const input = { tenantId: tenant, requestKey, caseTypeCode, fieldDefinitions: definitions };
    const first = await h.activities.publishFieldDefinitions(input);
    expect(await h.activities.publishFieldDefinitions(input)).toEqual(first);
    expect(first.version).toBe(2);
    const third = await h.activities.publishFieldDefinitions({ ...input, requestKey: newRequestKey() });
    expect(third.version).toBe(3);
    const versions = await rows((tx) =>
      tx
        .select({ version: caseTypeFieldPublications.version })
        .from(caseTypeFieldPublications)
        .where(eq(caseTypeFieldPublications.caseTypeCode, caseTypeCode)),
    );
    expect(versions.map((v) => v.version).sort()).toEqual([1, 2, 3]);
  });
});

describe('form entries', () => {
  it('createFormEntry twice with the same request key: one entry, one history item, one effect', async () => {
    const { caseId, publicationId } = await typedCase();
    const requestKey = newRequestKey();
    const input = { tenantId: tenant, requestKey, caseId, publicationId, answers: { reason: 'r' } };
    const first = await h.activities.createFormEntry(input);
    expect(await h.activities.createFormEntry(input)).toEqual(first);
    expect(
      await rows((tx) => tx.select().from(formEntries).where(eq(formEntries.caseId, caseId))),
    ).toHaveLength(1);
    expect(
      await rows((tx) =>
        tx.select().from(formEntryHistory).where(eq(formEntryHistory.entryId, first.entryId)),
      ),
    ).toHaveLength(1);
    expect(await effectsOf(h, tenant, caseId, 'FORM_ENTRY_CREATED')).toHaveLength(1);
  });

  it('updateFormEntry twice with the same request key applies once, even after a later change', async () => {
    const { caseId, publicationId } = await typedCase();
    const entry = await h.activities.createFormEntry({
      tenantId: tenant,
      caseId,
      publicationId,
      answers: { reason: 'a' },
    });
    const requestKey = newRequestKey();
    const input = {
      tenantId: tenant,
      requestKey,
      entryId: entry.entryId,
      answers: { reason: 'b' },
      reason: 'fix',
    };
    const first = await h.activities.updateFormEntry(input);
    expect(first.changes).toEqual([{ fieldKey: 'reason', operation: 'SET', before: 'a', after: 'b' }]);
    await h.activities.updateFormEntry({ ...input, requestKey: newRequestKey(), answers: { reason: 'c' } });
    const retried = await h.activities.updateFormEntry(input);
    expect(retried.changes).toEqual(first.changes);
    expect(retried.answers).toEqual({ reason: 'c' });
    const history = await rows((tx) =>
      tx
        .select()
        .from(formEntryHistory)
        .where(eq(formEntryHistory.entryId, entry.entryId))
        .orderBy(asc(formEntryHistory.id)),
    );
    expect(history.map((item) => item.action)).toEqual([
      'ANSWERS_CREATED',
      'ANSWERS_UPDATED',
      'ANSWERS_UPDATED',
    ]);
    expect(await effectsOf(h, tenant, caseId, 'FORM_ENTRY_UPDATED')).toHaveLength(2);
  });

  it('closeCase refuses a missing ON_CLOSE answer and leaves the case OPEN, then closes once it is answered', async () => {
    const { caseId, publicationId } = await typedCase();
    const entry = await h.activities.createFormEntry({
      tenantId: tenant,
      caseId,
      publicationId,
      answers: { reason: 'r' },
    });
    const close = { tenantId: tenant, caseId, outcomeCode: 'RESOLVED', closureReason: 'Done' };
    const refused = await expectDomainError(
      h.activities.closeCase(close),
      'error.msg.case.close.required.answers.missing',
    );
    expect(refused.errors.map((e) => e.parameterName)).toEqual(['answers.outcome']);
    expect(await effectsOf(h, tenant, caseId, 'CASE_CLOSED')).toHaveLength(0);
    await h.activities.updateFormEntry({
      tenantId: tenant,
      entryId: entry.entryId,
      answers: { outcome: 'DONE' },
      reason: 'done',
    });
    expect(await h.activities.closeCase(close)).toMatchObject({ status: 'CLOSED' });
  });
});
