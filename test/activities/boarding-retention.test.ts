/**
 * Identifiers in staged boarding lines and the retention of raw lines (docs/design.md §3 Data rules: government identifiers
 * are accepted once and stored encrypted, AES-256-GCM with the configured key; domain/boarding/retention.ts):
 * staging stores a customer line's identifier values encrypted, never in clear, and boarding still gives the
 * customer its identifier (decrypted in memory when the line is read); the daily purge empties the raw text of
 * finished batches past the retention only, keeping each line's kind, refs, state and error.
 */
import { and, asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLineIdentifiers, sealLineIdentifiers } from '../../activities/boarding/line-crypto';
import { boardingBatches, boardingLines, customerIdentifiers } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { customerLine, refPrefix, stageBatch } from '../support/boarding';
import { type ActivityHarness, createHarness, newTenant } from './helpers';

let h: ActivityHarness;
beforeAll(() => {
  h = createHarness();
});
afterAll(async () => {
  await h.close();
});

const ssn = '536-22-8417';

async function* bytesOf(text: string): AsyncGenerator<Uint8Array> {
  yield new TextEncoder().encode(text);
}

async function linesOf(tenantId: string, batchId: number) {
  return withTenantTransaction(h.db, tenantId, (tx) =>
    tx
      .select()
      .from(boardingLines)
      .where(and(eq(boardingLines.tenantId, tenantId), eq(boardingLines.batchId, batchId)))
      .orderBy(asc(boardingLines.lineNo)),
  );
}

/** Validates and boards the batch's customer lines as the workflow does. */
async function boardCustomers(tenantId: string, batchId: number) {
  const page = await h.activities.validateBoardingPage({ tenantId, batchId, kind: 'customer', afterLine: 0 });
  expect(page.failed).toBe(0);
  const chunks = await h.activities.planBoardingChunks({
    tenantId,
    batchId,
    kind: 'customer',
    afterLine: 0,
    chunkSize: 10,
    maxChunks: 10,
  });
  for (const chunk of chunks)
    await h.activities.boardBoardingChunk({ tenantId, batchId, kind: 'customer', ...chunk });
}

describe('identifiers in staged lines', () => {
  it('are stored encrypted at staging, and boarding still records the identifier', async () => {
    const tenantId = await newTenant(h, 'bret');
    const p = refPrefix('ret');
    const line = customerLine(p, 1);
    line.body.identifiers = [{ identifierType: 'SSN', value: ssn, issuingCountry: 'US' }];
    const staged = await h.platform.stageBoardingBatch({
      tenantId,
      body: bytesOf(`${JSON.stringify(line)}\n`),
      fileName: 'retention.ndjson',
    });
    const [row] = await linesOf(tenantId, staged.batch.batchId);
    expect(row?.state).toBe('PENDING');
    expect(row?.raw).not.toContain(ssn);
    expect(row?.raw).not.toContain('536228417');
    expect(row?.raw).toContain('"value":"enc:v1:');
    // Everything but the value is kept.
    expect(JSON.parse(row?.raw ?? '{}').body.firstName).toBe('Ada');

    await boardCustomers(tenantId, staged.batch.batchId);
    const identifiers = await withTenantTransaction(h.db, tenantId, (tx) =>
      tx.select().from(customerIdentifiers).where(eq(customerIdentifiers.tenantId, tenantId)),
    );
    expect(identifiers.map((i) => [i.identifierType, i.mask])).toEqual([['SSN', '***-**-8417']]);
    const [boarded] = await linesOf(tenantId, staged.batch.batchId);
    expect(boarded?.state).toBe('BOARDED');
  });

  it('a sealed value opens only for its tenant and type; other lines are stored as uploaded', () => {
    const key = h.deps.dataEncryptionKey;
    const raw = JSON.stringify({
      kind: 'customer',
      sourceRef: 'c-1',
      body: { identifiers: [{ identifierType: 'SSN', value: ssn }] },
    });
    const sealed = sealLineIdentifiers(key, 'tenant-a', 'customer', raw);
    expect(sealed).not.toContain(ssn);
    const body = JSON.parse(sealed).body;
    expect(openLineIdentifiers(key, 'tenant-a', body)).toEqual({
      identifiers: [{ identifierType: 'SSN', value: ssn }],
    });
    expect(openLineIdentifiers(key, 'tenant-b', body)).toEqual({
      identifiers: [{ identifierType: 'SSN', value: '' }],
    });
    const payment = JSON.stringify({ kind: 'payment', sourceRef: 'p-1', body: { amount: '1.00' } });
    expect(sealLineIdentifiers(key, 'tenant-a', 'payment', payment)).toBe(payment);
    expect(sealLineIdentifiers(key, 'tenant-a', 'customer', 'not json')).toBe('not json');
  });
});

describe('purge of finished batches', () => {
  it('empties the raw lines of finished batches past the cutoff only, keeping refs, state and errors', async () => {
    const tenantId = await newTenant(h, 'bpur');
    const p = refPrefix('pur');
    const old = await stageBatch(h.db, tenantId, [customerLine(p, 1), 'not json']);
    const recent = await stageBatch(h.db, tenantId, [customerLine(p, 2)]);
    const running = await stageBatch(h.db, tenantId, [customerLine(p, 3)]);
    const day = 86_400_000;
    const cutoff = Date.UTC(2026, 0, 31);
    const finish = (batchId: number, status: string, completedAt: Date | null) =>
      withTenantTransaction(h.db, tenantId, (tx) =>
        tx.update(boardingBatches).set({ status, completedAt }).where(eq(boardingBatches.id, batchId)),
      );
    await finish(old, 'COMPLETED_WITH_ERRORS', new Date(cutoff - day));
    await finish(recent, 'COMPLETED', new Date(cutoff + day));
    await finish(running, 'RUNNING', new Date(cutoff - day));
    const error = { developerMessage: 'Line 2 is not JSON.', httpStatusCode: '400' };
    await withTenantTransaction(h.db, tenantId, (tx) =>
      tx
        .update(boardingLines)
        .set({ error: error as never })
        .where(and(eq(boardingLines.batchId, old), eq(boardingLines.lineNo, 2))),
    );

    let purged = 0;
    for (;;) {
      const page = await h.activities.purgeBoardingRawLines({ cutoffMs: cutoff, batchesPerCall: 1 });
      purged += page.batchesPurged;
      if (!page.more) break;
    }
    expect(purged).toBeGreaterThanOrEqual(1);
    const oldLines = await linesOf(tenantId, old);
    expect(oldLines.map((l) => [l.lineNo, l.raw, l.kind, l.sourceRef, l.state])).toEqual([
      [1, null, 'customer', `${p}-cust-1`, 'PENDING'],
      [2, null, null, null, 'FAILED'],
    ]);
    expect(oldLines[1]?.error).toEqual(error);
    expect((await linesOf(tenantId, recent))[0]?.raw).not.toBeNull();
    expect((await linesOf(tenantId, running))[0]?.raw).not.toBeNull();
    const [batch] = await withTenantTransaction(h.db, tenantId, (tx) =>
      tx.select().from(boardingBatches).where(eq(boardingBatches.id, old)),
    );
    expect(batch?.rawPurgedAt).not.toBeNull();
    // A second run finds nothing more of this tenant to purge.
    const again = await h.activities.purgeBoardingRawLines({ cutoffMs: cutoff, batchesPerCall: 1_000 });
    expect(again.more).toBe(false);
    expect((await linesOf(tenantId, recent))[0]?.raw).not.toBeNull();
  });
});
