/**
 * The one request-validation helper (docs/conventions.md §4.1): valibot schemas run through hono-openapi's
 * Standard Schema validator, so the same schemas describe the routes in the OpenAPI document.
 * A failure is a Shape A 400 `validation.msg.validation.errors.exist` whose `errors[]` name each
 * offending field (`parameterName` as a dotted path, e.g. `evidenceIds[1]`). Unknown body fields
 * and unknown query parameters fail too: every schema here is a strict object.
 *
 * JSON numbers never pass silently through a double (docs/design.md §3 money is never a float): before the
 * schema runs, the body is read with lossless-json, and a number whose text a double does not hold faithfully
 * (an integer beyond ±(2^53 − 1), or a fraction whose significant digits differ from the double's shortest form,
 * e.g. `9007199254740.993`, read as `…992`) → 400 naming the field. Every other number reads as before, so the
 * value the schema sees, and the request fingerprint of the Idempotency-Key store (RFC 8785 canonical JSON), are
 * exactly the value sent.
 *
 * Text PostgreSQL cannot store is refused on every route, right after authentication and before any
 * route looks at the request (`storableInput`, mounted once in api/app.ts; the signed channel-event callback
 * checks its body after its signature): U+0000 (NUL; `text` and `jsonb` refuse it, SQLSTATE 22021 / 22P05) and a
 * lone UTF-16 surrogate (U+D800–U+DFFF without its pair; `jsonb` refuses its `\\u` escape, and a `text` column
 * would silently store U+FFFD instead). The rule is `unstorableCharacter`, applied to every string (and every
 * key) of a JSON body, every query parameter and every path parameter; percent-encoding that is not UTF-8
 * (`%ED%A0%80`, `%FF`) is refused with it. The same middleware applies the `Idempotency-Key` header's own rule
 * (printable ASCII, no comma; middleware/idempotency.ts), which excludes these characters too. 400 Shape A
 * naming each such input, its `value` null (the text is not echoed).
 */
import type { MiddlewareHandler, ValidationTargets } from 'hono';
import { matchedRoutes } from 'hono/route';
import { describeRoute, validator } from 'hono-openapi';
import { isLosslessNumber, isSafeNumber, parse as parseLosslessJson } from 'lossless-json';
import * as v from 'valibot';
import { DomainError, type FieldError, fieldError } from '../domain/errors';
import { findSensitiveData } from '../domain/sensitive-data';
import { issuesToError, unstorableCharacter, unstorableFieldError } from '../domain/validation/fields';
import type { AppEnv } from './env';
import { idempotencyKeyError } from './middleware/idempotency';

function validate<Target extends keyof ValidationTargets, S extends v.GenericSchema>(
  target: Target,
  schema: S,
) {
  return validator(target, schema, (result) => {
    if (!result.success) throw issuesToError(target, result.error, result.data);
  });
}

const jsonContentType = /^application\/([a-z0-9.+-]+\+)?json(\s*;.*)?$/i;

/**
 * The JSON numbers of `value` (parsed by lossless-json, numbers kept as their text) that a double does not
 * hold faithfully (lossless-json `isSafeNumber`, exact mode), with their parameter names (`principal`,
 * `charges[0].amount`; `body` for a bare number).
 */
function unfaithfulNumbers(value: unknown, name = ''): { parameterName: string; text: string }[] {
  if (isLosslessNumber(value)) {
    return isSafeNumber(value.value)
      ? []
      : [{ parameterName: name === '' ? 'body' : name, text: value.value }];
  }
  if (Array.isArray(value))
    return value.flatMap((item, index) => unfaithfulNumbers(item, `${name}[${index}]`));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) =>
      unfaithfulNumbers(item, name === '' ? key : `${name}.${key}`),
    );
  }
  return [];
}

/**
 * Checks the content type, then reads the body text once (Hono caches it for the validator) and refuses JSON
 * numbers a double would change (module note): 400 `validation.msg.validation.errors.exist` with one error per
 * such number, its `value` the number's text (null for the `redacted` parameters). A body that is not JSON is
 * left to the validator, which answers 400 as before.
 */
