/**
 * Delinquency ranges and buckets through the public API (Apache Fineract `DelinquencyApiResource`:
 * `POST/GET /v1/delinquency/ranges`, `POST/GET /v1/delinquency/buckets`; docs/lending.md "Delinquency
 * configuration"): the created resources as the reads show them, the Idempotency-Key replay, every refused body
 * (Shape A, nothing stored), tenancy and permissions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Credential,
  call,
  createTestContext,
  credentialFor,
  type TestContext,
  uniqueTenant,
} from '../support/context';
import { expectShapeA } from './helpers';

let ctx: TestContext;
let cred: Credential;
let other: Credential;

const scopes = ['lending:read', 'lending:write'];
let n = 0;
const unique = (prefix: string) => {
  n += 1;
  return `${prefix} ${Math.random().toString(36).slice(2, 7)}-${n}`;
};

beforeAll(async () => {
  ctx = await createTestContext({ worker: false });
  cred = await credentialFor(ctx, uniqueTenant('dlq'), { scopes });
  other = await credentialFor(ctx, uniqueTenant('dlqx'), { scopes });
});
afterAll(async () => ctx?.close());

async function range(
  minimumAgeDays: number,
  maximumAgeDays: number | null,
  extra: Record<string, unknown> = {},
  c: Credential = cred,
): Promise<number> {
  const res = await call(ctx, c, 'POST', '/v1/delinquency/ranges', {
    classification: unique('Range'),
    minimumAgeDays,
    maximumAgeDays,
    ...extra,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(Object.keys(res.body)).toEqual(['resourceId']);
  return res.body.resourceId as number;
}

async function counts(c: Credential = cred): Promise<[number, number]> {
  const ranges = await call(ctx, c, 'GET', '/v1/delinquency/ranges');
  const buckets = await call(ctx, c, 'GET', '/v1/delinquency/buckets');
  return [ranges.body.length, buckets.body.length];
}

describe('POST /v1/delinquency/ranges and the reads', () => {
  it('defines ranges (open-ended too) and reads them alone and in the list', async () => {
    const classification = unique('DPD 1-30');
    const res = await call(ctx, cred, 'POST', '/v1/delinquency/ranges', {
      classification,
      minimumAgeDays: 1,
      maximumAgeDays: 30,
      collectionsCaseTypeCode: 'GENERAL',
      locale: 'en',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const id = res.body.resourceId as number;
    const read = await call(ctx, cred, 'GET', `/v1/delinquency/ranges/${id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual({
      id,
      classification,
      minimumAgeDays: 1,
      maximumAgeDays: 30,
      collectionsCaseTypeCode: 'GENERAL',
    });
    const open = await range(120, null);
    const omitted = await call(ctx, cred, 'POST', '/v1/delinquency/ranges', {
      classification: unique('Open'),
      minimumAgeDays: 200,
    });
    expect(omitted.status).toBe(201);
    const list = await call(ctx, cred, 'GET', '/v1/delinquency/ranges');
    expect(list.status).toBe(200);
    const byId = new Map(list.body.map((r: { id: number }) => [r.id, r]));
    expect(byId.get(id)).toEqual(read.body);
    expect(byId.get(open)).toMatchObject({
      minimumAgeDays: 120,
      maximumAgeDays: null,
      collectionsCaseTypeCode: null,
    });
    expect(byId.get(omitted.body.resourceId)).toMatchObject({ maximumAgeDays: null });
    // Oldest first.
    const ids = list.body.map((r: { id: number }) => r.id);
    expect(ids).toEqual([...ids].sort((a: number, b: number) => a - b));
  });

  it('accepts a one-day range (maximum equal to the minimum)', async () => {
    const id = await range(0, 0);
    expect((await call(ctx, cred, 'GET', `/v1/delinquency/ranges/${id}`)).body).toMatchObject({
      minimumAgeDays: 0,
      maximumAgeDays: 0,
    });
  });

  it('replays a request with the same Idempotency-Key and stores one range', async () => {
    const body = { classification: unique('Replay'), minimumAgeDays: 5, maximumAgeDays: 9 };
    const headers = { 'Idempotency-Key': `dlq-${Math.random().toString(36).slice(2)}` };
    const first = await call(ctx, cred, 'POST', '/v1/delinquency/ranges', body, headers);
    const before = await counts();
    const second = await call(ctx, cred, 'POST', '/v1/delinquency/ranges', body, headers);
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(await counts()).toEqual(before);
  });

  it.each([
    ['a maximum below the minimum', { minimumAgeDays: 10, maximumAgeDays: 9 }, 'maximumAgeDays'],
    ['a negative minimum', { minimumAgeDays: -1, maximumAgeDays: 9 }, 'minimumAgeDays'],
    ['a fractional age', { minimumAgeDays: 1.5, maximumAgeDays: 9 }, 'minimumAgeDays'],
    ['an age as a string', { minimumAgeDays: '1', maximumAgeDays: 9 }, 'minimumAgeDays'],
    ['a missing minimum', { maximumAgeDays: 9 }, 'minimumAgeDays'],
    ['an empty classification', { classification: '', minimumAgeDays: 1 }, 'classification'],
    [
      'a lower-case case type code',
      { minimumAgeDays: 1, collectionsCaseTypeCode: 'general' },
      'collectionsCaseTypeCode',
    ],
    ['an unknown field', { minimumAgeDays: 1, severity: 'high' }, 'severity'],
  ])('refuses %s with 400 naming the field and stores nothing', async (_what, fields, parameterName) => {
    const before = await counts();
    const res = await call(ctx, cred, 'POST', '/v1/delinquency/ranges', {
      classification: unique('Bad'),
      ...fields,
    });
    const body = expectShapeA(res, 400, 'validation.msg.validation.errors.exist');
    expect(body.errors.map((e) => e.parameterName)).toContain(parameterName);
    expect(await counts()).toEqual(before);
  });

  it('refuses a classification the tenant already has with Fineract’s duplicate code; another tenant may use it', async () => {
    const classification = unique('Twice');
    expect(
      (await call(ctx, cred, 'POST', '/v1/delinquency/ranges', { classification, minimumAgeDays: 1 })).status,
    ).toBe(201);
    const before = await counts();
    const res = await call(ctx, cred, 'POST', '/v1/delinquency/ranges', {
      classification,
      minimumAgeDays: 40,
    });
    const body = expectShapeA(res, 400, 'validation.msg.validation.errors.exist', ['classification']);
    expect(res.body.errors[0].userMessageGlobalisationCode).toBe(
      'error.msg.data.integrity.issue.entity.duplicated',
    );
    expect(body.errors[0]!.value).toBe(classification);
    expect(await counts()).toEqual(before);
    expect(
      (await call(ctx, other, 'POST', '/v1/delinquency/ranges', { classification, minimumAgeDays: 1 }))
        .status,
    ).toBe(201);
  });

  it('refuses a case type the tenant does not have with 404 naming collectionsCaseTypeCode', async () => {
    const before = await counts();
    const res = await call(ctx, cred, 'POST', '/v1/delinquency/ranges', {
      classification: unique('Cases'),
      minimumAgeDays: 1,
      collectionsCaseTypeCode: 'NO_SUCH_TYPE',
    });
    expectShapeA(res, 404, 'error.msg.resource.not.found', ['collectionsCaseTypeCode']);
    expect(await counts()).toEqual(before);
  });

  it('answers 404 for another tenant’s range, keeps it out of the list, and 400 for a malformed id', async () => {
    const id = await range(1, 3);
    expectShapeA(
      await call(ctx, other, 'GET', `/v1/delinquency/ranges/${id}`),
      404,
      'error.msg.resource.not.found',
    );
    const list = await call(ctx, other, 'GET', '/v1/delinquency/ranges');
    expect(list.body.some((r: { id: number }) => r.id === id)).toBe(false);
    expectShapeA(
      await call(ctx, cred, 'GET', '/v1/delinquency/ranges/abc'),
      400,
      'validation.msg.validation.errors.exist',
      ['rangeId'],
    );
  });

  it('needs CREATE_DELINQUENCY_RANGE to define and READ_DELINQUENCY_RANGE to read', async () => {
    const reader = await credentialFor(ctx, cred.tenant, { scopes, permissions: ['READ_DELINQUENCY_RANGE'] });
    const writer = await credentialFor(ctx, cred.tenant, {
      scopes,
      permissions: ['CREATE_DELINQUENCY_RANGE'],
    });
    const before = await counts();
    expectShapeA(
      await call(ctx, reader, 'POST', '/v1/delinquency/ranges', {
        classification: unique('No'),
        minimumAgeDays: 1,
      }),
      403,
      'error.msg.not.authorized',
    );
    expect(await counts()).toEqual(before);
    expect((await call(ctx, reader, 'GET', '/v1/delinquency/ranges')).status).toBe(200);
    expectShapeA(await call(ctx, writer, 'GET', '/v1/delinquency/ranges'), 403, 'error.msg.not.authorized');
  });
});

describe('POST /v1/delinquency/buckets and the reads', () => {
  it('defines a bucket of non-overlapping ranges and shows them by minimumAgeDays', async () => {
    const late = await range(31, 60);
    const early = await range(1, 30);
    const last = await range(61, null);
    const name = unique('Bucket');
    const res = await call(ctx, cred, 'POST', '/v1/delinquency/buckets', {
      name,
      ranges: [late, last, early],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(Object.keys(res.body)).toEqual(['resourceId']);
    const id = res.body.resourceId as number;
    const read = await call(ctx, cred, 'GET', `/v1/delinquency/buckets/${id}`);
    expect(read.status).toBe(200);
    const rangeRead = async (rangeId: number) =>
      (await call(ctx, cred, 'GET', `/v1/delinquency/ranges/${rangeId}`)).body;
    expect(read.body).toEqual({
      id,
      name,
      ranges: [await rangeRead(early), await rangeRead(late), await rangeRead(last)],
    });
    const list = await call(ctx, cred, 'GET', '/v1/delinquency/buckets');
    expect(list.status).toBe(200);
    expect(list.body.find((b: { id: number }) => b.id === id)).toEqual(read.body);
    // A range may belong to several buckets.
    const again = await call(ctx, cred, 'POST', '/v1/delinquency/buckets', {
      name: unique('Bucket'),
      ranges: [early],
    });
    expect(again.status).toBe(201);
  });

  it.each([
    ['share a boundary day', [1, 30], [30, 60]],
    ['nest', [1, 90], [10, 20]],
    ['meet an open-ended range', [1, 30], [20, null]],
    ['are both open-ended', [100, null], [200, null]],
  ] as [string, [number, number | null], [number, number | null]][])(
    'refuses ranges that %s with 400 naming ranges and stores nothing',
    async (_what, a, b) => {
      const ids = [await range(...a), await range(...b)];
      const before = await counts();
      const res = await call(ctx, cred, 'POST', '/v1/delinquency/buckets', {
        name: unique('Overlap'),
        ranges: ids,
      });
      expectShapeA(res, 400, 'validation.msg.validation.errors.exist', ['ranges']);
      expect(await counts()).toEqual(before);
    },
  );

  it.each([
    ['no range', { ranges: [] }, 'ranges'],
    ['a range twice', { ranges: 'twice' }, 'ranges'],
    ['a range id that is not a positive integer', { ranges: [0] }, 'ranges[0]'],
    ['a missing name', { name: undefined }, 'name'],
    ['an unknown field', { active: true }, 'active'],
  ])('refuses %s with 400 and stores nothing', async (_what, fields, parameterName) => {
    const id = await range(1, 2);
    const body: Record<string, unknown> = { name: unique('Bad'), ranges: [id], ...fields };
    if (body.ranges === 'twice') body.ranges = [id, id];
    const before = await counts();
    const res = await call(ctx, cred, 'POST', '/v1/delinquency/buckets', body);
    const shape = expectShapeA(res, 400, 'validation.msg.validation.errors.exist');
    expect(shape.errors.map((e) => e.parameterName)).toContain(parameterName);
    expect(await counts()).toEqual(before);
  });

  it('refuses a name the tenant already has with Fineract’s duplicate code', async () => {
    const id = await range(1, 2);
    const name = unique('Same');
    expect((await call(ctx, cred, 'POST', '/v1/delinquency/buckets', { name, ranges: [id] })).status).toBe(
      201,
    );
    const before = await counts();
    const res = await call(ctx, cred, 'POST', '/v1/delinquency/buckets', { name, ranges: [id] });
    expectShapeA(res, 400, 'validation.msg.validation.errors.exist', ['name']);
    expect(res.body.errors[0].userMessageGlobalisationCode).toBe(
      'error.msg.data.integrity.issue.entity.duplicated',
    );
    expect(await counts()).toEqual(before);
  });

  it('refuses another tenant’s or an unknown range with 404 naming ranges', async () => {
    const foreign = await range(1, 2, {}, other);
    const before = await counts();
    for (const rangeId of [foreign, 987_654_321]) {
      const res = await call(ctx, cred, 'POST', '/v1/delinquency/buckets', {
        name: unique('Foreign'),
        ranges: [rangeId],
      });
      expectShapeA(res, 404, 'error.msg.resource.not.found', ['ranges']);
    }
    expect(await counts()).toEqual(before);
  });

  it('replays a request with the same Idempotency-Key and stores one bucket', async () => {
    const id = await range(1, 2);
    const body = { name: unique('Replay'), ranges: [id] };
    const headers = { 'Idempotency-Key': `dlqb-${Math.random().toString(36).slice(2)}` };
    const first = await call(ctx, cred, 'POST', '/v1/delinquency/buckets', body, headers);
    const before = await counts();
    const second = await call(ctx, cred, 'POST', '/v1/delinquency/buckets', body, headers);
    expect(first.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(await counts()).toEqual(before);
  });

  it('answers 404 for another tenant’s bucket and keeps it out of the list', async () => {
    const id = await range(1, 2);
    const bucket = (
      await call(ctx, cred, 'POST', '/v1/delinquency/buckets', { name: unique('Mine'), ranges: [id] })
    ).body.resourceId;
    expectShapeA(
      await call(ctx, other, 'GET', `/v1/delinquency/buckets/${bucket}`),
      404,
      'error.msg.resource.not.found',
    );
    const list = await call(ctx, other, 'GET', '/v1/delinquency/buckets');
    expect(list.body.some((b: { id: number }) => b.id === bucket)).toBe(false);
  });

  it('needs CREATE_DELINQUENCY_BUCKET to define and READ_DELINQUENCY_BUCKET to read', async () => {
    const id = await range(1, 2);
    const reader = await credentialFor(ctx, cred.tenant, {
      scopes,
      permissions: ['READ_DELINQUENCY_BUCKET'],
    });
    const writer = await credentialFor(ctx, cred.tenant, {
      scopes,
      permissions: ['CREATE_DELINQUENCY_BUCKET'],
    });
    expectShapeA(
      await call(ctx, reader, 'POST', '/v1/delinquency/buckets', { name: unique('No'), ranges: [id] }),
      403,
      'error.msg.not.authorized',
    );
    expect((await call(ctx, reader, 'GET', '/v1/delinquency/buckets')).status).toBe(200);
    expectShapeA(await call(ctx, writer, 'GET', '/v1/delinquency/buckets'), 403, 'error.msg.not.authorized');
  });
});
