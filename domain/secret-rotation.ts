/**
 * Secret rotation with a bounded overlap, the one rule behind API-client secrets (docs/design.md §4
 * Tokens), webhook signing secrets (docs/design.md §5 Webhooks) and channel-gateway secrets (docs/design.md §5
 * Inbound channel events): after a rotation at most two secrets are valid — the new one and the
 * newest previous one for `overlapSeconds` (default 24 h, at most 7 days; 0 retires it at once);
 * any older secret ends at the rotation. Pure: the caller reads the active secrets and writes the
 * new expiries.
 */

/** Default and maximum overlap of the previous secret after a rotation, in seconds. */
export const secretRotationOverlapSeconds = { default: 24 * 3600, max: 7 * 24 * 3600 } as const;

/** True when `overlapSeconds` is a whole number of seconds from 0 to the maximum. */
export function isValidOverlapSeconds(overlapSeconds: number): boolean {
  return (
    Number.isInteger(overlapSeconds) &&
    overlapSeconds >= 0 &&
    overlapSeconds <= secretRotationOverlapSeconds.max
  );
}

export interface ActiveSecret<Id> {
  id: Id;
  /** Null while the secret has no end. */
  expiresAt: Date | null;
}

/**
 * The expiry changes a rotation at `now` makes to the secrets active before it (oldest first):
 * the newest keeps working until `now + overlapSeconds`, the others end at `now`; a secret that
 * already ends earlier is left alone. Returns the rows to update and the previous secret's end.
 */
export function rotationExpiries<Id>(
  activeOldestFirst: readonly ActiveSecret<Id>[],
  now: Date,
  overlapSeconds: number,
): { updates: { id: Id; expiresAt: Date }[]; previousSecretExpiresAt: Date } {
  const previousSecretExpiresAt = new Date(now.getTime() + overlapSeconds * 1000);
  const updates: { id: Id; expiresAt: Date }[] = [];
  activeOldestFirst.forEach((secret, index) => {
    const end = index === activeOldestFirst.length - 1 ? previousSecretExpiresAt : now;
    if (secret.expiresAt === null || secret.expiresAt > end) updates.push({ id: secret.id, expiresAt: end });
  });
  return { updates, previousSecretExpiresAt };
}
