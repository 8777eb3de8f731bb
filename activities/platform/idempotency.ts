/**
 * The Idempotency-Key store (spec § Shared header rules; docs/design.md §4 Idempotency-Key).
 * Uniqueness is (tenant, environment, client, key). A completed response is kept 24 h; a key
 * held by a request still running is locked for `lockSeconds`, after which a crashed holder's
 * key may be taken over. A 5xx releases the key.
 */
import { and, eq, gt, lt, or, sql } from 'drizzle-orm';
import { idempotencyKeys } from '../../db/schema';
import { readAsTenant, withTenantTransaction } from '../../db/tenant-tx';
import { decryptField, encryptField } from '../common/encryption';
import type { Deps } from '../deps';

export const idempotencyRetentionSeconds = 24 * 3600;
const lockSeconds = 60;

export interface IdempotencyScope {
  tenantId: string;
  environment: 'sandbox' | 'production';
  clientId: string;
  key: string;
}

export type ClaimOutcome =
  | { kind: 'claimed' }
  | { kind: 'replay'; status: number; body: string | null; headers: Record<string, string> }
  | { kind: 'in-flight'; retryAfterSeconds: number }
  | { kind: 'mismatch' };

function keyOf(scope: IdempotencyScope) {
  return and(
    eq(idempotencyKeys.tenantId, scope.tenantId),
    eq(idempotencyKeys.environment, scope.environment),
    eq(idempotencyKeys.clientId, scope.clientId),
    eq(idempotencyKeys.key, scope.key),
  );
}

/**
 * A stored body that holds a secret shown once (e.g. a webhook `signingSecret`) is kept as
 * `sealed:v1:` + AES-256-GCM ciphertext of the whole response text, bound to its key scope, so the
 * store never holds the secret in clear (docs/design.md §3) and the replay is still byte for byte. No JSON
 * text starts with `s`, so the prefix cannot be mistaken for a body.
 */
const sealedPrefix = 'sealed:v1:';

function sealAad(scope: IdempotencyScope): string {
  return `idempotency-response/v1|${scope.tenantId}|${scope.environment}|${scope.clientId}|${scope.key}`;
}

function storedBody(
  deps: Deps,
  scope: IdempotencyScope,
  body: string | null,
  sealed: boolean,
): string | null {
  if (!sealed || body === null) return body;
  return sealedPrefix + encryptField(deps.dataEncryptionKey, sealAad(scope), body);
}

function replayedBody(deps: Deps, scope: IdempotencyScope, stored: string | null): string | null {
  if (stored === null || !stored.startsWith(sealedPrefix)) return stored;
  return decryptField(deps.dataEncryptionKey, sealAad(scope), stored.slice(sealedPrefix.length));
}

/** What a claim reads of an existing key's record. */
interface KeyRecord extends Record<string, unknown> {
  fingerprint: string;
  routeTemplate: string;
  state: string;
  responseStatus: number | null;
  responseBody: string | null;
  responseHeaders: Record<string, string> | null;
}

/**
 * The key's record when it is COMPLETED and not yet expired, in one round trip (db/tenant-tx.ts `readAsTenant`;
 * replays are the hot path of retried writes). Such a record never changes until it expires (a
 * take-over needs an expired completion), so reading it outside the claim's transaction is safe.
 */
async function completedRecord(deps: Deps, scope: IdempotencyScope, now: Date): Promise<KeyRecord | null> {
  const [row] = await readAsTenant<KeyRecord>(
    deps.db,
    scope.tenantId,
    sql`select ${idempotencyKeys.fingerprint} as "fingerprint", ${idempotencyKeys.routeTemplate} as "routeTemplate",
               ${idempotencyKeys.state} as "state", ${idempotencyKeys.responseStatus} as "responseStatus",
               ${idempotencyKeys.responseBody} as "responseBody", ${idempotencyKeys.responseHeaders} as "responseHeaders"
          from ${idempotencyKeys}
         where ${and(keyOf(scope), eq(idempotencyKeys.state, 'COMPLETED'), gt(idempotencyKeys.expiresAt, now))}`,
  );
  return row ?? null;
}

