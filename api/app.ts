/**
 * The Hono app: global middleware, the one error handler, the route groups, the OpenAPI
 * document (`GET /v1/openapi.json`) and its reference page (`GET /docs`).
 * `createApp(deps)` builds it; tests drive it with `app.request()`, `workers/stack.ts` serves it.
 */
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import { generateSpecs } from 'hono-openapi';
import { DomainError, OAuthError } from '../domain/errors';
import type { AppDeps, AppEnv } from './env';
import { asDomainError, bearerChallenge, oauthErrorResponse, sendError } from './errors';
import { authenticate, authorizeRoute, tenantFromToken } from './middleware/auth';
import { problemErrors } from './middleware/error-shape';
import { httpMetrics } from './middleware/http-metrics';
import { httpTracing } from './middleware/http-tracing';
import { allowedMethodsOf } from './middleware/method-not-allowed';
import { rateLimit, searchRateLimit, tokenRateLimit, tokenSourceRateLimit } from './middleware/rate-limit';
import { requestContext } from './middleware/request-context';
import { documentation, withTokenAddress } from './openapi';
import { boardingBatchRoutes } from './routes/boarding/boarding-batches';
import { channelEventRoutes } from './routes/channels/channel-events';
import { customerRoutes } from './routes/customers/customers';
import { portfolioRoutes } from './routes/customers/portfolio';
import { docsRoutes, scalarAssetPath } from './routes/docs';
import { hardshipOfferRoutes } from './routes/hardship/hardship-offers';
import { hardshipPolicyRoutes } from './routes/hardship/hardship-policies';
import { hardshipProgramRoutes } from './routes/hardship/hardship-programs';
import { healthRoutes } from './routes/health';
import { chargeRoutes } from './routes/lending/charges';
import { cobRunRoutes } from './routes/lending/cob-runs';
import { delinquencyBucketRoutes } from './routes/lending/delinquency-buckets';
import { delinquencyRangeRoutes } from './routes/lending/delinquency-ranges';
import { documentRoutes } from './routes/lending/documents';
import { journalEntryRoutes } from './routes/lending/journal-entries';
import { loanChargeRoutes } from './routes/lending/loan-charges';
import { loanDelinquencyRoutes } from './routes/lending/loan-delinquency';
import { loanDelinquencyActionRoutes } from './routes/lending/loan-delinquency-actions';
import { loanFundingRoutes } from './routes/lending/loan-fundings';
import { loanTransactionRoutes } from './routes/lending/loan-transactions';
import { loanRoutes } from './routes/lending/loans';
import { merchantAdvanceRoutes } from './routes/lending/merchant-advances';
import { loanProductRoutes } from './routes/lending/products';
import { statementRoutes } from './routes/lending/statements';
import { metricsRoutes } from './routes/metrics';
import { oauthRoutes } from './routes/oauth';
import { autopayRoutes } from './routes/payments/autopay';
import { loanPaymentRoutes } from './routes/payments/loan-payments';
import { reconciliationExceptionRoutes } from './routes/payments/reconciliation-exceptions';
import { sandboxPaymentRoutes } from './routes/payments/sandbox-simulations';
import { aiSessionRoutes } from './routes/servicing/ai-sessions';
import { caseTypeRoutes } from './routes/servicing/case-types';
import { caseRoutes } from './routes/servicing/cases';
import { contactConsentUpdateRoutes } from './routes/servicing/contact-consent-updates';
import { servicingDocumentRoutes } from './routes/servicing/documents';
import { evidenceRoutes } from './routes/servicing/evidence';
import { formEntryRoutes } from './routes/servicing/form-entries';
import { interactionRoutes } from './routes/servicing/interactions';
import { privacyRequestRoutes } from './routes/servicing/privacy-requests';
import { promiseRoutes } from './routes/servicing/promises';
import { taskRoutes } from './routes/servicing/tasks';
import { voiceDispatchCallbackRoutes } from './routes/servicing/voice-dispatch-events';
import { voiceDispatchRoutes } from './routes/servicing/voice-dispatches';
import { voiceWorkflowVersionRoutes } from './routes/servicing/voice-workflow-versions';
import { webhookSubscriptionRoutes } from './routes/webhooks/webhook-subscriptions';
import { storableInput, storableRequestTarget } from './validation';

