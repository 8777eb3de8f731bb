/**
 * A small local webhook receiver (Node's `node:http` only), as `npm run demo` uses it: it listens on
 * 127.0.0.1 on a free port, verifies every delivery with `client/src/webhooks.ts` (docs/design.md §5 Webhooks;
 * docs/design.md §5 Webhooks) against the subscription's signing secrets, answers 204 when the signature holds
 * and 400 when it does not, and keeps every delivery for the caller to inspect or wait for.
 *
 * ```ts
 * let secret = '';
 * const receiver = await startWebhookReceiver({ secrets: () => [secret] });
 * // subscribe receiver.url, keep the signingSecret in `secret`, cause events …
 * const ok = await receiver.waitFor((all) => all.some((d) => d.envelope?.eventType === 'webhook.test'), 30_000);
 * await receiver.close();
 * ```
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhook, type WebhookEnvelope, WebhookVerificationError } from '../client/src/webhooks';

/** One request the receiver got, with the outcome of its verification. */
export interface ReceivedWebhook {
  /** Arrival time, ISO 8601 instant. */
  receivedAt: string;
  headers: IncomingHttpHeaders;
  /** `Service-Webhook-Id`: the delivery id (`whd_…`), the same on every retry of one delivery. */
  deliveryId: string | null;
  /** The raw body as UTF-8 text (exactly the bytes verified). */
  body: string;
  /** The verified envelope; null when verification failed. */
  envelope: WebhookEnvelope | null;
  /** The failed check (`WebhookVerificationError.reason`); null when the signature verified. */
  verificationError: string | null;
  /** The HTTP status the receiver answered: 204 verified, 400 rejected. */
  answeredStatus: number;
}

/** A running receiver: where to subscribe, what it received, and how to stop it. */
export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>/webhooks`: the URL to subscribe. */
  url: string;
  /** Every delivery in arrival order (live array). */
  received: ReceivedWebhook[];
  /**
   * Resolves true as soon as `done(received)` holds (checked on every delivery), false after
   * `timeoutMs` milliseconds without it.
   */
  waitFor(done: (received: ReceivedWebhook[]) => boolean, timeoutMs: number): Promise<boolean>;
  /** Stops listening and drops open connections; resolves when the server is closed. */
  close(): Promise<void>;
}

/**
 * Starts a receiver on 127.0.0.1 (a free port chosen by the OS).
 * @param options.secrets the currently valid `whsec_…` secrets, read on every delivery (so the
 *   secret can be set after subscribing)
 * @param options.toleranceSeconds replay window for `Service-Webhook-Timestamp` (default 300 s)
 */
export async function startWebhookReceiver(options: {
  secrets: () => string[];
  toleranceSeconds?: number;
}): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const listeners = new Set<() => void>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let envelope: WebhookEnvelope | null = null;
      let verificationError: string | null = null;
      try {
        envelope = verifyWebhook(raw, req.headers, options.secrets(), {
          toleranceSeconds: options.toleranceSeconds ?? 300,
        });
      } catch (err) {
        verificationError = err instanceof WebhookVerificationError ? err.reason : String(err);
      }
      const answeredStatus = envelope ? 204 : 400;
      const deliveryId = req.headers['service-webhook-id'];
      received.push({
        receivedAt: new Date().toISOString(),
        headers: req.headers,
        deliveryId: typeof deliveryId === 'string' ? deliveryId : null,
        body: raw.toString('utf8'),
        envelope,
        verificationError,
        answeredStatus,
      });
      res.writeHead(answeredStatus);
      res.end();
      for (const listener of listeners) listener();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    received,
    waitFor: (done, timeoutMs) =>
      new Promise<boolean>((resolve) => {
        if (done(received)) return resolve(true);
        const finish = (result: boolean) => {
          clearTimeout(timer);
          listeners.delete(check);
          resolve(result);
        };
        const check = () => {
          if (done(received)) finish(true);
        };
        const timer = setTimeout(() => finish(false), timeoutMs);
        listeners.add(check);
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
