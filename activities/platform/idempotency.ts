/**
 * The Idempotency-Key store (docs/design.md §4 Idempotency-Key).
 * Uniqueness is (tenant, environment, client, key). A completed response is kept 24 h; a key
 * held by a request still running is locked for `lockSeconds`, after which a crashed holder's
 * key may be taken over. A 5xx releases the key.
 */
import { and, eq, gt, lt, or, type SQL, sql } from 'drizzle-orm';
import { idempotencyKeys } from '../../db/schema';
import {
  type FirstWrite,
  readAsTenant,
  type Tx,
  withFirstWrite,
  withTenantTransaction,
  writeAsTenant,
} from '../../db/tenant-tx';
import { DomainError } from '../../domain/errors';
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

/** What a claim stores: the key IN_FLIGHT for `input`'s request, locked until `lockSeconds` after `now`. */
function claimValues(input: IdempotencyScope & { fingerprint: string; routeTemplate: string }, now: Date) {
  return {
    tenantId: input.tenantId,
    environment: input.environment,
    clientId: input.clientId,
    key: input.key,
    fingerprint: input.fingerprint,
    routeTemplate: input.routeTemplate,
    state: 'IN_FLIGHT' as const,
    lockedUntil: new Date(now.getTime() + lockSeconds * 1000),
    createdAt: now,
  };
}

/**
 * When an existing record of the key may be taken over at `now`: an expired completion, or an in-flight lock
 * whose holder let it lapse (a crashed request) for the same request (`fingerprint`).
 */
function takeOverCondition(now: Date, fingerprint: SQL) {
  return or(
    and(eq(idempotencyKeys.state, 'COMPLETED'), lt(idempotencyKeys.expiresAt, now)),
    and(
      eq(idempotencyKeys.state, 'IN_FLIGHT'),
      lt(idempotencyKeys.lockedUntil, now),
      sql`${idempotencyKeys.fingerprint} = ${fingerprint}`,
    ),
  );
}

/** The columns a take-over resets (the request's own values come from `excluded`, the row the claim proposed). */
const takeOverSet = {
  fingerprint: sql`excluded.fingerprint`,
  routeTemplate: sql`excluded.route_template`,
  state: sql`excluded.state`,
  lockedUntil: sql`excluded.locked_until`,
  createdAt: sql`excluded.created_at`,
  responseStatus: null,
  responseBody: null,
  responseHeaders: null,
  completedAt: null,
  expiresAt: null,
};

/**
 * Inside `tx`: claims the key for `input`'s request in ONE statement (insert, or take over an expired or abandoned
 * record atomically), or says why not from the record that holds it (read in the same transaction, after the
 * statement waited for any uncommitted claim of the same key to settle).
 */
async function claimIn(
  deps: Deps,
  tx: Tx,
  input: IdempotencyScope & { fingerprint: string; routeTemplate: string },
): Promise<ClaimOutcome> {
  const now = deps.clock();
  const [claimed] = await tx
    .insert(idempotencyKeys)
    .values(claimValues(input, now))
    .onConflictDoUpdate({
      target: [
        idempotencyKeys.tenantId,
        idempotencyKeys.environment,
        idempotencyKeys.clientId,
        idempotencyKeys.key,
      ],
      set: takeOverSet,
      setWhere: takeOverCondition(now, sql`excluded.fingerprint`),
    })
    .returning({ key: idempotencyKeys.key });
  if (claimed) return { kind: 'claimed' };
  const [existing] = await tx.select().from(idempotencyKeys).where(keyOf(input));
  const settled = existing && settledOutcome(deps, input, existing);
  if (settled) return settled;
  // The holder usually answers within milliseconds; a short wait is the useful hint.
  return { kind: 'in-flight', retryAfterSeconds: 1 };
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
    return withTenantTransaction(deps.db, input.tenantId, (tx) => claimIn(deps, tx, input));
  };
}

/**
 * Thrown by a claim made inside an operation's transaction (`idempotencyClaimWrite`) that the key refuses; the
 * transaction rolls back, so the operation changes nothing. A DomainError of the answer's own code (409
 * `idempotency.request.in.flight` with its Retry-After, 422 `idempotency.key.payload.mismatch`), so the app's error
 * handler answers it as the claim before the operation did; a replay (`outcome.kind` `replay`, code 409 as a
 * fallback) is answered by the idempotency middleware with the stored response.
 */
