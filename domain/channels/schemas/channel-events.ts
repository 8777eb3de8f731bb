/**
 * Inbound channel-event bodies (docs/processes.md P2: `{eventId, eventType, occurredAt, data}`) and
 * the `data` each handled type needs. Unknown event types are accepted with any object as `data`
 * (kept and marked IGNORED), so gateways can send new types before we handle them. A voice call's `customerRef`
 * is a strict reference and its `summary` refuses an identifier or account number (both are stored in clear).
 */
import * as v from 'valibot';
import { noSensitiveData } from '../../sensitive-data';
import { isoInstant } from '../../validation/dates';
import { refField } from '../../validation/refs';
import { maxChars, minChars } from '../../validation/text-length';

const instant = isoInstant();

export const channelEventBody = v.strictObject({
  eventId: v.pipe(v.string(), v.regex(/^[A-Za-z0-9._:-]{1,128}$/, 'must be 1–128 of A–Z a–z 0–9 . _ : -')),
  eventType: v.pipe(
    v.string(),
    v.regex(/^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/, 'must look like sms.inbound'),
  ),
  occurredAt: instant,
  data: v.record(v.string(), v.unknown()),
});

/** `data` of the handled types; other fields are kept as sent. */
export const channelEventData: Record<string, v.GenericSchema> = {
  'sms.inbound': v.looseObject({
    from: v.pipe(
      v.string(),
      ...minChars(1, 'must not be empty.'),
      ...maxChars(32, 'must be at most 32 characters.'),
    ),
    text: v.pipe(v.string(), ...maxChars(2000, 'must be at most 2000 characters.')),
  }),
  'message.delivery_status': v.looseObject({
    messageId: v.pipe(
      v.string(),
      ...minChars(1, 'must not be empty.'),
      ...maxChars(128, 'must be at most 128 characters.'),
    ),
    status: v.pipe(
      v.string(),
      ...minChars(1, 'must not be empty.'),
      ...maxChars(64, 'must be at most 64 characters.'),
    ),
  }),
  'voice.call.completed': v.looseObject({
    // Stored with the interaction and a workflow's search attributes: a strict reference (./refs.ts).
    customerRef: refField(128),
    direction: v.optional(v.picklist(['INBOUND', 'OUTBOUND'])),
    durationSeconds: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
    // Becomes the interaction's summary: free text that never carries an identifier or account number.
    summary: v.optional(
      v.pipe(
        v.string(),
        ...minChars(1, 'must not be empty.'),
        ...maxChars(2000, 'must be at most 2000 characters.'),
        noSensitiveData(),
      ),
    ),
    caseId: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
  }),
};

export const channelEventAccepted = v.object({ eventId: v.string(), duplicate: v.boolean() });
