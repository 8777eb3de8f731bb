/**
 * The pure validation helpers that the API's request validation and portfolio boarding share (docs/design.md §4 Errors:
 * Shape A 400 `validation.msg.validation.errors.exist`, each offending field named as a dotted path): the
 * conversion of Standard Schema issues into that error, the common field schemas (positive integer ids, paging
 * parameters, guarded text) and the rule of text PostgreSQL cannot store (U+0000, a lone UTF-16 surrogate).
 * valibot only; no HTTP. The HTTP glue (hono-openapi validators, lossless JSON, the storable-input middleware) is
 * api/validation.ts.
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import * as v from 'valibot';
import { DomainError, type FieldError, fieldError } from '../errors';
import { findSensitiveData, noSensitiveData } from '../sensitive-data';
import { maxChars, minChars } from './text-length';

function parameterName(target: string, path: StandardSchemaV1.Issue['path']): string {
  let name = '';
  for (const segment of path ?? []) {
    const key = typeof segment === 'object' && segment !== null && 'key' in segment ? segment.key : segment;
    if (typeof key === 'number') name += `[${key}]`;
    else name += name === '' ? String(key) : `.${String(key)}`;
  }
  if (name === '') return target === 'json' ? 'body' : target;
  return name;
}

function valueAt(data: unknown, path: StandardSchemaV1.Issue['path']): unknown {
  let current: unknown = data;
  for (const segment of path ?? []) {
    const key = typeof segment === 'object' && segment !== null && 'key' in segment ? segment.key : segment;
    if (current === null || typeof current !== 'object') return null;
    current = (current as Record<PropertyKey, unknown>)[key as PropertyKey];
  }
  return current === undefined ? null : current;
}

/**
 * A body field error's value and message with the value withheld when it looks like a government identifier or
 * an account or card number (domain/sensitive-data.ts): the value becomes null and its text is cut out of the
 * message (docs/design.md §3: such values are never echoed or logged; docs/design.md §5: identifier values are masked).
 */
function withheldIfSensitive(value: unknown, message: string): { value: unknown; message: string } {
  if (typeof value !== 'string' || findSensitiveData(value) === null) return { value, message };
  return { value: null, message: value.trim() === '' ? message : message.split(value).join('[withheld]') };
}

/** Converts Standard Schema issues into the DomainError the error handler renders. */
export function issuesToError(
  target: string,
  issues: readonly StandardSchemaV1.Issue[],
  data: unknown,
): DomainError {
  const errors = issues.map((issue) => {
    const name = parameterName(target, issue.path);
    // valibot's strict objects report both cases as "Invalid key": an unknown key expects
    // `never`, a missing required key expects the key's name.
    const unknownKey = issue.message.startsWith('Invalid key: Expected never');
    const missingKey = !unknownKey && issue.message.startsWith('Invalid key');
    const message = unknownKey
      ? target === 'query'
        ? `Unknown query parameter ${name}.`
        : `Unknown field ${name}.`
      : missingKey
        ? `${name} is required.`
        : `${name}: ${issue.message}`;
    const value = unknownKey ? null : valueAt(data, issue.path);
    // Body fields are where free text lives; path and query values are the caller's own URL and stay shown.
    const shown = target === 'json' ? withheldIfSensitive(value, message) : { value, message };
    return fieldError(name, shown.value, shown.message);
  });
  return new DomainError(
    'validation.msg.validation.errors.exist',
    errors.map((e) => e.developerMessage).join(' '),
    { errors },
  );
}

/** A positive integer identifier in the path, e.g. `caseId`. */
export const integerId = (name: string) =>
  v.pipe(
    v.string(),
    v.regex(/^[1-9][0-9]{0,15}$/, `${name} must be a positive integer.`),
    v.transform(Number),
  );

/**
 * Free text that must never carry a government identifier or an account or card number (docs/lending.md "Lending core"
 * "never place government identifiers or account numbers in … rationale … or notes"): non-empty trimmed
 * text up to `max` characters, refused (400 naming the field, value withheld) when `findSensitiveData` finds one
 * after its normalization (NFKC, invisible characters dropped, separators between digits counted as nothing).
 */
export const guardedText = (max: number) => v.pipe(text(max), noSensitiveData());

/** `limit`: 1 to 200, default 50; out of range is an error, never clamped (docs/design.md §4 Paging). */
export const limitParam = v.optional(
  v.pipe(
    v.string(),
    v.regex(/^[0-9]{1,4}$/, 'limit must be an integer from 1 to 200.'),
    v.transform(Number),
    v.minValue(1, 'limit must be an integer from 1 to 200.'),
    v.maxValue(200, 'limit must be an integer from 1 to 200.'),
    // The OpenAPI document states the range as the text the checks accept (found by `npm run fuzz`).
    v.metadata({ pattern: '^0{0,3}([1-9]|[1-9][0-9]|1[0-9]{2}|200)$', maxLength: 4 }),
  ),
  '50',
);

/** `offset`: a non-negative integer, default 0. */
export const offsetParam = v.optional(
  v.pipe(v.string(), v.regex(/^[0-9]{1,9}$/, 'offset must be a non-negative integer.'), v.transform(Number)),
  '0',
);

/** Non-empty trimmed text up to `max` characters. */
export const text = (max: number) =>
  v.pipe(
    v.string(),
    v.trim(),
    ...minChars(1, 'must not be empty.'),
    ...maxChars(max, `must be at most ${max} characters.`),
  );

/** A character PostgreSQL cannot store, found in some text: its index (UTF-16 code units) and its name. */
export interface UnstorableCharacter {
  index: number;
  /** `U+0000 (NUL)` or `a lone UTF-16 surrogate U+D800`. */
  description: string;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding U+0000 is the point of this pattern.
const unstorablePattern = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * The first character of `text` that PostgreSQL cannot store (module note): U+0000, or a UTF-16 surrogate
 * without its pair; null when every character is storable. The one rule, used for bodies, query and
 * path parameters and the Idempotency-Key header.
 */
export function unstorableCharacter(text: string): UnstorableCharacter | null {
  const match = unstorablePattern.exec(text);
  if (match === null) return null;
  const unit = text.charCodeAt(match.index);
  const hex = unit.toString(16).toUpperCase().padStart(4, '0');
  return {
    index: match.index,
    description: unit === 0 ? 'U+0000 (NUL)' : `a lone UTF-16 surrogate U+${hex}`,
  };
}

/** The field error for `parameterName` whose text holds `found`; the text itself is not echoed. */
export function unstorableFieldError(parameterName: string, found: UnstorableCharacter): FieldError {
  return fieldError(
    parameterName,
    null,
    `${parameterName} contains ${found.description} at position ${found.index}, which cannot be stored; send text without NUL characters and with every surrogate paired (well-formed UTF-16 / valid UTF-8).`,
    'validation.msg.text.unstorable.character',
  );
}
