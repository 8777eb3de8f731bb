/**
 * The last guard before an error leaves the service: no error message or field error repeats a value that looks
 * like a government identifier or an account or card number (docs/design.md §3: such values are "never logged", returned
 * only masked; docs/design.md §5 Error details: "identifier values are masked"). Operations build messages such as
 * "contactPointRef: Contact point cp_… was not found." from what the caller sent; when that text is
 * identifier-like (domain/sensitive-data.ts `findSensitiveData`), the field error's `value` becomes null and the
 * text is replaced by `[withheld]` in every message of the error. Pure: no I/O.
 */
import { DomainError, type FieldError } from './errors';
import { findSensitiveData } from './sensitive-data';

/** What a withheld value reads as in a message. */
export const withheldText = '[withheld]';

/** `text` itself when it carries nothing identifier-like, else `[withheld]`: for messages naming what was sent. */
export function shownValue(text: string): string {
  return findSensitiveData(text) === null ? text : withheldText;
}

const scrubbed = (message: string, secrets: readonly string[]): string =>
  secrets.reduce((out, secret) => out.split(secret).join(withheldText), message);

/**
 * `err` with every identifier-like string value of its field errors withheld (module note), or `err` itself when
 * it holds none. The code, status and `retryAfterSeconds` are kept.
 */
export function withoutSensitiveValues(err: DomainError): DomainError {
  const secrets = err.errors
    .map((e) => e.value)
    .filter((value): value is string => typeof value === 'string' && value.trim() !== '')
    .filter((value) => findSensitiveData(value) !== null)
    // The longest first, so that a value holding another is replaced whole.
    .sort((a, b) => b.length - a.length);
  if (secrets.length === 0) return err;
  const errors: FieldError[] = err.errors.map((e) => ({
    ...e,
    value: typeof e.value === 'string' && secrets.includes(e.value) ? null : e.value,
    developerMessage: scrubbed(e.developerMessage, secrets),
    defaultUserMessage: scrubbed(e.defaultUserMessage, secrets),
    args: e.args.map((arg) => (typeof arg === 'string' ? scrubbed(arg, secrets) : arg)),
  }));
  const options =
    err.retryAfterSeconds === undefined ? { errors } : { errors, retryAfterSeconds: err.retryAfterSeconds };
  return new DomainError(err.code, scrubbed(err.message, secrets), options);
}
