/**
 * Processes an inbound channel event, the step the `channelEventWorkflow` runs (docs/processes.md P2;
 * docs/design.md §5 "Inbound channel events").
 *
 * Handled types:
 * - `sms.inbound` `{from, text}`: an opt-out reply (domain/channels/sms-keywords.ts, TCPA 47 CFR
 *   §64.1200(a)(12)) revokes SMS consent at once for every customer whose phone contact point is
 *   `from`: a consent record `SMS` granted false (capture method `SMS_KEYWORD`, evidence the
 *   channel event), the contact point marked unable to receive SMS, and `CONSENT_RECORDED` in the
 *   customer's history. Other texts are recorded and need nothing more.
 * - `message.delivery_status` `{messageId, status}`: recorded with the status as its outcome.
 * - `voice.call.completed` `{customerRef, direction?, durationSeconds?, summary?, caseId?}`: logs a
 *   VOICE interaction (idempotent by the channel event); when the case is absent, closed or another
 *   customer's, the interaction is logged without it and the outcome says `caseRefused: <code>`.
 * Any other type is kept and marked IGNORED, so a gateway may send types we do not handle yet.
 */
import { and, eq } from 'drizzle-orm';
import { channelEvents, consents, contactPoints } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { isSmsOptOut } from '../../domain/channels/sms-keywords';
import { normalizePhone } from '../../domain/customers/contact-points';
import { DomainError, type ErrorCode, notFound } from '../../domain/errors';
import { recordCustomerChange } from '../customers/records';
import type { Deps } from '../deps';
import { logInteraction } from '../servicing/log-interaction';

/** `channel-event/<gatewayCode>/<eventId>`: the business key of the event's side effects. */
export function channelEventKey(gatewayCode: string, eventId: string): string {
  return `channel-event/${gatewayCode}/${eventId}`;
}

export interface ProcessChannelEventResult {
  status: 'PROCESSED' | 'IGNORED';
  outcome: Record<string, unknown>;
}

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** Refusals of a voice call's case reference (servicing/records.ts `holdOpenCase`) that drop the link only. */
const refusedCaseCodes = new Set<ErrorCode>([
  'error.msg.resource.not.found',
  'error.msg.case.customer.mismatch',
  'error.msg.case.invalid.state.transition',
]);

/**
 * Runs the event's handling once (the row is locked; a processed row returns its stored outcome),
 * in one transaction with the row's new status. Errors: 404 when the event is not the tenant's.
 */
export function processChannelEvent(deps: Deps) {
  const interactionOf = logInteraction(deps);
  return async (input: {
    tenantId: string;
    gatewayCode: string;
    eventId: string;
  }): Promise<ProcessChannelEventResult> => {
    const key = channelEventKey(input.gatewayCode, input.eventId);
    // A voice call's interaction is its own idempotent operation (request key = the event key);
    // it runs first so the event row's update below records its id.
    const [event] = await withTenantTransaction(deps.db, input.tenantId, (tx) =>
      tx
        .select()
        .from(channelEvents)
        .where(
          and(eq(channelEvents.gatewayCode, input.gatewayCode), eq(channelEvents.eventId, input.eventId)),
        ),
    );
    if (!event) throw notFound('Channel event', `${input.gatewayCode}/${input.eventId}`);
    if (event.status !== 'RECEIVED') return { status: event.status, outcome: event.outcome ?? {} };
    let voiceInteractionId: number | null = null;
    let caseRefusal: string | null = null;
    if (event.eventType === 'voice.call.completed') {
      const data = event.data;
      const duration = typeof data.durationSeconds === 'number' ? ` (${data.durationSeconds} s)` : '';
      const call = {
        tenantId: input.tenantId,
        requestKey: key,
        customerRef: text(data.customerRef) ?? 'unknown',
        caseId: typeof data.caseId === 'number' ? data.caseId : null,
        channel: 'VOICE' as const,
        direction: data.direction === 'OUTBOUND' ? ('OUTBOUND' as const) : ('INBOUND' as const),
        summary: text(data.summary) ?? `Voice call completed${duration}`,
        correlationId: key,
      };
      try {
        voiceInteractionId = (await interactionOf(call)).interactionId;
      } catch (err) {
        // The call happened whatever its case reference says: a case that is absent, closed or
        // another customer's is left out, and the refusal is kept in the outcome.
        if (!(err instanceof DomainError) || call.caseId === null || !refusedCaseCodes.has(err.code))
          throw err;
        caseRefusal = err.code;
        voiceInteractionId = (await interactionOf({ ...call, caseId: null })).interactionId;
      }
    }
    return withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const [row] = await tx.select().from(channelEvents).where(eq(channelEvents.id, event.id)).for('update');
      if (!row) throw notFound('Channel event', key);
      if (row.status !== 'RECEIVED') return { status: row.status, outcome: row.outcome ?? {} };
      const now = deps.clock();
      let result: ProcessChannelEventResult;
      if (row.eventType === 'sms.inbound') {
        const from = normalizePhone(text(row.data.from) ?? '');
        if (!isSmsOptOut(text(row.data.text) ?? '') || from === null) {
          result = { status: 'PROCESSED', outcome: { optOut: false } };
        } else {
          const points = await tx
            .update(contactPoints)
            .set({ canReceiveSms: false })
            .where(
              and(
                eq(contactPoints.tenantId, input.tenantId),
                eq(contactPoints.contactType, 'PHONE'),
                eq(contactPoints.normalizedValue, from),
              ),
            )
            .returning({ id: contactPoints.id, customerId: contactPoints.customerId });
          const consentIds: number[] = [];
          for (const customerId of [...new Set(points.map((p) => p.customerId))].sort((a, b) => a - b)) {
            const [consent] = await tx
              .insert(consents)
              .values({
                tenantId: input.tenantId,
                customerId,
                consentType: 'SMS',
                granted: false,
                captureMethod: 'SMS_KEYWORD',
                evidenceRef: key,
                capturedAt: row.occurredAt,
                createdAt: now,
                requestKey: `${key}/customer/${customerId}`,
              })
              .returning({ id: consents.id });
            consentIds.push(consent!.id);
            await recordCustomerChange(tx, {
              tenantId: input.tenantId,
              customerId,
              action: 'CONSENT_RECORDED',
              detail: {
                consentId: consent!.id,
                consentType: 'SMS',
                granted: false,
                captureMethod: 'SMS_KEYWORD',
                evidenceRef: key,
                capturedAt: row.occurredAt.toISOString(),
              },
              correlationId: key,
              occurredAt: now,
            });
          }
          result = {
            status: 'PROCESSED',
            outcome: { optOut: true, contactPointIds: points.map((p) => p.id), consentIds },
          };
        }
      } else if (row.eventType === 'message.delivery_status') {
        result = {
          status: 'PROCESSED',
          outcome: { messageId: text(row.data.messageId), deliveryStatus: text(row.data.status) },
        };
      } else if (row.eventType === 'voice.call.completed') {
        result = {
          status: 'PROCESSED',
          outcome:
            caseRefusal === null
              ? { interactionId: voiceInteractionId }
              : { interactionId: voiceInteractionId, caseRefused: caseRefusal },
        };
      } else {
        result = { status: 'IGNORED', outcome: { reason: `event type ${row.eventType} is not handled` } };
      }
      await tx
        .update(channelEvents)
        .set({ status: result.status, processedAt: now, outcome: result.outcome })
        .where(eq(channelEvents.id, row.id));
      return result;
    });
  };
}
