/**
 * Replays recorded histories (test/workflows/histories/, written by
 * `npx tsx scripts/record-workflow-history.ts [process…]`) against today's workflow bundle: every
 * `*.json` there is replayed, so a change that would break workflows already running
 * (non-determinism) fails here, not in production (docs/conventions.md §7, docs/design.md §7). For each process one
 * mutated history (an activity renamed) must fail replay, proving the check can fail. The fixtures are append-only
 * (fixtures-append-only.test.ts): a behaviour change goes behind `patched()`, and each such patch has a fixture
 * recorded before it (no marker: the old path) and one recorded with it.
 */
import { readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import proto from '@temporalio/proto';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { temporalDataConverter } from '../../workers/payload-codec';
import {
  queueWorkflowsPaths,
  workflowInterceptorModulesFor,
  workflowsPath,
} from '../../workers/queue-worker';
import { workflowSpanSinks } from '../../workers/tracing';
import { testSecrets } from '../support/context';

/**
 * Workers replay with the service's payload codec (workers/payload-codec.ts); the fixtures were recorded before
 * encryption, with plain payloads, which the codec passes through unchanged.
 */
const dataConverter = temporalDataConverter(testSecrets.temporalPayloadKeys);

const folder = path.join(path.dirname(new URL(import.meta.url).pathname), 'histories');

/**
 * The bundle a worker runs with tracing off: without OpenTelemetry's workflow interceptors (workers/queue-worker.ts
 * `workflowInterceptorModulesFor`). The fixtures were recorded with the traced bundle (the run's shared one), so
 * replaying them with both proves a workflow started under one setting continues under the other.
 */
let untracedBundle: { code: string };

/**
 * Each task queue entry's bundles (workers/queue-worker.ts `queueWorkflowsPaths`), untraced and traced: a fixture
 * replays with the bundles of the queue its workflow runs on, as that queue's worker would replay it.
 */
let queueBundles: { entry: string; untraced: { code: string }; traced: { code: string } }[] = [];

/** The bundles of the queue entry that exports `workflowType`. */
function queueBundlesOf(workflowType: string) {
  const found = queueBundles.find((b) => b.untraced.code.includes(`function ${workflowType}(`));
  if (!found) throw new Error(`no task queue bundle exports ${workflowType}`);
  return found;
}

beforeAll(async () => {
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // A runtime is already installed in this process.
  }
  const quiet = { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} } as never;
  const bundle = await bundleWorkflowCode({
    workflowsPath,
    workflowInterceptorModules: workflowInterceptorModulesFor(false),
    logger: quiet,
  });
  untracedBundle = { code: bundle.code };
  queueBundles = await Promise.all(
    [...new Set(Object.values(queueWorkflowsPaths))].map(async (entry) => {
      const [untraced, traced] = await Promise.all(
        [false, true].map((on) =>
          bundleWorkflowCode({
            workflowsPath: entry,
            workflowInterceptorModules: workflowInterceptorModulesFor(on),
            logger: quiet,
          }),
        ),
      );
      return { entry, untraced: { code: untraced?.code ?? '' }, traced: { code: traced?.code ?? '' } };
    }),
  );
}, 240_000);

async function loadHistory(file: string) {
  const json = JSON.parse(await readFile(path.join(folder, file), 'utf8'));
  return proto.temporal.api.history.v1.History.fromObject(json);
}

