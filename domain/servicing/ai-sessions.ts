/**
 * AI-assisted session vocabulary (docs/servicing.md "AI sessions and their outputs"; docs/processes.md P4 "AI session
 * outputs"): output types, confidence levels, the review rule and the opaque identifiers.
 *
 * Beyond `next_action_recommendation` and `high`, the output types and confidences below are our choice,
 * documented in the OpenAPI document and docs/servicing.md "AI sessions and their outputs".
 * Pure: usable in the API, operations and workflows.
 */

/**
 * Output types. `customer_message_draft` drafts a message meant for the customer, so a person reviews it
 * whatever the model's confidence (human in the loop before anything reaches a customer).
 */
export const aiOutputTypes = [
  'next_action_recommendation',
  'call_summary',
  'customer_message_draft',
  'hardship_assessment',
] as const;
export type AiOutputType = (typeof aiOutputTypes)[number];

/** Output types that draft customer-facing text: always reviewed. */
export const customerFacingAiOutputTypes: readonly AiOutputType[] = ['customer_message_draft'];

/** The model's own confidence in an output. */
export const aiConfidences = ['high', 'medium', 'low'] as const;
export type AiConfidence = (typeof aiConfidences)[number];

/** Status of an accepted output (docs/servicing.md "AI sessions and their outputs": "AI output status produced"). */
export const aiOutputStatuses = ['produced'] as const;
export type AiOutputStatus = (typeof aiOutputStatuses)[number];

/** Task type of the review task an output that needs review opens on the session's case. */
export const aiOutputReviewTaskType = 'AI_OUTPUT_REVIEW';

/**
 * Whether a person must review an output before it is acted on (docs/processes.md P4): the confidence is not
 * `high`, or the type drafts a customer-facing message.
 */
export function aiOutputReviewRequired(type: AiOutputType, confidence: AiConfidence): boolean {
  return confidence !== 'high' || customerFacingAiOutputTypes.includes(type);
}

/** Prefix of AI session ids (`ais_…`) and of output ids (`aio_…`). */
export const aiSessionIdPrefix = 'ais_';
export const aiOutputIdPrefix = 'aio_';

/** Letters of the random part of an opaque id: no digits, so no id can look like an account number. */
const idAlphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** Letters in the random part: 24 letters of 52 carry log2(52) × 24 ≈ 136.8 bits (≥ 96 asked). */
export const opaqueIdLetters = 24;

/**
 * An opaque id `<prefix><24 letters>` from `randomBytes` (at least 24 bytes, uniformly random), by rejection
 * sampling (bytes ≥ 208 = 4 × 52 are skipped, so every letter is equally likely). Returns null when the bytes
 * ran out before 24 letters (ask again with more bytes). Letters only: the identifier guard
 * (domain/sensitive-data.ts) never mistakes such an id for an account number.
 */
export function opaqueIdFromBytes(prefix: string, randomBytes: Uint8Array): string | null {
  let letters = '';
  for (const byte of randomBytes) {
    if (byte >= 208) continue;
    letters += idAlphabet[byte % 52];
    if (letters.length === opaqueIdLetters) return `${prefix}${letters}`;
  }
  return null;
}

/** The shape of an AI session id (`ais_` + 24 letters). */
export const aiSessionIdPattern = /^ais_[A-Za-z]{24}$/;
/** The shape of an AI output id (`aio_` + 24 letters). */
export const aiOutputIdPattern = /^aio_[A-Za-z]{24}$/;
