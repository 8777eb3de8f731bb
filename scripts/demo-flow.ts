/**
 * The integrator flow of issue 2 over plain HTTP: token → case → interaction → privacy request →
 * evidence → fulfilment → case close → effects. Used by `npm run demo` (which prints every
 * exchange) and by the end-to-end test. Throws when a step answers other than expected.
 */

import { apiRequest, type DemoCredential, type Exchange, requestToken } from './http-client';

export type { DemoCredential, Exchange } from './http-client';

export interface DemoResult {
  caseId: number;
  interactionId: number;
  requestId: number;
  evidenceId: number;
  workflowId: string;
  effects: { effectType: string }[];
}

export async function runDemoFlow(
  baseUrl: string,
  credential: DemoCredential,
  onExchange: (exchange: Exchange) => void = () => {},
): Promise<DemoResult> {
  const runId = Date.now().toString(36);
  const session = {
    baseUrl,
    accessToken: await requestToken(baseUrl, credential, 'servicing:read servicing:write', onExchange),
    tenant: credential.tenant,
    actor: 'demo.agent',
  };

  const send = async (
    method: string,
    path: string,
    body: unknown,
    expected: number,
    idempotencyKey?: string,
  ) => {
    const response = await apiRequest(session, method, path, body, idempotencyKey);
    // biome-ignore lint/suspicious/noExplicitAny: JSON bodies are read field by field and checked by the caller
    const responseBody = (await response.json()) as Record<string, any>;
    onExchange({ method, path, requestBody: body, status: response.status, responseBody });
    if (response.status !== expected)
      throw new Error(`${method} ${path} answered ${response.status}, expected ${expected}`);
    return responseBody;
  };

  const customerRef = `cus_demo_${runId}`;
  const kase = await send(
    'POST',
    '/v1/servicing/cases',
    { customerRef, caseTypeCode: 'PRIVACY', summary: 'Customer asks us to delete their data' },
    201,
    `case-${runId}`,
  );
  const interaction = await send(
    'POST',
    '/v1/servicing/interactions',
    {
      customerRef,
      caseId: kase.caseId,
      channel: 'PHONE',
      direction: 'INBOUND',
      summary: 'Caller requested deletion under CCPA',
    },
    201,
    `interaction-${runId}`,
  );
  const request = await send(
    'POST',
    '/v1/servicing/privacy-requests',
    {
      customerRef,
      requestType: 'DELETION',
      regime: 'CCPA_CPRA',
      summary: 'Delete all personal information not subject to an exemption',
      caseId: kase.caseId,
      sourceInteractionId: interaction.interactionId,
    },
    201,
    `privacy-${runId}`,
  );
  const evidence = await send(
    'POST',
    '/v1/servicing/evidence',
    {
      caseId: kase.caseId,
      evidenceType: 'DELETION_CONFIRMATION',
      description: 'Deletion job report from every system of record',
    },
    201,
    `evidence-${runId}`,
  );
  await send(
    'POST',
    `/v1/servicing/privacy-requests/${request.requestId}/fulfill`,
    { outcome: 'FULFILLED', outcomeReason: 'Deleted in all systems', evidenceIds: [evidence.evidenceId] },
    200,
    `fulfil-${runId}`,
  );
  await send(
    'POST',
    `/v1/servicing/cases/${kase.caseId}/close`,
    { outcomeCode: 'REQUEST_FULFILLED', closureReason: 'Privacy request fulfilled' },
    200,
    `close-${runId}`,
  );
  const effects = await send('GET', `/v1/servicing/cases/${kase.caseId}/effects?limit=50`, undefined, 200);
  return {
    caseId: kase.caseId,
    interactionId: interaction.interactionId,
    requestId: request.requestId,
    evidenceId: evidence.evidenceId,
    workflowId: `privacy-request/${credential.tenant}/${request.requestId}`,
    effects: effects.items,
  };
}