describe('recorded workflow histories', async () => {
  const files = (await readdir(folder)).filter((f) => f.endsWith('.json')).sort();

  it('has fixtures to replay', () => {
    expect(files).toContain('privacy-request-fulfilled-early.json');
    expect(files).toContain('privacy-request-overdue-then-fulfilled.json');
    expect(files).toContain('privacy-request-stuck-fulfilment-superseded.json');
    expect(files).toContain('webhook-delivery-retried-then-succeeded.json');
    expect(files).toContain('webhook-delivery-cancelled-while-waiting.json');
    expect(files).toContain('webhook-delivery-capacity-woken-then-succeeded-woke-another.json');
    expect(files).toContain('channel-event-sms-opt-out-processed.json');
    expect(files).toContain('channel-event-unknown-type-ignored.json');
    expect(files).toContain('payment-intent-ach-settled-then-returned.json');
    expect(files).toContain('payment-intent-settlement-differs-resolved-then-window-closed.json');
    expect(files).toContain('promise-kept-after-signal.json');
    expect(files).toContain('promise-partially-kept-at-deadline.json');
    expect(files).toContain('promise-broken-at-deadline.json');
    expect(files).toContain('hardship-offer-approved-then-expired.json');
    expect(files).toContain('hardship-offer-accepted-evidence-applied.json');
    expect(files).toContain('hardship-offer-accepted-unsignalled-lapsed.json');
    expect(files).toContain('boarding-paused-resumed-completed.json');
    expect(files).toContain('boarding-earlier-loan-funding-boarded-after-loans.json');
    expect(files).toContain('autopay-collected-child-started-continued.json');
    expect(files).toContain('autopay-nothing-left-ended.json');
    expect(files).toContain('daily-reconciliation-daily-two-tenants-opened-recurred.json');
    expect(files).toContain('daily-reconciliation-tenant-run-opened-recurred.json');
    expect(files).toContain('statement-cycle-daily-two-tenants-in-their-zones.json');
    expect(files).toContain('boarding-purge-two-pages-purged.json');
  });

  /** The patch ids whose markers a history holds (Temporal's `core_patch` markers; JSON payloads). */
  const patchesOf = (history: Awaited<ReturnType<typeof loadHistory>>) =>
    (history.events ?? []).flatMap((event) => {
      const marker = event.markerRecordedEventAttributes;
      if (marker?.markerName !== 'core_patch') return [];
      const data = marker.details?.['patch-data']?.payloads?.[0]?.data;
      return data ? [(JSON.parse(Buffer.from(data).toString('utf8')) as { id: string }).id] : [];
    });

  it.each([
    ['webhook-endpoint-breaker', 'webhook-delivery-retried-then-succeeded.json', 'before'],
    ['webhook-endpoint-breaker', 'webhook-delivery-breaker-waited-then-succeeded.json', 'with'],
    ['webhook-admission-wake', 'webhook-delivery-breaker-waited-then-succeeded.json', 'before'],
    ['webhook-admission-wake', 'webhook-delivery-capacity-woken-then-succeeded-woke-another.json', 'with'],
  ] as const)('patch %s: %s was recorded %s it', async (patch, file, side) => {
    // Both sides of the patch replay above: executions from before it, and executions that took it.
    expect(patchesOf(await loadHistory(file)).includes(patch)).toBe(side === 'with');
  });

  it('leaves the OpenTelemetry workflow interceptors out of the untraced bundle only', () => {
    // The OpenTelemetry SDK the interceptors bring in (the Temporal SDK's own flags name the interceptor package).
    expect(untracedBundle.code).not.toContain('sdk-trace-base');
    expect(readFileSync(inject('workflowBundlePath'), 'utf8')).toContain('sdk-trace-base');
  });

  it.each(files)('replays %s without non-determinism', async (file) => {
    const history = await loadHistory(file);
    const workflowId = `replay-${file}`;
    const workflowType =
      history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name ?? '';
    const own = queueBundlesOf(workflowType);
    const replays: [string, { code: string } | { codePath: string }][] = [
      // With tracing off: the bundles without the OpenTelemetry workflow interceptors.
      ['untraced', untracedBundle],
      ['queue-untraced', own.untraced],
      // The bundles carrying the OpenTelemetry workflow interceptors (workers/queue-worker.ts); their sink, as workers have it.
      ['traced', { codePath: inject('workflowBundlePath') }],
      ['queue-traced', own.traced],
    ];
    for (const [label, workflowBundle] of replays) {
      await expect(
        Worker.runReplayHistory(
          { workflowBundle, sinks: workflowSpanSinks(), dataConverter },
          history,
          `${workflowId}-${label}`,
        ),
        `${file} with the ${label} bundle (${own.entry})`,
      ).resolves.toBeUndefined();
    }
  });

  it('replays with a queue bundle only the workflows of its queue', () => {
    expect(queueBundlesOf('autopayWorkflow').entry).toMatch(/queues\/lending\.ts$/);
    expect(queueBundlesOf('promiseWorkflow').entry).toMatch(/queues\/servicing\.ts$/);
    expect(queueBundlesOf('autopayWorkflow').untraced.code).not.toContain('function promiseWorkflow(');
  });

  it.each([
    ['privacy-request-overdue-then-fulfilled.json', 'raisePrivacyReminder'],
    ['privacy-request-stuck-fulfilment-superseded.json', 'fulfilPrivacyRequest'],
    ['channel-event-sms-opt-out-processed.json', 'processChannelEvent'],
    ['payment-intent-ach-settled-then-returned.json', 'postSettledPayment'],
    ['promise-kept-after-signal.json', 'readPromisePayments'],
    ['hardship-offer-approved-then-expired.json', 'expireHardshipOffer'],
    ['hardship-offer-accepted-evidence-applied.json', 'confirmHardshipEvidence'],
    ['boarding-paused-resumed-completed.json', 'boardBoardingChunk'],
    ['boarding-earlier-loan-funding-boarded-after-loans.json', 'planBoardingChunks'],
    ['autopay-collected-child-started-continued.json', 'collectAutopayInstallment'],
    ['daily-reconciliation-tenant-run-opened-recurred.json', 'openReconciliationException'],
    ['statement-cycle-daily-two-tenants-in-their-zones.json', 'listStatementTenants'],
    ['boarding-purge-two-pages-purged.json', 'purgeBoardingRawLines'],
  ])('detects a change that would break a running workflow (%s, %s renamed)', async (file, activity) => {
    const history = await loadHistory(file);
    // Same history, but the recorded activity renamed: the workflow code no longer matches.
    let renamed = 0;
    for (const event of history.events ?? []) {
      const scheduled = event.activityTaskScheduledEventAttributes;
      if (scheduled?.activityType?.name === activity) {
        scheduled.activityType.name = 'someOtherActivity';
        renamed += 1;
      }
    }
    expect(renamed).toBeGreaterThan(0);
    await expect(
      Worker.runReplayHistory(
        {
          workflowBundle: { codePath: inject('workflowBundlePath') },
          sinks: workflowSpanSinks(),
          dataConverter,
        },
        history,
        `replay-mutated-${file}`,
      ),
    ).rejects.toThrow();
  });
});
