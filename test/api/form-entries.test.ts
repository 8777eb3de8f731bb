/**
 * Case types, their field definitions and form entries (docs/processes.md P4; docs/servicing.md "Case types, field definitions and form entries" field-definitions row), through the app on the real
 * database: every route, validation per field type, history with before/after, ON_CLOSE answers before a case
 * closes, tenant isolation, permissions and paging.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caseTypeFieldPublications, formEntries, formEntryHistory } from '../../db/schema';
import {
  type Credential,
  call,
  createTestContext,
  credentialFor,
  type TestContext,
  uniqueTenant,
} from '../support/context';
import { countRows, expectShapeA, newKey, openCase } from './helpers';

let ctx: TestContext;
let cred: Credential;
let other: Credential;
let n = 0;

beforeAll(async () => {
  ctx = await createTestContext({ worker: false });
  cred = await credentialFor(ctx, uniqueTenant('forms'));
  other = await credentialFor(ctx, uniqueTenant('forms-b'));
});
afterAll(async () => ctx?.close());

const isoInstant = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A fresh upper-case case type code built from letters and a counter (no digit runs). */
function newCode(prefix = 'FORM'): string {
  n += 1;
  return `${prefix}_${Date.now().toString(36).toUpperCase()}_${n.toString(36).toUpperCase()}`;
}

/** A definition with one field of every type; `onClose` fields are required before closing. */
function sampleDefinitions() {
  return {
    sections: [
      {
        key: 'applicant',
        label: 'Applicant',
        fields: [
          { key: 'reason', label: 'Reason', type: 'TEXT', requiredAt: 'ON_CREATE' },
          { key: 'dependants', label: 'Dependants', type: 'NUMBER', requiredAt: 'OPTIONAL' },
          { key: 'monthlyIncome', label: 'Monthly income', type: 'MONEY', requiredAt: 'OPTIONAL' },
          { key: 'hardshipStart', label: 'Hardship start', type: 'DATE', requiredAt: 'OPTIONAL' },
        ],
      },
      {
        key: 'outcome',
        label: 'Outcome',
        fields: [
          { key: 'consentGiven', label: 'Consent given', type: 'BOOLEAN', requiredAt: 'OPTIONAL' },
          {
            key: 'resolution',
            label: 'Resolution',
            type: 'ENUM',
            requiredAt: 'ON_CLOSE',
            options: ['RESOLVED', 'REFERRED'],
          },
          { key: 'yenFee', label: 'Fee (JPY)', type: 'MONEY', requiredAt: 'OPTIONAL', currency: 'JPY' },
        ],
      },
    ],
  };
}

