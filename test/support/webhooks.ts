/**
 * Fixtures for webhook delivery tests: subscriptions with encrypted signing secrets, outbox
 * events and delivery rows written as the application writes them (tenant transaction, RLS), and
 * a real local HTTP receiver that verifies every delivery with `client/src/webhooks.ts`.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { and, asc, eq } from 'drizzle-orm';
import { withEventOrigin, writeOutboxEvent } from '../../activities/platform/outbox';
import { encryptSigningSecret } from '../../activities/webhooks/secrets';
import { verifyWebhook, type WebhookEnvelope, WebhookVerificationError } from '../../client/src/webhooks';
import type { Db } from '../../db/client';
import {
  webhookDeliveries,
  webhookDeliveryAttempts,
  webhookSecrets,
  webhookSubscriptions,
} from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { webhookDeliveryId } from '../../domain/ids';

export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** Creates an ACTIVE subscription with `secrets` (version 1.., the last one current). */
export async function createSubscriptionFixture(
  db: Db,
  dataEncryptionKey: string,
  input: {
    tenantId: string;
    url: string;
    eventTypes?: string[];
    apiVersion?: string;
    secrets: { secret: string; expiresAt?: Date | null }[];
    failingSince?: Date | null;
    includeBoardedHistory?: boolean;
  },
): Promise<number> {
  return withTenantTransaction(db, input.tenantId, async (tx) => {
    const [row] = await tx
      .insert(webhookSubscriptions)
      .values({
        tenantId: input.tenantId,
        url: input.url,
        eventTypes: input.eventTypes ?? ['payment.posted'],
        apiVersion: input.apiVersion ?? '2026-01-01',
        description: 'test receiver',
        secretVersion: input.secrets.length,
        failingSince: input.failingSince ?? null,
        includeBoardedHistory: input.includeBoardedHistory ?? false,
      })
      .returning({ id: webhookSubscriptions.id });
    const subscriptionId = row!.id;
    for (const [index, s] of input.secrets.entries()) {
      const secretVersion = index + 1;
      await tx.insert(webhookSecrets).values({
        tenantId: input.tenantId,
        subscriptionId,
        secretVersion,
        secretCiphertext: encryptSigningSecret(
          dataEncryptionKey,
          { tenantId: input.tenantId, subscriptionId, secretVersion },
          s.secret,
        ),
        expiresAt: s.expiresAt ?? null,
      });
    }
    return subscriptionId;
  });
}

/** A catalogue-valid payload per event type the delivery tests send (domain/events.ts). */
const samplePayloads = {
  'payment.posted': {
    subjectId: 42,
    data: {
      paymentId: 42,
      loanRef: '000000042',
      status: 'POSTED',
      amount: '12.50',
      currency: 'USD',
      effectiveDate: '2026-01-02',
    },
  },
  'case.transitioned': {
    subjectId: 7,
    data: { caseId: 7, fromStatus: 'OPEN', toStatus: 'CLOSED', outcomeCode: 'PROMISE_KEPT' },
  },
  'webhook.test': { subjectId: 1, data: { subscriptionId: 1, message: 'test' } },
} as const;

/**
 * Writes one unpublished outbox event through the application's own writer (so its payload passes
 * the catalogue check, as every real event does) and returns its `eventId`.
 */
export async function insertOutboxEvent(
  db: Db,
  input: {
    tenantId: string;
    eventType?: keyof typeof samplePayloads;
    targetSubscriptionId?: number | null;
    /** Written as portfolio boarding of this batch writes it (`source` `BOARDING`). */
    boardingBatchId?: number;
  },
): Promise<{ eventId: string; eventType: string }> {
  const eventType = input.eventType ?? 'payment.posted';
  const sample = samplePayloads[eventType];
  const write = () =>
    withTenantTransaction(db, input.tenantId, (tx) =>
      writeOutboxEvent(tx, {
        tenantId: input.tenantId,
        eventType,
        subjectId: sample.subjectId,
        data: sample.data as never,
        occurredAt: new Date('2026-01-02T03:04:05.678Z'),
        dedupeKey: `test/${randomBytes(12).toString('hex')}`,
        targetSubscriptionId: input.targetSubscriptionId ?? null,
      }),
    );
  const { eventId } =
    input.boardingBatchId === undefined
      ? await write()
      : await withEventOrigin({ source: 'BOARDING', boardingBatchId: input.boardingBatchId }, write);
  return { eventId, eventType };
}

/** Inserts the PENDING delivery row the relay would insert; returns its delivery id. */
export async function insertDelivery(
  db: Db,
  input: { tenantId: string; subscriptionId: number; eventId: string; eventType: string },
): Promise<string> {
  const deliveryId = webhookDeliveryId(input.tenantId, input.subscriptionId, input.eventId);
  await withTenantTransaction(db, input.tenantId, (tx) =>
    tx
      .insert(webhookDeliveries)
      .values({ ...input, deliveryId })
      .onConflictDoNothing(),
  );
  return deliveryId;
}

export async function readDelivery(db: Db, tenantId: string, deliveryId: string) {
  return withTenantTransaction(db, tenantId, async (tx) => {
    const [delivery] = await tx
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.deliveryId, deliveryId));
    const attempts = await tx
      .select()
      .from(webhookDeliveryAttempts)
      .where(eq(webhookDeliveryAttempts.deliveryId, deliveryId))
      .orderBy(asc(webhookDeliveryAttempts.attempt));
    return { delivery: delivery!, attempts };
  });
}

export async function readSubscription(db: Db, tenantId: string, subscriptionId: number) {
  return withTenantTransaction(db, tenantId, async (tx) => {
    const [row] = await tx
      .select()
      .from(webhookSubscriptions)
      .where(and(eq(webhookSubscriptions.tenantId, tenantId), eq(webhookSubscriptions.id, subscriptionId)));
    return row!;
  });
}

export interface ReceivedDelivery {
  headers: IncomingHttpHeaders;
  body: string;
  /** The verified envelope, or the verification failure's reason. */
  envelope: WebhookEnvelope | null;
  verificationError: string | null;
  /** `v1=` entries in the signature header. */
  signatureCount: number;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
}

/**
 * A real HTTP receiver on 127.0.0.1. Each request is verified with `verifyWebhook` against
 * `secrets()` and recorded; `answer(request, index)` picks the response.
 */
export async function startReceiver(options: {
  secrets: () => string[];
  answer: (received: ReceivedDelivery, index: number) => Answer | Promise<Answer>;
}) {
  const received: ReceivedDelivery[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const raw = Buffer.concat(chunks);
      let envelope: WebhookEnvelope | null = null;
      let verificationError: string | null = null;
      try {
        envelope = verifyWebhook(raw, req.headers, options.secrets());
      } catch (err) {
        if (!(err instanceof WebhookVerificationError)) throw err;
        verificationError = err.reason;
      }
      const signature = String(req.headers['service-webhook-signature'] ?? '');
      const entry: ReceivedDelivery = {
        headers: req.headers,
        body: raw.toString('utf8'),
        envelope,
        verificationError,
        signatureCount: signature.split(',').filter((s) => s.startsWith('v1=')).length,
      };
      received.push(entry);
      try {
        const answer = await options.answer(entry, received.length - 1);
        res.writeHead(answer.status, answer.headers ?? {});
        res.end();
      } catch {
        res.writeHead(500);
        res.end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
