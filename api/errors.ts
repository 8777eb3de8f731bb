/**
 * Error bodies (docs/design.md §4 Errors). Shape A for every route but AI session outputs; Shape B
 * (RFC 9457 problem+json) for those. One `app.onError` uses these (docs/conventions.md §13.10).
 */
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { isDatabaseUnavailable, permanentDataErrorAsDomainError } from '../db/errors';
import {
  DomainError,
  type ErrorCode,
  fieldError,
  type OAuthError,
  type ShapeABody,
  shapeAOf,
} from '../domain/errors';
import { withoutSensitiveValues } from '../domain/withheld-values';
import type { AppEnv } from './env';

/** Shape A body (domain/errors.ts `ShapeABody`; the boarding error report stores the same). */
export type ShapeA = ShapeABody;

/**
 * Shape A body for a DomainError, with any identifier-like value it repeats withheld (domain/withheld-values.ts:
 * the field error's `value` null, the text `[withheld]` in its messages; docs/design.md §5 "identifier values are masked").
 */
export const toShapeA = (err: DomainError): ShapeABody => shapeAOf(withoutSensitiveValues(err));

/** A Shape B problem type: its `code` (the last segment of `type`) and `title`. */
interface ProblemType {
  code: string;
  title: string;
}

/**
 * Shape B types by HTTP status (docs/design.md §4 Errors, Shape B table: 401 `unauthorized`, 403 `forbidden`, 409
 * `version_conflict`, 422 `validation_error`, 429 `rate_limited`; the other statuses, which the spec does not
 * list, in the same style). A 400 of Shape A is a 422 `validation_error` in Shape B: the spec lists 422, not
 * 400, for this shape (RFC 9110 §15.5.21: the content was understood but its instructions cannot be followed).
 */
const problemTypesByStatus: Record<number, ProblemType> = {
  401: { code: 'unauthorized', title: 'Unauthorized' },
  403: { code: 'forbidden', title: 'Forbidden' },
  404: { code: 'not_found', title: 'Not Found' },
  405: { code: 'method_not_allowed', title: 'Method Not Allowed' },
  409: { code: 'conflict', title: 'Conflict' },
  413: { code: 'payload_too_large', title: 'Payload Too Large' },
  415: { code: 'unsupported_media_type', title: 'Unsupported Media Type' },
  422: { code: 'validation_error', title: 'Validation Error' },
  428: { code: 'precondition_required', title: 'Precondition Required' },
  429: { code: 'rate_limited', title: 'Rate Limited' },
  500: { code: 'internal_error', title: 'Internal Error' },
  503: { code: 'service_unavailable', title: 'Service Unavailable' },
};

/** Shape B types of the DomainError codes whose meaning the status alone does not say. */
const problemTypesByCode: Partial<Record<ErrorCode, ProblemType>> = {
  'error.msg.ai.session.version.conflict': { code: 'version_conflict', title: 'Version Conflict' },
  'idempotency.request.in.flight': { code: 'request_in_flight', title: 'Request In Flight' },
  'idempotency.key.payload.mismatch': { code: 'idempotency_key_mismatch', title: 'Idempotency Key Mismatch' },
  'error.msg.case.invalid.state.transition': { code: 'invalid_state', title: 'Invalid State' },
};

/** Every Shape B code this service answers with (documented in the OpenAPI `Problem` schema). */
export const problemCodes = [
  ...new Set([
    ...Object.values(problemTypesByStatus).map((t) => t.code),
    ...Object.values(problemTypesByCode).map((t) => t.code),
  ]),
];

/** The HTTP status of a DomainError in Shape B: a 400 becomes 422 (table above). */
export function problemStatusOf(err: DomainError): number {
  return err.status === 400 ? 422 : err.status;
}

/** RFC 6901 §3 escaping of one reference token: `~` → `~0`, `/` → `~1`. */
function pointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Inputs that are not in the JSON body: named, not pointed at. */
const parameterPrefix = /^(header|path|query)[. ]/;

/**
 * Where a field error of Shape A (`parameterName`, a dotted path such as `citations[0].evidenceId`) lies, for a
 * Shape B `errors[]` item: in the JSON body → `pointer`, an RFC 6901 JSON Pointer into it (`/citations/0/evidenceId`;
 * the whole body → `""`); elsewhere (a header, a path or query parameter, or any input of a request without a
 * body, `hasBody` false) → `pointer: null` and `parameter`, e.g. `header.If-Match`, `path.aiSessionId`,
 * `query.limit`.
 */
export function problemLocationOf(
  parameterName: string,
  hasBody: boolean,
): { pointer: string | null; parameter?: string } {
  if (parameterPrefix.test(parameterName)) return { pointer: null, parameter: parameterName };
  if (!hasBody) return { pointer: null, parameter: `query.${parameterName}` };
  const path = parameterName.replace(/ \(a field name\)$/, '');
  if (path === 'body') return { pointer: '' };
  const tokens = [...path.matchAll(/\[(\d+)\]|([^.[\]]+)/g)].map((m) => m[1] ?? m[2] ?? '');
  return { pointer: tokens.map((t) => `/${pointerToken(t)}`).join('') };
}

/** A Shape B body (RFC 9457 problem details). */
export interface Problem {
  /** `{docs_url}/errors/<code>`. */
  type: string;
  title: string;
  status: number;
  code: string;
  detail: string;
  requestId: string;
  /** 422 only: the offending inputs. */
  errors?: { pointer: string | null; parameter?: string; detail: string; code: string }[];
}