async function createType(c: Credential, code = newCode()): Promise<string> {
  const res = await call(ctx, c, 'POST', '/v1/servicing/admin/case-types', {
    caseTypeCode: code,
    displayName: `Type ${code}`,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return code;
}

async function publish(c: Credential, code: string, fieldDefinitions: unknown = sampleDefinitions()) {
  const res = await call(ctx, c, 'PUT', `/v1/servicing/admin/case-types/${code}/field-definitions`, {
    fieldDefinitions,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { publicationId: number; version: number };
}

/** A new case type with the sample definitions published, and an open case of it. */
async function typedCase(c: Credential = cred) {
  const code = await createType(c);
  const { publicationId } = await publish(c, code);
  const caseId = await openCase(ctx, c, { caseTypeCode: code });
  return { code, publicationId, caseId };
}

async function createEntry(
  c: Credential,
  body: { caseId: number; publicationId: number; answers: Record<string, unknown> },
  headers: Record<string, string> = {},
) {
  return call(ctx, c, 'POST', '/v1/form-entries', body, headers);
}

describe('case types', () => {
  it('lists the default case types by code and echoes the paging', async () => {
    const tenant = await credentialFor(ctx, uniqueTenant('forms-list'));
    const all = await call(ctx, tenant, 'GET', '/v1/servicing/admin/case-types');
    expect(all.status).toBe(200);
    expect(all.body).toEqual({
      items: ['COMPLAINT', 'GENERAL', 'HARDSHIP', 'PRIVACY'].map((caseTypeCode) => ({
        caseTypeCode,
        displayName: expect.any(String),
        createdAt: expect.stringMatching(isoInstant),
      })),
      limit: 50,
      offset: 0,
      hasMore: false,
    });
    const page = await call(ctx, tenant, 'GET', '/v1/servicing/admin/case-types?limit=2&offset=1');
    expect(page.body).toMatchObject({ limit: 2, offset: 1, hasMore: true });
    expect(page.body.items.map((t: { caseTypeCode: string }) => t.caseTypeCode)).toEqual([
      'GENERAL',
      'HARDSHIP',
    ]);
    const last = await call(ctx, tenant, 'GET', '/v1/servicing/admin/case-types?limit=2&offset=2');
    expect(last.body).toMatchObject({ limit: 2, offset: 2, hasMore: false });
    expectShapeA(
      await call(ctx, tenant, 'GET', '/v1/servicing/admin/case-types?limit=0'),
      400,
      'validation.msg.validation.errors.exist',
      ['limit'],
    );
    expectShapeA(
      await call(ctx, tenant, 'GET', '/v1/servicing/admin/case-types?status=x'),
      400,
      'validation.msg.validation.errors.exist',
      ['status'],
    );
  });

  it('creates a case type (201), which cases can then use; a duplicate code → 409; a retry with the key replays', async () => {
    const code = newCode('NEWTYPE');
    const key = newKey();
    const res = await call(
      ctx,
      cred,
      'POST',
      '/v1/servicing/admin/case-types',
      { caseTypeCode: code, displayName: 'Debt dispute' },
      { 'idempotency-key': key },
    );
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      caseTypeCode: code,
      displayName: 'Debt dispute',
      createdAt: expect.stringMatching(isoInstant),
    });
    const replay = await call(
      ctx,
      cred,
      'POST',
      '/v1/servicing/admin/case-types',
      { caseTypeCode: code, displayName: 'Debt dispute' },
      { 'idempotency-key': key },
    );
    expect(replay.status).toBe(201);
    expect(replay.body).toEqual(res.body);
    expect(replay.headers.get('x-served-from-cache')).toBe('true');
    const duplicate = await call(ctx, cred, 'POST', '/v1/servicing/admin/case-types', {
      caseTypeCode: code,
      displayName: 'Again',
    });
    const err = expectShapeA(duplicate, 409, 'error.msg.case.type.duplicate', ['caseTypeCode']);
    expect(err.developerMessage).toContain(code);
    const duplicateDefault = await call(ctx, cred, 'POST', '/v1/servicing/admin/case-types', {
      caseTypeCode: 'GENERAL',
      displayName: 'General again',
    });
    expectShapeA(duplicateDefault, 409, 'error.msg.case.type.duplicate', ['caseTypeCode']);
    const caseId = await openCase(ctx, cred, { caseTypeCode: code });
    expect((await call(ctx, cred, 'GET', `/v1/servicing/cases/${caseId}`)).body.caseTypeCode).toBe(code);
    // Another tenant does not have it.
    const elsewhere = await call(ctx, other, 'POST', '/v1/servicing/cases', {
      customerRef: 'cus_1',
      caseTypeCode: code,
      summary: 's',
    });
    expectShapeA(elsewhere, 400, 'validation.msg.validation.errors.exist', ['caseTypeCode']);
  });

  it('rejects a bad case type body with 400 naming the fields', async () => {
    const res = await call(ctx, cred, 'POST', '/v1/servicing/admin/case-types', {
      caseTypeCode: 'lower-case',
      displayName: '  ',
      extra: 1,
    });
    expectShapeA(res, 400, 'validation.msg.validation.errors.exist', [
      'caseTypeCode',
      'displayName',
      'extra',
    ]);
  });
});

describe('field definitions', () => {
  it('answers a type without publication with no sections, then publishes versions 1 and 2 in the spec shape', async () => {
    const code = await createType(cred);
    const path = `/v1/servicing/admin/case-types/${code}/field-definitions`;
    const empty = await call(ctx, cred, 'GET', path);
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({
      caseTypeCode: code,
      publicationId: null,
      version: null,
      fieldDefinitions: { sections: [] },
    });
    const first = await call(ctx, cred, 'PUT', path, { fieldDefinitions: sampleDefinitions() });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      caseTypeCode: code,
      publicationId: expect.any(Number),
      version: 1,
      fieldDefinitions: sampleDefinitions(),
    });
    expect(Number.isInteger(first.body.publicationId)).toBe(true);
    const read = await call(ctx, cred, 'GET', path);
    expect(read.body).toEqual(first.body);
    const spec = {
      sections: [
        {
          key: 'details',
          label: 'Details',
          fields: [{ key: 'incidentDate', label: 'Incident date', type: 'DATE', requiredAt: 'OPTIONAL' }],
        },
      ],
    };
    const second = await call(ctx, cred, 'PUT', path, { fieldDefinitions: spec });
    expect(second.body).toMatchObject({ version: 2, caseTypeCode: code });
    expect(second.body.publicationId).not.toBe(first.body.publicationId);
    const latest = await call(ctx, cred, 'GET', path);
    expect(latest.body).toEqual({
      caseTypeCode: code,
      publicationId: second.body.publicationId,
      version: 2,
      fieldDefinitions: spec,
    });
    expect(Object.keys(latest.body.fieldDefinitions.sections[0].fields[0]).sort()).toEqual(
      ['key', 'label', 'requiredAt', 'type'].sort(),
    );
  });

  it('replays a publication retried with the same Idempotency-Key (one version)', async () => {
    const code = await createType(cred);
    const path = `/v1/servicing/admin/case-types/${code}/field-definitions`;
    const key = newKey();
    const first = await call(
      ctx,
      cred,
      'PUT',
      path,
      { fieldDefinitions: sampleDefinitions() },
      { 'idempotency-key': key },
    );
    const again = await call(
      ctx,
      cred,
      'PUT',
      path,
      { fieldDefinitions: sampleDefinitions() },
      { 'idempotency-key': key },
    );
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(
      await countRows(
        ctx,
        cred.tenant,
        caseTypeFieldPublications,
        eq(caseTypeFieldPublications.caseTypeCode, code),
      ),
    ).toBe(1);
  });

  it('answers 404 for an unknown or another tenant’s case type, 400 for a malformed code', async () => {
    const mine = await createType(cred);
    for (const c of [cred, other]) {
      const code = c === cred ? 'NO_SUCH_TYPE' : mine;
      const path = `/v1/servicing/admin/case-types/${code}/field-definitions`;
      expectShapeA(await call(ctx, c, 'GET', path), 404, 'error.msg.resource.not.found');
      expectShapeA(
        await call(ctx, c, 'PUT', path, { fieldDefinitions: sampleDefinitions() }),
        404,
        'error.msg.resource.not.found',
      );
    }
    expectShapeA(
      await call(ctx, cred, 'GET', '/v1/servicing/admin/case-types/bad-code/field-definitions'),
      400,
      'validation.msg.validation.errors.exist',
      ['caseTypeCode'],
    );
  });

  it('refuses definitions that break the rules with 400 naming each field, and publishes nothing', async () => {
    const code = await createType(cred);
    const path = `/v1/servicing/admin/case-types/${code}/field-definitions`;
    const field = (key: string, extra: Record<string, unknown> = {}) => ({
      key,
      label: key,
      type: 'TEXT',
      requiredAt: 'OPTIONAL',
      ...extra,
    });
    const rules = await call(ctx, cred, 'PUT', path, {
      fieldDefinitions: {
        sections: [
          { key: 'a', label: 'A', fields: [field('x'), field('choice', { type: 'ENUM' })] },
          {
            key: 'a',
            label: 'A again',
            fields: [
              field('x'),
              field('note', { options: ['A'] }),
              field('dup', { type: 'ENUM', options: ['A', 'A'] }),
              field('amount', { type: 'MONEY', currency: 'XYZ' }),
              field('count', { type: 'NUMBER', currency: 'USD' }),
            ],
          },
        ],
      },
    });
    expectShapeA(rules, 400, 'validation.msg.validation.errors.exist', [
      'fieldDefinitions.sections[1].key',
      'fieldDefinitions.sections[0].fields[1].options',
      'fieldDefinitions.sections[1].fields[0].key',
      'fieldDefinitions.sections[1].fields[1].options',
      'fieldDefinitions.sections[1].fields[2].options',
      'fieldDefinitions.sections[1].fields[3].currency',
      'fieldDefinitions.sections[1].fields[4].currency',
    ]);
    const shape = await call(ctx, cred, 'PUT', path, {
      fieldDefinitions: {
        sections: [
          {
            key: '1bad',
            label: 'S',
            fields: [
              { key: 'has space', label: 'L', type: 'TEXT', requiredAt: 'OPTIONAL' },
              { key: 'y', label: 'L', type: 'FLOAT', requiredAt: 'SOMETIMES' },
              { key: 'z', label: 'L'.repeat(201), type: 'TEXT', requiredAt: 'OPTIONAL', hint: 'x' },
            ],
          },
          { key: 'empty', label: 'Empty', fields: [] },
        ],
      },
    });
    expectShapeA(shape, 400, 'validation.msg.validation.errors.exist', [
      'fieldDefinitions.sections[0].key',
      'fieldDefinitions.sections[0].fields[0].key',
      'fieldDefinitions.sections[0].fields[1].type',
      'fieldDefinitions.sections[0].fields[1].requiredAt',
      'fieldDefinitions.sections[0].fields[2].label',
      'fieldDefinitions.sections[0].fields[2].hint',
      'fieldDefinitions.sections[1].fields',
    ]);
    const tooMany = await call(ctx, cred, 'PUT', path, {
      fieldDefinitions: {
        sections: [0, 1, 2].map((s) => ({
          key: `s${'abc'[s]}`,
          label: 'S',
          fields: Array.from({ length: 70 }, (_, f) => field(`f${'abc'[s]}_${f.toString(36)}x`)),
        })),
      },
    });
    expectShapeA(tooMany, 400, 'validation.msg.validation.errors.exist', ['fieldDefinitions.sections']);
    expectShapeA(
      await call(ctx, cred, 'PUT', path, { sections: [] }),
      400,
      'validation.msg.validation.errors.exist',
      ['fieldDefinitions', 'sections'],
    );
    expect(
      await countRows(
        ctx,
        cred.tenant,
        caseTypeFieldPublications,
        eq(caseTypeFieldPublications.caseTypeCode, code),
      ),
    ).toBe(0);
  });
});