/** Paths of the AI session output routes: Shape B errors and the token's tenant (docs/integrating.md "Routes, scopes and permissions", docs/design.md §4 Errors). */
const aiSessionOutputPaths = [
  '/v1/servicing/ai-sessions/:aiSessionId/outputs',
  '/v1/servicing/ai-sessions/:aiSessionId/outputs/*',
];

/**
 * The app: every route group behind its middleware; errors in the route's shape (`sendError`: Shape A, or Shape
 * B on the AI session output routes) through one `onError` and one `notFound`.
 */
export function createApp(deps: AppDeps) {
  const app = new Hono<AppEnv>();

  app.use('*', async (c, next) => {
    c.set('deps', deps);
    await next();
  });
  // Metrics: first, so every answer is counted and timed, whatever answers it.
  app.use('*', httpMetrics);
  // Traces: the server span, active while the request runs (a no-op unless tracing is on).
  app.use('*', httpTracing);
  // AI session outputs (docs/integrating.md "Routes, scopes and permissions", docs/design.md §5 "Error details", Shape B): the token selects the tenant, and every error of
  // the route is Shape B, so the mark comes before every other middleware (request context, authentication,
  // rate limit, idempotency, validation).
  for (const path of aiSessionOutputPaths) app.use(path, problemErrors, tenantFromToken);
  app.use('*', requestContext);

  // The token endpoint is served by every API process; AUTH_BASE_URL only changes where it is advertised.
  app.use('/oauth2/token', tokenSourceRateLimit, tokenRateLimit);
  app.route('/oauth2', oauthRoutes);
  app.route('/healthz', healthRoutes);
  // Prometheus metrics for operators (api/routes/metrics.ts): no tenant authentication, not in the document.
  app.route('/metrics', metricsRoutes);
  let spec: object | undefined;
  app.get('/v1/openapi.json', async (c) => {
    spec ??= withTokenAddress(
      await generateSpecs(
        app,
        {
          documentation: documentation as never,
          exclude: ['/v1/openapi.json', '/docs', scalarAssetPath, '/metrics'],
          // Every route documents its own errors (api/openapi.ts `doc`): no generic 400 added for validators,
          // which would be wrong on the AI session output routes (validation is 422 Shape B there).
          defaultValidationErrorResponse: false,
        },
        c,
      ),
      deps.config.authBaseUrl,
    );
    return c.json(spec);
  });
  // The reference page and its script, served by this service (api/routes/docs.ts; no CDN).
  app.route('/docs', docsRoutes);

  // Signed gateway callbacks authenticate by signature, not bearer token: mounted before the bearer middleware.
  // Text PostgreSQL cannot store is refused on every route (api/validation.ts `storableInput`); on bearer routes
  // after authentication, so an unauthenticated caller still gets 401. The signed callback checks its body itself,
  // after its size limit and signature.
  // A known path with another method → 405 with Allow (RFC 9110 §15.5.6); an unknown path → 404 (`notFound` below).
  const allowedMethods = allowedMethodsOf(app);
  const methodNotAllowed = (c: Context<AppEnv>, allowed: string[]) =>
    sendError(
      c,
      new DomainError(
        'error.msg.method.not.allowed',
        `${c.req.method} is not allowed on ${c.req.path}; allowed: ${allowed.join(', ')}.`,
      ),
      { Allow: allowed.join(', ') },
    );
  // The callbacks carry no bearer token and no Service-Tenant: another method on their paths is answered 405 here,
  // before the bearer middleware would ask for what they never send (found by `npm run fuzz`: TRACE → 400).
  const callbackMethods: MiddlewareHandler<AppEnv> = async (c, next) => {
    const allowed = allowedMethods(c.req.path);
    if (allowed.length > 0 && !allowed.includes(c.req.method)) return methodNotAllowed(c, allowed);
    await next();
  };
  app.use('/v1/servicing/channel-events/*', callbackMethods);
  app.use('/v1/servicing/voice-dispatches/:dispatchId/events', callbackMethods);
  app.use('/v1/servicing/channel-events/*', storableRequestTarget);
  app.route('/v1/servicing/channel-events', channelEventRoutes);
  // The voice provider's callback authenticates by its dispatch's task token only (docs/design.md §5 "Inbound channel events"): mounted
  // before the bearer middleware too; the other voice-dispatch routes are ordinary bearer routes (below).
  app.use('/v1/servicing/voice-dispatches/:dispatchId/events', storableRequestTarget);
  app.route('/v1/servicing/voice-dispatches/:dispatchId/events', voiceDispatchCallbackRoutes);
  app.use('/v1/*', authenticate, rateLimit, authorizeRoute, storableInput);
  // docs/design.md §5: search, export and journal lists have a lower limit of their own, on top of the client's.
  app.use('/v1/portfolio/search', searchRateLimit);
  app.use('/v1/journalentries', searchRateLimit);
  app.use('/v1/recon-exceptions/export', searchRateLimit);
  app.route('/v1/servicing/cases', caseRoutes);
  app.route('/v1/servicing/cases/:caseId/contact-consent-updates', contactConsentUpdateRoutes);
  app.route('/v1/servicing/interactions', interactionRoutes);
  app.route('/v1/servicing/evidence', evidenceRoutes);
  app.route('/v1/servicing/tasks', taskRoutes);
  app.route('/v1/servicing/privacy-requests', privacyRequestRoutes);
  app.route('/v1/servicing/promises', promiseRoutes);
  app.route('/v1/servicing/documents', servicingDocumentRoutes);
  app.route('/v1/servicing/admin/case-types', caseTypeRoutes);
  app.route('/v1/servicing/admin/hardship-policies', hardshipPolicyRoutes);
  app.route('/v1/servicing/admin/hardship-programs', hardshipProgramRoutes);
  app.route('/v1/servicing/hardship-offers', hardshipOfferRoutes);
  app.route('/v1/form-entries', formEntryRoutes);
  app.route('/v1/servicing/webhook-subscriptions', webhookSubscriptionRoutes);
  app.route('/v1/servicing/voice-provider/control/api/v1/workflow-versions', voiceWorkflowVersionRoutes);
  app.route('/v1/servicing/voice-dispatches', voiceDispatchRoutes);
  app.route('/v1/servicing/ai-sessions', aiSessionRoutes);
  app.route('/v1/charges', chargeRoutes);
  app.route('/v1/cob/runs', cobRunRoutes);
  app.route('/v1/delinquency/ranges', delinquencyRangeRoutes);
  app.route('/v1/delinquency/buckets', delinquencyBucketRoutes);
  app.route('/v1/loanproducts', loanProductRoutes);
  app.route('/v1/documents', documentRoutes);
  app.route('/v1/customers', customerRoutes);
  app.route('/v1/portfolio', portfolioRoutes);
  app.route('/v1/loans', loanRoutes);
  app.route('/v1/loans/:loanId/fundings', loanFundingRoutes);
  app.route('/v1/loans/:loanId/charges', loanChargeRoutes);
  app.route('/v1/loans/:loanId/transactions', loanTransactionRoutes);
  app.route('/v1/loans/:loanId/delinquency-actions', loanDelinquencyActionRoutes);
  app.route('/v1/loans/:loanId/payments', loanPaymentRoutes);
  app.route('/v1/loans/:loanId/autopay', autopayRoutes);
  app.route('/v1/loans/:loanId/statements', statementRoutes);
  app.route('/v1/loans/:loanId/delinquency-history', loanDelinquencyRoutes);
  app.route('/v1/sandbox/payments', sandboxPaymentRoutes);
  app.route('/v1/journalentries', journalEntryRoutes);
  app.route('/v1/merchant-advances', merchantAdvanceRoutes);
  app.route('/v1/recon-exceptions', reconciliationExceptionRoutes);
  // Portfolio boarding (docs/processes.md P3): the upload reads its NDJSON body as a stream itself.
  app.route('/v1/boarding/batches', boardingBatchRoutes);

  app.notFound((c) => {
    const allowed = allowedMethods(c.req.path);
    if (allowed.length > 0) return methodNotAllowed(c, allowed);
    return sendError(
      c,
      new DomainError('error.msg.resource.not.found', `No route ${c.req.method} ${c.req.path}.`),
    );
  });

  app.onError((err, c) => {
    if (err instanceof OAuthError) return oauthErrorResponse(c, err);
    const domainError = asDomainError(err);
    if (domainError.status >= 500 && domainError.code === 'error.msg.internal') {
      deps.logger.error({ err, requestId: c.get('requestId') }, 'unhandled error');
    }
    const headers: Record<string, string> = {};
    if (domainError.status === 401 || domainError.status === 403)
      headers['WWW-Authenticate'] = bearerChallenge(domainError);
    return sendError(c, domainError, headers);
  });

  return app;
}

export type App = ReturnType<typeof createApp>;
