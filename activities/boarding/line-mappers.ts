/**
 * Mappers of the boarding of staged lines (activities/boarding/board-boarding-chunk.ts; docs/processes.md P3): a
 * boarded line's request key, which errors fail one line rather than the activity, and a line's error in Shape A
 * with its field names under `body.`.
 */

import { DomainError, type ShapeABody, shapeAOf } from '../../domain/errors';
import { asBodyError, bodyReferenceError } from './line-schemas';
import type { StagedLine } from './lines';

/** The request key of a boarded line's operation: stable across retries, crashes and batches (P3). */
export const boardingRequestKey = (kind: string, sourceRef: string) => `boarding/${kind}/${sourceRef}`;

/** Only a client error (4xx) of one line fails that line; anything else is retried by the activity. */
export function lineError(err: unknown): DomainError | null {
  if (err instanceof DomainError && errorStatus(err) < 500) return err;
  return null;
}

/** The HTTP status of a DomainError's Shape A. */
function errorStatus(err: DomainError): number {
  return Number(shapeAOf(err).httpStatusCode);
}

/** Shape A of a line's error, field names prefixed with `prefix` (`body.`, `body.identifiers[0].`). */
export function lineShape(err: DomainError, prefix = ''): ShapeABody {
  const named =
    prefix === ''
      ? asBodyError(err)
      : new DomainError(err.code, err.message, {
          errors: asBodyError(err).errors.map((e) => ({
            ...e,
            parameterName: e.parameterName.replace(/^body\./, `body.${prefix}`),
          })),
        });
  return shapeAOf(named);
}

/** An operation's Shape A error with its field names under `body.` (the line's body holds the route's fields). */
export function underBody(error: ShapeABody): ShapeABody {
  return { ...error, errors: error.errors.map((e) => ({ ...e, parameterName: `body.${e.parameterName}` })) };
}

/** The error of a funding or payment line whose loan did not board. */
export function loanNotBoarded(loan: StagedLine): ShapeABody {
  return shapeAOf(
    bodyReferenceError(
      'loanSourceRef',
      loan.sourceRef,
      `loanSourceRef ${loan.sourceRef}: the loan of line ${loan.lineNo} failed to board.`,
    ),
  );
}
