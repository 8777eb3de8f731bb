/**
 * AI session operations on the real PostgreSQL (docs/processes.md P4; docs/conventions.md §11): every write runs twice under one
 * request key and leaves one row, one task, one set of effects; concurrent outputs of one session serialize on
 * the session's row lock (sequence 1..n, version n + 1); citations are checked against the tenant's evidence.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aiOutputCitations, aiSessionOutputs, aiSessions } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import {
  type ActivityHarness,
  createHarness,
  effectsOf,
  expectDomainError,
  newRequestKey,
  newTenant,
  tasksOf,
} from './helpers';

let h: ActivityHarness;
let tenant: string;
let otherTenant: string;

beforeAll(async () => {
  h = createHarness();
  tenant = await newTenant(h, 'ais');
  otherTenant = await newTenant(h, 'ais-other');
});
afterAll(async () => h?.close());

async function openCase(tenantId: string, customerRef = 'cus_ai'): Promise<number> {
  const created = await h.activities.openCase({
    tenantId,
    requestKey: newRequestKey(),
    customerRef,
    caseTypeCode: 'GENERAL',
    summary: 'Inbound call',
  });
  return created.caseId;
}

async function addEvidence(tenantId: string, caseId: number): Promise<number> {
  const added = await h.activities.addEvidence({
    tenantId,
    requestKey: newRequestKey(),
    caseId,
    evidenceType: 'CALL_RECORDING',
    description: 'Recording',
  });
  return added.evidenceId;
}

function sessionsWithKey(tenantId: string, requestKey: string) {
  return withTenantTransaction(h.db, tenantId, (tx) =>
    tx.select().from(aiSessions).where(eq(aiSessions.requestKey, requestKey)),
  );
}

function outputsWithKey(tenantId: string, requestKey: string) {
  return withTenantTransaction(h.db, tenantId, (tx) =>
    tx.select().from(aiSessionOutputs).where(eq(aiSessionOutputs.requestKey, requestKey)),
  );
}

describe('openAiSession', () => {
  it('run twice with one request key: one session, one AI_SESSION_OPENED effect', async () => {
    const caseId = await openCase(tenant);
    const input = {
      tenantId: tenant,
      requestKey: newRequestKey(),
      caseId,
      customerRef: 'cus_ai',
      purpose: 'Assist',
    };
    const first = await h.activities.openAiSession(input);
    const second = await h.activities.openAiSession(input);
    expect(second).toEqual(first);
    expect(first).toMatchObject({ version: 1, caseId, customerRef: 'cus_ai' });
    expect(await sessionsWithKey(tenant, input.requestKey)).toHaveLength(1);
    expect(await effectsOf(h, tenant, caseId, 'AI_SESSION_OPENED')).toHaveLength(1);
  });

  it("refuses another tenant's case (404) and stores nothing", async () => {
    const foreign = await openCase(otherTenant);
    await expectDomainError(
      h.activities.openAiSession({ tenantId: tenant, caseId: foreign, customerRef: 'cus_ai', purpose: 'x' }),
      'error.msg.resource.not.found',
    );
  });
});

describe('recordAiOutput', () => {
  it('run twice with one request key: one output, its citations, one review task, one version step', async () => {
    const caseId = await openCase(tenant);
    const session = await h.activities.openAiSession({
      tenantId: tenant,
      caseId,
      customerRef: 'cus_ai',
      purpose: 'p',
    });
    const evidenceId = await addEvidence(tenant, caseId);
    const input = {
      tenantId: tenant,
      requestKey: newRequestKey(),
      aiSessionId: session.aiSessionId,
      type: 'customer_message_draft' as const,
      content: 'Dear customer, …',
      citations: [{ fact: 'Asked for a plan', evidenceId }],
      confidence: 'high' as const,
      expectedVersion: 1,
    };
    const first = await h.activities.recordAiOutput(input);
    const second = await h.activities.recordAiOutput(input);
    expect(second).toEqual(first);
    expect(first).toMatchObject({ status: 'produced', reviewRequired: true, sessionVersion: 2 });
    expect(await outputsWithKey(tenant, input.requestKey)).toHaveLength(1);
    const citations = await withTenantTransaction(h.db, tenant, (tx) =>
      tx.select().from(aiOutputCitations).where(eq(aiOutputCitations.outputId, first.outputId)),
    );
    expect(citations.map((c) => [c.position, c.evidenceId])).toEqual([[0, evidenceId]]);
    expect(await tasksOf(h, tenant, caseId, 'AI_OUTPUT_REVIEW')).toHaveLength(1);
    expect(await effectsOf(h, tenant, caseId, 'AI_OUTPUT_PRODUCED')).toHaveLength(1);
    expect(await effectsOf(h, tenant, caseId, 'TASK_CREATED')).toHaveLength(1);
  });

  it('serializes concurrent outputs of one session: sequences 1..8, version 9', async () => {
    const caseId = await openCase(tenant);
    const session = await h.activities.openAiSession({
      tenantId: tenant,
      caseId,
      customerRef: 'cus_ai',
      purpose: 'p',
    });
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        h.activities.recordAiOutput({
          tenantId: tenant,
          aiSessionId: session.aiSessionId,
          type: 'call_summary',
          content: 'Summary',
          citations: [],
          confidence: 'high',
          expectedVersion: null,
        }),
      ),
    );
    expect(results.map((r) => r.sessionVersion).sort((a, b) => a - b)).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
    const outputs = await withTenantTransaction(h.db, tenant, (tx) =>
      tx.select().from(aiSessionOutputs).where(eq(aiSessionOutputs.sessionId, session.aiSessionId)),
    );
    expect(outputs.map((o) => o.sequence).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('refuses evidence of another tenant, a stale version and a session of another tenant, storing nothing', async () => {
    const caseId = await openCase(tenant);
    const session = await h.activities.openAiSession({
      tenantId: tenant,
      caseId,
      customerRef: 'cus_ai',
      purpose: 'p',
    });
    const foreignEvidence = await addEvidence(otherTenant, await openCase(otherTenant));
    const base = {
      tenantId: tenant,
      aiSessionId: session.aiSessionId,
      type: 'call_summary' as const,
      content: 'Summary',
      citations: [] as { fact: string; evidenceId: number }[],
      confidence: 'low' as const,
      expectedVersion: null as number | null,
    };
    const err = await expectDomainError(
      h.activities.recordAiOutput({ ...base, citations: [{ fact: 'f', evidenceId: foreignEvidence }] }),
      'validation.msg.validation.errors.exist',
    );
    expect(err.errors.map((e) => e.parameterName)).toEqual(['citations[0].evidenceId']);
    await expectDomainError(
      h.activities.recordAiOutput({ ...base, expectedVersion: 2 }),
      'error.msg.ai.session.version.conflict',
    );
    await expectDomainError(
      h.activities.recordAiOutput({ ...base, tenantId: otherTenant }),
      'error.msg.resource.not.found',
    );
    expect(await tasksOf(h, tenant, caseId, 'AI_OUTPUT_REVIEW')).toHaveLength(0);
    const outputs = await withTenantTransaction(h.db, tenant, (tx) =>
      tx.select().from(aiSessionOutputs).where(eq(aiSessionOutputs.sessionId, session.aiSessionId)),
    );
    expect(outputs).toHaveLength(0);
  });
});
