/**
 * The Idempotency-Key store (spec § Shared header rules; DESIGN §4 Idempotency-Key).
 * Uniqueness is (tenant, environment, client, key). A completed response is kept 24 h; a key
 * held by a request still running is locked for `lockSeconds`, after which a crashed holder's
 * key may be taken over. A 5xx releases the key.
 */
import { and, eq, lt, or, sql } from 'drizzle-orm';
import { idempotencyKeys } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import type { Deps } from '../deps';
import { decryptField, encryptField } from '../shared/encryption';

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
  | { kind: 'replay'; status: number; body: unknown; headers: Record<string, string> }
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

/** A stored body field that held a secret: `{"$sealed": "<AES-256-GCM ciphertext>"}`. */
const sealedMarker = '$sealed';

function sealAad(scope: IdempotencyScope, field: string): string {
  return `idempotency-response/v1|${scope.tenantId}|${scope.environment}|${scope.clientId}|${scope.key}|${field}`;
}

/**
 * The body as stored: each top-level string field named in `sealedFields` (a secret shown once,
 * e.g. a webhook `signingSecret`) is replaced by its AES-256-GCM ciphertext, so the store never
 * holds it in clear (DESIGN §3); `unsealBody` restores it for the replay.
 */
function sealBody(
  deps: Deps,
  scope: IdempotencyScope,
  body: unknown,
  sealedFields: readonly string[],
): unknown {
  if (sealedFields.length === 0 || body === null || typeof body !== 'object' || Array.isArray(body))
    return body;
  const copy: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  for (const field of sealedFields) {
    const value = copy[field];
    if (typeof value === 'string')
      copy[field] = { [sealedMarker]: encryptField(deps.dataEncryptionKey, sealAad(scope, field), value) };
  }
  return copy;
}

function unsealBody(deps: Deps, scope: IdempotencyScope, body: unknown): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const copy: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  for (const [field, value] of Object.entries(copy)) {
    const sealed = (value as Record<string, unknown> | null)?.[sealedMarker];
    if (value !== null && typeof value === 'object' && typeof sealed === 'string')
      copy[field] = decryptField(deps.dataEncryptionKey, sealAad(scope, field), sealed);
  }
  return copy;
}

/**
 * Claims `key` for a request with `fingerprint`, or says why not: the stored response to replay,
 * a request with this key still in flight, or a key used for another request.
 */
export function claimIdempotencyKey(deps: Deps) {
  return async (
    input: IdempotencyScope & { fingerprint: string; routeTemplate: string },
  ): Promise<ClaimOutcome> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
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
      if (!existing) return { kind: 'in-flight', retryAfterSeconds: 1 };
      if (existing.fingerprint !== input.fingerprint || existing.routeTemplate !== input.routeTemplate) {
        return { kind: 'mismatch' };
      }
      if (existing.state === 'COMPLETED') {
        return {
          kind: 'replay',
          status: existing.responseStatus ?? 200,
          body: unsealBody(deps, input, existing.responseBody),
          headers: existing.responseHeaders ?? {},
        };
      }
      // The holder usually answers within milliseconds; a short wait is the useful hint.
      return { kind: 'in-flight', retryAfterSeconds: 1 };
    });
}

/**
 * Stores the response of a claimed key (kept `idempotencyRetentionSeconds`); the top-level body
 * fields named in `sealedFields` are stored encrypted and decrypted again for the replay.
 */
export function completeIdempotencyKey(deps: Deps) {
  return async (
    input: IdempotencyScope & {
      status: number;
      body: unknown;
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
          responseBody: sql`${JSON.stringify(sealBody(deps, input, input.body ?? null, input.sealedFields ?? []))}::jsonb`,
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
