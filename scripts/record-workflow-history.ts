/**
 * Records histories of the workflows on the time-skipping test server into test/workflows/histories/
 * (`<process>-<scenario>.json`), as replay fixtures (docs/conventions.md §7, docs/design.md §7: a change that breaks running
 * workflows must fail CI; test/workflows/replay.test.ts replays every file there). Run after a
 * deliberate, versioned (`patched()`) change that added a scenario, naming the processes (none = all). The fixtures
 * are append-only: a scenario whose file exists is run but never written again, so only new scenarios are written:
 *   npx tsx scripts/record-workflow-history.ts [privacy-request|webhook-delivery|channel-event|payment-intent|contact-consent-update|promise|statement-cycle|hardship-offer|boarding|autopay|daily-reconciliation|boarding-purge|close-of-business …]
 * Activities are stand-ins that answer like the real ones; replay checks only the workflow code.
 * Written files are formatted with the project's Biome settings, so they pass `npm run lint` as written, and each
 * gets its checksum file `<fixture>.sha256` beside it (scripts/workflow-fixtures.ts: the checksums the append-only
 * check reads; no file of the folder is ever changed). Every workflow exported by workflows/index.ts has at least one scenario here.
 * Unknown process names: exit code 2 and nothing recorded.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { WorkflowNotFoundError, WorkflowUpdateStage } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import proto from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { type BoardingWorkflowInput, emptyBoardingCounts } from '../domain/boarding/batch';
import type { ChannelEventWorkflowInput, ChannelEventWorkflowResult } from '../domain/channels/channel-event';
import type { HardshipOfferProgress, HardshipOfferWorkflowInput } from '../domain/hardship/offer-process';
import {
  channelEventWorkflowId,
  closeOfBusinessWorkflowId,
  contactConsentUpdateWorkflowId,
  hardshipOfferWorkflowId,
  paymentIntentWorkflowId,
  promiseWorkflowId,
  taskQueues,
} from '../domain/ids';
import { tenantStatementCycleWorkflowId } from '../domain/lending/statements';
import type { AutopayCollection, AutopayPlan, AutopayWorkflowInput } from '../domain/payments/autopay';
import {
  type ReconciliationFinding,
  tenantReconciliationStartSpec,
} from '../domain/payments/daily-reconciliation';
import type { PaymentIntentWorkflowInput } from '../domain/payments/payment-intent';
import type {
  ContactConsentUpdateOutcome,
  ContactConsentUpdateWorkflowInput,
} from '../domain/servicing/contact-consent';
import type { PrivacyRequestWorkflowInput } from '../domain/servicing/privacy-request';
import type { PromiseWorkflowInput } from '../domain/servicing/promise';
import { projectRoot } from '../workers/config';
import { workflowsPath } from '../workers/queue-worker';
import { resolveTestServer } from '../workers/temporal-server';
import { pauseSignal, resumeSignal } from '../workflows/boarding/boarding-batch/messages';
import type { boardingWorkflow } from '../workflows/boarding/boarding-batch/workflow';
import type { boardingRawPurgeWorkflow } from '../workflows/boarding/boarding-purge/workflow';
import type { channelEventWorkflow } from '../workflows/channels/channel-event/workflow';
import {
  evidenceAddedSignal,
  getStateQuery as getHardshipOfferStateQuery,
  loanChangedSignal,
  offerChangedSignal,
} from '../workflows/hardship/hardship-offer/messages';
import type { hardshipOfferWorkflow } from '../workflows/hardship/hardship-offer/workflow';
import type {
  closeOfBusinessLauncherWorkflow,
  closeOfBusinessWorkflow,
} from '../workflows/lending/close-of-business/workflow';
import type {
  dailyStatementCycleWorkflow,
  tenantStatementCycleWorkflow,
} from '../workflows/lending/statement-cycle/workflow';
import type { autopayWorkflow } from '../workflows/payments/autopay/workflow';
import type { dailyReconciliationWorkflow } from '../workflows/payments/daily-reconciliation/workflow';
import {
  getStateQuery as getPaymentStateQuery,
  railEventUpdate,
  resolveSettlementUpdate,
} from '../workflows/payments/payment-intent/messages';
import type { paymentIntentWorkflow } from '../workflows/payments/payment-intent/workflow';
import type { contactConsentUpdateWorkflow } from '../workflows/servicing/contact-consent-update/workflow';
import { fulfilRequestUpdate } from '../workflows/servicing/privacy-request/messages';
import type { privacyRequestWorkflow } from '../workflows/servicing/privacy-request/workflow';
import {
  getStateQuery as getPromiseStateQuery,
  paymentPostedSignal,
} from '../workflows/servicing/promise/messages';
import type { promiseWorkflow } from '../workflows/servicing/promise/workflow';
import {
  admissionWakeSignal,
  cancelDeliverySignal,
  getDeliveryStateQuery,
} from '../workflows/webhooks/webhook-delivery/messages';
import type { WebhookDeliveryInput } from '../workflows/webhooks/webhook-delivery/types';
import type { webhookDeliveryWorkflow } from '../workflows/webhooks/webhook-delivery/workflow';
import { fixturesFolder, writeChecksumFiles } from './workflow-fixtures';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

type Env = TestWorkflowEnvironment;
/** The history of one finished run, as returned by `WorkflowHandle.fetchHistory()`. */
type FetchedHistory = Parameters<typeof proto.temporal.api.history.v1.History.fromObject>[0];

/** One recordable process: its worker's task queue and stand-in activities, and its scenarios. */
interface RecordedProcess {
  taskQueue: string;
  activities: Record<string, (...args: never[]) => Promise<unknown>>;
  /** Runs every scenario; `save` writes one finished run's history as `<process>-<scenario>.json`. */
  record(env: Env, save: (scenario: string, history: FetchedHistory) => Promise<void>): Promise<void>;
}

/**
 * `privacyRequestWorkflow` (docs/processes.md P0): fulfilled early; overdue, then fulfilled; a fulfilment stuck in
 * retries superseded by a later one (patch `supersede-stuck-fulfilment`).
 */
