/**
 * Hardship policy administration through the app, on the real database (docs/servicing.md "Hardship policies", OpenAPI `GET /v1/servicing/admin/hardship-policies`, docs/design.md §4 "Scopes and permissions"; docs/processes.md P5
 * first bullet): guardrails versions, programs with versions and retirement, the exact overview, each guardrail
 * refusal naming its guardrail, `portfolioValid` after a stricter guardrails version, 404/409, cross-tenant
 * isolation, 403 without the permission or scope, idempotent replay, and the append-only versions.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getHardshipPolicyOverview, portfolioValidOf } from '../../db/queries/hardship/hardship-policies';
import { hardshipGuardrailVersions, hardshipPrograms, hardshipProgramVersions } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { addDays } from '../../domain/calendar';
import { defaultComplianceTimeZone } from '../../domain/deadlines';
import { localDate } from '../../domain/time-zone';
import {
  type Credential,
  call,
  createTestContext,
  credentialFor,
  type TestContext,
  uniqueTenant,
} from '../support/context';
import { countRows, expectShapeA, type Json, newKey } from './helpers';

const policies = '/v1/servicing/admin/hardship-policies';
const programs = '/v1/servicing/admin/hardship-programs';
const violation = 'error.msg.hardship.program.guardrail.violation';
/** Today and the next days in Los Angeles (the default compliance time zone of a tenant). */
const dayAt = (offsetDays: number) =>
  localDate(Date.now() + offsetDays * 86_400_000, defaultComplianceTimeZone);
const today = dayAt(0);
const tomorrow = addDays(today, 1);
const later = addDays(today, 15);

let ctx: TestContext;
let n = 0;

beforeAll(async () => {
  ctx = await createTestContext({ worker: false });
});
afterAll(async () => ctx?.close());

/** A fresh tenant with a credential holding every permission of the servicing scopes. */
function admin(prefix = 'hardship'): Promise<Credential> {
  return credentialFor(ctx, uniqueTenant(prefix));
}

/** A program code from letters and a counter (no digit runs: domain/sensitive-data.ts). */
function newCode(): string {
  return `JOB_LOSS_${Date.now().toString(36).toUpperCase()}_${(n++).toString(36).toUpperCase()}`;
}

function guardrailsBody(over: Json = {}): Json {
  return {
    minimumLoanAgeInstallments: 3,
    maximumActiveHardshipCasesPerLoan: 1,
    requireVerifiedContactForOffer: true,
    requireWorkflowConfirmedEvidence: true,
    prohibitPrincipalForgiveness: true,
    prohibitRateChange: false,
    specialistConditions: [
      'BANKRUPTCY',
      'LITIGATION',
      'FRAUD_INVESTIGATION',
      'DECEASED',
      'LEGAL_HOLD',
      'RECOVERY_PLACEMENT',
    ],
    offerValidityHoursMaximum: 72,
    documentDeadlineHoursMaximum: 240,
    maximumDeferredPayments: 3,
    reevaluateOnMaterialLoanDrift: true,
    ...over,
  };
}

function summaryBody(over: Json = {}): Json {
  return {
    reliefType: 'PAYMENT_DEFERRAL',
    straightThroughMaximum: 1,
    humanApprovalMaximum: 3,
    humanApprovalPermission: 'APPROVE_LOAN',
    requiredEvidenceCode: 'HARDSHIP_STATEMENT',
    offerValidityHours: 72,
    scope: {
      productClasses: ['CONSUMER_INSTALLMENT'],
      jurisdictions: ['US-CA', 'US'],
      currencies: ['USD'],
      repaymentFrequencies: ['MONTHLY'],
      requiredNativeCapability: 'SCHEDULE_RESHAPE',
    },
    workflow: { caseType: 'HARDSHIP', workflowKey: 'hardship-offer' },
    ...over,
  };
}

function programBody(programCode: string, over: Json = {}): Json {
  return {
    programCode,
    displayName: 'Job loss deferral',
    hardshipReasonCode: 'JOB_LOSS',
    description: 'Up to three installments moved to the end of the term after a job loss.',
    effectiveFrom: today,
    summary: summaryBody(),
    ...over,
  };
}

