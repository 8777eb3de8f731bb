/**
 * Request id, structured access log and the `Service-Actor` header (docs/design.md §4 Logs, Actor
 * context). The request id comes from `X-Request-Id` when the caller sends a sane one.
 */
import { randomUUID } from 'node:crypto';
import { routePath } from 'hono/route';
import type { Logger } from 'pino';
import { DomainError, fieldError } from '../../domain/errors';
import { factory } from '../env';

const requestIdPattern = /^[A-Za-z0-9._:-]{1,128}$/;
/** 1–128 visible ASCII characters (spaces allowed inside). */
const actorPattern = /^[\x21-\x7e](?:[\x20-\x7e]{0,126}[\x21-\x7e])?$/;

/**
 * The access-log logger of `logger`: a child that writes to the same destination at the same level, with the same
 * base fields, serializers and line cap, but without the redaction pass (workers/logger.ts `createLogger`). The access
 * line carries only the fixed fields below (request id, method, route template, status, latency in ms, tenant and
 * client ids), none of which the redaction paths name, so the line is byte for byte what the redacting logger
 * writes; the redaction pass (pino's `redact`, run on every call whatever the fields) cost about ten times the rest
 * of the line on the read path. One child per logger, made on first use (the level is the logger's at that moment;
 * `LOG_LEVEL` is read once at start).
 */
const accessLoggers = new WeakMap<Logger, Logger>();
export function accessLoggerOf(logger: Logger): Logger {
  let access = accessLoggers.get(logger);
  if (!access) {
    access = logger.child({}, { redact: { paths: [] } });
    accessLoggers.set(logger, access);
  }
  return access;
}

export const requestContext = factory.createMiddleware(async (c, next) => {
  const incoming = c.req.header('x-request-id');
  const requestId = incoming && requestIdPattern.test(incoming) ? incoming : randomUUID();
  c.set('requestId', requestId);
  c.header('X-Request-Id', requestId);
  const started = performance.now();
  try {
    const actor = c.req.header('service-actor');
    if (actor !== undefined && !actorPattern.test(actor)) {
      throw new DomainError(
        'validation.msg.validation.errors.exist',
        'Service-Actor must be 1 to 128 visible ASCII characters.',
        {
          errors: [
            fieldError(
              'header.Service-Actor',
              null,
              'Service-Actor must be 1 to 128 visible ASCII characters.',
            ),
          ],
        },
      );
    }
    c.set('actor', actor ?? null);
    await next();
  } finally {
    const auth = c.get('auth');
    accessLoggerOf(c.get('deps').logger).info(
      {
        requestId,
        method: c.req.method,
        route: safeRoutePath(c),
        status: c.res.status,
        latencyMs: Math.round((performance.now() - started) * 10) / 10,
        tenant: auth?.tenantId,
        client: auth?.clientId,
      },
      'request',
    );
  }
});

function safeRoutePath(c: Parameters<typeof routePath>[0]): string {
  try {
    return routePath(c, -1);
  } catch {
    return c.req.path;
  }
}
