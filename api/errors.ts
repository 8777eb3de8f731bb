/**
 * Error bodies (spec § Errors). Shape A for every route but AI session outputs; Shape B
 * (RFC 9457 problem+json) for those. One `app.onError` uses these (STYLE §13.10).
 */
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { isDatabaseUnavailable, permanentDataErrorAsDomainError } from '../db/errors';
import { DomainError, errorCodes, type FieldError, fieldError, type OAuthError } from '../domain/errors';
import type { AppEnv } from './env';

export interface ShapeA {
  developerMessage: string;
  httpStatusCode: string;
  defaultUserMessage: string;
  userMessageGlobalisationCode: string;
  errors: FieldError[];
}

/** Shape A body for a DomainError. */
export function toShapeA(err: DomainError): ShapeA {
  return {
    developerMessage: err.message,
    httpStatusCode: String(err.status),
    defaultUserMessage: errorCodes[err.code].message,
    userMessageGlobalisationCode: err.code,
    errors: err.errors,
  };
}

/** Shape B codes and titles (spec § Errors, Shape B table). */
const shapeBCodes: Record<number, { code: string; title: string }> = {
  400: { code: 'validation_error', title: 'Validation Error' },
  401: { code: 'unauthorized', title: 'Unauthorized' },
  403: { code: 'forbidden', title: 'Forbidden' },
  404: { code: 'not_found', title: 'Not Found' },
  409: { code: 'version_conflict', title: 'Version Conflict' },
  422: { code: 'validation_error', title: 'Validation Error' },
  429: { code: 'rate_limited', title: 'Rate Limited' },
  500: { code: 'internal_error', title: 'Internal Error' },
  503: { code: 'service_unavailable', title: 'Service Unavailable' },
};

/** Shape B (RFC 9457) body for a DomainError; 422 carries `errors[]` of `{pointer, detail, code}`. */
export function toShapeB(err: DomainError, docsUrl: string, requestId: string) {
  const info = shapeBCodes[err.status] ?? { code: 'error', title: 'Error' };
  return {
    type: `${docsUrl}/errors/${info.code}`,
    title: info.title,
    status: err.status,
    code: info.code,
    detail: err.message,
    requestId,
    ...(err.status === 422 || err.status === 400
      ? {
          errors: err.errors.map((e) => ({
            pointer: `/${e.parameterName.replace(/\[(\d+)\]/g, '.$1').replace(/\./g, '/')}`,
            detail: e.developerMessage,
            code: e.userMessageGlobalisationCode,
          })),
        }
      : {}),
  };
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
 * (DESIGN-processes P0 "Failure answers"); a value PostgreSQL can never store (db/errors.ts `isPermanentDataError`:
 * class 22, check and not-null violations) → 400 naming only the SQLSTATE; a malformed body → 400; anything else
 * unknown → 500 with a fixed
 * message. Temporal failures are mapped by api/temporal-gateway.ts before they get here.
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
