/**
 * Error logs never carry SQL parameters or the values PostgreSQL quotes, and no log line exceeds 8 KiB
 * (DESIGN §3, §4 Logs; issue 14: error lines held names, dates of birth and free text, one was 5.4 MB).
 * A real statement fails on the real database with a recognizable, multi-megabyte parameter; the API's error
 * log (through the service's own logger) and the failure an activity hands to Temporal must not contain it.
 */
import { ApplicationFailure } from '@temporalio/common';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Activities } from '../../activities';
import { withTenantTransaction } from '../../db/tenant-tx';
import { asTemporalActivities } from '../../workers/activities';
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

const marker = 'Zelda-Fitzgerald-1900-07-24';
/** A parameter like the boarding batch that produced the 5.4 MB line: the marker, then megabytes of text. */
const parameter = `${marker} ${'free text '.repeat(600_000)}`;

/** Runs a statement that PostgreSQL rejects (22P02), quoting the parameter in its own message. */
async function failingStatement(tenantId: string): Promise<never> {
  await withTenantTransaction(ctx.db, tenantId, (tx) => tx.execute(sql`select ${parameter}::integer as n`));
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
      code: '22P02',
      query: 'select',
      message: expect.stringContaining('22P02'),
    });
  });

  it('an activity hands Temporal a DatabaseError failure without the parameter', async () => {
    const activities = asTemporalActivities({
      openCase: (input: { tenantId: string }) => failingStatement(input.tenantId),
    } as unknown as Activities);
    let caught: unknown;
    try {
      await activities.openCase({ tenantId: cred.tenant } as never);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ApplicationFailure);
    const failure = caught as ApplicationFailure;
    expect(failure.type).toBe('DatabaseError');
    expect(failure.nonRetryable).toBe(false);
    expect(failure.message).toContain('22P02');
    expect(`${failure.message} ${JSON.stringify(failure.details)} ${failure.stack}`).not.toContain(marker);
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