function jsonBodyCheck(redacted: readonly string[]): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const contentType = c.req.header('content-type') ?? '';
    if (!jsonContentType.test(contentType)) {
      throw new DomainError('validation.msg.validation.errors.exist', 'The body must be application/json.', {
        errors: [
          fieldError('header.Content-Type', contentType || null, 'The body must be application/json.'),
        ],
      });
    }
    let parsed: unknown;
    try {
      parsed = parseLosslessJson(await c.req.text());
    } catch {
      parsed = undefined;
    }
    const unfaithful = unfaithfulNumbers(parsed);
    if (unfaithful.length > 0) {
      const errors = unfaithful.map(({ parameterName, text }) => {
        // A number that looks like an identifier or an account number (its digits, or the double's reading of them)
        // is never repeated in an error (docs/design.md §3).
        const hidden =
          redacted.includes(parameterName) ||
          findSensitiveData(text) !== null ||
          findSensitiveData(String(Number(text))) !== null;
        const message = hidden
          ? `${parameterName}: this JSON number cannot be held exactly by a double; send it as a decimal string.`
          : `${parameterName}: the JSON number ${text} cannot be held exactly by a double (it would be read as ${String(Number(text))}); send it as a decimal string, e.g. "${text}".`;
        return fieldError(parameterName, hidden ? null : text, message);
      });
      throw new DomainError(
        'validation.msg.validation.errors.exist',
        errors.map((e) => e.developerMessage).join(' '),
        { errors },
      );
    }
    await next();
  };
}

/**
 * Validates an `application/json` body (another content type → 400 on `header.Content-Type`; a JSON number a
 * double cannot hold exactly → 400 naming its field, module note).
 */
export function jsonBody<S extends v.GenericSchema>(schema: S) {
  return [jsonBodyCheck([]), validate('json', schema)] as const;
}

/**
 * `jsonBody` for a body whose fields are all optional: a request without `Content-Type` and
 * without a body is validated as `{}`; a body without `Content-Type`, or another content type,
 * → 400 on `header.Content-Type`. The OpenAPI document says so: `requestBody.required: false` (the validator's
 * description says `true`; this one is merged after it. Found by `npm run fuzz`: a request without a body was
 * accepted where the document required one).
 */
export function optionalJsonBody<S extends v.GenericSchema>(schema: S) {
  const [requireJson, check] = jsonBody(schema);
  const allowEmpty: MiddlewareHandler<AppEnv> = async (c, next) => {
    if (c.req.header('content-type') === undefined && (await c.req.text()) === '') return next();
    return requireJson(c, next);
  };
  return [allowEmpty, check, describeRoute({ requestBody: { required: false, content: {} } })] as const;
}

/** Removes every occurrence of `value` (as text) from `message`; a blank value has nothing to hide. */
function scrub(message: string, value: unknown): string {
  if ((typeof value !== 'string' && typeof value !== 'number') || String(value).trim().length === 0)
    return message;
  return message.split(String(value)).join('[redacted]');
}

/**
 * `jsonBody` whose field errors on the `redacted` parameters carry a null `value` and a message scrubbed of it,
 * so a rejected sensitive value is never echoed (docs/design.md §5 Error details: "identifier values are masked"; docs/lending.md "Lending core"). `replace`, when given, is asked first for every field error and may return the error to show
 * instead (shown as returned, not scrubbed), or null to keep the usual handling.
 */
export function redactingJsonBody<S extends v.GenericSchema>(
  schema: S,
  redacted: readonly string[],
  replace?: (error: FieldError) => FieldError | null,
) {
  const contentType = jsonBodyCheck(redacted);
  const check = validator('json', schema, (result) => {
    if (result.success) return;
    const err = issuesToError('json', result.error, result.data);
    const errors = err.errors.map((e) => {
      const replaced = replace?.(e);
      if (replaced) return replaced;
      if (!redacted.includes(e.parameterName)) return e;
      return fieldError(e.parameterName, null, scrub(e.developerMessage, e.value));
    });
    throw new DomainError(err.code, errors.map((e) => e.developerMessage).join(' '), { errors });
  });
  return [contentType, check] as const;
}

/** Validates the query string against a strict object (unknown parameters → 400). */
export function queryParams<S extends v.GenericSchema>(schema: S) {
  return validate('query', schema);
}

/**
 * `queryParams` whose field errors are named `query.<parameter>` (and an unknown parameter `query.<name>`), so
 * that a Shape B answer can tell a query parameter from a body field (api/errors.ts `problemLocationOf`).
 */
