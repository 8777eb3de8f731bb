/**
 * The typed client's schema is not stale: client/src/schema.d.ts as checked in equals what
 * openapi-typescript generates now from this service's OpenAPI document (scripts/client-schema.ts). A route
 * changed without regenerating fails here, naming the command that fixes it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { clientGenerateCommand, clientSchemaPath, clientSchemaSource } from '../../scripts/client-schema';

describe('client/src/schema.d.ts', () => {
  it('matches the current OpenAPI document', async () => {
    const generated = await clientSchemaSource();
    const checkedIn = readFileSync(clientSchemaPath, 'utf8');
    expect(generated.length).toBeGreaterThan(1_000);
    expect(
      checkedIn === generated,
      `client/src/schema.d.ts is stale against GET /v1/openapi.json: run \`${clientGenerateCommand}\` and commit the result.`,
    ).toBe(true);
  });
});