async function setGuardrails(cred: Credential, over: Json = {}): Promise<Json> {
  const res = await call(ctx, cred, 'PUT', `${policies}/guardrails`, guardrailsBody(over));
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

async function createProgram(cred: Credential, code: string, over: Json = {}): Promise<Json> {
  const res = await call(ctx, cred, 'POST', programs, programBody(code, over));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function overview(cred: Credential): Promise<Json> {
  const res = await call(ctx, cred, 'GET', policies);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** The program as the overview and the program writes show it. */
function expectedProgram(code: string, over: Json = {}, summaryOver: Json = {}): Json {
  return {
    programCode: code,
    displayName: 'Job loss deferral',
    hardshipReasonCode: 'JOB_LOSS',
    description: 'Up to three installments moved to the end of the term after a job loss.',
    state: 'ACTIVE',
    activeVersion: 1,
    effectiveFrom: today,
    effectiveTo: null,
    versionCount: 1,
    summary: { ...summaryBody(summaryOver), ruleCount: 8 },
    ...over,
  };
}

describe('hardship guardrails', () => {
  it('answers 404 before the first guardrails, then versions 1, 2 with activatedAt', async () => {
    const cred = await admin();
    expectShapeA(await call(ctx, cred, 'GET', policies), 404, 'error.msg.resource.not.found');
    const first = await setGuardrails(cred);
    expect(first).toEqual({
      version: 1,
      activatedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      guardrails: { guardrailVersion: 1, ...guardrailsBody() },
    });
    expect(Object.keys(first.guardrails)).toEqual([
      'guardrailVersion',
      'minimumLoanAgeInstallments',
      'maximumActiveHardshipCasesPerLoan',
      'requireVerifiedContactForOffer',
      'requireWorkflowConfirmedEvidence',
      'prohibitPrincipalForgiveness',
      'prohibitRateChange',
      'specialistConditions',
      'offerValidityHoursMaximum',
      'documentDeadlineHoursMaximum',
      'maximumDeferredPayments',
      'reevaluateOnMaterialLoanDrift',
    ]);
    const second = await setGuardrails(cred, {
      offerValidityHoursMaximum: 48,
      specialistConditions: ['LEGAL_HOLD'],
    });
    expect(second).toMatchObject({
      version: 2,
      guardrails: { guardrailVersion: 2, offerValidityHoursMaximum: 48 },
    });
    expect(await overview(cred)).toEqual({ commonGuardrails: second, programs: [], portfolioValid: true });
    expect(await countRows(ctx, cred.tenant, hardshipGuardrailVersions)).toBe(2);
  });

  it('numbers concurrent guardrails versions 1..n without gaps or duplicates', async () => {
    const cred = await admin();
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        call(ctx, cred, 'PUT', `${policies}/guardrails`, guardrailsBody({ maximumDeferredPayments: i + 1 })),
      ),
    );
    for (const res of results) expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(results.map((r) => r.body.version).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5]);
    const latest = results.find((r) => r.body.version === 5)?.body;
    expect((await overview(cred)).commonGuardrails).toEqual(latest);
  });

  it('refuses bad guardrails with 400 naming the field, storing nothing', async () => {
    const cred = await admin();
    const put = (body: Json) => call(ctx, cred, 'PUT', `${policies}/guardrails`, body);
    expectShapeA(
      await put(guardrailsBody({ specialistConditions: ['ABDUCTION'] })),
      400,
      'validation.msg.validation.errors.exist',
      ['specialistConditions[0]'],
    );
    expectShapeA(
      await put(guardrailsBody({ offerValidityHoursMaximum: 1.5 })),
      400,
      'validation.msg.validation.errors.exist',
      ['offerValidityHoursMaximum'],
    );
    expectShapeA(
      await put(guardrailsBody({ maximumDeferredPayments: -1 })),
      400,
      'validation.msg.validation.errors.exist',
      ['maximumDeferredPayments'],
    );
    const { reevaluateOnMaterialLoanDrift: _, ...missing } = guardrailsBody();
    expectShapeA(await put(missing), 400, 'validation.msg.validation.errors.exist', [
      'reevaluateOnMaterialLoanDrift',
    ]);
    expectShapeA(
      await put(guardrailsBody({ guardrailVersion: 7 })),
      400,
      'validation.msg.validation.errors.exist',
      ['guardrailVersion'],
    );
    expect(await countRows(ctx, cred.tenant, hardshipGuardrailVersions)).toBe(0);
  });

  it('keeps guardrails versions append-only in the database', async () => {
    const cred = await admin();
    await setGuardrails(cred);
    const failure = (statement: ReturnType<typeof sql>) =>
      withTenantTransaction(ctx.db, cred.tenant, (tx) => tx.execute(statement)).then(
        () => null,
        (err: { code?: string; cause?: { code?: string } }) => err.cause?.code ?? err.code,
      );
    expect(await failure(sql`update hardship_guardrail_versions set version = 9`)).toBe('42501');
    expect(await failure(sql`delete from hardship_guardrail_versions`)).toBe('42501');
    expect(await failure(sql`update hardship_program_versions set terms = '{}'::jsonb`)).toBe('42501');
  });
});

