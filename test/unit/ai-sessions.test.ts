/**
 * AI session vocabulary and the Shape B field locations (domain/servicing/ai-sessions.ts; api/errors.ts;
 * docs/design.md §5 "Error details", Shape B; RFC 6901 JSON Pointer; docs/processes.md P4).
 */
import { describe, expect, it } from 'vitest';
import { problemLocationOf, problemStatusOf, toProblem } from '../../api/errors';
import { DomainError, fieldError } from '../../domain/errors';
import { findSensitiveData } from '../../domain/sensitive-data';
import {
  aiConfidences,
  aiOutputReviewRequired,
  aiOutputTypes,
  opaqueIdFromBytes,
} from '../../domain/servicing/ai-sessions';

describe('aiOutputReviewRequired', () => {
  it('is false only for high confidence of a type that drafts nothing for the customer', () => {
    for (const type of aiOutputTypes) {
      for (const confidence of aiConfidences) {
        const expected = confidence !== 'high' || type === 'customer_message_draft';
        expect(aiOutputReviewRequired(type, confidence), `${type} ${confidence}`).toBe(expected);
      }
    }
  });
});

describe('opaqueIdFromBytes', () => {
  it('makes prefix + 24 letters, skipping bytes ≥ 208 (uniform over 52 letters)', () => {
    const bytes = Uint8Array.from([208, 255, ...Array.from({ length: 24 }, (_, i) => i * 8)]);
    const id = opaqueIdFromBytes('ais_', bytes);
    expect(id).toMatch(/^ais_[A-Za-z]{24}$/);
    expect(id?.slice(4, 6)).toBe('ai');
    expect(findSensitiveData(id ?? '')).toBeNull();
  });

  it('returns null when the bytes run out', () => {
    expect(opaqueIdFromBytes('aio_', new Uint8Array(23))).toBeNull();
    expect(opaqueIdFromBytes('aio_', new Uint8Array(30).fill(250))).toBeNull();
  });
});

describe('problemLocationOf (Shape B errors[] items)', () => {
  it.each([
    ['citations[0].evidenceId', true, { pointer: '/citations/0/evidenceId' }],
    ['content', true, { pointer: '/content' }],
    ['body', true, { pointer: '' }],
    ['body (a field name)', true, { pointer: '' }],
    ['a/b~c', true, { pointer: '/a~1b~0c' }],
    ['header.If-Match', true, { pointer: null, parameter: 'header.If-Match' }],
    ['path.aiSessionId', false, { pointer: null, parameter: 'path.aiSessionId' }],
    ['query.limit', false, { pointer: null, parameter: 'query.limit' }],
    ['limit', false, { pointer: null, parameter: 'query.limit' }],
  ] as const)('%s (body: %s)', (name, hasBody, expected) => {
    expect(problemLocationOf(name, hasBody)).toEqual(expected);
  });
});

describe('toProblem', () => {
  it('renders a 400 as 422 validation_error with pointers, and keeps the other fields of RFC 9457', () => {
    const err = new DomainError('validation.msg.validation.errors.exist', 'bad', {
      errors: [
        fieldError('citations[1].evidenceId', '9', 'not found', 'validation.msg.citation.evidence.not.found'),
      ],
    });
    expect(problemStatusOf(err)).toBe(422);
    expect(toProblem(err, 'https://docs.example/x', 'req-1', true)).toEqual({
      type: 'https://docs.example/x/errors/validation_error',
      title: 'Validation Error',
      status: 422,
      code: 'validation_error',
      detail: 'bad',
      requestId: 'req-1',
      errors: [
        {
          pointer: '/citations/1/evidenceId',
          detail: 'not found',
          code: 'validation.msg.citation.evidence.not.found',
        },
      ],
    });
  });

  it.each([
    ['error.msg.not.authenticated', 401, 'unauthorized', 'Unauthorized'],
    ['error.msg.not.authorized', 403, 'forbidden', 'Forbidden'],
    ['error.msg.resource.not.found', 404, 'not_found', 'Not Found'],
    ['error.msg.ai.session.version.conflict', 409, 'version_conflict', 'Version Conflict'],
    ['idempotency.request.in.flight', 409, 'request_in_flight', 'Request In Flight'],
    ['idempotency.key.payload.mismatch', 422, 'idempotency_key_mismatch', 'Idempotency Key Mismatch'],
    ['error.msg.rate.limited', 429, 'rate_limited', 'Rate Limited'],
    ['error.msg.service.unavailable', 503, 'service_unavailable', 'Service Unavailable'],
    ['error.msg.internal', 500, 'internal_error', 'Internal Error'],
  ] as const)('%s → %i %s', (code, status, problemCode, title) => {
    const problem = toProblem(new DomainError(code), 'https://d', 'r', true);
    expect(problem).toMatchObject({
      status,
      code: problemCode,
      title,
      type: `https://d/errors/${problemCode}`,
    });
    expect('errors' in problem).toBe(status === 422);
  });
});