describe('form entries', () => {
  it('creates an entry (201), reads it, lists it and starts its history with ANSWERS_CREATED', async () => {
    const { caseId, publicationId } = await typedCase();
    const res = await createEntry(
      cred,
      {
        caseId,
        publicationId,
        answers: {
          reason: '  Lost job  ',
          dependants: 2,
          monthlyIncome: '1500.5',
          hardshipStart: '2026-10-01',
          consentGiven: true,
          yenFee: '1250',
          resolution: null,
        },
      },
      { 'service-actor': 'agent-7' },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const entry = {
      entryId: expect.any(Number),
      resourceId: res.body.entryId,
      caseId,
      publicationId,
      answers: {
        reason: 'Lost job',
        dependants: '2',
        monthlyIncome: '1500.50',
        hardshipStart: '2026-10-01',
        consentGiven: true,
        yenFee: '1250',
      },
      createdAt: expect.stringMatching(isoInstant),
      updatedAt: expect.stringMatching(isoInstant),
    };
    expect(res.body).toEqual(entry);
    const read = await call(ctx, cred, 'GET', `/v1/form-entries/${res.body.entryId}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(res.body);
    const list = await call(ctx, cred, 'GET', `/v1/form-entries?caseId=${caseId}`);
    expect(list.body).toEqual({ items: [res.body], limit: 50, offset: 0, hasMore: false });
    const history = await call(ctx, cred, 'GET', `/v1/form-entries/${res.body.entryId}/history`);
    expect(history.status).toBe(200);
    expect(history.body).toEqual({
      items: [
        {
          action: 'ANSWERS_CREATED',
          publicationId,
          // Every answer as SET from null, in the order the definition lists the fields.
          changes: [
            ['reason', 'Lost job'],
            ['dependants', '2'],
            ['monthlyIncome', '1500.50'],
            ['hardshipStart', '2026-10-01'],
            ['consentGiven', true],
            ['yenFee', '1250'],
          ].map(([fieldKey, after]) => ({ fieldKey, operation: 'SET', before: null, after })),
          reason: null,
          actorDisplayName: 'agent-7',
          occurredAt: expect.stringMatching(isoInstant),
        },
      ],
    });
    const effects = await call(ctx, cred, 'GET', `/v1/servicing/cases/${caseId}/effects`);
    const created = effects.body.items.find(
      (e: { effectType: string }) => e.effectType === 'FORM_ENTRY_CREATED',
    );
    expect(created).toMatchObject({
      subjectType: 'form_entry',
      subjectId: String(res.body.entryId),
      actorUsername: 'agent-7',
      detail: { entryId: res.body.entryId, publicationId },
    });
    // Answers stay out of effects.
    expect(JSON.stringify(created.detail)).not.toContain('Lost job');
  });

  it('validates every answer by its field type: 400 naming answers.<key>, nothing created', async () => {
    const { caseId, publicationId } = await typedCase();
    const before = await countRows(ctx, cred.tenant, formEntries, eq(formEntries.caseId, caseId));
    const bad: [key: string, value: unknown][] = [
      ['dependants', 'twelve'],
      ['dependants', '1e5'],
      ['dependants', 1e-7],
      ['dependants', '1234567890123456'],
      ['monthlyIncome', 1500.5],
      ['monthlyIncome', '10.555'],
      ['monthlyIncome', 'ten'],
      ['yenFee', '1250.5'],
      ['hardshipStart', '2026-02-30'],
      ['hardshipStart', '01/10/2026'],
      ['hardshipStart', '1850-01-01'],
      ['consentGiven', 'yes'],
      ['resolution', 'MAYBE'],
      ['reason', 42],
      ['reason', '   '],
      ['reason', 'x'.repeat(2001)],
    ];
    for (const [key, value] of bad) {
      const answers: Record<string, unknown> = { reason: 'Valid reason', [key]: value };
      const res = await createEntry(cred, { caseId, publicationId, answers });
      const err = expectShapeA(res, 400, 'validation.msg.validation.errors.exist', [`answers.${key}`]);
      expect(err.errors[0]?.developerMessage, `${key}=${String(value)}`).toMatch(
        new RegExp(`^answers\\.${key}`),
      );
    }
    const sensitive = await createEntry(cred, {
      caseId,
      publicationId,
      answers: { reason: 'SSN 123-45-6789 on file' },
    });
    const guarded = expectShapeA(sensitive, 400, 'validation.msg.validation.errors.exist', [
      'answers.reason',
    ]);
    expect(guarded.errors[0]?.value).toBeNull();
    expect(JSON.stringify(sensitive.body)).not.toContain('6789');
    const unknown = await createEntry(cred, {
      caseId,
      publicationId,
      answers: { reason: 'ok', favouriteColour: 'blue' },
    });
    expect(
      expectShapeA(unknown, 400, 'validation.msg.validation.errors.exist', ['answers.favouriteColour'])
        .developerMessage,
    ).toContain('favouriteColour');
    const missing = await createEntry(cred, { caseId, publicationId, answers: { dependants: '3' } });
    expectShapeA(missing, 400, 'validation.msg.validation.errors.exist', ['answers.reason']);
    const nullRequired = await createEntry(cred, { caseId, publicationId, answers: { reason: null } });
    expectShapeA(nullRequired, 400, 'validation.msg.validation.errors.exist', ['answers.reason']);
    const body = await call(ctx, cred, 'POST', '/v1/form-entries', { caseId, answers: [], extra: true });
    expectShapeA(body, 400, 'validation.msg.validation.errors.exist', ['publicationId', 'answers', 'extra']);
    expect(await countRows(ctx, cred.tenant, formEntries, eq(formEntries.caseId, caseId))).toBe(before);
    // The valid forms of the same types pass.
    const ok = await createEntry(cred, {
      caseId,
      publicationId,
      answers: {
        reason: 'ok',
        dependants: '-1.25',
        monthlyIncome: '0',
        hardshipStart: '2199-12-31',
        consentGiven: false,
        resolution: 'REFERRED',
      },
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(ok.body.answers).toMatchObject({
      dependants: '-1.25',
      monthlyIncome: '0.00',
      consentGiven: false,
    });
  });

  it('refuses another case type’s publication (409), unknown references (404) and a closed case (409)', async () => {
    const { code, caseId, publicationId } = await typedCase();
    const { publicationId: foreignPublication } = await typedCase();
    const mismatch = await createEntry(cred, {
      caseId,
      publicationId: foreignPublication,
      answers: { reason: 'r' },
    });
    expectShapeA(mismatch, 409, 'error.msg.form.entry.case.type.mismatch', ['publicationId']);
    expectShapeA(
      await createEntry(cred, { caseId, publicationId: 999_999_999, answers: { reason: 'r' } }),
      404,
      'error.msg.resource.not.found',
      ['publicationId'],
    );
    expectShapeA(
      await createEntry(cred, { caseId: 999_999_999, publicationId, answers: { reason: 'r' } }),
      404,
      'error.msg.resource.not.found',
      ['caseId'],
    );
    const closedCase = await openCase(ctx, cred, { caseTypeCode: code });
    await answerAndClose(closedCase, publicationId);
    expectShapeA(
      await createEntry(cred, { caseId: closedCase, publicationId, answers: { reason: 'r' } }),
      409,
      'error.msg.case.invalid.state.transition',
      ['caseId'],
    );
  });

  it('changes answers with PATCH: SET and CLEAR items with before/after, reason and actor; no-op writes nothing', async () => {
    const { caseId, publicationId } = await typedCase();
    const created = await createEntry(cred, {
      caseId,
      publicationId,
      answers: { reason: 'Initial', dependants: '1', consentGiven: false },
    });
    const entryId = created.body.entryId as number;
    const path = `/v1/form-entries/${entryId}`;
    const patch = await call(
      ctx,
      cred,
      'PATCH',
      path,
      {
        answers: { dependants: '2', consentGiven: null, resolution: 'RESOLVED', monthlyIncome: null },
        reason: 'Customer called back',
      },
      { 'service-actor': 'agent-9' },
    );
    expect(patch.status, JSON.stringify(patch.body)).toBe(200);
    const changes = [
      { fieldKey: 'dependants', operation: 'SET', before: '1', after: '2' },
      { fieldKey: 'consentGiven', operation: 'CLEAR', before: false, after: null },
      { fieldKey: 'resolution', operation: 'SET', before: null, after: 'RESOLVED' },
    ];
    expect(patch.body).toEqual({
      ...created.body,
      answers: { reason: 'Initial', dependants: '2', resolution: 'RESOLVED' },
      updatedAt: expect.stringMatching(isoInstant),
      changes,
    });
    const second = await call(ctx, cred, 'PATCH', path, { answers: { reason: 'Revised' }, reason: 'Typo' });
    expect(second.body.changes).toEqual([
      { fieldKey: 'reason', operation: 'SET', before: 'Initial', after: 'Revised' },
    ]);
    const noop = await call(ctx, cred, 'PATCH', path, {
      answers: { reason: 'Revised', consentGiven: null },
      reason: 'Same',
    });
    expect(noop.status).toBe(200);
    expect(noop.body.changes).toEqual([]);
    const history = await call(ctx, cred, 'GET', `${path}/history`);
    expect(history.body.items).toHaveLength(3);
    expect(history.body.items[1]).toEqual({
      action: 'ANSWERS_UPDATED',
      publicationId,
      changes,
      reason: 'Customer called back',
      actorDisplayName: 'agent-9',
      occurredAt: expect.stringMatching(isoInstant),
    });
    expect(history.body.items[2]).toMatchObject({
      action: 'ANSWERS_UPDATED',
      changes: [{ fieldKey: 'reason', operation: 'SET', before: 'Initial', after: 'Revised' }],
      reason: 'Typo',
      actorDisplayName: null,
    });
    const effects = await call(ctx, cred, 'GET', `/v1/servicing/cases/${caseId}/effects`);
    const updates = effects.body.items.filter(
      (e: { effectType: string }) => e.effectType === 'FORM_ENTRY_UPDATED',
    );
    expect(updates.map((e: { detail: { changedFieldKeys: string[] } }) => e.detail.changedFieldKeys)).toEqual(
      [['dependants', 'consentGiven', 'resolution'], ['reason']],
    );
    expect((await call(ctx, cred, 'GET', path)).body.answers).toEqual({
      reason: 'Revised',
      dependants: '2',
      resolution: 'RESOLVED',
    });
  });

  it('refuses a bad PATCH with 400 and changes nothing; a retried PATCH with its key replays once', async () => {
    const { caseId, publicationId } = await typedCase();
    const created = await createEntry(cred, { caseId, publicationId, answers: { reason: 'Initial' } });
    const path = `/v1/form-entries/${created.body.entryId}`;
    const bad = await call(ctx, cred, 'PATCH', path, {
      answers: { reason: null, dependants: 'many', nope: 1 },
      reason: 'x',
    });
    expectShapeA(bad, 400, 'validation.msg.validation.errors.exist', [
      'answers.reason',
      'answers.dependants',
      'answers.nope',
    ]);
    expectShapeA(
      await call(ctx, cred, 'PATCH', path, { answers: {}, reason: 'x' }),
      400,
      'validation.msg.validation.errors.exist',
      ['answers'],
    );
    expectShapeA(
      await call(ctx, cred, 'PATCH', path, { answers: { dependants: '1' } }),
      400,
      'validation.msg.validation.errors.exist',
      ['reason'],
    );
    expect((await call(ctx, cred, 'GET', path)).body.answers).toEqual({ reason: 'Initial' });
    const key = newKey();
    const body = { answers: { dependants: '4' }, reason: 'Count' };
    const first = await call(ctx, cred, 'PATCH', path, body, { 'idempotency-key': key });
    const replay = await call(ctx, cred, 'PATCH', path, body, { 'idempotency-key': key });
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(first.body);
    expect(replay.headers.get('x-served-from-cache')).toBe('true');
    expect(
      await countRows(
        ctx,
        cred.tenant,
        formEntryHistory,
        and(
          eq(formEntryHistory.entryId, created.body.entryId),
          eq(formEntryHistory.action, 'ANSWERS_UPDATED'),
        ),
      ),
    ).toBe(1);
    expectShapeA(
      await call(ctx, cred, 'PATCH', '/v1/form-entries/999999999', body),
      404,
      'error.msg.resource.not.found',
    );
  });

  it('pages a case’s entries newest first and echoes limit and offset; the case must be the tenant’s', async () => {
    const { caseId, publicationId } = await typedCase();
    const ids: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      ids.push(
        (await createEntry(cred, { caseId, publicationId, answers: { reason: `r${i}` } })).body.entryId,
      );
    }
    const page = await call(ctx, cred, 'GET', `/v1/form-entries?caseId=${caseId}&limit=2&offset=0`);
    expect(page.body).toMatchObject({ limit: 2, offset: 0, hasMore: true });
    expect(page.body.items.map((e: { entryId: number }) => e.entryId)).toEqual([ids[2], ids[1]]);
    const next = await call(ctx, cred, 'GET', `/v1/form-entries?caseId=${caseId}&limit=2&offset=2`);
    expect(next.body).toMatchObject({ limit: 2, offset: 2, hasMore: false });
    expect(next.body.items.map((e: { entryId: number }) => e.entryId)).toEqual([ids[0]]);
    expectShapeA(
      await call(ctx, cred, 'GET', '/v1/form-entries'),
      400,
      'validation.msg.validation.errors.exist',
      ['caseId'],
    );
    expectShapeA(
      await call(ctx, cred, 'GET', `/v1/form-entries?caseId=${caseId}&limit=201`),
      400,
      'validation.msg.validation.errors.exist',
      ['limit'],
    );
    expectShapeA(
      await call(ctx, other, 'GET', `/v1/form-entries?caseId=${caseId}`),
      404,
      'error.msg.resource.not.found',
    );
  });

  it('keeps entries to their tenant: another tenant gets 404 on every route', async () => {
    const { caseId, publicationId } = await typedCase();
    const created = await createEntry(cred, { caseId, publicationId, answers: { reason: 'Mine' } });
    const path = `/v1/form-entries/${created.body.entryId}`;
    expectShapeA(await call(ctx, other, 'GET', path), 404, 'error.msg.resource.not.found');
    expectShapeA(await call(ctx, other, 'GET', `${path}/history`), 404, 'error.msg.resource.not.found');
    expectShapeA(
      await call(ctx, other, 'PATCH', path, { answers: { reason: 'Theirs' }, reason: 'x' }),
      404,
      'error.msg.resource.not.found',
    );
    const theirCase = await openCase(ctx, other);
    expectShapeA(
      await createEntry(other, { caseId: theirCase, publicationId, answers: { reason: 'x' } }),
      404,
      'error.msg.resource.not.found',
      ['publicationId'],
    );
    expectShapeA(
      await createEntry(other, { caseId, publicationId, answers: { reason: 'x' } }),
      404,
      'error.msg.resource.not.found',
      ['caseId'],
    );
    expect((await call(ctx, cred, 'GET', path)).body.answers).toEqual({ reason: 'Mine' });
  });
});

/** Answers the ON_CLOSE field of a new entry on `caseId` and closes the case. */
async function answerAndClose(caseId: number, publicationId: number): Promise<void> {
  const entry = await createEntry(cred, {
    caseId,
    publicationId,
    answers: { reason: 'r', resolution: 'RESOLVED' },
  });
  expect(entry.status, JSON.stringify(entry.body)).toBe(201);
  const close = await call(ctx, cred, 'POST', `/v1/servicing/cases/${caseId}/close`, {
    outcomeCode: 'RESOLVED',
    closureReason: 'Done',
  });
  expect(close.status, JSON.stringify(close.body)).toBe(200);
}

describe('ON_CLOSE answers', () => {
  const close = (caseId: number) =>
    call(ctx, cred, 'POST', `/v1/servicing/cases/${caseId}/close`, {
      outcomeCode: 'RESOLVED',
      closureReason: 'Done',
    });

  it('refuses to close a case whose entry lacks an ON_CLOSE answer (409 naming it), then closes once answered', async () => {
    const { caseId, publicationId } = await typedCase();
    const entry = await createEntry(cred, { caseId, publicationId, answers: { reason: 'r' } });
    const refused = await close(caseId);
    const err = expectShapeA(refused, 409, 'error.msg.case.close.required.answers.missing', [
      'answers.resolution',
    ]);
    expect(err.developerMessage).toContain('resolution');
    expect(err.developerMessage).toContain(String(entry.body.entryId));
    expect((await call(ctx, cred, 'GET', `/v1/servicing/cases/${caseId}`)).body.status).toBe('OPEN');
    const patched = await call(ctx, cred, 'PATCH', `/v1/form-entries/${entry.body.entryId}`, {
      answers: { resolution: 'REFERRED' },
      reason: 'Decided',
    });
    expect(patched.status).toBe(200);
    const closed = await close(caseId);
    expect(closed.status, JSON.stringify(closed.body)).toBe(200);
    expect(closed.body.changes.status).toBe('CLOSED');
    // A closed case's entries are read-only.
    expectShapeA(
      await call(ctx, cred, 'PATCH', `/v1/form-entries/${entry.body.entryId}`, {
        answers: { dependants: '1' },
        reason: 'Late',
      }),
      409,
      'error.msg.case.invalid.state.transition',
      ['caseId'],
    );
  });

  it('checks a case without entries against its type’s latest publication; types without ON_CLOSE fields close freely', async () => {
    const { caseId } = await typedCase();
    expectShapeA(await close(caseId), 409, 'error.msg.case.close.required.answers.missing', [
      'answers.resolution',
    ]);
    const plain = await createType(cred);
    await publish(cred, plain, {
      sections: [
        {
          key: 's',
          label: 'S',
          fields: [{ key: 'note', label: 'Note', type: 'TEXT', requiredAt: 'OPTIONAL' }],
        },
      ],
    });
    const plainCase = await openCase(ctx, cred, { caseTypeCode: plain });
    expect((await close(plainCase)).status).toBe(200);
    const unpublishedCase = await openCase(ctx, cred, { caseTypeCode: await createType(cred) });
    expect((await close(unpublishedCase)).status).toBe(200);
  });

  it('checks the entry of the newest publication the case answered', async () => {
    const { code, caseId, publicationId } = await typedCase();
    await createEntry(cred, { caseId, publicationId, answers: { reason: 'old', resolution: 'RESOLVED' } });
    const v2 = await publish(cred, code, {
      sections: [
        {
          key: 's',
          label: 'S',
          fields: [{ key: 'signedOff', label: 'Signed off', type: 'BOOLEAN', requiredAt: 'ON_CLOSE' }],
        },
      ],
    });
    // The case answered v1 fully; v2 is not answered by the case, so v1's entry governs.
    expect((await close(caseId)).status).toBe(200);
    const next = await openCase(ctx, cred, { caseTypeCode: code });
    await createEntry(cred, {
      caseId: next,
      publicationId,
      answers: { reason: 'old', resolution: 'RESOLVED' },
    });
    const newer = await createEntry(cred, { caseId: next, publicationId: v2.publicationId, answers: {} });
    expect(newer.status).toBe(201);
    expectShapeA(await close(next), 409, 'error.msg.case.close.required.answers.missing', [
      'answers.signedOff',
    ]);
  });
});

describe('permissions', () => {
  it('refuses each operation without its permission (403) and the writes with a read-only scope', async () => {
    const tenant = uniqueTenant('forms-perm');
    const writer = await credentialFor(ctx, tenant);
    const { caseId, publicationId, code } = await typedCase(writer);
    const entry = await createEntry(writer, { caseId, publicationId, answers: { reason: 'r' } });
    const none = await credentialFor(ctx, tenant, { permissions: ['READ_SERVICINGCASE'] });
    const checks: [string, string, unknown, string][] = [
      ['GET', '/v1/servicing/admin/case-types', undefined, 'READ_CASETYPE'],
      [
        'POST',
        '/v1/servicing/admin/case-types',
        { caseTypeCode: 'X_TYPE', displayName: 'X' },
        'CREATE_CASETYPE',
      ],
      ['GET', `/v1/servicing/admin/case-types/${code}/field-definitions`, undefined, 'READ_CASETYPE'],
      [
        'PUT',
        `/v1/servicing/admin/case-types/${code}/field-definitions`,
        { fieldDefinitions: sampleDefinitions() },
        'PUBLISH_CASETYPEFIELDS',
      ],
      ['POST', '/v1/form-entries', { caseId, publicationId, answers: { reason: 'r' } }, 'CREATE_FORMENTRY'],
      ['GET', `/v1/form-entries?caseId=${caseId}`, undefined, 'READ_FORMENTRY'],
      ['GET', `/v1/form-entries/${entry.body.entryId}`, undefined, 'READ_FORMENTRY'],
      [
        'PATCH',
        `/v1/form-entries/${entry.body.entryId}`,
        { answers: { reason: 'x' }, reason: 'x' },
        'UPDATE_FORMENTRY',
      ],
      ['GET', `/v1/form-entries/${entry.body.entryId}/history`, undefined, 'READ_FORMENTRY'],
    ];
    for (const [method, path, body, permission] of checks) {
      const res = await call(ctx, none, method, path, body);
      expect(
        expectShapeA(res, 403, 'error.msg.not.authorized').developerMessage,
        `${method} ${path}`,
      ).toContain(permission);
    }
    const reader = await credentialFor(ctx, tenant, {
      scopes: ['servicing:read'],
      permissions: ['READ_FORMENTRY', 'UPDATE_FORMENTRY', 'READ_CASETYPE'],
    });
    expectShapeA(
      await call(ctx, reader, 'PATCH', `/v1/form-entries/${entry.body.entryId}`, {
        answers: { reason: 'x' },
        reason: 'x',
      }),
      403,
      'error.msg.not.authorized',
    );
    expect((await call(ctx, reader, 'GET', `/v1/form-entries/${entry.body.entryId}/history`)).status).toBe(
      200,
    );
    expect(
      (await call(ctx, reader, 'GET', `/v1/servicing/admin/case-types/${code}/field-definitions`)).status,
    ).toBe(200);
  });
});
