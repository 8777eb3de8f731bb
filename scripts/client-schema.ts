/**
 * The typed client's schema (client/src/schema.d.ts) as openapi-typescript 7 generates it from this
 * service's OpenAPI document. The document is the one `GET /v1/openapi.json` answers: the app is
 * built in-process and asked for it. That route reads only the routes and the configuration (no database,
 * no Temporal), so the app gets a configuration and a silent logger, nothing else. Used by
 * `npm run client:generate` (scripts/client-generate.ts) and by the staleness test
 * (test/unit/client-schema.test.ts).
 */
import path from 'node:path';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';
import pino from 'pino';
import { createApp } from '../api/app';
import type { AppDeps } from '../api/env';
import { projectRoot } from '../workers/config';

/** Where the generated schema is checked in. */
export const clientSchemaPath = path.join(projectRoot, 'client', 'src', 'schema.d.ts');

/** The command that regenerates it. */
export const clientGenerateCommand = 'npm run client:generate';

/**
 * This service's OpenAPI 3.1 document, exactly as `GET /v1/openapi.json` answers it (the token endpoint left
 * relative: no `AUTH_BASE_URL`). Throws unless the route answers 200.
 */
export async function openApiDocument(): Promise<Record<string, unknown>> {
  const deps = {
    config: {
      environment: 'sandbox',
      cursorSigningKey: 'unused: the document route reads no cursor',
      docsUrl: 'https://docs.invalid',
      rateLimitPerSecond: 1,
    },
    logger: pino({ level: 'silent' }),
  } satisfies Partial<AppDeps>;
  const response = await createApp(deps as AppDeps).request('/v1/openapi.json');
  if (response.status !== 200) throw new Error(`GET /v1/openapi.json answered ${response.status}`);
  return (await response.json()) as Record<string, unknown>;
}

/** The text of client/src/schema.d.ts for the current document: openapi-typescript's output under a header. */
export async function clientSchemaSource(): Promise<string> {
  const ast = await openapiTS((await openApiDocument()) as never);
  return `${COMMENT_HEADER}// Generated from GET /v1/openapi.json by \`${clientGenerateCommand}\` (scripts/client-schema.ts).\n\n${astToString(ast)}`;
}
