/**
 * Every operation, built from injected dependencies (docs/conventions.md §1, §13.4). The API calls them
 * directly for synchronous operations; workers register them as Temporal activities
 * (workers/activities.ts turns a DomainError into a non-retryable ApplicationFailure).
 */

import { createBoardingActivities } from './boarding';
import { stageBoardingBatch } from './boarding/stage-batch';
import { createChannelGateway } from './channels/create-channel-gateway';
import { gatewaySecretsAt } from './channels/gateway-secrets-at';
import { listChannelGateways } from './channels/list-channel-gateways';
import { processChannelEvent } from './channels/process-channel-event';
import { recordChannelEvent } from './channels/record-channel-event';
import { rotateChannelGatewaySecret } from './channels/rotate-channel-gateway-secret';
import { createCustomerActivities } from './customers';
import type { Deps } from './deps';
import { acceptHardshipOffer } from './hardship/accept-hardship-offer';
import { confirmHardshipEvidence } from './hardship/confirm-hardship-evidence';
import { createHardshipOffer } from './hardship/create-hardship-offer';
import { createHardshipProgram } from './hardship/create-hardship-program';
import { createHardshipProgramVersion } from './hardship/create-hardship-program-version';
import { decideHardshipOffer } from './hardship/decide-hardship-offer';
import { expireHardshipOffer } from './hardship/expire-hardship-offer';
import { findOpenHardshipOffersOfLoan } from './hardship/find-open-hardship-offers-of-loan';
import { readHardshipOfferProgress } from './hardship/read-hardship-offer-progress';
import { reevaluateHardshipOffer } from './hardship/reevaluate-hardship-offer';
import { retireHardshipProgram } from './hardship/retire-hardship-program';
import { setHardshipGuardrails } from './hardship/set-hardship-guardrails';
import { createLendingActivities } from './lending';
import { createPaymentActivities } from './payments';
import { openReconciliationException } from './payments/open-reconciliation-exception';
import { resolveReconciliationException } from './payments/resolve-reconciliation-exception';
import { createClient } from './platform/create-client';
import { disableClient } from './platform/disable-client';
import { ensureTenant } from './platform/ensure-tenant';
import {
  claimIdempotencyKey,
  claimIdempotencyKeyWith,
  completeIdempotencyKey,
  releaseIdempotencyKey,
  storeUnclaimedIdempotentResponse,
} from './platform/idempotency';
import { listClients } from './platform/list-clients';
import { rotateClientSecret } from './platform/rotate-client-secret';
import {
  claimDueStartIntents,
  markStartIntentStarted,
  markStartIntentsStarted,
  recordStartIntentFailure,
} from './platform/start-intents';
import { tenantSettings } from './platform/tenant-settings';
import { issueAccessToken } from './platform/tokens';
import { activateVoiceWorkflowVersion } from './servicing/activate-voice-workflow-version';
import { addEvidence } from './servicing/add-evidence';
import { applyContactConsentUpdate } from './servicing/apply-contact-consent-update';
import { changeDocumentTitle } from './servicing/change-document-title';
import { closeCase } from './servicing/close-case';
import { completeTask } from './servicing/complete-task';
import { createCaseType } from './servicing/create-case-type';
import { createFormEntry } from './servicing/create-form-entry';
import { createPromiseToPay } from './servicing/create-promise-to-pay';
import { createVoiceDispatch } from './servicing/create-voice-dispatch';
import { createVoiceWorkflowVersion } from './servicing/create-voice-workflow-version';
import { findPendingPromisesOfLoan } from './servicing/find-pending-promises-of-loan';
import { fulfilPrivacyRequest } from './servicing/fulfil-privacy-request';
import { logInteraction } from './servicing/log-interaction';
import { markPrivacyRequestOverdue } from './servicing/mark-privacy-request-overdue';
import { markPrivacyWorkflowStarted } from './servicing/mark-privacy-workflow-started';
import { openAiSession } from './servicing/open-ai-session';
import { openCase } from './servicing/open-case';
import { openPrivacyRequest } from './servicing/open-privacy-request';
import { publishFieldDefinitions } from './servicing/publish-field-definitions';
import { raisePrivacyReminder } from './servicing/raise-privacy-reminder';
import { readPromisePayments } from './servicing/read-promise-payments';
import { recordAiOutput } from './servicing/record-ai-output';
import { recordContactConsentUpdate } from './servicing/record-contact-consent-update';
import { recordVoiceDispatchEvent } from './servicing/record-voice-dispatch-event';
import { resolvePromiseToPay } from './servicing/resolve-promise-to-pay';
import { tenantOfVoiceTaskToken } from './servicing/tenant-of-voice-task-token';
import { updateFormEntry } from './servicing/update-form-entry';
import { createWebhookActivities, createWebhookDeliveryActivities } from './webhooks';

