/**
 * Per-route choice of the error body shape (docs/design.md §4 Errors: Shape A for lending and most servicing operations,
 * Shape B, RFC 9457 problem details, for AI session outputs; docs/design.md §4 Errors). `problemErrors` marks the
 * request before any other middleware of the route runs (authentication, rate limit, idempotency, validation),
 * and `sendError` (api/errors.ts), through which every middleware, `app.onError` and `app.notFound` answer,
 * then renders every error of that request as Shape B (`application/problem+json`). Mounted per path in
 * api/app.ts, before the bearer middleware.
 */
import { factory } from '../env';

/** Every error of this request is Shape B (api/errors.ts `toProblem`). */
export const problemErrors = factory.createMiddleware(async (c, next) => {
  c.set('errorShape', 'problem');
  await next();
});
