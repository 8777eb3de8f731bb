/**
 * How a client secret is stored and compared (docs/design.md §4 Tokens): `secretDigest`, HMAC-SHA256 with the server
 * pepper. Client secrets are 32 random bytes with an environment prefix, shown once, stored only as this digest.
 */

import { hmacSha256Hex } from '../../domain/hash';

/** Digest under which a client secret is stored and compared. */
export function secretDigest(pepper: string, secret: string): string {
  return hmacSha256Hex(pepper, secret);
}
