/**
 * Read queries of AI sessions and their outputs (docs/servicing.md "AI sessions and their outputs"; docs/processes.md P4).
 * Each runs in one tenant-scoped read transaction, so row-level security confines it to `tenantId`.
 */
import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../client';
import { aiOutputCitations, aiSessionOutputs, aiSessions } from '../../schema';
import { type Tx, withTenantTransaction } from '../../tenant-tx';

/** An AI session as the API shows it. */
export interface AiSessionRead {
  aiSessionId: string;
  caseId: number;
  customerRef: string;
  purpose: string;
  /** Optimistic-concurrency version (the `ETag`): 1 at creation, +1 per accepted output. */
  version: number;
  createdAt: string;
  updatedAt: string;
}

/** An AI output as the API shows it; `citations` in the order sent, `evidenceId` as a string (spec). */
export interface AiOutputRead {
  outputId: string;
  aiSessionId: string;
  /** 1 for the session's first output, +1 each. */
  sequence: number;
  status: string;
  type: string;
  content: string;
  citations: { fact: string; evidenceId: string }[];
  confidence: string;
  reviewRequired: boolean;
  reviewTaskId: number | null;
  createdAt: string;
}

/** The session `aiSessionId` of `tenantId`, or null when absent or another tenant's. */
export async function getAiSession(
  db: Db,
  tenantId: string,
  aiSessionId: string,
): Promise<AiSessionRead | null> {
  const [row] = await withTenantTransaction(db, tenantId, (tx) =>
    tx
      .select()
      .from(aiSessions)
      .where(and(eq(aiSessions.tenantId, tenantId), eq(aiSessions.id, aiSessionId))),
  );
  return row ? aiSessionReadOf(row) : null;
}

/** The API view of an `ai_sessions` row. */
export function aiSessionReadOf(row: typeof aiSessions.$inferSelect): AiSessionRead {
  return {
    aiSessionId: row.id,
    caseId: row.caseId,
    customerRef: row.customerRef,
    purpose: row.purpose,
    version: row.version,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

async function withCitations(
  tx: Tx,
  tenantId: string,
  rows: (typeof aiSessionOutputs.$inferSelect)[],
): Promise<AiOutputRead[]> {
  if (rows.length === 0) return [];
  const citations = await tx
    .select()
    .from(aiOutputCitations)
    .where(
      and(
        eq(aiOutputCitations.tenantId, tenantId),
        inArray(
          aiOutputCitations.outputId,
          rows.map((r) => r.id),
        ),
      ),
    )
    .orderBy(asc(aiOutputCitations.outputId), asc(aiOutputCitations.position));
  const byOutput = new Map<string, { fact: string; evidenceId: string }[]>();
  for (const c of citations) {
    const list = byOutput.get(c.outputId) ?? [];
    list.push({ fact: c.fact, evidenceId: String(c.evidenceId) });
    byOutput.set(c.outputId, list);
  }
  return rows.map((row) => ({
    outputId: row.id,
    aiSessionId: row.sessionId,
    sequence: row.sequence,
    status: row.status,
    type: row.outputType,
    content: row.content,
    citations: byOutput.get(row.id) ?? [],
    confidence: row.confidence,
    reviewRequired: row.reviewRequired,
    reviewTaskId: row.reviewTaskId,
    createdAt: row.createdAt.toISOString(),
  }));
}

/**
 * One page of a session's outputs in the order they were produced (offset-paged; `limit + 1` rows at most, the
 * extra one meaning more follow), or null when the session is absent or another tenant's.
 */
export async function listAiOutputs(
  db: Db,
  tenantId: string,
  aiSessionId: string,
  page: { limit: number; offset: number },
): Promise<AiOutputRead[] | null> {
  return withTenantTransaction(db, tenantId, async (tx) => {
    const [session] = await tx
      .select({ id: aiSessions.id })
      .from(aiSessions)
      .where(and(eq(aiSessions.tenantId, tenantId), eq(aiSessions.id, aiSessionId)));
    if (!session) return null;
    const rows = await tx
      .select()
      .from(aiSessionOutputs)
      .where(and(eq(aiSessionOutputs.tenantId, tenantId), eq(aiSessionOutputs.sessionId, aiSessionId)))
      .orderBy(asc(aiSessionOutputs.sequence))
      .limit(page.limit + 1)
      .offset(page.offset);
    return withCitations(tx, tenantId, rows);
  });
}

/** The output `outputId` of session `aiSessionId` of `tenantId`, or null (absent, another session's or tenant's). */
export async function getAiOutput(
  db: Db,
  tenantId: string,
  aiSessionId: string,
  outputId: string,
): Promise<AiOutputRead | null> {
  return withTenantTransaction(db, tenantId, async (tx) => {
    const rows = await tx
      .select()
      .from(aiSessionOutputs)
      .where(
        and(
          eq(aiSessionOutputs.tenantId, tenantId),
          eq(aiSessionOutputs.sessionId, aiSessionId),
          eq(aiSessionOutputs.id, outputId),
        ),
      );
    const [output] = await withCitations(tx, tenantId, rows);
    return output ?? null;
  });
}
