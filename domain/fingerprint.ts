/**
 * Idempotency fingerprint of a mutation: SHA-256 (hex) over the method, the route template,
 * the path parameters and the RFC 8785 (JCS) canonical JSON of the body.
 * Source: docs/design.md §4 (Idempotency-Key); RFC 8785 through the npm package `canonicalize`.
 */
import canonicalize from 'canonicalize';
import { sha256Hex } from './hash';

export interface FingerprintInput {
  /** Upper-case HTTP method. */
  method: string;
  /** Route template as registered, e.g. `/v1/servicing/cases/:caseId/close`. */
  routeTemplate: string;
  /** Path parameters by name (values as received). */
  pathParams: Record<string, string>;
  /** Parsed JSON body, or undefined when the request has none. */
  body: unknown;
}

/** Returns the 64-character hex fingerprint. Key order of objects does not change it. */
export function requestFingerprint(input: FingerprintInput): string {
  const canonical = canonicalize({
    method: input.method.toUpperCase(),
    route: input.routeTemplate,
    params: input.pathParams,
    body: input.body === undefined ? null : input.body,
  });
  return sha256Hex(canonical ?? '');
}
