/**
 * Helpers shared by the API tests: raw requests through `app.request()`, Shape A assertions,
 * token requests and tenant-scoped row counts read straight from the database.
 */
import { randomBytes } from 'node:crypto';
import { and, count, eq, type SQL } from 'drizzle-orm';
import type { AnyPgColumn, PgTable } from 'drizzle-orm/pg-core';
import pino, { type Logger } from 'pino';
import { expect } from 'vitest';
import { createApp } from '../../api/app';
import type { ApiConfig } from '../../api/env';
import type { HealthMonitor } from '../../api/health-monitor';
import { createDependencyHealth, createProcessClients } from '../../api/processes';
import type { StartMarkSink } from '../../api/start-marks';
import { withTenantTransaction } from '../../db/tenant-tx';
import type { PrivacyRequestClient } from '../../workflows/servicing/privacy-request/client';
import { type Credential, call, type TestContext, testSecrets } from '../support/context';

/** A parsed JSON body: its shape is what the assertions check. */
// biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted field by field, as in test/support.
export type Json = any;

export interface ApiResponse {
  status: number;
  body: Json;
  headers: Headers;
}

/** Sends a request through the app as is (no default headers) and parses a JSON body. */
export async function send(ctx: TestContext, path: string, init: RequestInit = {}): Promise<ApiResponse> {
  const res = await ctx.app.request(path, init);
  const text = await res.text();
  let body: unknown = text;
  if ((res.headers.get('content-type') ?? '').includes('json') && text) body = JSON.parse(text);
  return { status: res.status, body, headers: res.headers };
}

/** Bearer and tenant headers of `cred`, plus `extra`. */
export function authHeaders(cred: Credential, extra: Record<string, string> = {}): Record<string, string> {
  return { authorization: `Bearer ${cred.token}`, 'service-tenant': cred.tenant, ...extra };
}

/** Asserts a Shape A error: status, `httpStatusCode` as text, code, and the named fields. */
export function expectShapeA(
  res: ApiResponse,
  status: number,
  code: string,
  parameterNames?: string[],
): {
  developerMessage: string;
  errors: { parameterName: string; developerMessage: string; value: unknown }[];
} {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(Object.keys(res.body).sort()).toEqual(
    [
      'defaultUserMessage',
      'developerMessage',
      'errors',
      'httpStatusCode',
      'userMessageGlobalisationCode',
    ].sort(),
  );
  expect(res.body.httpStatusCode).toBe(String(status));
  expect(res.body.userMessageGlobalisationCode).toBe(code);
  expect(typeof res.body.developerMessage).toBe('string');
  expect(res.body.developerMessage.length).toBeGreaterThan(0);
  expect(typeof res.body.defaultUserMessage).toBe('string');
  expect(res.body.defaultUserMessage.length).toBeGreaterThan(0);
  expect(Array.isArray(res.body.errors)).toBe(true);
  if (parameterNames !== undefined) {
    expect(res.body.errors.map((e: { parameterName: string }) => e.parameterName)).toEqual(parameterNames);
    for (const e of res.body.errors) {
      expect(e).toMatchObject({
        developerMessage: expect.any(String),
        defaultUserMessage: expect.any(String),
        userMessageGlobalisationCode: expect.any(String),
      });
      expect(e).toHaveProperty('value');
      expect(Array.isArray(e.args)).toBe(true);
    }
  }
  return res.body;
}

