/**
 * The typed client of the lending service: an `openapi-fetch` client over the paths generated
 * from `GET /v1/openapi.json` (./schema.d.ts, `npm run client:generate`), whose fetch does what the spec asks
 * of a client (docs/integrating.md "The typed client"; docs/design.md §4 Idempotency-Key):
 * - a client-credentials token (`POST {authBaseUrl}/oauth2/token`, HTTP Basic, form body), cached until under
 *   10% of its `expires_in` remains; refreshes are serialized (concurrent calls share one token request);
 * - a 401 invalidates that token, fetches a new one and retries once; a second 401 is returned (stop);
 * - every POST, PUT, PATCH and DELETE carries an `Idempotency-Key` (a random UUID unless the caller gives one),
 *   the same on every retry of that call;
 * - 429 and 503 are retried after `Retry-After` (seconds or an HTTP date; 1 s when absent), same key, at most
 *   `maxAttempts` attempts and never waiting longer than `maxRetryAfterSeconds` (a longer or unreadable wait
 *   is returned to the caller);
 * - a 409 that says the same Idempotency-Key is still in flight (docs/design.md §4 Idempotency-Key, docs/design.md §4 Errors: Shape A
 *   `userMessageGlobalisationCode` `idempotency.request.in.flight`, or Shape B `code` `request_in_flight`) is
 *   retried the same way, same key; any other 409 is returned untouched;
 * - the token endpoint's 429 and 503 are retried the same way (its own `maxAttempts`), inside the one shared
 *   token request, so concurrent callers still wait on one request;
 * - `Service-Tenant` on every call, `Service-Actor` when given;
 * - no logging: tokens and secrets never leave this module except in the `Authorization` headers it sends.
 *
 * ```ts
 * const lending = createLendingClient({ baseUrl, clientId, clientSecret, scope: 'lending:read', tenant: 'acme' });
 * const { data, error } = await lending.GET('/v1/loans/{loanId}/summary', { params: { path: { loanId: '42' } } });
 * ```
 */
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './schema';

export type { components, operations, paths } from './schema';

/** The headers the client sends itself (the caller may still give them). */
type ClientSetHeader = 'Service-Tenant';

/** An operation whose `Service-Tenant` header parameter is optional: the client sets it. */
type WithClientHeaders<Operation> = Operation extends { parameters: { header: infer Header } }
  ? Omit<Operation, 'parameters'> & {
      parameters: Omit<Operation['parameters'], 'header'> & {
        header?: Omit<Header, ClientSetHeader> &
          Partial<Pick<Header, Extract<keyof Header, ClientSetHeader>>>;
      };
    }
  : Operation;

/** The generated paths as the client is called: the tenant header optional on every operation. */
export type LendingPaths = {
  [Path in keyof paths]: {
    [Key in keyof paths[Path]]: Key extends 'parameters'
      ? paths[Path][Key]
      : WithClientHeaders<paths[Path][Key]>;
  };
};

export interface LendingClientOptions {
  /** The API's base address, e.g. `https://api.example.com` (no trailing slash needed). */
  baseUrl: string;
  /** The spec's `{auth_url}`: where `/oauth2/token` is (docs/design.md §4 Tokens). Default: `baseUrl`. */
  authBaseUrl?: string;
  clientId: string;
  clientSecret: string;
  /** Space-separated scopes to request, e.g. `lending:read lending:write`. */
  scope: string;
  /** Sent as `Service-Tenant` on every call (docs/design.md §4 "Scopes and permissions"). */
  tenant: string;
  /** Sent as `Service-Actor` on every call when given (the end user the backend acts for). */
  actor?: string;
  /** The fetch to send with (default `globalThis.fetch`). */
  fetch?: (request: Request) => Promise<Response>;
  /**
   * Attempts of one call answered 429, 503 or 409 in flight, the first included (default 5); the token request
   * has as many of its own for its 429 and 503.
   */
  maxAttempts?: number;
  /** Longest `Retry-After` the client waits, in seconds (default 30); a longer one is returned to the caller. */
  maxRetryAfterSeconds?: number;
  /** Told of every token request, without the token: for logs and demos. */
  onTokenResponse?: (event: TokenResponseEvent) => void;
  /** Current time in ms since the epoch (default `Date.now`); for tests. */
  now?: () => number;
}

/**
 * What `onTokenResponse` hears of one token request (never the token itself); a 429 or 503 retried is heard
 * once per attempt.
 */
export interface TokenResponseEvent {
  /** The form body sent (`grant_type=client_credentials&scope=…`; the secret travels in the Basic header). */
  requestBody: string;
  status: number;
  tokenType?: string;
  /** Seconds the token lives (docs/design.md §4 Tokens). */
  expiresIn?: number;
  scope?: string;
  /** The OAuth 2.0 error code of a refused request (RFC 6749 §5.2). */
  error?: string;
}