describe('hardship programs', () => {
  it('creates a program and shows it in exactly the spec overview shape', async () => {
    const cred = await admin();
    const guardrails = await setGuardrails(cred);
    const code = newCode();
    const created = await createProgram(cred, code);
    expect(created).toEqual(expectedProgram(code));
    const read = await overview(cred);
    expect(read).toEqual({
      commonGuardrails: guardrails,
      programs: [expectedProgram(code)],
      portfolioValid: true,
    });
    expect(Object.keys(read)).toEqual(['commonGuardrails', 'programs', 'portfolioValid']);
    expect(Object.keys(read.commonGuardrails)).toEqual(['version', 'activatedAt', 'guardrails']);
    expect(Object.keys(read.programs[0])).toEqual([
      'programCode',
      'displayName',
      'hardshipReasonCode',
      'description',
      'state',
      'activeVersion',
      'effectiveFrom',
      'effectiveTo',
      'versionCount',
      'summary',
    ]);
    expect(Object.keys(read.programs[0].summary)).toEqual([
      'reliefType',
      'straightThroughMaximum',
      'humanApprovalMaximum',
      'humanApprovalPermission',
      'requiredEvidenceCode',
      'offerValidityHours',
      'ruleCount',
      'scope',
      'workflow',
    ]);
    expect(Object.keys(read.programs[0].summary.scope)).toEqual([
      'productClasses',
      'jurisdictions',
      'currencies',
      'repaymentFrequencies',
      'requiredNativeCapability',
    ]);
    expect(Object.keys(read.programs[0].summary.workflow)).toEqual(['caseType', 'workflowKey']);
  });

  it('refuses a duplicate programCode with 409 and a program before any guardrails with 409', async () => {
    const cred = await admin();
    expectShapeA(
      await call(ctx, cred, 'POST', programs, programBody(newCode())),
      409,
      'error.msg.hardship.guardrails.missing',
    );
    await setGuardrails(cred);
    const code = newCode();
    await createProgram(cred, code);
    expectShapeA(
      await call(ctx, cred, 'POST', programs, programBody(code, { displayName: 'Again' })),
      409,
      'error.msg.hardship.program.duplicate',
      ['programCode'],
    );
    expect(await countRows(ctx, cred.tenant, hardshipPrograms)).toBe(1);
  });

  it('refuses a requiredNativeCapability the engine does not support with 400 naming the supported ones (a program requiring one could make no offer), storing nothing', async () => {
    const cred = await admin();
    await setGuardrails(cred);
    const scope = { ...(summaryBody().scope as Json), requiredNativeCapability: 'TELEPATHY' };
    const refused = expectShapeA(
      await call(ctx, cred, 'POST', programs, programBody(newCode(), { summary: summaryBody({ scope }) })),
      400,
      'validation.msg.validation.errors.exist',
      ['summary.scope.requiredNativeCapability'],
    );
    expect(refused.errors[0]?.developerMessage).toContain('SCHEDULE_RESHAPE');
    expect(await countRows(ctx, cred.tenant, hardshipPrograms)).toBe(0);
    // A new version is held to the same rule.
    const code = newCode();
    await createProgram(cred, code);
    expectShapeA(
      await call(ctx, cred, 'POST', `${programs}/${code}/versions`, {
        effectiveFrom: today,
        summary: summaryBody({ scope }),
      }),
      400,
      'validation.msg.validation.errors.exist',
      ['summary.scope.requiredNativeCapability'],
    );
    expect(await countRows(ctx, cred.tenant, hardshipProgramVersions)).toBe(1);
    // The document names the supported values on the program routes' bodies.
    const doc = JSON.stringify((await call(ctx, cred, 'GET', '/v1/openapi.json')).body);
    const documented = [...doc.matchAll(/"requiredNativeCapability":\{"enum":\[([^\]]*)\]/g)].map(
      (m) => m[1],
    );
    expect(documented.length).toBeGreaterThanOrEqual(2);
    for (const values of documented) expect(values).toBe('"SCHEDULE_RESHAPE"');
  });

  it('portfolioValid is false while an ACTIVE program requires a capability the engine lacks (stored before the rule)', async () => {
    const cred = await admin();
    await setGuardrails(cred);
    await createProgram(cred, newCode());
    const read = await overview(cred);
    expect(read.portfolioValid).toBe(true);
    const guardrails = {
      ...read.commonGuardrails,
      specialistConditions: read.commonGuardrails.specialistConditions,
    };
    const [program] = read.programs;
    const lacking = {
      ...program,
      summary: {
        ...program.summary,
        scope: { ...program.summary.scope, requiredNativeCapability: 'TELEPATHY' },
      },
    };
    expect(portfolioValidOf(guardrails, [program])).toBe(true);
    expect(portfolioValidOf(guardrails, [lacking])).toBe(false);
    expect(portfolioValidOf(guardrails, [{ ...lacking, state: 'RETIRED' }])).toBe(true);
  });

  it('refuses each guardrail breach with 409 naming the guardrail, storing nothing', async () => {
    const cred = await admin();
    await setGuardrails(cred, { prohibitRateChange: true });
    const refused = async (summary: Json, parameterName: string, guardrail: string) => {
      const body = expectShapeA(
        await call(ctx, cred, 'POST', programs, programBody(newCode(), { summary: summaryBody(summary) })),
        409,
        violation,
        [parameterName],
      );
      expect(body.errors[0]).toMatchObject({
        userMessageGlobalisationCode: `${violation}.${guardrail}`,
        args: [{ guardrail, guardrailVersion: 1 }],
      });
      expect(body.errors[0]?.developerMessage).toContain(guardrail);
    };
    await refused({ offerValidityHours: 73 }, 'summary.offerValidityHours', 'offerValidityHoursMaximum');
    await refused({ humanApprovalMaximum: 4 }, 'summary.humanApprovalMaximum', 'maximumDeferredPayments');
    await refused(
      { reliefType: 'FORBEARANCE', humanApprovalMaximum: 6 },
      'summary.humanApprovalMaximum',
      'maximumDeferredPayments',
    );
    await refused(
      { reliefType: 'PRINCIPAL_FORGIVENESS', humanApprovalMaximum: 500 },
      'summary.reliefType',
      'prohibitPrincipalForgiveness',
    );
    await refused(
      { reliefType: 'RATE_REDUCTION', humanApprovalMaximum: 200 },
      'summary.reliefType',
      'prohibitRateChange',
    );
    // Two guardrails broken at once: both named.
    expectShapeA(
      await call(
        ctx,
        cred,
        'POST',
        programs,
        programBody(newCode(), {
          summary: summaryBody({ offerValidityHours: 100, humanApprovalMaximum: 9 }),
        }),
      ),
      409,
      violation,
      ['summary.offerValidityHours', 'summary.humanApprovalMaximum'],
    );
    // The terms' own rules: 400.
    expectShapeA(
      await call(
        ctx,
        cred,
        'POST',
        programs,
        programBody(newCode(), { summary: summaryBody({ straightThroughMaximum: 4 }) }),
      ),
      400,
      'validation.msg.validation.errors.exist',
      ['summary.straightThroughMaximum'],
    );
    expectShapeA(
      await call(
        ctx,
        cred,
        'POST',
        programs,
        programBody(newCode(), { summary: summaryBody({ humanApprovalPermission: 'APPROVE_EVERYTHING' }) }),
      ),
      400,
      'validation.msg.validation.errors.exist',
      ['summary.humanApprovalPermission'],
    );
    expectShapeA(
      await call(
        ctx,
        cred,
        'POST',
        programs,
        programBody(newCode(), { summary: summaryBody({ reliefType: 'AMNESTY' }) }),
      ),
      400,
      'validation.msg.validation.errors.exist',
      ['summary.reliefType'],
    );
    expectShapeA(
      await call(
        ctx,
        cred,
        'POST',
        programs,
        programBody(newCode(), {
          summary: summaryBody({ workflow: { caseType: 'NO_SUCH_TYPE', workflowKey: 'hardship-offer' } }),
        }),
      ),
      404,
      'error.msg.resource.not.found',
      ['summary.workflow.caseType'],
    );
    expect(await countRows(ctx, cred.tenant, hardshipPrograms)).toBe(0);
    expect(await countRows(ctx, cred.tenant, hardshipProgramVersions)).toBe(0);
    // A fee waiver of 500 currency units is no deferral: allowed.
    await createProgram(cred, newCode(), {
      summary: summaryBody({ reliefType: 'FEE_WAIVER', humanApprovalMaximum: 500 }),
    });
  });

  it('turns portfolioValid false after a stricter guardrails version, and true again after a compliant version', async () => {
    const cred = await admin();
    await setGuardrails(cred);
    const code = newCode();
    await createProgram(cred, code);
    expect((await overview(cred)).portfolioValid).toBe(true);
    const stricter = await setGuardrails(cred, { offerValidityHoursMaximum: 48 });
    expect(stricter.version).toBe(2);
    const read = await overview(cred);
    expect(read.commonGuardrails).toEqual(stricter);
    expect(read.portfolioValid).toBe(false);
    expect(read.programs).toEqual([expectedProgram(code)]);
    // The same terms are now refused as a new version, naming the guardrail.
    expectShapeA(
      await call(ctx, cred, 'POST', `${programs}/${code}/versions`, {
        effectiveFrom: today,
        summary: summaryBody(),
      }),
      400,
      'validation.msg.validation.errors.exist',
      ['effectiveFrom'],
    );
    expectShapeA(
      await call(ctx, cred, 'POST', `${programs}/${code}/versions`, {
        effectiveFrom: tomorrow,
        summary: summaryBody(),
      }),
      409,
      violation,
      ['summary.offerValidityHours'],
    );
    // A compliant version from tomorrow: today's version stays in effect, so still invalid.
    const v2 = await call(ctx, cred, 'POST', `${programs}/${code}/versions`, {
      effectiveFrom: tomorrow,
      summary: summaryBody({ offerValidityHours: 48 }),
    });
    expect(v2.status, JSON.stringify(v2.body)).toBe(201);
    expect(v2.body).toEqual(
      expectedProgram(
        code,
        { activeVersion: 2, effectiveFrom: tomorrow, versionCount: 2 },
        { offerValidityHours: 48 },
      ),
    );
    const before = await overview(cred);
    expect(before.programs).toEqual([expectedProgram(code, { effectiveTo: today, versionCount: 2 })]);
    expect(before.portfolioValid).toBe(false);
    // Tomorrow version 2 is in effect: valid.
    const after = await getHardshipPolicyOverview(ctx.db, cred.tenant, new Date(Date.now() + 86_400_000));
    expect(after?.programs).toEqual([
      expectedProgram(
        code,
        { activeVersion: 2, effectiveFrom: tomorrow, versionCount: 2 },
        { offerValidityHours: 48 },
      ),
    ]);
    expect(after?.portfolioValid).toBe(true);
  });

  it('retires a program: RETIRED, effectiveTo set, no more versions, no longer counted for portfolioValid', async () => {
    const cred = await admin();
    await setGuardrails(cred);
    const code = newCode();
    const other = newCode();
    await createProgram(cred, code);
    await createProgram(cred, other);
    await setGuardrails(cred, { maximumDeferredPayments: 2 });
    expect((await overview(cred)).portfolioValid).toBe(false);
    const retired = await call(ctx, cred, 'POST', `${programs}/${code}/retire`, {
      effectiveTo: later,
    });
    expect(retired.status, JSON.stringify(retired.body)).toBe(200);
    expect(retired.body).toEqual(expectedProgram(code, { state: 'RETIRED', effectiveTo: later }));
    expect((await overview(cred)).portfolioValid).toBe(false);
    // Without a body: effective today.
    const second = await call(ctx, cred, 'POST', `${programs}/${other}/retire`);
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect(second.body).toMatchObject({ state: 'RETIRED', effectiveTo: today });
    const read = await overview(cred);
    expect(read.portfolioValid).toBe(true);
    expect(read.programs.map((p: Json) => [p.programCode, p.state])).toEqual(
      [
        [code, 'RETIRED'],
        [other, 'RETIRED'],
      ].sort(),
    );
    expectShapeA(
      await call(ctx, cred, 'POST', `${programs}/${code}/retire`, {}),
      409,
      'error.msg.hardship.program.invalid.state.transition',
      ['programCode'],
    );
    expectShapeA(
      await call(ctx, cred, 'POST', `${programs}/${code}/versions`, {
        effectiveFrom: later,
        summary: summaryBody(),
      }),
      409,
      'error.msg.hardship.program.invalid.state.transition',
      ['programCode'],
    );
    expectShapeA(
      await call(ctx, cred, 'POST', `${programs}/${newCode()}/retire`, { effectiveTo: today }),
      404,
      'error.msg.resource.not.found',
    );
  });

  it('refuses a retirement date in the past with 400', async () => {
    const cred = await admin();
    await setGuardrails(cred);
    const code = newCode();
    await createProgram(cred, code);
    expectShapeA(
      await call(ctx, cred, 'POST', `${programs}/${code}/retire`, { effectiveTo: addDays(today, -1) }),
      400,
      'validation.msg.validation.errors.exist',
      ['effectiveTo'],
    );
    expect((await overview(cred)).programs[0].state).toBe('ACTIVE');
  });

  it('answers 404 for an unknown program and for another tenant, whose overview stays its own', async () => {
    const cred = await admin();
    const other = await admin('hardship-other');
    await setGuardrails(cred);
    await setGuardrails(other, { offerValidityHoursMaximum: 24 });
    const code = newCode();
    await createProgram(cred, code);
    expectShapeA(
      await call(ctx, cred, 'POST', `${programs}/${newCode()}/versions`, {
        effectiveFrom: later,
        summary: summaryBody(),
      }),
      404,
      'error.msg.resource.not.found',
    );
    expectShapeA(
      await call(ctx, other, 'POST', `${programs}/${code}/versions`, {
        effectiveFrom: later,
        summary: summaryBody({ offerValidityHours: 24 }),
      }),
      404,
      'error.msg.resource.not.found',
    );
    expectShapeA(
      await call(ctx, other, 'POST', `${programs}/${code}/retire`),
      404,
      'error.msg.resource.not.found',
    );
    const theirs = await overview(other);
    expect(theirs.programs).toEqual([]);
    expect(theirs.commonGuardrails.guardrails.offerValidityHoursMaximum).toBe(24);
    // The same code is free in the other tenant.
    await createProgram(other, code, { summary: summaryBody({ offerValidityHours: 24 }) });
    expect((await overview(cred)).programs).toEqual([expectedProgram(code)]);
  });

  it('answers 403 without the permission or the scope', async () => {
    const tenant = uniqueTenant('hardship-auth');
    const cred = await credentialFor(ctx, tenant);
    await setGuardrails(cred);
    const code = newCode();
    await createProgram(cred, code);
    const reader = await credentialFor(ctx, tenant, { permissions: ['READ_HARDSHIPPOLICY'] });
    expect((await call(ctx, reader, 'GET', policies)).status).toBe(200);
    for (const [method, path, body] of [
      ['PUT', `${policies}/guardrails`, guardrailsBody()],
      ['POST', programs, programBody(newCode())],
      ['POST', `${programs}/${code}/versions`, { effectiveFrom: later, summary: summaryBody() }],
      ['POST', `${programs}/${code}/retire`, {}],
    ] as const) {
      expectShapeA(await call(ctx, reader, method, path, body), 403, 'error.msg.not.authorized');
    }
    const manager = await credentialFor(ctx, tenant, { permissions: ['MANAGE_HARDSHIPPOLICY'] });
    expectShapeA(await call(ctx, manager, 'GET', policies), 403, 'error.msg.not.authorized');
    const readScopeOnly = await credentialFor(ctx, tenant, { scopes: ['servicing:read'] });
    expectShapeA(
      await call(ctx, readScopeOnly, 'PUT', `${policies}/guardrails`, guardrailsBody()),
      403,
      'error.msg.not.authorized',
    );
    const lendingOnly = await credentialFor(ctx, tenant, { scopes: ['lending:read', 'lending:write'] });
    expectShapeA(await call(ctx, lendingOnly, 'GET', policies), 403, 'error.msg.not.authorized');
    expect(await countRows(ctx, tenant, hardshipGuardrailVersions)).toBe(1);
    expect(await countRows(ctx, tenant, hardshipPrograms)).toBe(1);
  });

  it('replays a write with the same Idempotency-Key (x-served-from-cache), storing it once; another payload → 422', async () => {
    const cred = await admin();
    const key = newKey('guardrails');
    const first = await call(ctx, cred, 'PUT', `${policies}/guardrails`, guardrailsBody(), {
      'idempotency-key': key,
    });
    expect(first.status).toBe(200);
    const again = await call(ctx, cred, 'PUT', `${policies}/guardrails`, guardrailsBody(), {
      'idempotency-key': key,
    });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('x-served-from-cache')).toBe('true');
    expect(await countRows(ctx, cred.tenant, hardshipGuardrailVersions)).toBe(1);
    expectShapeA(
      await call(ctx, cred, 'PUT', `${policies}/guardrails`, guardrailsBody({ maximumDeferredPayments: 1 }), {
        'idempotency-key': key,
      }),
      422,
      'idempotency.key.payload.mismatch',
    );

    const code = newCode();
    const programKey = newKey('program');
    const created = await call(ctx, cred, 'POST', programs, programBody(code), {
      'idempotency-key': programKey,
    });
    expect(created.status).toBe(201);
    const replayed = await call(ctx, cred, 'POST', programs, programBody(code), {
      'idempotency-key': programKey,
    });
    expect(replayed.status).toBe(201);
    expect(replayed.body).toEqual(created.body);
    expect(replayed.headers.get('x-served-from-cache')).toBe('true');
    const versionKey = newKey('version');
    const versionBody = { effectiveFrom: later, summary: summaryBody({ offerValidityHours: 24 }) };
    const v2 = await call(ctx, cred, 'POST', `${programs}/${code}/versions`, versionBody, {
      'idempotency-key': versionKey,
    });
    const v2again = await call(ctx, cred, 'POST', `${programs}/${code}/versions`, versionBody, {
      'idempotency-key': versionKey,
    });
    expect(v2.status).toBe(201);
    expect(v2again.body).toEqual(v2.body);
    expect(v2again.headers.get('x-served-from-cache')).toBe('true');
    expect(await countRows(ctx, cred.tenant, hardshipPrograms)).toBe(1);
    expect(await countRows(ctx, cred.tenant, hardshipProgramVersions)).toBe(2);
    // The operation itself is idempotent by its request key too (a retry after a lost answer).
    const retry = {
      tenantId: cred.tenant,
      requestKey: `${cred.clientId}/retry`,
      guardrails: guardrailsBody(),
    };
    const once = await ctx.activities.setHardshipGuardrails(retry);
    expect(await ctx.activities.setHardshipGuardrails(retry)).toEqual(once);
    expect(once.version).toBe(2);
    expect(await countRows(ctx, cred.tenant, hardshipGuardrailVersions)).toBe(2);
  });
});
