/**
 * HTTP helpers of the scripts. The demo flows (scripts/*demo-flow.ts, scripts/demo.ts) go through the typed
 * client (client/): `demoClient` makes one per flow and credential, reporting its token request as
 * an exchange; every flow step is a typed call of it (`RequestBodyOf` types a body built before the call), which
 * `reportedCall` reports and checks (token cache, Idempotency-Key, 401, 429/503 and 409-in-flight retries are the
 * client's). `requestToken` and `apiRequest` are the bare token request and
 * bearer request that the benchmarks, the boarding CLI and some tests use to measure or drive raw HTTP.
 * Checking the answers is the callers' job.
 */
import { createLendingClient, type LendingClient, type paths } from '../client/src';

/**
 * The JSON request body of `method` on `path` in the client's schema (client/src/schema.d.ts): the type of a
 * body a flow builds before the typed call, so that its literals (enum codes, currencies) keep their types.
 */
export type RequestBodyOf<Path extends keyof paths, Method extends 'post' | 'put' | 'patch'> =
  NonNullable<paths[Path][Method]> extends { requestBody?: { content: { 'application/json': infer Body } } }
    ? Body
    : never;

/** A tenant's API client as the flows authenticate with it. */
export interface DemoCredential {
  tenant: string;
  clientId: string;
  clientSecret: string;
}

/** One request and its answer, as the flows report them to `onExchange`. */
export interface Exchange {
  method: string;
  path: string;
  requestBody?: unknown;
  status: number;
  responseBody: unknown;
}

/** Who a flow's requests go to and come from: the bearer token, the tenant and the `Service-Actor`. */
export interface ApiSession {
  baseUrl: string;
  accessToken: string;
  tenant: string;
  actor: string;
}

/**
 * Requests a client-credentials token for `scope` and reports the exchange (the token shortened to 12
 * characters). Throws unless the answer is 200; returns the access token.
 */
export async function requestToken(
  baseUrl: string,
  credential: DemoCredential,
  scope: string,
  onExchange: (exchange: Exchange) => void,
): Promise<string> {
  const tokenBodyText = `grant_type=client_credentials&scope=${scope}`;
  const tokenResponse = await fetch(`${baseUrl}/oauth2/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${credential.clientId}:${credential.clientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: tokenBodyText,
  });
  const tokenBody = (await tokenResponse.json()) as { access_token: string };
  onExchange({
    method: 'POST',
    path: '/oauth2/token',
    requestBody: tokenBodyText,
    status: tokenResponse.status,
    responseBody: { ...tokenBody, access_token: `${tokenBody.access_token?.slice(0, 12)}…` },
  });
  if (tokenResponse.status !== 200) throw new Error(`token request answered ${tokenResponse.status}`);
  return tokenBody.access_token;
}

/**
 * One authenticated request of `session`, with a JSON body unless `body` is undefined. A 429 or 503 is retried
 * after its `Retry-After` (seconds; 1 when absent), under the same Idempotency-Key, up to 5 times (docs/integrating.md "The typed client": what a client does); the last answer is returned either way.
 */
export async function apiRequest(
  session: ApiSession,
  method: string,
  path: string,
  body: unknown,
  idempotencyKey?: string,
): Promise<Response> {
  for (let attempt = 1; ; attempt += 1) {
    const response = await fetch(`${session.baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${session.accessToken}`,
        'service-tenant': session.tenant,
        'service-actor': session.actor,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if ((response.status !== 429 && response.status !== 503) || attempt === 5) return response;
    const seconds = Number(response.headers.get('retry-after') ?? '1');
    await response.arrayBuffer();
    await new Promise((resolve) => setTimeout(resolve, (Number.isFinite(seconds) ? seconds : 1) * 1_000));
  }
}

/**
 * A typed client (client/src/index.ts) for `credential` with `scope`, acting as `actor` (`Service-Actor`). Its
 * token request is reported to `onExchange` as `POST /oauth2/token` with the form body sent and the answer's
 * `token_type`, `expires_in` and `scope`; the token itself stays inside the client and is never shown.
 */
export function demoClient(
  baseUrl: string,
  credential: DemoCredential,
  scope: string,
  actor: string,
  onExchange: (exchange: Exchange) => void,
): LendingClient {
  return createLendingClient({
    baseUrl,
    clientId: credential.clientId,
    clientSecret: credential.clientSecret,
    scope,
    tenant: credential.tenant,
    actor,
    onTokenResponse: (event) =>
      onExchange({
        method: 'POST',
        path: '/oauth2/token',
        requestBody: event.requestBody,
        status: event.status,
        responseBody: {
          token_type: event.tokenType,
          expires_in: event.expiresIn,
          scope: event.scope,
          ...(event.error ? { error: event.error } : {}),
          access_token: event.status === 200 ? '(kept by the client, not shown)' : undefined,
        },
      }),
  });
}

/**
 * Awaits one typed call of the client, reports it to `onExchange` (`path` as the flow shows it, the answer's
 * data or error body) and returns its data; throws unless it answered `expected`.
 */
export async function reportedCall<Data>(
  onExchange: (exchange: Exchange) => void,
  method: string,
  path: string,
  requestBody: unknown,
  expected: number,
  call: Promise<{ data?: Data; error?: unknown; response: Response }>,
): Promise<Data> {
  const { data, error, response } = await call;
  onExchange({ method, path, requestBody, status: response.status, responseBody: data ?? error });
  if (response.status !== expected || data === undefined) {
    throw new Error(
      `${method} ${path} answered ${response.status}, expected ${expected}: ${JSON.stringify(data ?? error)}`,
    );
  }
  return data;
}

/** `reportedCall` bound to `onExchange`: what each flow calls its steps with. */
export function reportingTo(onExchange: (exchange: Exchange) => void) {
  return <Data>(
    method: string,
    path: string,
    requestBody: unknown,
    expected: number,
    call: Promise<{ data?: Data; error?: unknown; response: Response }>,
  ): Promise<Data> => reportedCall(onExchange, method, path, requestBody, expected, call);
}