/** A token request refused or unreadable; `status` is the HTTP status, `oauthError` the RFC 6749 §5.2 code. */
export class TokenRequestError extends Error {
  readonly status: number;
  readonly oauthError: string | undefined;
  constructor(status: number, oauthError: string | undefined) {
    super(`token request answered ${status}${oauthError ? ` (${oauthError})` : ''}`);
    this.name = 'TokenRequestError';
    this.status = status;
    this.oauthError = oauthError;
  }
}

/**
 * The typed client plus `fetch(path, init)`: one call to any path of the service (relative to `baseUrl`)
 * through the same token, idempotency and retry handling, for callers that build paths at run time.
 */
export type LendingClient = Client<LendingPaths> & {
  fetch(path: string, init?: RequestInit): Promise<Response>;
};

const mutatingMethods = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Seconds to wait for a `Retry-After` value (RFC 9110 §10.2.3: delay-seconds or an HTTP date), 1 when absent,
 * null when unreadable.
 */
export function retryAfterSeconds(value: string | null, now: number): number | null {
  if (value === null || value.trim() === '') return 1;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  if (Number.isNaN(date)) return null;
  return Math.max(0, Math.ceil((date - now) / 1000));
}

/** How long to wait before another attempt, and how many attempts one call may make (options). */
interface RetryRules {
  maxAttempts: number;
  maxRetryAfterSeconds: number;
  now: () => number;
}

/**
 * Seconds to wait before attempt `attempt + 1` after `response` (its `Retry-After`, 1 when absent), or null
 * when no attempt is left or the wait is unreadable or longer than `maxRetryAfterSeconds` (then the answer is
 * the caller's).
 */
function retryWaitSeconds(response: Response, attempt: number, rules: RetryRules): number | null {
  if (attempt >= rules.maxAttempts) return null;
  const wait = retryAfterSeconds(response.headers.get('Retry-After'), rules.now());
  return wait !== null && wait <= rules.maxRetryAfterSeconds ? wait : null;
}

/** Resolves after `seconds` seconds. */
function sleep(seconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, seconds * 1000));
}

/**
 * Whether a 409 says a request with the same Idempotency-Key is still in flight (docs/design.md §4 Errors: Shape A
 * `userMessageGlobalisationCode` `idempotency.request.in.flight`; Shape B `code` `request_in_flight` on the
 * routes answering problem details). Reads a clone, so `response` itself stays unread for the caller.
 */
async function isRequestInFlight(response: Response): Promise<boolean> {
  if (response.status !== 409) return false;
  const body: unknown = await response
    .clone()
    .json()
    .catch(() => null);
  if (typeof body !== 'object' || body === null) return false;
  const { userMessageGlobalisationCode, code } = body as Record<string, unknown>;
  return userMessageGlobalisationCode === 'idempotency.request.in.flight' || code === 'request_in_flight';
}

interface CachedToken {
  accessToken: string;
  /** When under 10% of the token's life remains (ms since the epoch): refresh from then on. */
  refreshAt: number;
}

/**
 * The token cache of one client: one request at a time, reused until under 10% of `expires_in` remains. A 429
 * or 503 of the token endpoint is retried after its `Retry-After` under `rules`, inside that one request.
 */
