import { describe, expect, it } from 'vitest';
import {
  DomainError,
  type ErrorCode,
  errorCodes,
  fieldError,
  isErrorCode,
  notFound,
  OAuthError,
  statusOfCode,
  validationError,
} from '../../domain/errors';

const codes = Object.keys(errorCodes) as ErrorCode[];

describe('error table', () => {
  it('gives every code an HTTP error status and a message', () => {
    expect(codes.length).toBeGreaterThan(0);
    for (const code of codes) {
      const info = errorCodes[code];
      expect([400, 401, 403, 404, 405, 409, 413, 415, 422, 428, 429, 500, 503]).toContain(info.status);
      expect(info.message.length).toBeGreaterThan(0);
      expect(code).toMatch(/^[a-z]+(\.[a-z]+)+$/);
      expect(statusOfCode(code)).toBe(info.status);
      expect(isErrorCode(code)).toBe(true);
    }
  });

  it('uses validation.* codes for 400 and error.*/idempotency.* for the rest', () => {
    for (const code of codes) {
      if (errorCodes[code].status === 400) expect(code.startsWith('validation.msg.')).toBe(true);
      else expect(code.startsWith('validation.')).toBe(false);
    }
  });

  it.each([
    ['validation.msg.validation.errors.exist', 400],
    ['validation.msg.cursor.query.mismatch', 400],
    ['error.msg.not.authenticated', 401],
    ['error.msg.not.authorized', 403],
    ['error.msg.resource.not.found', 404],
    ['error.msg.method.not.allowed', 405],
    ['idempotency.request.in.flight', 409],
    ['idempotency.key.payload.mismatch', 422],
    ['error.msg.rate.limited', 429],
    ['error.msg.case.invalid.state.transition', 409],
    ['error.msg.case.customer.mismatch', 409],
    ['error.msg.interaction.customer.mismatch', 409],
    ['error.msg.task.invalid.state.transition', 409],
    ['error.msg.privacy.request.invalid.state.transition', 409],
    ['error.msg.external.record.ref.conflict', 409],
    ['error.msg.service.unavailable', 503],
    ['error.msg.internal', 500],
  ] as const)('%s is %i (docs/design.md §4 Errors, docs/design.md §5)', (code, status) => {
    expect(isErrorCode(code)).toBe(true);
    expect(statusOfCode(code)).toBe(status);
    expect(new DomainError(code).status).toBe(status);
  });

  it('answers 500 for a code it does not know and does not treat prototype keys as codes', () => {
    expect(statusOfCode('error.msg.unknown')).toBe(500);
    expect(isErrorCode('error.msg.unknown')).toBe(false);
    expect(isErrorCode('toString')).toBe(false);
    expect(isErrorCode('__proto__')).toBe(false);
    expect(statusOfCode('constructor')).toBe(500);
  });
});

describe('DomainError', () => {
  it('takes the default message of its code, no field errors and no retry hint', () => {
    const err = new DomainError('error.msg.resource.not.found');
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('DomainError');
    expect(err.message).toBe(errorCodes['error.msg.resource.not.found'].message);
    expect(err.errors).toEqual([]);
    expect(err.retryAfterSeconds).toBeUndefined();
  });

  it('carries a developer message, field errors and a retry hint', () => {
    const cause = fieldError('charges[0].amount', '1.234', 'Too many decimals.');
    const err = new DomainError('error.msg.rate.limited', 'slow down', {
      errors: [cause],
      retryAfterSeconds: 3,
    });
    expect(err.message).toBe('slow down');
    expect(err.errors).toEqual([cause]);
    expect(err.retryAfterSeconds).toBe(3);
    expect(err.status).toBe(429);
  });

  it('validationError builds a 400 with one field cause', () => {
    const err = validationError('caseTypeCode', 'NOPE', 'Unknown case type NOPE.');
    expect(err.code).toBe('validation.msg.validation.errors.exist');
    expect(err.status).toBe(400);
    expect(err.errors).toEqual([
      {
        parameterName: 'caseTypeCode',
        value: 'NOPE',
        developerMessage: 'Unknown case type NOPE.',
        defaultUserMessage: 'Unknown case type NOPE.',
        userMessageGlobalisationCode: 'validation.msg.validation.errors.exist',
        args: [],
      },
    ]);
  });

  it('fieldError maps an absent value to null and keeps a given code', () => {
    expect(fieldError('x', undefined, 'missing').value).toBeNull();
    expect(fieldError('x', 0, 'zero', 'validation.msg.x.zero', [1]).userMessageGlobalisationCode).toBe(
      'validation.msg.x.zero',
    );
    expect(fieldError('x', 0, 'zero', 'validation.msg.x.zero', [1]).args).toEqual([1]);
  });

  it('notFound is a 404 naming the resource', () => {
    const err = notFound('Case', 7);
    expect(err.status).toBe(404);
    expect(err.message).toBe('Case 7 was not found.');
  });
});

describe('OAuthError', () => {
  it('is 401 for invalid_client and 400 for the other RFC 6749 §5.2 codes', () => {
    expect(new OAuthError('invalid_client', 'x').status).toBe(401);
    for (const code of [
      'invalid_request',
      'invalid_grant',
      'unsupported_grant_type',
      'invalid_scope',
    ] as const) {
      const err = new OAuthError(code, 'described');
      expect(err.status).toBe(400);
      expect(err.error).toBe(code);
      expect(err.message).toBe('described');
    }
  });
});