/** The answer an existing record gives: another request's key → mismatch, a completed one → its replay, else null. */
function settledOutcome(
  deps: Deps,
  input: IdempotencyScope & { fingerprint: string; routeTemplate: string },
  record: KeyRecord,
): ClaimOutcome | null {
  if (record.fingerprint !== input.fingerprint || record.routeTemplate !== input.routeTemplate) {
    return { kind: 'mismatch' };
  }
  if (record.state !== 'COMPLETED') return null;
  return {
    kind: 'replay',
    status: record.responseStatus ?? 200,
    body: replayedBody(deps, input, record.responseBody),
    headers: record.responseHeaders ?? {},
  };
}

/**
 * Claims `key` for a request with `fingerprint`, or says why not: the stored response to replay,
 * a request with this key still in flight, or a key used for another request. A completed, unexpired key is
 * answered from one read (`completedRecord`); anything else takes the claim's transaction.
 */
export function claimIdempotencyKey(deps: Deps) {
  return async (
    input: IdempotencyScope & { fingerprint: string; routeTemplate: string },
  ): Promise<ClaimOutcome> => {
    const completed = await completedRecord(deps, input, deps.clock());
    const settled = completed && settledOutcome(deps, input, completed);
    if (settled) return settled;
    return withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const now = deps.clock();
      const lockedUntil = new Date(now.getTime() + lockSeconds * 1000);
      const [inserted] = await tx
        .insert(idempotencyKeys)
        .values({
          tenantId: input.tenantId,
          environment: input.environment,
          clientId: input.clientId,
          key: input.key,
          fingerprint: input.fingerprint,
          routeTemplate: input.routeTemplate,
          state: 'IN_FLIGHT',
          lockedUntil,
          createdAt: now,
        })
        .onConflictDoNothing()
        .returning({ key: idempotencyKeys.key });
      if (inserted) return { kind: 'claimed' };
      // Take over an expired completion or an abandoned in-flight lock, atomically.
      const [takenOver] = await tx
        .update(idempotencyKeys)
        .set({
          fingerprint: input.fingerprint,
          routeTemplate: input.routeTemplate,
          state: 'IN_FLIGHT',
          lockedUntil,
          createdAt: now,
          responseStatus: null,
          responseBody: null,
          responseHeaders: null,
          completedAt: null,
          expiresAt: null,
        })
        .where(
          and(
            keyOf(input),
            or(
              and(eq(idempotencyKeys.state, 'COMPLETED'), lt(idempotencyKeys.expiresAt, now)),
              and(
                eq(idempotencyKeys.state, 'IN_FLIGHT'),
                lt(idempotencyKeys.lockedUntil, now),
                eq(idempotencyKeys.fingerprint, input.fingerprint),
              ),
            ),
          ),
        )
        .returning({ key: idempotencyKeys.key });
      if (takenOver) return { kind: 'claimed' };
      const [existing] = await tx.select().from(idempotencyKeys).where(keyOf(input));
      const settled = existing && settledOutcome(deps, input, existing);
      if (settled) return settled;
      // The holder usually answers within milliseconds; a short wait is the useful hint.
      return { kind: 'in-flight', retryAfterSeconds: 1 };
    });
  };
}

/**
 * Stores the response of a claimed key (kept `idempotencyRetentionSeconds`). `body` is the response
 * text exactly as sent (null when empty), so a replay returns the same bytes (docs/processes.md P0
 * Failure answers: stored as text, not `jsonb`, which reorders keys). With `sealedFields` (names
 * of fields holding a secret shown once) the whole text is stored encrypted and decrypted for the
 * replay.
 */
export function completeIdempotencyKey(deps: Deps) {
  return async (
    input: IdempotencyScope & {
      status: number;
      body: string | null;
      headers: Record<string, string>;
      sealedFields?: readonly string[];
    },
  ): Promise<void> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const now = deps.clock();
      await tx
        .update(idempotencyKeys)
        .set({
          state: 'COMPLETED',
          responseStatus: input.status,
          responseBody: storedBody(deps, input, input.body, (input.sealedFields ?? []).length > 0),
          responseHeaders: input.headers,
          completedAt: now,
          expiresAt: new Date(now.getTime() + idempotencyRetentionSeconds * 1000),
        })
        .where(keyOf(input));
    });
}

/** Frees a claimed key after a 5xx, so the client may retry with it. */
export function releaseIdempotencyKey(deps: Deps) {
  return async (input: IdempotencyScope): Promise<void> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      await tx.delete(idempotencyKeys).where(and(keyOf(input), eq(idempotencyKeys.state, 'IN_FLIGHT')));
    });
}