/** `Authorization: Basic` header for a client id and secret. */
export function basic(clientId: string, clientSecret: string): string {
  return `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;
}

/** `POST /oauth2/token` with a form body (or any body and headers given). */
export function tokenRequest(
  ctx: TestContext,
  options: { authorization?: string | null; body?: string; contentType?: string | null },
): Promise<ApiResponse> {
  const headers: Record<string, string> = {};
  if (options.authorization) headers.authorization = options.authorization;
  const contentType =
    options.contentType === undefined ? 'application/x-www-form-urlencoded' : options.contentType;
  if (contentType !== null) headers['content-type'] = contentType;
  return send(ctx, '/oauth2/token', {
    method: 'POST',
    headers,
    body: options.body ?? 'grant_type=client_credentials',
  });
}

/** Number of rows of `table` in `tenant` (under row-level security) matching `where`. */
export async function countRows(
  ctx: TestContext,
  tenant: string,
  table: PgTable & { tenantId: AnyPgColumn },
  where?: SQL,
): Promise<number> {
  const [row] = await withTenantTransaction(ctx.db, tenant, (tx) =>
    tx
      .select({ n: count() })
      .from(table as PgTable)
      .where(and(eq(table.tenantId, tenant), where)),
  );
  return row?.n ?? 0;
}

/**
 * A fresh, unused Idempotency-Key. Base64url rather than hex: a hex key is all digits once in
 * ~1,900 draws, and a key of 8+ consecutive digits is refused as a possible account number.
 */
export function newKey(prefix = 'k'): string {
  return `${prefix}-${randomBytes(8).toString('base64url')}`;
}

/** Opens a case as `cred` and returns its id. */
export async function openCase(
  ctx: TestContext,
  cred: Credential,
  body: Partial<{ customerRef: string; caseTypeCode: string; summary: string }> = {},
  headers: Record<string, string> = {},
): Promise<number> {
  const res = await call(
    ctx,
    cred,
    'POST',
    '/v1/servicing/cases',
    { customerRef: 'cus_1', caseTypeCode: 'GENERAL', summary: 'Test case', ...body },
    headers,
  );
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.caseId as number;
}

/** Logs an interaction on `caseId` as `cred` and returns its id. */
export async function logInteraction(
  ctx: TestContext,
  cred: Credential,
  caseId: number | null,
  overrides: Record<string, unknown> = {},
): Promise<number> {
  const res = await call(ctx, cred, 'POST', '/v1/servicing/interactions', {
    customerRef: 'cus_1',
    caseId,
    channel: 'EMAIL',
    direction: 'INBOUND',
    summary: 'Customer wrote in',
    ...overrides,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.interactionId as number;
}

/** Records evidence on `caseId` as `cred` and returns its id. */
export async function addEvidence(ctx: TestContext, cred: Credential, caseId: number): Promise<number> {
  const res = await call(ctx, cred, 'POST', '/v1/servicing/evidence', {
    caseId,
    evidenceType: 'DELETION_CONFIRMATION',
    description: 'Deleted from all systems',
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.evidenceId as number;
}

/** Receives a privacy request on a new case (with its source interaction); returns the ids. */
export async function openPrivacyRequest(
  ctx: TestContext,
  cred: Credential,
  overrides: Record<string, unknown> = {},
): Promise<{ caseId: number; interactionId: number; requestId: number; reviewTaskId: number; body: Json }> {
  const caseId = await openCase(ctx, cred, { caseTypeCode: 'PRIVACY', summary: 'DSR' });
  const interactionId = await logInteraction(ctx, cred, caseId);
  const res = await call(ctx, cred, 'POST', '/v1/servicing/privacy-requests', {
    customerRef: 'cus_1',
    requestType: 'DELETION',
    regime: 'CCPA_CPRA',
    summary: 'Delete my data',
    caseId,
    sourceInteractionId: interactionId,
    ...overrides,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return {
    caseId,
    interactionId,
    requestId: res.body.requestId,
    reviewTaskId: res.body.reviewTaskId,
    body: res.body,
  };
}

/**
 * A second app on the same database and Temporal client as `ctx.app`, wired the same way but
 * with some operations replaced (to make one fail or wait) and an optional logger.
 */
export function appWith(
  ctx: TestContext,
  options: {
    activities?: Partial<TestContext['activities']>;
    /** Replaces methods of the privacy-request client port. */
    privacyRequests?: Partial<PrivacyRequestClient>;
    /** Replaces the `/healthz` monitor. */
    health?: HealthMonitor;
    /** Replaces the start-mark buffer (api/start-marks.ts). */
    startMarks?: StartMarkSink;
    logger?: Logger;
    /** Overrides of the API configuration (rate limits, `authBaseUrl`, …). */
    config?: Partial<ApiConfig>;
  } = {},
): TestContext['app'] {
  return createApp({
    db: ctx.db,
    activities: { ...ctx.activities, ...options.activities },
    platform: ctx.platform,
    startMarks: options.startMarks ?? ctx.startMarks,
    processes: {
      ...createProcessClients(ctx.client),
      privacyRequests: { ...createProcessClients(ctx.client).privacyRequests, ...options.privacyRequests },
    },
    health: options.health ?? createDependencyHealth(ctx.db, ctx.client),
    config: {
      environment: 'sandbox',
      cursorSigningKey: testSecrets.cursorSigningKey,
      docsUrl: 'https://docs.test/lending',
      rateLimitPerSecond: 10_000,
      searchRateLimitPerSecond: 10_000,
      ...options.config,
    },
    logger: options.logger ?? pino({ level: 'silent' }),
    clock: () => ctx.now.value ?? new Date(),
    tokenGrants: ctx.tokenGrants,
  });
}

/** A promise with its resolve function, to hold an operation until the test lets it go. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open = () => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}