/** Operations the API calls directly (not registered with Temporal). */
export function createPlatformOperations(deps: Deps) {
  return {
    ensureTenant: ensureTenant(deps),
    createClient: createClient(deps),
    rotateClientSecret: rotateClientSecret(deps),
    disableClient: disableClient(deps),
    listClients: listClients(deps),
    tenantSettings: tenantSettings(deps),
    issueAccessToken: issueAccessToken(deps),
    claimIdempotencyKey: claimIdempotencyKey(deps),
    completeIdempotencyKey: completeIdempotencyKey(deps),
    releaseIdempotencyKey: releaseIdempotencyKey(deps),
    claimIdempotencyKeyWith: claimIdempotencyKeyWith(deps),
    storeUnclaimedIdempotentResponse: storeUnclaimedIdempotentResponse(deps),
    createChannelGateway: createChannelGateway(deps),
    rotateChannelGatewaySecret: rotateChannelGatewaySecret(deps),
    listChannelGateways: listChannelGateways(deps),
    /** Tenant and valid secrets of a gateway at an instant (null: no such enabled gateway). */
    gatewaySecretsAt: (code: string, at: Date) => gatewaySecretsAt(deps, code, at),
    markStartIntentStarted: markStartIntentStarted(deps),
    markStartIntentsStarted: markStartIntentsStarted(deps),
    claimDueStartIntents: claimDueStartIntents(deps),
    recordStartIntentFailure: recordStartIntentFailure(deps),
    /** Stages a boarding upload from its byte stream: not an activity, it takes a stream. */
    stageBoardingBatch: stageBoardingBatch(deps),
    /**
     * The tenant of a voice dispatch when `token` is its valid task token, else null (constant-time digest
     * comparison; platform read before a tenant is known).
     */
    tenantOfVoiceTaskToken: (dispatchId: number | null, token: string, at: Date) =>
      tenantOfVoiceTaskToken(deps, dispatchId, token, at),
  };
}

/** Business operations; every one is also a Temporal activity. Names are unique across workers. */
export function createActivities(deps: Deps) {
  return {
    ...createLendingActivities(deps),
    ...createPaymentActivities(deps),
    openCase: openCase(deps),
    closeCase: closeCase(deps),
    logInteraction: logInteraction(deps),
    addEvidence: addEvidence(deps),
    changeDocumentTitle: changeDocumentTitle(deps),
    completeTask: completeTask(deps),
    createCaseType: createCaseType(deps),
    publishFieldDefinitions: publishFieldDefinitions(deps),
    createFormEntry: createFormEntry(deps),
    updateFormEntry: updateFormEntry(deps),
    openPrivacyRequest: openPrivacyRequest(deps),
    markPrivacyWorkflowStarted: markPrivacyWorkflowStarted(deps),
    raisePrivacyReminder: raisePrivacyReminder(deps),
    markPrivacyRequestOverdue: markPrivacyRequestOverdue(deps),
    fulfilPrivacyRequest: fulfilPrivacyRequest(deps),
    createPromiseToPay: createPromiseToPay(deps),
    readPromisePayments: readPromisePayments(deps),
    resolvePromiseToPay: resolvePromiseToPay(deps),
    findPendingPromisesOfLoan: findPendingPromisesOfLoan(deps),
    recordContactConsentUpdate: recordContactConsentUpdate(deps),
    applyContactConsentUpdate: applyContactConsentUpdate(deps),
    openAiSession: openAiSession(deps),
    recordAiOutput: recordAiOutput(deps),
    recordChannelEvent: recordChannelEvent(deps),
    processChannelEvent: processChannelEvent(deps),
    ...createCustomerActivities(deps),
    ...createBoardingActivities(deps),
    ...createWebhookActivities(deps),
    ...createWebhookDeliveryActivities(deps),
    openReconciliationException: openReconciliationException(deps),
    resolveReconciliationException: resolveReconciliationException(deps),
    createVoiceWorkflowVersion: createVoiceWorkflowVersion(deps),
    activateVoiceWorkflowVersion: activateVoiceWorkflowVersion(deps),
    createVoiceDispatch: createVoiceDispatch(deps),
    recordVoiceDispatchEvent: recordVoiceDispatchEvent(deps),
    setHardshipGuardrails: setHardshipGuardrails(deps),
    createHardshipProgram: createHardshipProgram(deps),
    createHardshipProgramVersion: createHardshipProgramVersion(deps),
    retireHardshipProgram: retireHardshipProgram(deps),
    createHardshipOffer: createHardshipOffer(deps),
    decideHardshipOffer: decideHardshipOffer(deps),
    acceptHardshipOffer: acceptHardshipOffer(deps),
    readHardshipOfferProgress: readHardshipOfferProgress(deps),
    expireHardshipOffer: expireHardshipOffer(deps),
    confirmHardshipEvidence: confirmHardshipEvidence(deps),
    reevaluateHardshipOffer: reevaluateHardshipOffer(deps),
    findOpenHardshipOffersOfLoan: findOpenHardshipOffersOfLoan(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
export type PlatformOperations = ReturnType<typeof createPlatformOperations>;
export type { Deps } from './deps';
export type { ClaimedStartIntent } from './platform/start-intents';
