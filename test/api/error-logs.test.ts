/**
 * Error logs never carry SQL parameters or the values PostgreSQL quotes, and no log line exceeds 8 KiB
 * (docs/design.md §3, §4 Logs; error lines held names, dates of birth and free text, one was 5.4 MB).
 * A real statement fails on the real database (a foreign-key violation, whose detail quotes the key) with a
 * recognizable, multi-megabyte parameter; the API's error log, written through the service's own logger, must not
 * contain it. (The failure an activity hands to Temporal is stripped by workers/activities.ts, wip/edge.)
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTenantTransaction } from '../../db/tenant-tx';
import { createLogger, logLineBytesMax } from '../../workers/logger';
import {
  type Credential,
  createTestContext,
  credentialFor,
  type TestContext,
  uniqueTenant,
} from '../support/context';
import { appWith } from './helpers';

let ctx: TestContext;
let cred: Credential;

beforeAll(async () => {
  ctx = await createTestContext({ worker: false });
  cred = await credentialFor(ctx, uniqueTenant('log'));
});
afterAll(async () => ctx?.close());

const marker = 'ZELDA_FITZGERALD_19000724';
/** A parameter like the boarding batch that produced the 5.4 MB line: the marker, then megabytes of text. */
const parameter = `${marker} ${'free text '.repeat(600_000)}`;

/**
 * Runs an insert that PostgreSQL rejects with 23503 (the case type does not exist): the server's detail quotes the
 * key (`Key (tenant_id, case_type_code)=(…, <marker>)`), drizzle's message lists every parameter.
 */
async function failingStatement(tenantId: string): Promise<never> {
  await withTenantTransaction(ctx.db, tenantId, (tx) =>
    tx.execute(sql`insert into cases (tenant_id, customer_ref, case_type_code, summary)
                   values (${tenantId}, ${'cus_1'}, ${marker}, ${parameter})`),
  );
  throw new Error('the statement was expected to fail');
}

describe('database errors in logs', () => {
  it('the API logs the SQLSTATE and the statement description, never the parameter, in lines of at most 8 KiB', async () => {
    const lines: string[] = [];
    const logger = createLogger('info', { write: (line: string) => lines.push(line) });
    const app = appWith(ctx, {
      logger,
      activities: {
        openCase: (async (input: { tenantId: string }) => failingStatement(input.tenantId)) as never,
      },
    });
    const res = await app.request('/v1/servicing/cases', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${cred.token}`,
        'service-tenant': cred.tenant,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ customerRef: 'cus_1', caseTypeCode: 'GENERAL', summary: 'x' }),
    });
    expect(res.status).toBe(500);
    expect(await res.text()).not.toContain(marker);
    const output = lines.join('');
    expect(output).not.toContain(marker);
    expect(output).not.toContain('free text');
    for (const line of lines) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(logLineBytesMax);
    const errorLine = lines.map((line) => JSON.parse(line)).find((entry) => entry.msg === 'unhandled error');
    expect(errorLine?.err).toMatchObject({
      code: '23503',
      query: 'insert cases',
      constraint: 'cases_case_type_fk',
      message: 'database error 23503 on cases_case_type_fk in insert cases',
    });
  });

  it('a long line of any kind is cut to 8 KiB, stays JSON and says it was truncated', () => {
    const lines: string[] = [];
    const logger = createLogger('info', { write: (line: string) => lines.push(line) });
    logger.info(
      { requestId: 'req-1', blob: 'y'.repeat(50_000), nested: { list: Array(5000).fill('z') } },
      'big',
    );
    logger.info({ small: true }, 'small');
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(logLineBytesMax);
    const [big, small] = lines.map((line) => JSON.parse(line));
    expect(big).toMatchObject({ msg: 'big', requestId: 'req-1', truncated: true });
    expect(big.originalBytes).toBeGreaterThan(50_000);
    expect(small).toMatchObject({ msg: 'small', small: true });
    expect(small.truncated).toBeUndefined();
  });
});
