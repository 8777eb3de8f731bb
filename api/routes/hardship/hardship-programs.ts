import {
  createHardshipProgramBody,
  createHardshipProgramVersionBody,
  hardshipProgramResponse,
  programCodeParam,
  retireHardshipProgramBody,
} from '../../../domain/hardship/schemas/hardship-policies';
import { factory } from '../../env';
import { requires } from '../../middleware/auth';
import { idempotent } from '../../middleware/idempotency';
import { doc } from '../../openapi';
import { jsonBody, noQuery, optionalJsonBody, pathParams } from '../../validation';
import { operationContext } from '../context';

const tags = ['Servicing: hardship policies'];

const guardrailRule =
  "A program version must stay within the ACTIVE guardrails, else 409 `error.msg.hardship.program.guardrail.violation` with one `errors[]` item per broken guardrail (its `userMessageGlobalisationCode` ends with the guardrail, e.g. `….offerValidityHoursMaximum`, and `args[0].guardrail` names it): `offerValidityHours` ≤ `offerValidityHoursMaximum`; for PAYMENT_DEFERRAL and FORBEARANCE `humanApprovalMaximum` ≤ `maximumDeferredPayments`; no PRINCIPAL_FORGIVENESS while `prohibitPrincipalForgiveness`; no RATE_REDUCTION while `prohibitRateChange`. Also `straightThroughMaximum` ≤ `humanApprovalMaximum` (400) and `humanApprovalPermission` a known permission (400). Sizes are in the relief's unit: installments (deferral, forbearance, reduced payment), whole currency units (fee waiver, forgiveness), basis points (rate reduction). Before the tenant's first guardrails → 409 `error.msg.hardship.guardrails.missing`. `workflow.caseType` must be a case type of the tenant, else 404 naming `summary.workflow.caseType`.";

export const hardshipProgramRoutes = factory
  .createApp()
  /** Creates a program with version 1 → 201 with the program (overview shape); duplicate code → 409. */
  .post(
    '/',
    doc({
      tags,
      summary: 'Create a hardship program',
      description: `Creates the program (state ACTIVE) with version 1 in effect from \`effectiveFrom\`. A programCode the tenant has already → 409 \`error.msg.hardship.program.duplicate\`. ${guardrailRule}`,
      scope: 'servicing:write',
      permission: 'MANAGE_HARDSHIPPOLICY',
      mutation: true,
      responses: { 201: { description: 'The program with version 1', schema: hardshipProgramResponse } },
    }),
    requires('servicing:write', 'MANAGE_HARDSHIPPOLICY'),
    noQuery(),
    ...jsonBody(createHardshipProgramBody),
    idempotent(),
    async (c) => {
      const { summary, ...program } = c.req.valid('json');
      const created = await c
        .get('deps')
        .activities.createHardshipProgram({ ...operationContext(c), ...program, terms: summary });
      return c.json(created, 201);
    },
  )
  /** Adds the next version of a program → 201 with the program showing that version; unknown → 404. */
  .post(
    '/:programCode/versions',
    doc({
      tags,
      summary: 'Add a hardship program version',
      description: `Stores the next version, in effect from \`effectiveFrom\` (today or later in the tenant's time zone, and after the previous version's \`effectiveFrom\`, else 400); the previous version's \`effectiveTo\` becomes the day before. The answer shows the new version as \`activeVersion\`. A RETIRED program → 409 \`error.msg.hardship.program.invalid.state.transition\`; unknown → 404. ${guardrailRule}`,
      scope: 'servicing:write',
      permission: 'MANAGE_HARDSHIPPOLICY',
      mutation: true,
      responses: {
        201: { description: 'The program with its new version', schema: hardshipProgramResponse },
      },
    }),
    requires('servicing:write', 'MANAGE_HARDSHIPPOLICY'),
    pathParams(programCodeParam),
    noQuery(),
    ...jsonBody(createHardshipProgramVersionBody),
    idempotent(),
    async (c) => {
      const { programCode } = c.req.valid('param');
      const { summary, effectiveFrom } = c.req.valid('json');
      const created = await c.get('deps').activities.createHardshipProgramVersion({
        ...operationContext(c),
        programCode,
        effectiveFrom,
        terms: summary,
      });
      return c.json(created, 201);
    },
  )
  /** Retires a program → 200 with it (state RETIRED, `effectiveTo` set); already retired → 409; unknown → 404. */
  .post(
    '/:programCode/retire',
    doc({
      tags,
      summary: 'Retire a hardship program',
      description:
        "Sets the state RETIRED and the latest version's `effectiveTo` (optional body `{effectiveTo}`, an ISO date, today or later and not before that version's `effectiveFrom`; default today in the tenant's time zone). A retired program takes no new versions and no longer counts for `portfolioValid`. Already RETIRED → 409 `error.msg.hardship.program.invalid.state.transition`; unknown → 404.",
      scope: 'servicing:write',
      permission: 'MANAGE_HARDSHIPPOLICY',
      mutation: true,
      responses: { 200: { description: 'The retired program', schema: hardshipProgramResponse } },
    }),
    requires('servicing:write', 'MANAGE_HARDSHIPPOLICY'),
    pathParams(programCodeParam),
    noQuery(),
    ...optionalJsonBody(retireHardshipProgramBody),
    idempotent(),
    async (c) => {
      const { programCode } = c.req.valid('param');
      const body = c.req.valid('json') ?? {};
      const retired = await c.get('deps').activities.retireHardshipProgram({
        ...operationContext(c),
        programCode,
        effectiveTo: body.effectiveTo,
      });
      return c.json(retired, 200);
    },
  );