export function namedQueryParams<S extends v.GenericSchema>(schema: S) {
  return validator('query', schema, (result) => {
    if (result.success) return;
    const err = issuesToError('query', result.error, result.data);
    const errors = err.errors.map((e) => ({ ...e, parameterName: `query.${e.parameterName}` }));
    throw new DomainError(err.code, err.message, { errors });
  });
}

/** Validates path parameters. */
export function pathParams<S extends v.GenericSchema>(schema: S) {
  return validate('param', schema);
}

/** No query parameters at all: any one → 400. */
export const noQuery = () => queryParams(v.strictObject({}));

/** Field errors for every string and key of a parsed JSON value holding an unstorable character. */
function unstorableInJson(value: unknown, name: string): FieldError[] {
  const label = name === '' ? 'body' : name;
  if (typeof value === 'string') {
    const found = unstorableCharacter(value);
    return found ? [unstorableFieldError(label, found)] : [];
  }
  if (Array.isArray(value))
    return value.flatMap((item, index) => unstorableInJson(item, `${name}[${index}]`));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) => {
      const path = name === '' ? key : `${name}.${key}`;
      const found = unstorableCharacter(key);
      // A key that cannot be stored is named by its parent (its own name is the problem).
      if (found) return [unstorableFieldError(`${label} (a field name)`, found)];
      return unstorableInJson(item, path);
    });
  }
  return [];
}

/** `text` percent-decoded as UTF-8 (`+` as a space when `plus`), or null when the encoding is not valid UTF-8. */
function percentDecoded(text: string, plus: boolean): string | null {
  try {
    return decodeURIComponent(plus ? text.replace(/\+/g, ' ') : text);
  } catch {
    return null;
  }
}

function undecodableFieldError(parameterName: string): FieldError {
  return fieldError(
    parameterName,
    null,
    `${parameterName} is not valid percent-encoded UTF-8, so it cannot be read or stored; percent-encode the UTF-8 bytes of well-formed text.`,
    'validation.msg.text.unstorable.character',
  );
}

/** The path template of the route that will answer (`/v1/loans/:loanId`), or null when none matches. */
function handlerTemplate(c: Parameters<typeof matchedRoutes>[0]): string | null {
  const routes = matchedRoutes(c).filter((r) => r.method !== 'ALL');
  return routes.at(-1)?.path ?? null;
}

/** Field errors for path segments holding unstorable text: named after the route's parameter when known. */
function unstorableInPath(rawPath: string, template: string | null): FieldError[] {
  const segments = rawPath.split('/');
  const names = template?.split('/') ?? [];
  const errors: FieldError[] = [];
  for (const [index, segment] of segments.entries()) {
    if (!segment.includes('%') && unstorableCharacter(segment) === null) continue;
    const templateSegment = names[index];
    const name = templateSegment?.startsWith(':')
      ? `path.${templateSegment.slice(1).replace(/\{.*$/, '').replace(/\?$/, '')}`
      : 'path';
    const decoded = percentDecoded(segment, false);
    if (decoded === null) {
      errors.push(undecodableFieldError(name));
      continue;
    }
    const found = unstorableCharacter(decoded);
    if (found) errors.push(unstorableFieldError(name, found));
  }
  return errors;
}

/** Field errors for query parameters (names and values) holding unstorable text. */
function unstorableInQuery(rawQuery: string): FieldError[] {
  const errors: FieldError[] = [];
  for (const pair of rawQuery.split('&')) {
    if (pair === '') continue;
    const separator = pair.indexOf('=');
    const rawName = separator < 0 ? pair : pair.slice(0, separator);
    const rawValue = separator < 0 ? '' : pair.slice(separator + 1);
    const name = percentDecoded(rawName, true);
    if (name === null) {
      errors.push(undecodableFieldError('query (a parameter name)'));
      continue;
    }
    const nameFound = unstorableCharacter(name);
    if (nameFound) {
      errors.push(unstorableFieldError('query (a parameter name)', nameFound));
      continue;
    }
    const value = percentDecoded(rawValue, true);
    if (value === null) {
      errors.push(undecodableFieldError(name));
      continue;
    }
    const found = unstorableCharacter(value);
    if (found) errors.push(unstorableFieldError(name, found));
  }
  return errors;
}