function privacyRequest(): RecordedProcess {
  const taskQueue = 'record-histories';
  return {
    taskQueue,
    activities: {
      markPrivacyWorkflowStarted: async () => undefined,
      raisePrivacyReminder: async () => ({ raised: true }),
      markPrivacyRequestOverdue: async () => ({ status: 'OVERDUE' }),
      fulfilPrivacyRequest: async (input: { requestId: number; outcome: string; outcomeReason: string }) => {
        // As an unstorable value failed before a retryable error on every attempt.
        if (input.outcomeReason === 'stuck')
          throw new Error('invalid byte sequence for encoding "UTF8": 0x00');
        return { requestId: input.requestId, status: input.outcome };
      },
    },
    async record(env, save) {
      for (const [name, fulfilAfterDays] of [
        ['fulfilled-early', 5],
        ['overdue-then-fulfilled', 50],
      ] as const) {
        const now = Date.now();
        const input: PrivacyRequestWorkflowInput = {
          tenantId: 'fixture',
          requestId: 1,
          caseId: 1,
          customerRef: 'cus_fixture',
          regime: 'CCPA_CPRA',
          statutoryDueAt: new Date(now + 45 * DAY_MS).toISOString(),
          dueAtMs: now + 45 * DAY_MS,
          reminderAtMs: now + 35 * DAY_MS,
        };
        const handle = await env.client.workflow.start<typeof privacyRequestWorkflow>(
          'privacyRequestWorkflow',
          {
            workflowId: `privacy-request/fixture/${name}`,
            taskQueue,
            args: [input],
          },
        );
        await env.sleep(fulfilAfterDays * DAY_MS);
        await handle.executeUpdate(fulfilRequestUpdate, {
          args: [{ outcome: 'FULFILLED', outcomeReason: 'fixture', evidenceIds: [1] }],
        });
        await handle.result();
        await save(name, await handle.fetchHistory());
      }
      const now = Date.now();
      const handle = await env.client.workflow.start<typeof privacyRequestWorkflow>(
        'privacyRequestWorkflow',
        {
          workflowId: 'privacy-request/fixture/stuck-fulfilment-superseded',
          taskQueue,
          args: [
            {
              tenantId: 'fixture',
              requestId: 1,
              caseId: 1,
              customerRef: 'cus_fixture',
              regime: 'CCPA_CPRA',
              statutoryDueAt: new Date(now + 45 * DAY_MS).toISOString(),
              dueAtMs: now + 45 * DAY_MS,
              reminderAtMs: now + 35 * DAY_MS,
            },
          ],
        },
      );
      const stuck = await handle.startUpdate(fulfilRequestUpdate, {
        args: [{ outcome: 'FULFILLED', outcomeReason: 'stuck', evidenceIds: [1] }],
        waitForStage: WorkflowUpdateStage.ACCEPTED,
      });
      await env.sleep(3 * 60_000);
      await handle.executeUpdate(fulfilRequestUpdate, {
        args: [{ outcome: 'FULFILLED', outcomeReason: 'fixture', evidenceIds: [1] }],
      });
      await stuck.result().catch(() => undefined);
      await handle.result();
      await save('stuck-fulfilment-superseded', await handle.fetchHistory());
    },
  };
}

/**
 * `webhookDeliveryWorkflow`: retried, then succeeded; cancelled while waiting for a retry; (with the admission step,
 * patch `webhook-endpoint-breaker`) held by an open endpoint breaker, then admitted and succeeded; (patch
 * `webhook-admission-wake`) refused for its tenant's cap, woken by a signal, succeeded, and woke another; (patch
 * `webhook-unproven-endpoint-limits`) admitted to an endpoint with no recent success, its first attempt timed out
 * under the short limits, its second succeeded.
 */
