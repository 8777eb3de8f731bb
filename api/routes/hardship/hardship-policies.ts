/**
 * Hardship policy administration (docs/servicing.md "Hardship policies", OpenAPI `GET /v1/servicing/admin/hardship-policies`, docs/design.md §4 "Scopes and permissions"; docs/processes.md P5 first bullet).
 Mounted at `/v1/servicing/admin/hardship-policies`: the overview and the guardrails (the programs are in
 * api/routes/hardship/hardship-programs.ts). Writes need scope `servicing:write` and permission
 * `MANAGE_HARDSHIPPOLICY`, the read `servicing:read` and `READ_HARDSHIPPOLICY`.
 */
import { getHardshipPolicyOverview } from '../../../db/queries/hardship/hardship-policies';
import { DomainError } from '../../../domain/errors';
import {
  commonGuardrailsResponse,
  hardshipGuardrailsBody,
  hardshipPolicyOverviewResponse,
} from '../../../domain/hardship/schemas/hardship-policies';
import { factory } from '../../env';
import { requires } from '../../middleware/auth';
import { idempotent } from '../../middleware/idempotency';
import { doc } from '../../openapi';
import { jsonBody, noQuery } from '../../validation';
import { operationContext } from '../context';

const tags = ['Servicing: hardship policies'];

export const hardshipPolicyRoutes = factory
  .createApp()
  /**
   * The spec's overview → 200 `{commonGuardrails: {version, activatedAt, guardrails}, programs, portfolioValid}`;
   * each program shows the version in effect today (tenant time zone). 404 before the tenant's first guardrails.
   */
  .get(
    '/',
    doc({
      tags,
      summary: 'Read the hardship policy overview',
      description:
        "The active common guardrails (the highest version), every program (by programCode) with the version in effect today in the tenant's time zone (the latest whose `effectiveFrom` has come; before any has, version 1), and `portfolioValid`: true only when every ACTIVE program's version in effect satisfies the active guardrails. A stricter guardrails version is accepted and turns it false. 404 while the tenant has set no guardrails.",
      scope: 'servicing:read',
      permission: 'READ_HARDSHIPPOLICY',
      responses: { 200: { description: 'The overview', schema: hardshipPolicyOverviewResponse } },
    }),
    requires('servicing:read', 'READ_HARDSHIPPOLICY'),
    noQuery(),
    async (c) => {
      const { db, clock } = c.get('deps');
      const overview = await getHardshipPolicyOverview(db, c.get('tenantId'), clock());
      if (!overview) {
        throw new DomainError(
          'error.msg.resource.not.found',
          'No hardship guardrails are set for this tenant yet: PUT /v1/servicing/admin/hardship-policies/guardrails first.',
        );
      }
      return c.json(overview, 200);
    },
  )
  /**
   * Sets the tenant's common guardrails: a new version (previous + 1), active from now → 200 with the spec's
   * `commonGuardrails`. Body: every guardrail except `guardrailVersion` (= the new version).
   */
  .put(
    '/guardrails',
    doc({
      tags,
      summary: 'Set the hardship guardrails (a new version)',
      description:
        'Stores the next version (1, 2, … per tenant) of the common guardrails, active at once (`activatedAt`); `guardrailVersion` is that version. Units: hours for `offerValidityHoursMaximum` and `documentDeadlineHoursMaximum`; installments for `minimumLoanAgeInstallments` and `maximumDeferredPayments`. `specialistConditions` is a subset of BANKRUPTCY, LITIGATION, FRAUD_INVESTIGATION, DECEASED, LEGAL_HOLD, RECOVERY_PLACEMENT. Programs the new version invalidates stay; the overview answers `portfolioValid: false` until they are replaced or retired. Versions are never changed.',
      scope: 'servicing:write',
      permission: 'MANAGE_HARDSHIPPOLICY',
      mutation: true,
      responses: { 200: { description: 'The new active guardrails', schema: commonGuardrailsResponse } },
    }),
    requires('servicing:write', 'MANAGE_HARDSHIPPOLICY'),
    noQuery(),
    ...jsonBody(hardshipGuardrailsBody),
    idempotent(),
    async (c) => {
      const guardrails = c.req.valid('json');
      const created = await c
        .get('deps')
        .activities.setHardshipGuardrails({ ...operationContext(c), guardrails });
      return c.json(created, 200);
    },
  );