function unstorableInputError(errors: FieldError[]): DomainError {
  return new DomainError(
    'validation.msg.validation.errors.exist',
    errors.map((e) => e.developerMessage).join(' '),
    { errors },
  );
}

/**
 * The deepest nesting of arrays and objects a JSON body may have (docs/integrating.md "The API"; 64 is ample for
 * every body of the OpenAPI document, whose deepest is 4 levels, and far below the depth at which a recursive walk of the
 * parsed value would exhaust the stack). Checked on the raw text, before anything parses or walks it.
 */
export const maxJsonNestingDepth = 64;

/**
 * Whether the JSON text `text` opens more than `maxDepth` nested arrays or objects. One pass over the characters
 * with a counter, no recursion and no parse, so a body of any depth costs O(length) and cannot overflow the
 * stack; brackets inside strings (with their escapes) do not count. Text that is not JSON is measured the same way
 * and left to the parser to refuse.
 */
export function jsonNestingExceeds(text: string, maxDepth: number = maxJsonNestingDepth): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c /* \\ */) i++;
      else if (ch === 0x22 /* " */) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x7b /* { */ || ch === 0x5b /* [ */) {
      if (++depth > maxDepth) return true;
    } else if (ch === 0x7d /* } */ || ch === 0x5d /* ] */) depth--;
  }
  return false;
}

/**
 * Throws 400 Shape A `validation.msg.validation.errors.exist` (one error on `body`,
 * `validation.msg.json.nesting.too.deep`) when the JSON text nests deeper than `maxJsonNestingDepth`. Called before
 * any parse of a JSON body: by `storableInput` on every bearer route and by the signed callbacks (channel events,
 * voice-dispatch events) after their signature check.
 */
export function assertJsonNestingWithinLimit(text: string): void {
  if (!jsonNestingExceeds(text)) return;
  const message = `The body nests arrays and objects more than ${maxJsonNestingDepth} levels deep; at most ${maxJsonNestingDepth} are accepted.`;
  throw new DomainError('validation.msg.validation.errors.exist', message, {
    errors: [fieldError('body', null, message, 'validation.msg.json.nesting.too.deep')],
  });
}

/**
 * Throws the 400 of the unstorable-text rule when any string or key of the parsed JSON `value` holds text
 * PostgreSQL cannot store (module note). For routes that read their body themselves (the signed channel-event
 * callback, after its signature check).
 */
export function assertStorableJson(value: unknown): void {
  const errors = unstorableInJson(value, '');
  if (errors.length > 0) throw unstorableInputError(errors);
}

/**
 * The unstorable-text rule (module note) on what comes before the body: path parameters, query parameters and,
 * on mutations, the `Idempotency-Key` header (whose whole rule, printable ASCII without a comma, lives in
 * middleware/idempotency.ts). 400 Shape A `validation.msg.validation.errors.exist`, one error per offending input
 * (`path.<param>`, the query parameter's name, `header.Idempotency-Key`), each with a null `value`.
 */
export const storableRequestTarget: MiddlewareHandler<AppEnv> = async (c, next) => {
  const url = new URL(c.req.url);
  const errors = [
    ...unstorableInPath(url.pathname, handlerTemplate(c)),
    ...unstorableInQuery(url.search.slice(1)),
  ];
  // Only mutations take the key (docs/design.md §4 Idempotency-Key).
  if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
    const keyError = idempotencyKeyError(c.req.header('idempotency-key'));
    if (keyError) errors.push(keyError);
  }
  if (errors.length > 0) throw unstorableInputError(errors);
  await next();
};

/**
 * Refuses text PostgreSQL cannot store anywhere in the request (module note): `storableRequestTarget`, then, for a
 * JSON body, every string and key (errors named by the field's dotted path, code
 * `validation.msg.text.unstorable.character`, `value` null). A body that is not JSON is left to the route's
 * validator. Mounted once for every bearer route (api/app.ts), so no route can forget it.
 */
export const storableInput: MiddlewareHandler<AppEnv> = async (c, next) =>
  storableRequestTarget(c, async () => {
    const method = c.req.method;
    if (jsonContentType.test(c.req.header('content-type') ?? '') && method !== 'GET' && method !== 'HEAD') {
      const text = await c.req.text();
      assertJsonNestingWithinLimit(text);
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      assertStorableJson(parsed);
    }
    await next();
  });
