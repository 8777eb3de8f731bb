/**
 * Operations on the throw-away PostgreSQL of the global setup, with a clock the test moves, and
 * readers that look at rows the way the application does (inside a tenant transaction, RLS on).
 */
import { randomBytes } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { inject } from 'vitest';
import { createActivities, createPlatformOperations, type Deps } from '../../activities';
import { createDb } from '../../db/client';
import { caseEffects, loanProducts, outboxEvents, tasks } from '../../db/schema';
import { type Tx, withTenantTransaction } from '../../db/tenant-tx';
import { DomainError, type ErrorCode } from '../../domain/errors';

export interface ActivityHarness {
  deps: Deps;
  db: Deps['db'];
  activities: ReturnType<typeof createActivities>;
  platform: ReturnType<typeof createPlatformOperations>;
  /** The instant operations see; null means the real clock. */
  now: { value: Date | null };
  close(): Promise<void>;
}

export function createHarness(environment: 'sandbox' | 'production' = 'sandbox'): ActivityHarness {
  const { db, close } = createDb(inject('databaseUrl'), { maxConnections: 6 });
  const now: { value: Date | null } = { value: null };
  const deps: Deps = {
    db,
    clock: () => now.value ?? new Date(),
    secretPepper: 'activity-test-pepper',
    dataEncryptionKey: 'a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf',
    environment,
  };
  return {
    deps,
    db,
    activities: createActivities(deps),
    platform: createPlatformOperations(deps),
    now,
    close,
  };
}

/** A fresh tenant id (the tenant is not created). */
export function newTenantId(prefix = 'act'): string {
  return `${prefix}-${randomBytes(5).toString('hex')}`;
}

/** Creates a tenant with its default case types and returns its id. */
export async function newTenant(h: ActivityHarness, prefix = 'act'): Promise<string> {
  const tenantId = newTenantId(prefix);
  await h.platform.ensureTenant({ tenantId });
  return tenantId;
}

/** A fresh request key in the `<clientId>/<Idempotency-Key>` form. */
export function newRequestKey(): string {
  // base64url: a hex key is all digits often enough to trip the account-number check (8+ digits).
  return `cli_test/${randomBytes(8).toString('base64url')}`;
}

/** The DomainError a promise rejects with (fails when it resolves or rejects with anything else). */
export async function domainErrorOf(promise: Promise<unknown>): Promise<DomainError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof DomainError) return err;
    throw err;
  }
  throw new Error('expected a DomainError, the operation succeeded');
}

/** Asserts the code of the DomainError a promise rejects with and returns the error. */
export async function expectDomainError(promise: Promise<unknown>, code: ErrorCode): Promise<DomainError> {
  const err = await domainErrorOf(promise);
  if (err.code !== code) throw new Error(`expected ${code}, got ${err.code}: ${err.message}`);
  return err;
}

export function effectsOf(h: ActivityHarness, tenantId: string, caseId: number, effectType?: string) {
  return withTenantTransaction(h.db, tenantId, (tx) =>
    tx
      .select()
      .from(caseEffects)
      .where(
        and(
          eq(caseEffects.caseId, caseId),
          effectType === undefined ? undefined : eq(caseEffects.effectType, effectType),
        ),
      )
      .orderBy(caseEffects.id),
  );
}

export function tasksOf(h: ActivityHarness, tenantId: string, caseId: number, taskType?: string) {
  return withTenantTransaction(h.db, tenantId, (tx) =>
    tx
      .select()
      .from(tasks)
      .where(and(eq(tasks.caseId, caseId), taskType === undefined ? undefined : eq(tasks.taskType, taskType)))
      .orderBy(tasks.id),
  );
}

export function outboxOf(h: ActivityHarness, tenantId: string, subjectId: string | number) {
  return withTenantTransaction(h.db, tenantId, (tx) =>
    tx
      .select()
      .from(outboxEvents)
      .where(eq(outboxEvents.subjectId, String(subjectId)))
      .orderBy(outboxEvents.id),
  );
}

/**
 * A bare loan-product row of `tenant` written directly, for tests that need a loan to exist
 * (loans reference their product by a tenant-consistent foreign key) but not its terms.
 */
export async function insertBareLoanProduct(tx: Tx, tenantId: string): Promise<number> {
  const [row] = await tx
    .insert(loanProducts)
    .values({
      tenantId,
      name: `Bare product ${randomBytes(3).toString('hex')}`,
      shortName: 'BARE',
      currencyCode: 'USD',
      digitsAfterDecimal: 2,
      principal: '1000',
      numberOfRepayments: 12,
      interestRatePerPeriod: '1',
      repaymentEvery: 1,
      repaymentFrequencyType: 2,
      interestRateFrequencyType: 2,
      interestType: 0,
      amortizationType: 1,
      interestCalculationPeriodType: 1,
      daysInYearType: 1,
      daysInMonthType: 1,
      transactionProcessingStrategyCode: 'mifos-standard-strategy',
      lmsConfig: {},
      configurationStatus: 'MISSING_PRODUCT_CLASS',
    })
    .returning({ id: loanProducts.id });
  return row!.id;
}