/**
 * Shape B (RFC 9457 problem details; docs/design.md §5 "Error details", Shape B) for a DomainError:
 * `type` is `<docsUrl>/errors/<code>`, `detail` the developer message (which, like Shape A's, never carries a
 * token or an identifier value), and every 422 carries `errors[]` of `{pointer | parameter, detail, code}` (see
 * `problemLocationOf`; `code` is the field error's globalisation code).
 */
export function toProblem(
  original: DomainError,
  docsUrl: string,
  requestId: string,
  hasBody: boolean,
): Problem {
  // Identifier-like values repeated by the error are withheld, as in Shape A (`toShapeA`).
  const err = withoutSensitiveValues(original);
  const status = problemStatusOf(err);
  const type = problemTypesByCode[err.code] ??
    problemTypesByStatus[status] ?? { code: 'error', title: 'Error' };
  return {
    type: `${docsUrl}/errors/${type.code}`,
    title: type.title,
    status,
    code: type.code,
    detail: err.message,
    requestId,
    ...(status === 422
      ? {
          errors: err.errors.map((e) => ({
            ...problemLocationOf(e.parameterName, hasBody),
            detail: e.developerMessage,
            code: e.userMessageGlobalisationCode,
          })),
        }
      : {}),
  };
}

/** Media type of Shape B bodies (RFC 9457 §3). */
export const problemContentType = 'application/problem+json';

/** Sends a DomainError as Shape B (`application/problem+json`), with Retry-After where it belongs. */
export function sendProblem(
  c: Context<AppEnv>,
  err: DomainError,
  headers: Record<string, string> = {},
): Response {
  const all: Record<string, string> = { ...headers, 'Content-Type': problemContentType };
  if (err.retryAfterSeconds !== undefined) all['Retry-After'] = String(err.retryAfterSeconds);
  const hasBody = c.req.method !== 'GET' && c.req.method !== 'HEAD';
  const body = toProblem(err, c.get('deps').config.docsUrl, c.get('requestId'), hasBody);
  return c.body(JSON.stringify(body), body.status as 400, all);
}

/**
 * Sends a DomainError in the error shape of this request's route: Shape B when the route chose it
 * (`problemErrors`, api/middleware/error-shape.ts, mounted before authentication), else Shape A. Every
 * middleware and the one `app.onError` answer through this, so a route's shape holds for all its errors.
 */
export function sendError(
  c: Context<AppEnv>,
  err: DomainError,
  headers: Record<string, string> = {},
): Response {
  return c.get('errorShape') === 'problem' ? sendProblem(c, err, headers) : sendShapeA(c, err, headers);
}

/** RFC 6750 §3 challenge for resource-server 401/403. */
export function bearerChallenge(err: DomainError, requiredScope?: string): string {
  if (err.status === 401) return 'Bearer realm="lending", error="invalid_token"';
  return requiredScope
    ? `Bearer realm="lending", error="insufficient_scope", scope="${requiredScope}"`
    : 'Bearer realm="lending", error="insufficient_scope"';
}

/** Sends a DomainError as Shape A, with Retry-After / WWW-Authenticate where they belong. */
export function sendShapeA(
  c: Context<AppEnv>,
  err: DomainError,
  headers: Record<string, string> = {},
): Response {
  const all: Record<string, string> = { ...headers };
  if (err.retryAfterSeconds !== undefined) all['Retry-After'] = String(err.retryAfterSeconds);
  return c.json(toShapeA(err), err.status as 400, all);
}

/** Seconds a client should wait before retrying when the database is unreachable (`Retry-After`, RFC 9110 §10.2.3). */
export const databaseRetryAfterSeconds = 5;

/**
 * Maps anything thrown to a DomainError: PostgreSQL unreachable (connection refused or lost, shutdown, too many
 * connections; db/errors.ts `isDatabaseUnavailable`) → 503 `error.msg.service.unavailable` with `Retry-After`
 * (docs/processes.md P0 "Failure answers"); a value PostgreSQL can never store (db/errors.ts `isPermanentDataError`:
 * class 22, check and not-null violations) → 400 naming only the SQLSTATE; a malformed body → 400; anything else
 * unknown → 500 with a fixed
 * message. Temporal failures are mapped by workflows/common/client-errors.ts (in each process's `client.ts`) before
 * they get here.
 */
export function asDomainError(err: unknown): DomainError {
  if (err instanceof DomainError) return err;
  const permanent = permanentDataErrorAsDomainError(err);
  if (permanent !== null) return permanent;
  if (isDatabaseUnavailable(err)) {
    return new DomainError('error.msg.service.unavailable', 'The database is unavailable; retry later.', {
      retryAfterSeconds: databaseRetryAfterSeconds,
    });
  }
  if (err instanceof HTTPException && err.status === 400) {
    const message = err.message || 'The request body is not valid JSON.';
    return new DomainError('validation.msg.validation.errors.exist', message, {
      errors: [fieldError('body', null, message)],
    });
  }
  return new DomainError('error.msg.internal');
}

/** RFC 6749 §5.2 body and status of a token-endpoint error. */
export function oauthErrorResponse(c: Context<AppEnv>, err: OAuthError): Response {
  const headers: Record<string, string> = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };
  if (err.status === 401) headers['WWW-Authenticate'] = 'Basic realm="lending"';
  return c.json({ error: err.error, error_description: err.message }, err.status, headers);
}
