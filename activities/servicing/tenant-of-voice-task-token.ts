/**
 * Authenticates a voice provider's callback by its task token (docs/processes.md P4 "Voice-provider control
 * surface"; docs/design.md §5 "Inbound channel events"): the token's SHA-256 digest, in the platform table `voice_task_tokens`, is
 * read by dispatch id before a tenant is known and compared in constant time.
 */
import { eq } from 'drizzle-orm';
import { voiceTaskTokens } from '../../db/schema';
import { sha256Hex, timingSafeEqualText } from '../../domain/hash';
import type { Deps } from '../deps';

/** What the callback needs before it knows the tenant: the token's tenant, digest and validity. */
export interface VoiceTaskTokenRecord {
  tenantId: string;
  tokenDigest: string;
  expiresAt: Date;
  revokedAt: Date | null;
}

/** A SHA-256 hex digest no token has (compared against when the dispatch is unknown, so both take as long). */
const absentDigest = '0'.repeat(64);

/**
 * The tenant of dispatch `dispatchId` when `presentedToken` is its task token and still valid at `at` (not
 * expired, not revoked), else null. The digests are compared in constant time, and an unknown dispatch is
 * compared against a placeholder, so the answer takes as long and says nothing about which part failed.
 * Platform read (the tenant is not known yet). Whether the dispatch's task is still OPEN is checked by
 * `recordVoiceDispatchEvent` inside the tenant's transaction.
 */
export async function tenantOfVoiceTaskToken(
  deps: Deps,
  dispatchId: number | null,
  presentedToken: string,
  at: Date,
): Promise<string | null> {
  const [row] =
    dispatchId === null
      ? []
      : await deps.db
          .select({
            tenantId: voiceTaskTokens.tenantId,
            tokenDigest: voiceTaskTokens.tokenDigest,
            expiresAt: voiceTaskTokens.expiresAt,
            revokedAt: voiceTaskTokens.revokedAt,
          })
          .from(voiceTaskTokens)
          .where(eq(voiceTaskTokens.dispatchId, dispatchId));
  const record: VoiceTaskTokenRecord | undefined = row;
  const matches = timingSafeEqualText(sha256Hex(presentedToken), record?.tokenDigest ?? absentDigest);
  if (!record || !matches) return null;
  if (record.revokedAt !== null || record.expiresAt.getTime() <= at.getTime()) return null;
  return record.tenantId;
}
