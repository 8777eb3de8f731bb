/**
 * `sendWebhook` (docs/design.md §5 Webhooks; docs/processes.md P2 URLs; OWASP SSRF Prevention): one HTTP
 * attempt, no database. Never throws for an HTTP outcome: a refused address, a DNS failure, a
 * timeout or a non-2xx answer are results.
 *
 * 1. The URL is judged again by `checkWebhookUrl` for this deployment's environment.
 * 2. The host is resolved (`dns.lookup`, all addresses); if any address fails
 *    `checkResolvedAddress`, nothing is sent (`blocked address`).
 * 3. The POST connects to the first checked address (the socket's lookup is pinned to it, so a
 *    second DNS answer cannot swap in another address; TLS SNI and `Host` keep the URL's name),
 *    the TCP connection within 5 s (`connect timeout`), the answer's headers within 15 s of the
 *    start (`timeout`), redirects not followed (a 3xx is a failed attempt). The input's `connectTimeoutMs` and
 *    `timeoutMs` shorten those limits (never lengthen them): an endpoint with no recent success gets 2 s and 5 s on a
 *    delivery's first attempts (`attemptLimitsFor`, domain/webhooks/retry-schedule.ts).
 * 4. Headers: `content-type: application/json`, `Service-Webhook-Id` (the delivery id),
 *    `Service-Webhook-Timestamp` (Unix seconds now) and `Service-Webhook-Signature` over
 *    `"<timestamp>.<body>"` with every secret given (newest first).
 * Result: `{responseStatus, latencyMs, error, retryAfterMs}`; `retryAfterMs` from a `Retry-After`
 * answer header (RFC 9110 §10.2.3), else null.
 */
import { lookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { attemptTimeoutMs, connectTimeoutMs, parseRetryAfterMs } from '../../domain/webhooks/retry-schedule';
import { signatureHeaderValue, webhookHeaders } from '../../domain/webhooks/signature';
import { checkResolvedAddress, checkWebhookUrl } from '../../domain/webhooks/url-policy';
import type { Deps } from '../deps';
import { openSealedSecret } from './sealed-secrets';

export interface SendWebhookInput {
  url: string;
  /** The exact JSON text to send. */
  body: string;
  deliveryId: string;
  /** From `prepareWebhookAttempt`, newest first. */
  signingSecrets: { secretVersion: number; sealedSecret: string }[];
  /** Limit of the TCP connection in ms, at most `connectTimeoutMs` (5 s, the default). */
  connectTimeoutMs?: number;
  /** Limit of the whole attempt in ms, at most `sendTimeoutMs` (15 s, the default). */
  timeoutMs?: number;
}

export interface SendWebhookResult {
  /** The HTTP status answered; null when none came. */
  responseStatus: number | null;
  /** Time from sending to the answer's headers (or to the failure), in ms. */
  latencyMs: number;
  /** Short reason when no 2xx came; null on success. */
  error: string | null;
  /** The receiver's `Retry-After`, in ms from the answer; null when absent or unreadable. */
  retryAfterMs: number | null;
}

/** Time one attempt may take, connection included (docs/design.md §5). */
export const sendTimeoutMs = attemptTimeoutMs;

function pinnedLookup(address: string, family: number): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as unknown as LookupFunction;
}

function errorText(err: unknown): string {
  const code = (err as { code?: string })?.code;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ECONNRESET') return 'connection reset';
  const message = err instanceof Error ? err.message : String(err);
  return (code ? `${code}: ${message}` : message).slice(0, 200);
}

/** Resolves a host name to every address (default `dns.lookup` with `all: true`). */
export type HostResolver = (host: string) => Promise<{ address: string; family: number }[]>;

const systemResolver: HostResolver = (host) => lookup(host, { all: true, verbatim: true });

/**
 * The activity, built from `deps`. `options.resolveHost` replaces DNS; `options.connectTimeoutMs`
 * (default `connectTimeoutMs`, 5 s) and `options.timeoutMs` (default 15 s) are for tests.
 */
export const sendWebhook =
  (deps: Deps, options: { resolveHost?: HostResolver; connectTimeoutMs?: number; timeoutMs?: number } = {}) =>
  async (input: SendWebhookInput): Promise<SendWebhookResult> => {
    const resolveHost = options.resolveHost ?? systemResolver;
    const started = performance.now();
    const failed = (error: string): SendWebhookResult => ({
      responseStatus: null,
      latencyMs: Math.round(performance.now() - started),
      error,
      retryAfterMs: null,
    });
    const verdict = checkWebhookUrl(input.url, deps.environment);
    if (!verdict.ok) return failed(`blocked url: ${verdict.reason}`);
    const url = new URL(input.url);
    const host = url.hostname.replace(/^\[|\]$/g, '');

    let addresses: { address: string; family: number }[];
    try {
      addresses = await resolveHost(host);
    } catch (err) {
      return failed(`dns: ${errorText(err)}`);
    }
    if (addresses.length === 0) return failed('dns: no address');
    for (const { address } of addresses) {
      const check = checkResolvedAddress(address, deps.environment);
      if (!check.ok) return failed(`blocked address: ${check.reason}`);
    }
    const target = addresses[0]!;

    const secrets = input.signingSecrets.map((s) =>
      openSealedSecret(deps.dataEncryptionKey, input.deliveryId, s.sealedSecret),
    );
    const timestampSeconds = Math.floor(deps.clock().getTime() / 1000);
    const payload = Buffer.from(input.body, 'utf8');
    const headers = {
      'content-type': 'application/json',
      'content-length': String(payload.length),
      'user-agent': 'lending-servicing-engine-webhooks/1',
      [webhookHeaders.id]: input.deliveryId,
      [webhookHeaders.timestamp]: String(timestampSeconds),
      [webhookHeaders.signature]: signatureHeaderValue(secrets, timestampSeconds, input.body),
    };
    const transport = url.protocol === 'https:' ? https : http;

    return new Promise<SendWebhookResult>((resolve) => {
      let settled = false;
      const finish = (result: SendWebhookResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        clearTimeout(connectTimer);
        resolve(result);
      };
      const request = transport.request(
        url,
        {
          method: 'POST',
          headers,
          lookup: pinnedLookup(target.address, target.family),
          agent: false,
        },
        (response) => {
          const status = response.statusCode ?? null;
          const retryAfter = response.headers['retry-after'];
          response.resume();
          finish({
            responseStatus: status,
            latencyMs: Math.round(performance.now() - started),
            error: status !== null && status >= 200 && status <= 299 ? null : `HTTP ${status}`,
            retryAfterMs: parseRetryAfterMs(
              Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
              deps.clock().getTime(),
            ),
          });
        },
      );
      const timer = setTimeout(
        () => {
          request.destroy(new Error('timeout'));
          finish(failed('timeout'));
        },
        options.timeoutMs ?? Math.min(input.timeoutMs ?? sendTimeoutMs, sendTimeoutMs),
      );
      // The connection alone has a shorter limit: an address that drops SYNs fails fast.
      const connectTimer = setTimeout(
        () => {
          request.destroy(new Error('connect timeout'));
          finish(failed('connect timeout'));
        },
        options.connectTimeoutMs ?? Math.min(input.connectTimeoutMs ?? connectTimeoutMs, connectTimeoutMs),
      );
      request.on('socket', (socket) => {
        if (!socket.connecting) clearTimeout(connectTimer);
        else socket.once('connect', () => clearTimeout(connectTimer));
      });
      request.on('error', (err) => finish(failed(errorText(err))));
      request.end(payload);
    });
  };