export class IdempotencyClaimRefused extends DomainError {
  constructor(readonly outcome: Exclude<ClaimOutcome, { kind: 'claimed' }>) {
    super(
      outcome.kind === 'mismatch' ? 'idempotency.key.payload.mismatch' : 'idempotency.request.in.flight',
      outcome.kind === 'mismatch'
        ? 'This Idempotency-Key was already used with a different request.'
        : 'A request with this Idempotency-Key is still being processed.',
      { retryAfterSeconds: outcome.kind === 'in-flight' ? outcome.retryAfterSeconds : undefined },
    );
    this.name = 'IdempotencyClaimRefused';
  }
}

/**
 * Runs `work` (the request's handler) with the claim of `input`'s key as the first write of its operation
 * (db/tenant-tx.ts `withFirstWrite`): the first tenant transaction of `input.tenantId` that `work` opens claims the
 * key in one statement before the operation's own statements, so the claim and the operation's rows commit or roll
 * back together, and no transaction of its own is spent on it. A key it cannot claim throws
 * `IdempotencyClaimRefused` from that transaction (the operation then changes nothing). Never rejects: resolves,
 * once `work` settles, to `committed` (whether the claim committed; false: `work` opened no transaction of the
 * tenant, or every one rolled back, and nothing of the key was stored) and `error`, what `work` threw if it did.
 */
export function claimIdempotencyKeyWith(deps: Deps) {
  return async (
    input: IdempotencyScope & { fingerprint: string; routeTemplate: string },
    work: () => Promise<void>,
  ): Promise<{ committed: boolean; error?: unknown }> => {
    const write: FirstWrite = {
      tenantId: input.tenantId,
      committed: false,
      run: async (tx) => {
        const outcome = await claimIn(deps, tx, input);
        if (outcome.kind !== 'claimed') throw new IdempotencyClaimRefused(outcome);
      },
    };
    try {
      await withFirstWrite(write, work);
      return { committed: write.committed };
    } catch (error) {
      return { committed: write.committed, error };
    }
  };
}

/** The columns a completion writes. */
function completionValues(
  deps: Deps,
  input: IdempotencyScope & {
    status: number;
    body: string | null;
    headers: Record<string, string>;
    sealedFields?: readonly string[];
  },
) {
  const now = deps.clock();
  return {
    state: 'COMPLETED' as const,
    responseStatus: input.status,
    responseBody: storedBody(deps, input, input.body, (input.sealedFields ?? []).length > 0),
    responseHeaders: input.headers,
    completedAt: now,
    expiresAt: new Date(now.getTime() + idempotencyRetentionSeconds * 1000),
  };
}

/**
 * Stores the response of a claimed key (kept `idempotencyRetentionSeconds`), in one round trip (db/tenant-tx.ts
 * `writeAsTenant`). `body` is the response
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
  ): Promise<void> => {
    await writeAsTenant(
      deps.db,
      input.tenantId,
      deps.db.update(idempotencyKeys).set(completionValues(deps, input)).where(keyOf(input)),
    );
  };
}

/**
 * Stores the response of a request whose claim never committed (`idempotencyClaimWrite`: its operation rolled back
 * with a 4xx answer, or opened no transaction), in one round trip: the key is inserted COMPLETED, or an expired or
 * abandoned record of the same request is taken over; a record another request holds meanwhile is left alone
 * (that request stores its own answer). `fingerprint`/`routeTemplate` are the request's, as for a claim.
 */
export function storeUnclaimedIdempotentResponse(deps: Deps) {
  return async (
    input: IdempotencyScope & {
      fingerprint: string;
      routeTemplate: string;
      status: number;
      body: string | null;
      headers: Record<string, string>;
      sealedFields?: readonly string[];
    },
  ): Promise<void> => {
    const now = deps.clock();
    const completion = completionValues(deps, input);
    await writeAsTenant(
      deps.db,
      input.tenantId,
      deps.db
        .insert(idempotencyKeys)
        .values({ ...claimValues(input, now), ...completion })
        .onConflictDoUpdate({
          target: [
            idempotencyKeys.tenantId,
            idempotencyKeys.environment,
            idempotencyKeys.clientId,
            idempotencyKeys.key,
          ],
          set: {
            ...takeOverSet,
            state: sql`excluded.state`,
            responseStatus: sql`excluded.response_status`,
            responseBody: sql`excluded.response_body`,
            responseHeaders: sql`excluded.response_headers`,
            completedAt: sql`excluded.completed_at`,
            expiresAt: sql`excluded.expires_at`,
          },
          setWhere: takeOverCondition(now, sql`excluded.fingerprint`),
        }),
    );
  };
}

/** Frees a claimed key after a 5xx, so the client may retry with it. */
export function releaseIdempotencyKey(deps: Deps) {
  return async (input: IdempotencyScope): Promise<void> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      await tx.delete(idempotencyKeys).where(and(keyOf(input), eq(idempotencyKeys.state, 'IN_FLIGHT')));
    });
}