function webhookDelivery(): RecordedProcess {
  const taskQueue = 'record-webhook-histories';
  /** Answers per attempt of the scenario being recorded (status null = no answer). */
  let answers: (number | null)[] = [];
  /** Refusals `admitWebhookAttempt` answers before it admits, and their reason (the scenario being recorded). */
  let refusals = 0;
  let refusalReason: 'BREAKER_OPEN' | 'TENANT_AT_CAPACITY' = 'BREAKER_OPEN';
  /** Workflow ids `recordWebhookAttempt` names to wake (the scenario being recorded). */
  let toWake: string[] = [];
  /** Whether `admitWebhookAttempt` answers the endpoint unproven (the scenario being recorded). */
  let unprovenEndpoint = false;
  return {
    taskQueue,
    activities: {
      admitWebhookAttempt: async () => {
        if (refusals === 0)
          return unprovenEndpoint
            ? { admitted: true, probe: false, unproven: true }
            : { admitted: true, probe: false };
        refusals -= 1;
        return refusalReason === 'BREAKER_OPEN'
          ? { admitted: false, reason: 'BREAKER_OPEN', waitMs: 30_000 }
          : { admitted: false, reason: 'TENANT_AT_CAPACITY', waitMs: 600_000 };
      },
      prepareWebhookAttempt: async (input: { deliveryId: string }) => ({
        proceed: true,
        url: 'https://receiver.example/hooks',
        body: '{"eventId":"evt_fixture"}',
        deliveryId: input.deliveryId,
        signingSecrets: [{ secretVersion: 1, sealedSecret: 'sealed' }],
      }),
      sendWebhook: async () => {
        const status = answers.shift() ?? 500;
        return {
          responseStatus: status,
          latencyMs: 5,
          error: status !== null && status < 300 ? null : `HTTP ${status}`,
          retryAfterMs: null,
        };
      },
      recordWebhookAttempt: async (input: {
        responseStatus: number | null;
        nextAttemptAt: string | null;
      }) => ({
        deliveryState:
          input.responseStatus === 200 ? 'SUCCEEDED' : input.nextAttemptAt ? 'RETRYING' : 'FAILED',
        disabledReason: null,
        wake: toWake,
      }),
      cancelWebhookDelivery: async () => ({ deliveryState: 'CANCELLED', wake: [] }),
    },
    async record(env, save) {
      const scenarios: [
        name: string,
        answers: (number | null)[],
        cancel: boolean,
        refused: number,
        reason: 'BREAKER_OPEN' | 'TENANT_AT_CAPACITY',
        wake: string[],
      ][] = [
        ['retried-then-succeeded', [500, null, 200], false, 0, 'BREAKER_OPEN', []],
        ['cancelled-while-waiting', [503], true, 0, 'BREAKER_OPEN', []],
        ['breaker-waited-then-succeeded', [200], false, 1, 'BREAKER_OPEN', []],
        // Patch `webhook-admission-wake`: refused for the tenant's cap, woken by a signal before its 10-minute
        // safety timer, admitted, succeeded, and then signals the waiting delivery its record named (which has
        // ended: the failed signal is no matter).
        [
          'capacity-woken-then-succeeded-woke-another',
          [200],
          false,
          1,
          'TENANT_AT_CAPACITY',
          ['webhook-delivery/fixture/1/evt_gone'],
        ],
        // Patch `webhook-unproven-endpoint-limits`: no answer within the short limits, then 200 on the retry.
        ['unproven-endpoint-timed-out-then-succeeded', [null, 200], false, 0, 'BREAKER_OPEN', []],
      ];
      for (const [name, scenario, cancel, refused, reason, wake] of scenarios) {
        answers = [...scenario];
        refusals = refused;
        refusalReason = reason;
        toWake = wake;
        unprovenEndpoint = name.startsWith('unproven-endpoint');
        const input: WebhookDeliveryInput = {
          tenantId: 'fixture',
          subscriptionId: 1,
          eventId: `evt_${name}`,
          eventType: 'payment.posted',
          deliveryId: `whd_${name}`,
        };
        const handle = await env.client.workflow.start<typeof webhookDeliveryWorkflow>(
          'webhookDeliveryWorkflow',
          {
            workflowId: `webhook-delivery/fixture/1/${name}`,
            taskQueue,
            args: [input],
          },
        );
        if (cancel) {
          for (;;) {
            const state = await handle.query(getDeliveryStateQuery);
            if (state.state === 'RETRYING') break;
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
          await handle.signal(cancelDeliverySignal, { reason: 'SUBSCRIPTION_DEACTIVATED' });
        }
        if (reason === 'TENANT_AT_CAPACITY') {
          for (;;) {
            const state = await handle.query(getDeliveryStateQuery);
            if (state.nextAttemptAt !== null) break;
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
          await handle.signal(admissionWakeSignal);
        }
        await handle.result();
        await save(name, await handle.fetchHistory());
      }
    },
  };
}

/**
 * `channelEventWorkflow` (docs/processes.md P2): an `sms.inbound` STOP (opt-out, PROCESSED) and an
 * event type nothing handles (IGNORED). The stand-in `processChannelEvent` answers what the real
 * activity (activities/channels/process-channel-event.ts) returns for that event.
 */
function channelEvent(): RecordedProcess {
  const taskQueue = 'record-channel-event-histories';
  const answers = new Map<string, ChannelEventWorkflowResult>();
  return {
    taskQueue,
    activities: {
      processChannelEvent: async (input: { eventId: string }) => {
        const answer = answers.get(input.eventId);
        if (!answer) throw new Error(`no stand-in answer for event ${input.eventId}`);
        return answer;
      },
    },
    async record(env, save) {
      const scenarios: [string, string, ChannelEventWorkflowResult][] = [
        [
          'sms-opt-out-processed',
          'sms.inbound',
          { status: 'PROCESSED', outcome: { optOut: true, contactPointIds: [1], consentIds: [1] } },
        ],
        [
          'unknown-type-ignored',
          'fax.received',
          { status: 'IGNORED', outcome: { reason: 'event type fax.received is not handled' } },
        ],
      ];
      for (const [name, eventType, answer] of scenarios) {
        const input: ChannelEventWorkflowInput = {
          tenantId: 'fixture',
          gatewayCode: 'fixture-gateway',
          eventId: `evt_${name}`,
          eventType,
        };
        answers.set(input.eventId, answer);
        const handle = await env.client.workflow.start<typeof channelEventWorkflow>('channelEventWorkflow', {
          workflowId: channelEventWorkflowId(input.tenantId, input.gatewayCode, input.eventId),
          taskQueue,
          args: [input],
        });
        await handle.result();
        await save(name, await handle.fetchHistory());
      }
    },
  };
}

/**
 * `paymentIntentWorkflow` (docs/processes.md P1): an ACH payment settled, posted and returned (R01);
 * a settlement of another amount sent to reconciliation and resolved POST_AS_SETTLED, then the return window
 * running out. The stand-ins answer as activities/payments/*.ts do. The `local-steps-` scenarios are the same two
 * lives on the path of patch `payment-intent-local-steps` (marking submitted, posting and the look-ups after posting
 * as local activities); `sandbox-settlement-local-rtp-settled-itself` is an RTP intent on the sandbox timeline, which
 * settles itself and records that on the sandbox's books by a local activity (patch
 * `payment-intent-sandbox-settlement-local`).
 */
function paymentIntent(): RecordedProcess {
  const taskQueue = 'record-payment-intent-histories';
  const view = (status: string, extra: Record<string, unknown> = {}) => ({
    paymentId: 1,
    status,
    providerRef: 'sbx_ach_fixture',
    returnCode: null,
    ...extra,
  });
  return {
    taskQueue,
    activities: {
      submitPaymentToRail: async () => ({ providerRef: 'sbx_ach_fixture', status: 'SUBMITTED' }),
      recordSandboxRailEvent: async () => undefined,
      markPaymentSubmitted: async () => view('SUBMITTED'),
      postSettledPayment: async () => view('POSTED'),
      returnPayment: async (input: { returnCode: string }) =>
        view('RETURNED', { returnCode: input.returnCode }),
      failPaymentIntent: async () => view('FAILED'),
      cancelPaymentIntent: async () => view('CANCELLED'),
      openReconciliationException: async () => ({ exception: { exceptionId: 7 }, created: true }),
      resolveReconciliationException: async () => ({ exceptionId: 7, status: 'resolved' }),
      findPendingPromisesOfLoan: async () => ({ promiseIds: [] }),
      findOpenHardshipOffersOfLoan: async () => ({ offerIds: [] }),
    },
    async record(env, save) {
      const today = async () => new Date(await env.currentTimeMs()).toISOString().slice(0, 10);
      const scenarios: [string, string][] = [
        ['ach-settled-then-returned', '100.00'],
        ['settlement-differs-resolved-then-window-closed', '99.50'],
        ['local-steps-settled-then-returned', '100.00'],
        ['local-steps-settlement-differs-resolved-then-window-closed', '99.50'],
      ];
      for (const [name, settledAmount] of scenarios) {
        const input: PaymentIntentWorkflowInput = {
          tenantId: 'fixture',
          paymentId: name.length,
          loanId: 9,
          loanRef: '000000009',
          rail: 'ACH',
          amount: '100.00',
          currency: 'USD',
          effectiveDate: await today(),
          sandboxTimeline: false,
        };
        const handle = await env.client.workflow.start<typeof paymentIntentWorkflow>(
          'paymentIntentWorkflow',
          {
            workflowId: paymentIntentWorkflowId(input.tenantId, `fixture-${name}`),
            taskQueue,
            args: [input],
          },
        );
        for (;;) {
          if ((await handle.query(getPaymentStateQuery)).status === 'SUBMITTED') break;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        const settled = await handle.executeUpdate(railEventUpdate, {
          args: [{ type: 'SETTLED', amount: settledAmount, settledOn: await today() }],
        });
        if (settled.openExceptionId !== null) {
          await handle.executeUpdate(resolveSettlementUpdate, {
            args: [
              {
                exceptionId: settled.openExceptionId,
                resolution: 'POST_AS_SETTLED',
                reason: 'fixture',
                actor: 'ops',
              },
            ],
          });
        } else {
          await handle.executeUpdate(railEventUpdate, {
            args: [{ type: 'RETURNED', returnCode: 'R01', returnedOn: settled.settledOn ?? (await today()) }],
          });
        }
        await handle.result();
        await save(name, await handle.fetchHistory());
      }
      // Patch `payment-intent-sandbox-settlement-local`: an RTP intent on the sandbox timeline settles itself; the
      // settlement is recorded on the sandbox's books by a local activity, then posted, in the timer's task.
      const rtp: PaymentIntentWorkflowInput = {
        tenantId: 'fixture',
        paymentId: 31,
        loanId: 9,
        loanRef: '000000009',
        rail: 'RTP',
        amount: '100.00',
        currency: 'USD',
        effectiveDate: await today(),
        sandboxTimeline: true,
      };
      const selfSettled = await env.client.workflow.start<typeof paymentIntentWorkflow>(
        'paymentIntentWorkflow',
        {
          workflowId: paymentIntentWorkflowId(rtp.tenantId, 'fixture-sandbox-settlement-local'),
          taskQueue,
          args: [rtp],
        },
      );
      await selfSettled.result();
      await save('sandbox-settlement-local-rtp-settled-itself', await selfSettled.fetchHistory());
    },
  };
}

/**
 * `contactConsentUpdateWorkflow` (docs/processes.md P4): the timer fires 3 days later and the update is applied; the
 * timer fires and the update is found superseded by a newer instruction.
 */
function contactConsentUpdate(): RecordedProcess {
  const taskQueue = 'record-contact-consent-update-histories';
  const answers = new Map<number, ContactConsentUpdateOutcome>();
  return {
    taskQueue,
    activities: {
      applyContactConsentUpdate: async (input: { updateId: number }) => {
        const answer = answers.get(input.updateId);
        if (!answer) throw new Error(`no stand-in answer for update ${input.updateId}`);
        return answer;
      },
    },
    async record(env, save) {
      const scenarios: [string, number, ContactConsentUpdateOutcome['status']][] = [
        ['timer-fired-completed', 1, 'COMPLETED'],
        ['timer-fired-superseded', 2, 'SUPERSEDED'],
      ];
      for (const [name, updateId, status] of scenarios) {
        const effectiveAtMs = (await env.currentTimeMs()) + 3 * DAY_MS;
        const input: ContactConsentUpdateWorkflowInput = {
          tenantId: 'fixture',
          updateId,
          caseId: 7,
          customerRef: 'cus_fixture',
          effectiveAt: new Date(effectiveAtMs).toISOString(),
          effectiveAtMs,
        };
        answers.set(updateId, { updateId, status });
        const handle = await env.client.workflow.start<typeof contactConsentUpdateWorkflow>(
          'contactConsentUpdateWorkflow',
          {
            workflowId: contactConsentUpdateWorkflowId(input.tenantId, input.updateId),
            taskQueue,
            args: [input],
          },
        );
        await handle.result();
        await save(name, await handle.fetchHistory());
      }
    },
  };
}

/**
 * `promiseWorkflow` (docs/processes.md P4): kept on a `paymentPosted` signal (a first part read, then
 * the rest); partially kept at the deadline; broken at the deadline. The stand-ins answer as
 * the promise operations (activities/servicing/read-promise-payments.ts, resolve-promise-to-pay.ts) do.
 */
function promise(): RecordedProcess {
  const taskQueue = 'record-promise-histories';
  let paid = '0.00';
  return {
    taskQueue,
    activities: {
      readPromisePayments: async () => ({ paidAmount: paid, status: 'PENDING' }),
      resolvePromiseToPay: async (input: { promiseId: number; outcome: string; paidAmount: string }) => ({
        promiseId: input.promiseId,
        status: input.outcome,
        paidAmount: input.paidAmount,
      }),
    },
    async record(env, save) {
      const scenarios: [name: string, paidBySignal: string[], paidAtDeadline: string][] = [
        ['kept-after-signal', ['40.00', '100.00'], '100.00'],
        ['partially-kept-at-deadline', ['40.00'], '40.00'],
        ['broken-at-deadline', [], '0.00'],
      ];
      for (const [name, paidBySignal, paidAtDeadline] of scenarios) {
        paid = '0.00';
        const input: PromiseWorkflowInput = {
          tenantId: 'fixture',
          promiseId: name.length,
          caseId: 1,
          loanId: 9,
          amount: '100.00',
          currency: 'USD',
          promisedDate: new Date((await env.currentTimeMs()) + 5 * DAY_MS).toISOString().slice(0, 10),
          deadlineAtMs: (await env.currentTimeMs()) + 9 * DAY_MS,
        };
        const handle = await env.client.workflow.start<typeof promiseWorkflow>('promiseWorkflow', {
          workflowId: promiseWorkflowId(input.tenantId, `fixture-${name}`),
          taskQueue,
          args: [input],
        });
        let reads = 0;
        for (const amount of paidBySignal) {
          for (;;) {
            const state = await handle.query(getPromiseStateQuery);
            if (state.hintsReceived === reads && state.paidAmount === paid) break;
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
          await env.sleep(DAY_MS);
          paid = amount;
          await handle.signal(paymentPostedSignal, { paymentId: reads + 1 });
          reads += 1;
        }
        if (paid !== '100.00') {
          for (;;) {
            const state = await handle.query(getPromiseStateQuery);
            if (state.hintsReceived === reads && state.paidAmount === paid) break;
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
        }
        paid = paidAtDeadline;
        await handle.result();
        await save(name, await handle.fetchHistory());
      }
    },
  };
}

/**
 * `tenantStatementCycleWorkflow` and `dailyStatementCycleWorkflow` (docs/processes.md P6): one tenant's run
 * for a date over one page of three candidates: a statement generated, one that already existed (a rerun of the day),
 * one refused by the operation (non-retryable: skipped, the run goes on); the daily fan-out over two tenants in
 * their own time zones, each child running that page. Runs on `lending`, where the daily run's children run.
 */
function statementCycle(): RecordedProcess {
  const taskQueue = taskQueues.lending;
  const dueDate = '2026-12-15';
  return {
    taskQueue,
    activities: {
      listStatementTenants: async () => [
        { tenantId: 'fixture-a', timeZone: 'America/New_York' },
        { tenantId: 'fixture-b', timeZone: 'Pacific/Auckland' },
      ],
      listStatementCandidates: async (input: { afterLoanId: number }) =>
        input.afterLoanId === 0 ? [1, 2, 3].map((loanId) => ({ loanId, dueDate })) : [],
      generateStatement: async (input: { loanId: number }) => {
        if (input.loanId === 3) {
          throw ApplicationFailure.nonRetryable(
            'Loan 3 is CLOSED: no statement.',
            'error.msg.loan.invalid.state.transition',
          );
        }
        return { statement: { statementId: 100 + input.loanId }, created: input.loanId === 1 };
      },
    },
    async record(env, save) {
      const input = { tenantId: 'fixture', asOf: '2026-11-24' };
      const handle = await env.client.workflow.start<typeof tenantStatementCycleWorkflow>(
        'tenantStatementCycleWorkflow',
        { workflowId: tenantStatementCycleWorkflowId(input.tenantId, input.asOf), taskQueue, args: [input] },
      );
      await handle.result();
      await save('tenant-run-generated-existing-skipped', await handle.fetchHistory());
      // 2026-11-24T12:00Z: the 24th in New York, already the 25th in Auckland.
      const daily = await env.client.workflow.start<typeof dailyStatementCycleWorkflow>(
        'dailyStatementCycleWorkflow',
        {
          workflowId: 'statement-cycle-fixture',
          taskQueue,
          args: [{ atMs: Date.parse('2026-11-24T12:00:00Z') }],
        },
      );
      await daily.result();
      await save('daily-two-tenants-in-their-zones', await daily.fetchHistory());
    },
  };
}

/**
 * `hardshipOfferWorkflow` (docs/processes.md P5): approved by the checker (`offerChanged`), a loan
 * change re-evaluated (still eligible), then not accepted → EXPIRED when the validity timer fires; accepted
 * (`offerChanged`), then evidence added a day later (`evidenceAdded`) → APPLIED; accepted without a signal reaching
 * the process → found by the expiry step, no evidence → LAPSED at the document deadline. The stand-ins answer from
 * one in-memory offer row as the hardship offer steps (activities/hardship/, one file per step) do.
 */
function hardshipOffer(): RecordedProcess {
  const taskQueue = 'record-hardship-offer-histories';
  const row = {
    offerId: 0,
    status: 'OFFERED',
    offerExpiresAtMs: null as number | null,
    documentsDueAtMs: null as number | null,
    evidenceOnCase: false,
    reads: 0,
  };
  const progress = (): HardshipOfferProgress => ({
    offerId: row.offerId,
    status: row.status,
    offerExpiresAtMs: row.offerExpiresAtMs,
    documentsDueAtMs: row.documentsDueAtMs,
  });
  return {
    taskQueue,
    activities: {
      readHardshipOfferProgress: async () => {
        row.reads += 1;
        return progress();
      },
      expireHardshipOffer: async () => {
        if (row.status === 'OFFERED' || row.status === 'APPROVED') row.status = 'EXPIRED';
        return progress();
      },
      confirmHardshipEvidence: async (input: { atDeadline: boolean }) => {
        if (row.status === 'AWAITING_DOCUMENTS') {
          if (row.evidenceOnCase) row.status = 'APPLIED';
          else if (input.atDeadline) row.status = 'LAPSED';
        }
        return progress();
      },
      // The loan still qualifies: nothing changes.
      reevaluateHardshipOffer: async () => progress(),
    },
    async record(env, save) {
      const scenarios = ['approved-then-expired', 'accepted-evidence-applied', 'accepted-unsignalled-lapsed'];
      for (const [index, name] of scenarios.entries()) {
        const nowMs = await env.currentTimeMs();
        const routed = name === 'approved-then-expired' ? 'PENDING_APPROVAL' : 'OFFERED';
        Object.assign(row, {
          offerId: index + 1,
          status: routed,
          offerExpiresAtMs: routed === 'OFFERED' ? nowMs + 72 * HOUR_MS : null,
          documentsDueAtMs: null,
          evidenceOnCase: false,
          reads: 0,
        });
        const input: HardshipOfferWorkflowInput = {
          tenantId: 'fixture',
          offerId: row.offerId,
          caseId: 1,
          loanId: 9,
          programCode: 'FORBEAR-3M',
          status: routed,
        };
        const handle = await env.client.workflow.start<typeof hardshipOfferWorkflow>(
          'hardshipOfferWorkflow',
          {
            workflowId: hardshipOfferWorkflowId(input.tenantId, input.offerId),
            taskQueue,
            args: [input],
          },
        );
        const stateOf = () => handle.query(getHardshipOfferStateQuery);
        /** Waits (real time) until the process has read the offer and its state satisfies `done`. */
        const until = async (done: (state: Awaited<ReturnType<typeof stateOf>>) => boolean) => {
          for (;;) {
            if (row.reads > 0 && done(await stateOf())) return;
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
        };
        await until(() => true);
        await env.sleep(HOUR_MS);
        const acceptedAtMs = await env.currentTimeMs();
        const accept = () => {
          row.status = 'AWAITING_DOCUMENTS';
          row.offerExpiresAtMs = null;
          row.documentsDueAtMs = acceptedAtMs + 120 * HOUR_MS;
        };
        if (name === 'approved-then-expired') {
          row.status = 'APPROVED';
          row.offerExpiresAtMs = acceptedAtMs + 48 * HOUR_MS;
          await handle.signal(offerChangedSignal);
          await until((state) => state.status === 'APPROVED');
          await handle.signal(loanChangedSignal, { kind: 'PAYMENT', resourceId: 1 });
          await until((state) => state.reevaluations === 1);
        } else if (name.startsWith('accepted-evidence-applied')) {
          accept();
          await handle.signal(offerChangedSignal);
          await until((state) => state.status === 'AWAITING_DOCUMENTS');
          await env.sleep(DAY_MS);
          row.evidenceOnCase = true;
          await handle.signal(evidenceAddedSignal, { evidenceId: 1 });
        } else {
          accept();
        }
        await handle.result();
        await save(name, await handle.fetchHistory());
      }
    },
  };
}

/**
 * `boardingWorkflow` (docs/processes.md P3): a batch started paused (signal-with-start), resumed, validated
 * in one page per kind, its loans boarded in two chunks, COMPLETED; a batch whose funding belongs to a loan boarded
 * by an earlier batch: two loan chunks, then one funding chunk after the loans, COMPLETED.
 */
function boarding(): RecordedProcess {
  const taskQueue = 'record-boarding-histories';
  /** The scenario being recorded: whether the batch holds a funding of an earlier batch's loan. */
  let laterFunding = false;
  const counts = () => {
    const c = emptyBoardingCounts();
    c.loan = { total: 2, boarded: 0, failed: 0 };
    if (laterFunding) c.funding = { total: 1, boarded: 0, failed: 0 };
    return c;
  };
  let recorded = counts();
  return {
    taskQueue,
    activities: {
      validateBoardingPage: async () => ({ lastLine: null, done: true, checked: 0, failed: 0 }),
      planBoardingChunks: async (input: { kind: string; afterLine: number }) => {
        if (input.kind === 'loan' && input.afterLine === 0)
          return [
            { afterLine: 0, throughLine: 1 },
            { afterLine: 1, throughLine: 2 },
          ];
        if (laterFunding && input.kind === 'funding' && input.afterLine === 0)
          return [{ afterLine: 2, throughLine: 3 }];
        return [];
      },
      boardBoardingChunk: async (input: { kind: string }) =>
        input.kind === 'funding'
          ? { funding: { boarded: 1, failed: 0 } }
          : { loan: { boarded: 1, failed: 0 } },
      recordBoardingProgress: async (input: { counts: ReturnType<typeof counts> | null; status: string }) => {
        if (input.counts) recorded = input.counts;
        else if (input.status === 'RUNNING') {
          recorded = { ...counts(), loan: { total: 2, boarded: 2, failed: 0 } };
          if (laterFunding) recorded.funding = { total: 1, boarded: 1, failed: 0 };
        }
        return recorded;
      },
    },
    async record(env, save) {
      const scenarios: [name: string, laterFunding: boolean, batchId: number][] = [
        ['paused-resumed-completed', false, 1],
        ['earlier-loan-funding-boarded-after-loans', true, 2],
      ];
      for (const [name, withLaterFunding, batchId] of scenarios) {
        laterFunding = withLaterFunding;
        recorded = counts();
        const input: BoardingWorkflowInput = {
          tenantId: 'fixture',
          batchId,
          fileName: 'portfolio.ndjson',
          records: withLaterFunding ? 3 : 2,
          cursor: null,
        };
        const handle = await env.client.workflow.signalWithStart<typeof boardingWorkflow, []>(
          'boardingWorkflow',
          {
            workflowId: `boarding/fixture/${batchId}`,
            taskQueue,
            args: [input],
            signal: pauseSignal,
            signalArgs: [],
          },
        );
        await new Promise((resolve) => setTimeout(resolve, 500));
        await handle.signal(resumeSignal);
        await handle.result();
        await save(name, await handle.fetchHistory());
      }
    },
  };
}

/**
 * `autopayWorkflow` (docs/processes.md P1 Autopay): a first run that waits for the collection date,
 * collects (CREATED), starts the intent's process as an abandoned child, marks its start intent and continues as
 * new; the next run finds nothing left and ends. Runs on `lending`, where the child runs too (its stand-ins submit
 * it; it is terminated once recorded). The stand-ins answer as the autopay operations (activities/payments/plan-autopay-cycle.ts, collect-autopay-installment.ts) do.
 * The `local-steps-` scenarios are the same life on the path of patch `autopay-local-steps` (plan, collection and
 * the start intent's mark as local activities), for another loan and intent; the `cycles-in-run-` one is that life
 * under patch `autopay-cycles-in-run`, one run: collected, the child started, the next plan finds nothing left.
 */
function autopay(): RecordedProcess {
  const taskQueue = taskQueues.lending;
  let plans = 0;
  /** ISO date of the collection, 3 days after the server's date (set by `record`). */
  let collectOn = '';
  /** The intent the collection creates (one per recorded life). */
  let paymentId = 11;
  return {
    taskQueue,
    activities: {
      planAutopayCycle: async (): Promise<AutopayPlan> => {
        plans += 1;
        if (plans > 1) return { kind: 'END', reason: 'NOTHING_LEFT' };
        const dueDate = new Date(Date.parse(collectOn) + 3 * DAY_MS).toISOString().slice(0, 10);
        return { kind: 'COLLECT', enrolmentId: 5, installmentNumber: 1, dueDate, collectOn };
      },
      collectAutopayInstallment: async (input: { tenantId: string }): Promise<AutopayCollection> => ({
        outcome: 'CREATED',
        paymentId,
        workflow: {
          workflowId: paymentIntentWorkflowId(input.tenantId, paymentId),
          input: {
            tenantId: input.tenantId,
            paymentId,
            loanId: 9,
            loanRef: '000000009',
            rail: 'ACH',
            amount: '105.00',
            currency: 'USD',
            effectiveDate: collectOn,
            sandboxTimeline: false,
          },
        },
      }),
      markStartIntentStarted: async () => undefined,
      // The child (paymentIntentWorkflow) submits, then waits for the rail; it is terminated once recorded.
      submitPaymentToRail: async () => ({ providerRef: 'sbx_ach_fixture', status: 'SUBMITTED' }),
      markPaymentSubmitted: async () => ({
        paymentId,
        status: 'SUBMITTED',
        providerRef: 'sbx_ach_fixture',
        returnCode: null,
      }),
      recordSandboxRailEvent: async () => undefined,
    },
    async record(env, save) {
      for (const [prefix, loanId, intentId] of [
        ['', 9, 11],
        ['local-steps-', 10, 12],
        ['cycles-in-run-', 13, 14],
      ] as const) {
        plans = 0;
        paymentId = intentId;
        collectOn = new Date((await env.currentTimeMs()) + 3 * DAY_MS).toISOString().slice(0, 10);
        const input: AutopayWorkflowInput = {
          tenantId: 'fixture',
          loanId,
          loanRef: '000000009',
          enrolmentId: 5,
          lastInstallmentNumber: 0,
        };
        // The collection date lies ahead of the server's clock: the first run waits on its timer.
        const handle = await env.client.workflow.start<typeof autopayWorkflow>('autopayWorkflow', {
          workflowId: `autopay/${input.tenantId}/${input.loanId}`,
          taskQueue,
          args: [input],
        });
        await handle.result();
        if (prefix === 'cycles-in-run-') {
          // Patch `autopay-cycles-in-run`: the next plan runs in the collecting run, which ends there.
          await save(`${prefix}collected-child-started-nothing-left-ended`, await handle.fetchHistory());
        } else {
          await save(
            `${prefix}collected-child-started-continued`,
            await env.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId).fetchHistory(),
          );
          await save(
            `${prefix}nothing-left-ended`,
            await env.client.workflow.getHandle(handle.workflowId).fetchHistory(),
          );
        }
        // The child may have ended already (the test server's skipped time can run out its timeout).
        await env.client.workflow
          .getHandle(paymentIntentWorkflowId(input.tenantId, intentId))
          .terminate('fixture recorded')
          .catch((err: unknown) => {
            if (!(err instanceof WorkflowNotFoundError)) throw err;
          });
      }
    },
  };
}

/**
 * `dailyReconciliationWorkflow` and `tenantReconciliationWorkflow` (docs/processes.md P1
 * "Reconciliation exceptions"): a daily run over two tenants (children on `lending`), one with two findings (one
 * opened, one already open: recurred), one with none; the tenant with findings recorded as its own history too.
 * The stand-ins answer as activities/payments/list-tenants-with-payment-intents.ts,
 * activities/payments/reconcile-rail-settlements.ts and the exceptions operation do.
 */
function dailyReconciliation(): RecordedProcess {
  const taskQueue = taskQueues.lending;
  const findings: Record<string, ReconciliationFinding[]> = {
    'fixture-a': [
      {
        exceptionType: 'UNMATCHED_SETTLEMENT',
        targetType: 'RAIL_SETTLEMENT',
        targetRef: 'sbx_ach_unmatched',
        detail: { providerRef: 'sbx_ach_unmatched', reason: 'no intent', amount: '10.00' },
      },
      {
        exceptionType: 'POSTED_NOT_SETTLED',
        targetType: 'PAYMENT_INTENT',
        targetRef: '7',
        detail: { providerRef: 'sbx_ach_7', reason: 'not in the report', amount: '100.00' },
      },
    ],
    'fixture-b': [],
  };
  return {
    taskQueue,
    activities: {
      listTenantsWithPaymentIntents: async () => Object.keys(findings),
      reconcileRailSettlements: async (input: { tenantId: string }) => ({
        findings: findings[input.tenantId] ?? [],
        linesCompared: 3,
        intentsCompared: 4,
      }),
      // The payment intent 7 was already open from an earlier day: it recurs.
      openReconciliationException: async (input: ReconciliationFinding & { tenantId: string }) => ({
        exception: {
          exceptionId: input.targetRef === '7' ? 70 : 71,
          exceptionType: input.exceptionType,
          targetType: input.targetType,
          targetRef: input.targetRef,
          status: 'open',
          detail: input.detail,
          createdAt: '2026-11-20T11:00:00.000Z',
          lastSeenAt: '2026-11-24T11:00:00.000Z',
        },
        created: input.targetRef !== '7',
      }),
    },
    async record(env, save) {
      const date = '2026-11-23';
      const handle = await env.client.workflow.start<typeof dailyReconciliationWorkflow>(
        'dailyReconciliationWorkflow',
        { workflowId: 'daily-reconciliation-fixture', taskQueue, args: [{ date }] },
      );
      await handle.result();
      await save('daily-two-tenants-opened-recurred', await handle.fetchHistory());
      const child = tenantReconciliationStartSpec({ tenantId: 'fixture-a', from: date, to: date });
      await save(
        'tenant-run-opened-recurred',
        await env.client.workflow.getHandle(child.workflowId).fetchHistory(),
      );
    },
  };
}

/**
 * `boardingRawPurgeWorkflow` (docs/design.md §3 Data rules; domain/boarding/retention.ts): the daily purge over two pages of
 * due batches (the first page full: more to do), then nothing more. The stand-in answers as
 * activities/boarding/purge.ts does.
 */
function boardingPurge(): RecordedProcess {
  const taskQueue = 'record-boarding-purge-histories';
  let pages = 0;
  return {
    taskQueue,
    activities: {
      purgeBoardingRawLines: async () => {
        pages += 1;
        return pages === 1
          ? { batchesPurged: 2, linesPurged: 4_000, more: true }
          : { batchesPurged: 1, linesPurged: 150, more: false };
      },
    },
    async record(env, save) {
      pages = 0;
      const handle = await env.client.workflow.start<typeof boardingRawPurgeWorkflow>(
        'boardingRawPurgeWorkflow',
        {
          workflowId: 'boarding-raw-purge-fixture',
          taskQueue,
          args: [{ retentionDays: 30 }],
        },
      );
      await handle.result();
      await save('two-pages-purged', await handle.fetchHistory());
    },
  };
}

/**
 * `closeOfBusinessWorkflow` and `closeOfBusinessLauncherWorkflow` (docs/processes.md P7 "The run"): a whole-tenant
 * run over five loans in chunks of one, two at a time and two per run, so it continues as new (its first and last
 * runs are kept; loan 3's step fails: COMPLETED_WITH_ERRORS); a run of two named loans; the daily launch at 00:30 in
 * Auckland opening the run of the day before and starting it as an abandoned child (which runs the same stand-ins).
 * Runs on `lending`, where the launcher's child runs. The stand-ins answer as activities/lending/open-cob-run.ts,
 * count-cob-run-loans.ts, plan-cob-chunks.ts, close-cob-chunk.ts and complete-cob-run.ts do.
 */
function closeOfBusiness(): RecordedProcess {
  const taskQueue = taskQueues.lending;
  const dayLoans = [1, 2, 3, 4, 5];
  const chunkOutcome = (ids: number[]) => ({
    closed: ids.filter((id) => id !== 3).length,
    skipped: 0,
    failed: ids.filter((id) => id === 3).length,
  });
  return {
    taskQueue,
    activities: {
      openCobRun: async (input: { tenantId: string; businessDate: string }) => {
        const workflowInput = {
          tenantId: input.tenantId,
          runId: 'cob_fixture',
          businessDate: input.businessDate,
          loanIds: null,
        };
        return {
          run: {
            runId: 'cob_fixture',
            businessDate: input.businessDate,
            status: 'RUNNING',
            loans: { total: 0, processed: 0, failed: 0 },
            startedAt: '2026-11-24T00:30:00.000Z',
            completedAt: null,
            workflowId: closeOfBusinessWorkflowId(input.tenantId, input.businessDate),
            loanIds: null,
          },
          created: true,
          workflow: {
            workflowId: closeOfBusinessWorkflowId(input.tenantId, input.businessDate),
            input: workflowInput,
          },
        };
      },
      countCobRunLoans: async (input: { loanIds: number[] | null }) => ({
        total: input.loanIds ? input.loanIds.length : dayLoans.length,
      }),
      planCobChunks: async (input: { afterLoanId: number; chunkSize: number; chunks: number }) => {
        const ids = dayLoans.filter((id) => id > input.afterLoanId).slice(0, input.chunkSize * input.chunks);
        const ranges: { afterLoanId: number; lastLoanId: number }[] = [];
        let after = input.afterLoanId;
        for (let i = 0; i < ids.length; i += input.chunkSize) {
          const last = ids[Math.min(i + input.chunkSize, ids.length) - 1] as number;
          ranges.push({ afterLoanId: after, lastLoanId: last });
          after = last;
        }
        return { ranges, done: ids.length < input.chunkSize * input.chunks };
      },
      closeCobChunk: async (input: {
        range?: { afterLoanId: number; lastLoanId: number };
        loanIds?: number[];
      }) => {
        const range = input.range;
        const ids = range
          ? dayLoans.filter((id) => id > range.afterLoanId && id <= range.lastLoanId)
          : (input.loanIds ?? []);
        return chunkOutcome(ids);
      },
      completeCobRun: async (input: { runId: string; loans: { failed: number } }) => ({
        runId: input.runId,
        status: input.loans.failed > 0 ? 'COMPLETED_WITH_ERRORS' : 'COMPLETED',
      }),
    },
    async record(env, save) {
      const whole = await env.client.workflow.start<typeof closeOfBusinessWorkflow>(
        'closeOfBusinessWorkflow',
        {
          workflowId: closeOfBusinessWorkflowId('fixture', '2026-11-22'),
          taskQueue,
          args: [
            {
              tenantId: 'fixture',
              runId: 'cob_fixture_whole',
              businessDate: '2026-11-22',
              loanIds: null,
              tuning: { chunkSize: 1, chunksInParallel: 2, chunksPerRun: 2 },
            },
          ],
        },
      );
      await whole.result();
      await save(
        'whole-tenant-chunks-continued',
        await env.client.workflow.getHandle(whole.workflowId, whole.firstExecutionRunId).fetchHistory(),
      );
      await save(
        'whole-tenant-last-run-completed-with-errors',
        await env.client.workflow.getHandle(whole.workflowId).fetchHistory(),
      );
      const named = await env.client.workflow.start<typeof closeOfBusinessWorkflow>(
        'closeOfBusinessWorkflow',
        {
          workflowId: closeOfBusinessWorkflowId('fixture', '2026-11-22', 'cob_fixture_named'),
          taskQueue,
          args: [
            { tenantId: 'fixture', runId: 'cob_fixture_named', businessDate: '2026-11-22', loanIds: [2, 4] },
          ],
        },
      );
      await named.result();
      await save('named-loans-completed', await named.fetchHistory());
      // 2026-11-24 00:30 in Auckland (UTC+13): the run of 2026-11-23.
      const launcher = await env.client.workflow.start<typeof closeOfBusinessLauncherWorkflow>(
        'closeOfBusinessLauncherWorkflow',
        {
          workflowId: 'close-of-business-launch/fixture',
          taskQueue,
          args: [
            { tenantId: 'fixture', timeZone: 'Pacific/Auckland', atMs: Date.parse('2026-11-23T11:30:00Z') },
          ],
        },
      );
      await launcher.result();
      await env.client.workflow.getHandle(closeOfBusinessWorkflowId('fixture', '2026-11-23')).result();
      await save('launcher-opened-started', await launcher.fetchHistory());
    },
  };
}

const processes: Record<string, () => RecordedProcess> = {
  'privacy-request': privacyRequest,
  'webhook-delivery': webhookDelivery,
  'channel-event': channelEvent,
  'payment-intent': paymentIntent,
  promise,
  'contact-consent-update': contactConsentUpdate,
  'statement-cycle': statementCycle,
  'hardship-offer': hardshipOffer,
  boarding,
  autopay,
  'daily-reconciliation': dailyReconciliation,
  'boarding-purge': boardingPurge,
  'close-of-business': closeOfBusiness,
};

const requested = process.argv.slice(2);
const unknown = requested.filter((name) => !(name in processes));
if (unknown.length > 0) {
  process.stderr.write(
    `unknown process ${unknown.join(', ')}; known: ${Object.keys(processes).join(', ')}\n`,
  );
  process.exit(2);
}
const selected = requested.length > 0 ? [...new Set(requested)] : Object.keys(processes);

Runtime.install({ logger: new DefaultLogger('ERROR') });
const env = await TestWorkflowEnvironment.createTimeSkipping({
  server: { executable: { type: 'existing-path', path: resolveTestServer() } },
});
// Children and started processes carry these search attributes: the test server knows only those registered on it.
await env.connection.operatorService.addSearchAttributes({
  namespace: 'default',
  searchAttributes: {
    TenantId: proto.temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
    CustomerRef: proto.temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
    CaseId: proto.temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_INT,
    LoanId: proto.temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  },
});
const folder = path.join(projectRoot, fixturesFolder);
const written: string[] = [];
try {
  for (const name of selected) {
    const recorded = processes[name]!();
    // No payload codec here, on purpose: fixtures keep plain payloads (readable in review, no key to keep), and a
    // worker with the service's codec (workers/payload-codec.ts) replays them unchanged (test/workflows/replay.test.ts).
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: recorded.taskQueue,
      workflowsPath,
      activities: recorded.activities,
    });
    await worker.runUntil(() =>
      recorded.record(env, async (scenario, fetched) => {
        const file = path.join(folder, `${name}-${scenario}.json`);
        // Fixtures are append-only: one recorded before stays as it is (a workflow change is a patch and a new one).
        if (existsSync(file)) {
          process.stdout.write(
            `kept ${path.relative(projectRoot, file)} (recorded before; never re-recorded)\n`,
          );
          return;
        }
        const history = proto.temporal.api.history.v1.History.toObject(
          proto.temporal.api.history.v1.History.fromObject(fetched),
          { longs: String, enums: String, bytes: String, defaults: false },
        );
        await writeFile(file, `${JSON.stringify(history, null, 2)}\n`);
        written.push(file);
        process.stdout.write(`wrote ${path.relative(projectRoot, file)}\n`);
      }),
    );
  }
} finally {
  await env.teardown();
}
if (written.length > 0) {
  execFileSync(path.join(projectRoot, 'node_modules', '.bin', 'biome'), ['format', '--write', ...written], {
    cwd: projectRoot,
    stdio: 'inherit',
  });
  // The formatted bytes are the fixture: their hashes go into their checksum files.
  await writeChecksumFiles(
    folder,
    written.map((file) => path.basename(file)),
  );
}
