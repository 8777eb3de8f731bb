/**
 * Notes that a privacy request's workflow is running (docs/design.md §5 Privacy-request clocks):
 * `markPrivacyWorkflowStarted`, the workflow's first step. One transaction; repeatable.
 */
import { and, eq, isNull } from 'drizzle-orm';
import { privacyRequests } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import type { Deps } from '../deps';
import type { RequestRef } from './privacy-request-lock';

/**
 * Notes that the request's workflow is running (first step of the workflow; repeatable). Kept for
 * the workflow's recorded histories; restarting missed starts is the start intents' job
 * (activities/platform/start-intents.ts).
 */
export function markPrivacyWorkflowStarted(deps: Deps) {
  return async (input: RequestRef): Promise<void> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      await tx
        .update(privacyRequests)
        .set({ workflowStartedAt: deps.clock() })
        .where(
          and(
            eq(privacyRequests.tenantId, input.tenantId),
            eq(privacyRequests.id, input.requestId),
            isNull(privacyRequests.workflowStartedAt),
          ),
        );
    });
}
