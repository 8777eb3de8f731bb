/**
 * Contact-consent updates on a case (OpenAPI `POST /v1/servicing/cases/{caseId}/contact-consent-updates`;
 * docs/processes.md P4 "Contact-consent updates", "Refs"). Mounted at `/v1/servicing/cases/{caseId}/contact-consent-updates`.
 * An update effective now or earlier is applied in the request's transaction (`COMPLETED`); a later one is stored
 * `SCHEDULED` with the start intent of `contact-consent-update/<tenant>/<updateId>`, whose durable timer applies it
 * at `effectiveAt`; the route starts that workflow after commit and marks the intent started (should it die in
 * between, the start-intent relay starts it, docs/processes.md P0). Precedence: domain/servicing/contact-consent.ts.
 */
import { getContactConsentUpdate } from '../../../db/queries/servicing/contact-consent-updates';
import { notFound } from '../../../domain/errors';
import {
  contactConsentUpdateBody,
  contactConsentUpdateParams,
  contactConsentUpdateResponse,
  contactConsentUpdateView,
} from '../../../domain/servicing/schemas/contact-consent-updates';
import { caseIdParam } from '../../../domain/servicing/schemas/servicing';
import { factory } from '../../env';
import { requires } from '../../middleware/auth';
import { idempotent } from '../../middleware/idempotency';
import { doc } from '../../openapi';
import { startAfterCommit } from '../../start-after-commit';
import { jsonBody, noQuery, pathParams } from '../../validation';
import { operationContext } from '../context';

const tags = ['Servicing: contact-consent updates'];

/** The contact-consent update routes, mounted at `/v1/servicing/cases/{caseId}/contact-consent-updates` (api/app.ts). */
export const contactConsentUpdateRoutes = factory
  .createApp()
  /**
   * Records an update of one permission of a customer's contact point → 200 `{outcome: "COMPLETED"|"SCHEDULED",
   * customerRef, resourceId}` (activities/servicing/record-contact-consent-update.ts `recordContactConsentUpdate`).
   * 400 per field (operation, the permission field of the operation missing or another one sent, effectiveAt not an
   * instant with offset or more than 365 days ahead, reason empty/too long/identifier-looking, unknown fields);
   * 404 naming caseId, customerRef or contactPointRef; 409 `error.msg.case.customer.mismatch`,
   * `error.msg.case.invalid.state.transition`, `error.msg.contact.point.type.mismatch`.
   */
  .post(
    '/',
    doc({
      tags,
      summary: 'Update a contact point’s SMS, e-mail or voice permission',
      description:
        'Sets one permission of a contact point of the case’s customer: `UPDATE_SMS_PERMISSION` with `canReceiveSms` and `UPDATE_VOICE_PERMISSION` with `canReceiveVoice` (PHONE contact points), `UPDATE_EMAIL_PERMISSION` with `canReceiveEmail` (EMAIL contact points). `effectiveAt` now or earlier → applied at once (`COMPLETED`); later, at most 365 days ahead → `SCHEDULED` and applied at that instant by the durable process `contact-consent-update/<tenant>/<updateId>`. Either way the customer’s history gets `CONTACT_CONSENT_UPDATED`, the case the effect `CONTACT_CONSENT_UPDATED` (and `CONTACT_CONSENT_SCHEDULED` when scheduled) and subscribers the event `contact.consent.updated`. The newest instruction wins: a scheduled update is not applied (status SUPERSEDED) when an update of the same contact point and permission recorded after it was applied first, or, for SMS, when the customer opted out (STOP) or gave an SMS consent record after it.',
      scope: 'servicing:write',
      permission: 'UPDATE_CONTACTCONSENT',
      mutation: true,
      responses: {
        200: {
          description: 'Applied (COMPLETED) or scheduled (SCHEDULED)',
          schema: contactConsentUpdateResponse,
        },
      },
    }),
    requires('servicing:write', 'UPDATE_CONTACTCONSENT'),
    pathParams(caseIdParam),
    noQuery(),
    ...jsonBody(contactConsentUpdateBody),
    idempotent({ claimInOperation: true }),
    async (c) => {
      const { caseId } = c.req.valid('param');
      const body = c.req.valid('json');
      const { activities, startMarks, processes } = c.get('deps');
      const recorded = await activities.recordContactConsentUpdate({
        ...operationContext(c),
        caseId,
        ...body,
      });
      if (recorded.workflow !== null && recorded.status === 'SCHEDULED') {
        await startAfterCommit(startMarks, recorded.workflow, (input) =>
          processes.contactConsentUpdates.start(input),
        );
      }
      return c.json(
        { outcome: recorded.status, customerRef: recorded.customerRef, resourceId: recorded.updateId },
        200,
      );
    },
  )
  /** Reads one update of the case with its status (SCHEDULED, COMPLETED, SUPERSEDED); absent or another tenant's → 404. */
  .get(
    '/:updateId',
    doc({
      tags,
      summary: 'Read a contact-consent update',
      scope: 'servicing:read',
      permission: 'READ_CONTACTCONSENT',
      responses: { 200: { description: 'The update and its status', schema: contactConsentUpdateView } },
    }),
    requires('servicing:read', 'READ_CONTACTCONSENT'),
    pathParams(contactConsentUpdateParams),
    noQuery(),
    async (c) => {
      const { caseId, updateId } = c.req.valid('param');
      const found = await getContactConsentUpdate(c.get('deps').db, c.get('tenantId'), caseId, updateId);
      if (!found) throw notFound('Contact-consent update', updateId);
      return c.json(found, 200);
    },
  );
