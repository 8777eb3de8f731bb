/**
 * How one uploaded line of a boarding batch is staged (docs/processes.md P3 "Input"): the line-shape
 * check the upload applies as it streams, before anything is boarded. A line is PENDING when it is a JSON object
 * `{kind, sourceRef, body}` with `kind` one of `boardingKinds`, `sourceRef` 1–128 characters without control
 * characters (and no government identifier or account number: docs/lending.md "Lending core") and `body` an object; the
 * bodies themselves are validated per kind by the boarding process. Anything else is FAILED with a Shape A error
 * (400 `validation.msg.validation.errors.exist`) naming `line`, `kind`, `sourceRef` or `body`: malformed lines are
 * reported, never fatal. Pure.
 */
import { DomainError, type FieldError, fieldError, type ShapeABody, shapeAOf } from '../errors';
import { findSensitiveData, sensitiveDataMessage } from '../sensitive-data';
import { type BoardingKind, boardingKinds, isBoardingKind } from './batch';

/** Longest line staged, in bytes of UTF-8 without its line break (1 MiB); a longer line is FAILED, unread beyond. */
export const boardingLineBytesMax = 1024 * 1024;

/** Longest `sourceRef`, in characters. */
export const sourceRefLengthMax = 128;

/** The characters of a source ref (the routes' reference format, domain/validation/refs.ts): `cust-001`, `LN:42`. */
const sourceRefPattern = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;

/** What the staging stores for one line (`boarding_lines`). */
export interface StagedLine {
  state: 'PENDING' | 'FAILED';
  /** The line's kind when it names one of `boardingKinds` (also on a FAILED line), else null. */
  kind: BoardingKind | null;
  /** The line's `sourceRef` when it is a well-formed one (also on a FAILED line), else null. */
  sourceRef: string | null;
  /** The body's `loanSourceRef` (funding, payment) or `customerSourceRef` (restriction, loan, verification). */
  parentSourceRef: string | null;
  /** Shape A of a FAILED line, else null. */
  error: ShapeABody | null;
}

/** Text PostgreSQL cannot store (U+0000, a lone surrogate): refused, since the line is stored and parsed into jsonb. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: U+0000 is what this pattern finds.
const unstorable = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this pattern finds.
const controlCharacters = /[\u0000-\u001f\u007f-\u009f]/;

/** The field holding a line's parent source ref, per kind (docs/processes.md P3). */
const parentFieldOf: Partial<Record<BoardingKind, 'loanSourceRef' | 'customerSourceRef'>> = {
  funding: 'loanSourceRef',
  payment: 'loanSourceRef',
  restriction: 'customerSourceRef',
  loan: 'customerSourceRef',
  verification: 'customerSourceRef',
};

function failed(
  errors: FieldError[],
  known: { kind?: BoardingKind | null; sourceRef?: string | null } = {},
): StagedLine {
  const message = errors.map((e) => e.developerMessage).join(' ');
  return {
    state: 'FAILED',
    kind: known.kind ?? null,
    sourceRef: known.sourceRef ?? null,
    parentSourceRef: null,
    error: shapeAOf(new DomainError('validation.msg.validation.errors.exist', message, { errors })),
  };
}

/** True when a string or key anywhere in `value` holds text PostgreSQL cannot store. */
function holdsUnstorableText(value: unknown): boolean {
  if (typeof value === 'string') return unstorable.test(value);
  if (Array.isArray(value)) return value.some(holdsUnstorableText);
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).some(([key, item]) => unstorable.test(key) || holdsUnstorableText(item));
  }
  return false;
}

/** A FAILED line that is longer than `boardingLineBytesMax` (its text was not read beyond that). */
export function overlongLine(lineNo: number): StagedLine {
  return failed([
    fieldError(
      'line',
      lineNo,
      `Line ${lineNo} is longer than ${boardingLineBytesMax} bytes; a boarding line holds one record.`,
    ),
  ]);
}

/** A FAILED line whose bytes are not UTF-8. */
export function undecodableLine(lineNo: number): StagedLine {
  return failed([fieldError('line', lineNo, `Line ${lineNo} is not UTF-8 text.`)]);
}

/**
 * Stages line `lineNo` (1-based) from its text (UTF-8 decoded, without its line break and trailing CR): PENDING
 * with kind, sourceRef and parent source ref, or FAILED with the Shape A error naming what is wrong.
 */
export function stageLine(lineNo: number, text: string): StagedLine {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    const reason = err instanceof Error ? err.message : 'not JSON';
    return failed([fieldError('line', lineNo, `Line ${lineNo} is not JSON (${reason}).`)]);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return failed([
      fieldError('line', lineNo, `Line ${lineNo} must be a JSON object {"kind", "sourceRef", "body"}.`),
    ]);
  }
  const record = parsed as Record<string, unknown>;
  const errors: FieldError[] = [];
  const kind = isBoardingKind(record.kind) ? record.kind : null;
  if (kind === null) {
    const value = typeof record.kind === 'string' ? record.kind.slice(0, sourceRefLengthMax) : null;
    errors.push(
      fieldError(
        'kind',
        value,
        record.kind === undefined
          ? `Line ${lineNo}: kind is required (one of ${boardingKinds.join(', ')}).`
          : `Line ${lineNo}: kind must be one of ${boardingKinds.join(', ')}.`,
      ),
    );
  }
  let sourceRef: string | null = null;
  const rawRef = record.sourceRef;
  if (typeof rawRef !== 'string' || rawRef.length < 1 || rawRef.length > sourceRefLengthMax) {
    errors.push(
      fieldError(
        'sourceRef',
        null,
        `Line ${lineNo}: sourceRef is required: a string of 1–${sourceRefLengthMax} characters.`,
      ),
    );
  } else if (controlCharacters.test(rawRef) || unstorable.test(rawRef)) {
    errors.push(fieldError('sourceRef', null, `Line ${lineNo}: sourceRef must not hold control characters.`));
  } else if (!sourceRefPattern.test(rawRef)) {
    // The default externalId / externalRecordRef of the line: a reference, as the routes take one (domain/validation/refs.ts).
    errors.push(
      fieldError(
        'sourceRef',
        null,
        `Line ${lineNo}: sourceRef must be 1–${sourceRefLengthMax} of A–Z a–z 0–9 . _ : -, starting with a letter or digit.`,
      ),
    );
  } else {
    const sensitive = findSensitiveData(rawRef);
    if (sensitive) {
      errors.push(
        fieldError('sourceRef', null, `Line ${lineNo}: sourceRef ${sensitiveDataMessage(sensitive)}`),
      );
    } else {
      sourceRef = rawRef;
    }
  }
  const body = record.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    errors.push(fieldError('body', null, `Line ${lineNo}: body is required and must be a JSON object.`));
  } else if (holdsUnstorableText(body)) {
    errors.push(
      fieldError(
        'body',
        null,
        `Line ${lineNo}: body holds text that cannot be stored (U+0000 or a lone UTF-16 surrogate).`,
      ),
    );
  }
  if (errors.length > 0) return failed(errors, { kind, sourceRef });
  const parentField = kind ? parentFieldOf[kind] : undefined;
  const parent = parentField ? (body as Record<string, unknown>)[parentField] : undefined;
  return {
    state: 'PENDING',
    kind,
    sourceRef,
    parentSourceRef: typeof parent === 'string' && parent.length <= sourceRefLengthMax ? parent : null,
    error: null,
  };
}
