/**
 * The integrator flow over HTTP through the typed client (client/): token → case → interaction →
 * privacy request → evidence → fulfilment → case close → effects. Used by `npm run demo` (which prints every
 * exchange) and by the end-to-end test. Throws when a step answers other than expected.
 */

import { type DemoCredential, demoClient, type Exchange, reportingTo } from './http-client';

export type { DemoCredential, Exchange } from './http-client';

export interface DemoResult {
  caseId: number;
  interactionId: number;
  requestId: number;
  evidenceId: number;
  workflowId: string;
  effects: { effectType: string }[];
}

/**
 * Runs the flow as the tenant's client with `servicing:read servicing:write`, acting as `demo.agent`, through
 * the typed client (client/: typed paths and bodies, token cache, an Idempotency-Key per mutation, retries).
 * `onExchange` sees every request and answer, the token request first. Throws when a step answers other than
 * expected.
 */
export async function runDemoFlow(
  baseUrl: string,
  credential: DemoCredential,
  onExchange: (exchange: Exchange) => void = () => {},
): Promise<DemoResult> {
  const runId = Date.now().toString(36);
  const lending = demoClient(baseUrl, credential, 'servicing:read servicing:write', 'demo.agent', onExchange);

  const reported = reportingTo(onExchange);
  const key = (name: string) => ({ header: { 'Idempotency-Key': `${name}-${runId}` } });

  const customerRef = `cus_demo_${runId}`;
  const caseBody = { customerRef, caseTypeCode: 'PRIVACY', summary: 'Customer asks us to delete their data' };
  const kase = await reported(
    'POST',
    '/v1/servicing/cases',
    caseBody,
    201,
    lending.POST('/v1/servicing/cases', { body: caseBody, params: key('case') }),
  );
  const caseId = String(kase.caseId);
  const interactionBody = {
    customerRef,
    caseId: kase.caseId,
    channel: 'PHONE' as const,
    direction: 'INBOUND' as const,
    summary: 'Caller requested deletion under CCPA',
  };
  const interaction = await reported(
    'POST',
    '/v1/servicing/interactions',
    interactionBody,
    201,
    lending.POST('/v1/servicing/interactions', { body: interactionBody, params: key('interaction') }),
  );
  const privacyBody = {
    customerRef,
    requestType: 'DELETION' as const,
    regime: 'CCPA_CPRA' as const,
    summary: 'Delete all personal information not subject to an exemption',
    caseId: kase.caseId,
    sourceInteractionId: interaction.interactionId,
  };
  const request = await reported(
    'POST',
    '/v1/servicing/privacy-requests',
    privacyBody,
    201,
    lending.POST('/v1/servicing/privacy-requests', { body: privacyBody, params: key('privacy') }),
  );
  const evidenceBody = {
    caseId: kase.caseId,
    evidenceType: 'DELETION_CONFIRMATION',
    description: 'Deletion job report from every system of record',
  };
  const evidence = await reported(
    'POST',
    '/v1/servicing/evidence',
    evidenceBody,
    201,
    lending.POST('/v1/servicing/evidence', { body: evidenceBody, params: key('evidence') }),
  );
  const fulfilBody = {
    outcome: 'FULFILLED' as const,
    outcomeReason: 'Deleted in all systems',
    evidenceIds: [evidence.evidenceId],
  };
  await reported(
    'POST',
    `/v1/servicing/privacy-requests/${request.requestId}/fulfill`,
    fulfilBody,
    200,
    lending.POST('/v1/servicing/privacy-requests/{requestId}/fulfill', {
      body: fulfilBody,
      params: { path: { requestId: String(request.requestId) }, ...key('fulfil') },
    }),
  );
  const closeBody = { outcomeCode: 'REQUEST_FULFILLED', closureReason: 'Privacy request fulfilled' };
  await reported(
    'POST',
    `/v1/servicing/cases/${caseId}/close`,
    closeBody,
    200,
    lending.POST('/v1/servicing/cases/{caseId}/close', {
      body: closeBody,
      params: { path: { caseId }, ...key('close') },
    }),
  );
  const effects = await reported(
    'GET',
    `/v1/servicing/cases/${caseId}/effects?limit=50`,
    undefined,
    200,
    lending.GET('/v1/servicing/cases/{caseId}/effects', {
      params: { path: { caseId }, query: { limit: '50' } },
    }),
  );
  return {
    caseId: kase.caseId,
    interactionId: interaction.interactionId,
    requestId: request.requestId,
    evidenceId: evidence.evidenceId,
    workflowId: `privacy-request/${credential.tenant}/${request.requestId}`,
    effects: effects.items,
  };
}
