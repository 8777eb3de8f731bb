/**
 * Verifies a webhook delivered by the lending service (docs/design.md §5 Webhooks): the client's
 * webhook helper (`import { verifyWebhook } from '<client>/webhooks'`), and the one implementation the
 * service's own tests, demo and sandbox receiver use. Dependency-free (Node's `node:crypto` only, a rule of
 * `.dependency-cruiser.cjs`): you may also copy this file into your receiver.
 *
 * Order of checks (docs/design.md §5 Webhooks): the raw bytes as received (never re-serialized JSON); the
 * `Service-Webhook-Timestamp` inside the replay window (default ±300 s); HMAC-SHA256 over
 * `"<timestamp>.<raw body>"`; a constant-time comparison of every `v1=` entry of
 * `Service-Webhook-Signature` against every secret you list (list the old secret too until its
 * `previousSecretExpiresAt`); only then is the body parsed. Deduplicate on `eventId` after this.
 *
 * ```ts
 * const event = verifyWebhook(rawBody, req.headers, [process.env.WEBHOOK_SECRET!]);
 * ```
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The envelope of every event (docs/integrating.md "Webhooks"). */
export interface WebhookEnvelope {
  eventId: string;
  eventType: string;
  /** `YYYY-MM-DD`: the subscription's API version. */
  apiVersion: string;
  /** ISO 8601 instant. */
  occurredAt: string;
  subject: { type: string; id: string };
  data: Record<string, unknown>;
  /**
   * `BOARDING` on an event written by portfolio boarding (a boarded loan's history); absent on live events. Sent
   * only to subscriptions with `includeBoardedHistory: true`.
   */
  source?: 'BOARDING';
  /** With `source`: the boarding batch that wrote the event. */
  boardingBatchId?: number;
}

export type WebhookVerificationReason =
  | 'missing_header'
  | 'invalid_timestamp'
  | 'timestamp_outside_tolerance'
  | 'no_secrets'
  | 'signature_mismatch'
  | 'invalid_body';

/** Thrown when a delivery must be rejected; `reason` says which check failed. Answer 400. */
export class WebhookVerificationError extends Error {
  readonly reason: WebhookVerificationReason;
  constructor(reason: WebhookVerificationReason, message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
    this.reason = reason;
  }
}

/** A Fetch `Headers`, or Node's `IncomingHttpHeaders` / any record of header values. */
export type HeaderSource =
  | { get(name: string): string | null }
  | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** Largest accepted distance between the signed timestamp and now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** Current time in ms since the epoch (default `Date.now()`); for tests. */
  now?: number;
}

function headerOf(headers: HeaderSource, name: string): string | null {
  if (typeof (headers as { get?: unknown }).get === 'function')
    return (headers as { get(name: string): string | null }).get(name);
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (key.toLowerCase() !== wanted || value === undefined) continue;
    return Array.isArray(value) ? value.join(',') : value;
  }
  return null;
}

/**
 * Checks a delivery and returns its parsed envelope.
 * @param rawBody the request body exactly as received (Buffer or the UTF-8 text of those bytes)
 * @param headers the request headers (names are case-insensitive)
 * @param secrets the subscription's `whsec_…` secrets currently valid (new and, during a rotation
 *   overlap, old)
 * @throws WebhookVerificationError with `reason` naming the failed check
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: HeaderSource,
  secrets: readonly string[],
  options: VerifyWebhookOptions = {},
): WebhookEnvelope {
  const toleranceSeconds = options.toleranceSeconds ?? 300;
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody);
  const timestamp = headerOf(headers, 'service-webhook-timestamp');
  const signature = headerOf(headers, 'service-webhook-signature');
  if (!timestamp || !signature || !headerOf(headers, 'service-webhook-id'))
    throw new WebhookVerificationError(
      'missing_header',
      'Service-Webhook-Id, Service-Webhook-Timestamp and Service-Webhook-Signature are required',
    );
  if (!/^[0-9]{1,15}$/.test(timestamp.trim()))
    throw new WebhookVerificationError('invalid_timestamp', 'Service-Webhook-Timestamp is not Unix seconds');
  const timestampSeconds = Number(timestamp.trim());
  const nowSeconds = Math.floor((options.now ?? Date.now()) / 1000);
  if (Math.abs(nowSeconds - timestampSeconds) > toleranceSeconds)
    throw new WebhookVerificationError(
      'timestamp_outside_tolerance',
      `timestamp is more than ${toleranceSeconds} s away from now`,
    );
  if (secrets.length === 0) throw new WebhookVerificationError('no_secrets', 'no secret to verify with');

  const given = signature
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.startsWith('v1='))
    .map((entry) => Buffer.from(entry.slice(3), 'hex'));
  let matched = false;
  for (const secret of secrets) {
    const expected = createHmac('sha256', secret)
      .update(`${timestampSeconds}.`, 'utf8')
      .update(body)
      .digest();
    for (const candidate of given) {
      // Every pair is compared (no early exit), each in constant time.
      if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) matched = true;
    }
  }
  if (!matched)
    throw new WebhookVerificationError('signature_mismatch', 'no v1 signature matches a given secret');

  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    throw new WebhookVerificationError('invalid_body', 'body is not JSON');
  }
  const envelope = parsed as Partial<WebhookEnvelope> | null;
  if (
    !envelope ||
    typeof envelope !== 'object' ||
    typeof envelope.eventId !== 'string' ||
    typeof envelope.eventType !== 'string' ||
    typeof envelope.subject !== 'object'
  )
    throw new WebhookVerificationError('invalid_body', 'body is not an event envelope');
  return envelope as WebhookEnvelope;
}
