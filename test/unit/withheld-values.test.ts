/**
 * No error repeats an identifier-like value (docs/design.md §5 Error details: "identifier values are masked"; docs/design.md §3:
 * government identifiers and account data are never echoed or logged): a 404 naming a text ref does not repeat it,
 * and the last guard before an answer (domain/withheld-values.ts, used by api/errors.ts for Shape A and Shape B)
 * withholds any identifier-like field error value from every message of the error.
 */
import { describe, expect, it } from 'vitest';
import { toProblem, toShapeA } from '../../api/errors';
import { DomainError, fieldError, referenceNotFound } from '../../domain/errors';
import { shownValue, withheldText, withoutSensitiveValues } from '../../domain/withheld-values';

describe('identifier-like values in errors', () => {
  it('a 404 for a text ref does not repeat the ref; a numeric id is still named', () => {
    const err = referenceNotFound('contactPointRef', 'cp_536228417', 'Contact point of the customer');
    expect(err.message).not.toContain('536228417');
    expect(err.errors[0]?.developerMessage).not.toContain('536228417');
    expect(referenceNotFound('caseId', 42, 'Case').message).toBe('caseId: Case 42 was not found.');
  });

  it('Shape A and Shape B withhold an identifier-like value from the value and every message', () => {
    const message = 'contactPointRef: contact point cp_536228417 was not found.';
    const err = new DomainError('error.msg.resource.not.found', message, {
      errors: [fieldError('contactPointRef', 'cp_536228417', message, 'error.msg.resource.not.found')],
    });
    const shapeA = toShapeA(err);
    expect(JSON.stringify(shapeA)).not.toContain('536228417');
    expect(shapeA.errors[0]?.value).toBeNull();
    expect(shapeA.developerMessage).toBe(`contactPointRef: contact point ${withheldText} was not found.`);
    expect(shapeA.userMessageGlobalisationCode).toBe('error.msg.resource.not.found');
    const problem = toProblem(err, 'https://docs.invalid', 'req-1', true);
    expect(JSON.stringify(problem)).not.toContain('536228417');
  });

  it('leaves ordinary values and errors as they are', () => {
    const message = 'caseTypeCode: case type GENERAL already exists.';
    const err = new DomainError('error.msg.case.type.duplicate', message, {
      errors: [fieldError('caseTypeCode', 'GENERAL', message, 'error.msg.case.type.duplicate')],
    });
    expect(withoutSensitiveValues(err)).toBe(err);
    expect(toShapeA(err).errors[0]?.value).toBe('GENERAL');
    expect(shownValue('cus_abc')).toBe('cus_abc');
    expect(shownValue('acct 000123456789')).toBe(withheldText);
  });
});
