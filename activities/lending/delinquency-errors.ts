/** Errors the delinquency configuration operations share (activities/lending/create-delinquency-*.ts). */
import { DomainError, fieldError } from '../../domain/errors';

/**
 * Fineract's `error.msg.data.integrity.issue.entity.duplicated` (a range classification or a bucket name the tenant
 * already has) as a 400 Shape A naming the field, with that code on the field error.
 */
export function duplicated(parameterName: string, value: string, resource: string): DomainError {
  const message = `A ${resource} with this ${parameterName} already exists.`;
  return new DomainError('validation.msg.validation.errors.exist', message, {
    errors: [fieldError(parameterName, value, message, 'error.msg.data.integrity.issue.entity.duplicated')],
  });
}