function tokenSource(
  options: LendingClientOptions,
  send: (request: Request) => Promise<Response>,
  rules: RetryRules,
) {
  const now = rules.now;
  const tokenUrl = `${(options.authBaseUrl ?? options.baseUrl).replace(/\/+$/, '')}/oauth2/token`;
  const basic = btoa(`${options.clientId}:${options.clientSecret}`);
  let cached: CachedToken | null = null;
  let pending: Promise<CachedToken> | null = null;

  async function request(): Promise<CachedToken> {
    const requestBody = new URLSearchParams({
      grant_type: 'client_credentials',
      scope: options.scope,
    }).toString();
    for (let attempt = 1; ; attempt += 1) {
      const response = await send(
        new Request(tokenUrl, {
          method: 'POST',
          headers: {
            Authorization: `Basic ${basic}`,
            'Content-Type': 'application/x-www-form-urlencoded',
            Accept: 'application/json',
          },
          body: requestBody,
        }),
      );
      const answer = await readToken(response, requestBody);
      if ('token' in answer) return answer.token;
      const wait =
        response.status === 429 || response.status === 503
          ? retryWaitSeconds(response, attempt, rules)
          : null;
      if (wait === null) throw new TokenRequestError(response.status, answer.oauthError);
      await sleep(wait);
    }
  }

  /**
   * Reads one token answer and tells `onTokenResponse` of it: the token, or for a refusal the OAuth 2.0 error
   * code it named (RFC 6749 §5.2), if any.
   */
  async function readToken(
    response: Response,
    requestBody: string,
  ): Promise<{ token: CachedToken } | { oauthError: string | undefined }> {
    const body = (await response.json().catch(() => ({}))) as {
      access_token?: unknown;
      token_type?: unknown;
      expires_in?: unknown;
      scope?: unknown;
      error?: unknown;
    };
    const expiresIn = typeof body.expires_in === 'number' ? body.expires_in : undefined;
    options.onTokenResponse?.({
      requestBody,
      status: response.status,
      ...(typeof body.token_type === 'string' ? { tokenType: body.token_type } : {}),
      ...(expiresIn !== undefined ? { expiresIn } : {}),
      ...(typeof body.scope === 'string' ? { scope: body.scope } : {}),
      ...(typeof body.error === 'string' ? { error: body.error } : {}),
    });
    if (response.status !== 200 || typeof body.access_token !== 'string' || expiresIn === undefined)
      return { oauthError: typeof body.error === 'string' ? body.error : undefined };
    return { token: { accessToken: body.access_token, refreshAt: now() + expiresIn * 900 } };
  }

  return {
    /** A token with at least 10% of its life left: the cached one, the one being fetched, or a new one. */
    async get(): Promise<string> {
      if (cached && now() < cached.refreshAt) return cached.accessToken;
      pending ??= request()
        .then((token) => {
          cached = token;
          return token;
        })
        .finally(() => {
          pending = null;
        });
      return (await pending).accessToken;
    },
    /** Forgets `accessToken` if it is still the cached one (a 401 named it invalid). */
    invalidate(accessToken: string): void {
      if (cached?.accessToken === accessToken) cached = null;
    },
  };
}

/**
 * A client for one workload (docs/integrating.md "The typed client": one client per workload). Nothing is sent until the
 * first call. Calls reject with `TokenRequestError` when the token endpoint refuses the credential (or still
 * answers 429/503 when its attempts are spent or its `Retry-After` is over the cap), and with the fetch's own
 * error on a network failure; every HTTP answer of the API itself is returned (after the retries above).
 */
export function createLendingClient(options: LendingClientOptions): LendingClient {
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const rules: RetryRules = {
    maxAttempts: options.maxAttempts ?? 5,
    maxRetryAfterSeconds: options.maxRetryAfterSeconds ?? 30,
    now: options.now ?? Date.now,
  };
  const tokens = tokenSource(options, send, rules);
  const baseUrl = options.baseUrl.replace(/\/+$/, '');

  async function authorizedFetch(input: Request | string | URL, init?: RequestInit): Promise<Response> {
    const original = new Request(input, init);
    // The body is read once, so every attempt sends the same bytes.
    const body = original.body === null ? undefined : await original.arrayBuffer();
    const headers = new Headers(original.headers);
    if (!headers.has('Service-Tenant')) headers.set('Service-Tenant', options.tenant);
    if (options.actor && !headers.has('Service-Actor')) headers.set('Service-Actor', options.actor);
    if (mutatingMethods.has(original.method.toUpperCase()) && !headers.has('Idempotency-Key'))
      headers.set('Idempotency-Key', crypto.randomUUID());

    let refreshed = false;
    for (let attempt = 1; ; ) {
      const accessToken = await tokens.get();
      headers.set('Authorization', `Bearer ${accessToken}`);
      const response = await send(
        new Request(original.url, {
          method: original.method,
          headers,
          body,
          redirect: original.redirect,
          signal: original.signal,
        }),
      );
      if (response.status === 401 && !refreshed) {
        // docs/integrating.md "The typed client": refresh once, then stop.
        refreshed = true;
        tokens.invalidate(accessToken);
        await response.body?.cancel();
        continue;
      }
      // 429, 503 (docs/design.md §5 "Rate limits"; P0 failure answers) and a 409 in flight (docs/design.md §4 Idempotency-Key): wait and
      // send the same request again, same Idempotency-Key; any other 409 is the caller's.
      const retryable =
        response.status === 429 || response.status === 503 || (await isRequestInFlight(response));
      const wait = retryable ? retryWaitSeconds(response, attempt, rules) : null;
      if (wait === null) return response;
      await response.body?.cancel();
      await sleep(wait);
      attempt += 1;
    }
  }

  const client = createClient<LendingPaths>({ baseUrl, fetch: (request) => authorizedFetch(request) });
  return Object.assign(client, {
    fetch: (path: string, init?: RequestInit) => authorizedFetch(`${baseUrl}${path}`, init),
  });
}
