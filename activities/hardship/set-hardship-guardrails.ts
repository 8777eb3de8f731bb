/**
 * Sets the tenant's hardship guardrails (docs/servicing.md "Hardship policies" `commonGuardrails`;
 * docs/processes.md P5 first bullet): `setHardshipGuardrails` stores the next common-guardrails version in one tenant
 * transaction (docs/conventions.md §5) under the tenant's hardship-policy lock.
 */
import { and, eq } from 'drizzle-orm';
import {
  activeGuardrails,
  type CommonGuardrailsView,
  commonGuardrailsViewOf,
} from '../../db/queries/hardship/hardship-policies';
import { hardshipGuardrailVersions } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import type { HardshipGuardrailSettings } from '../../domain/hardship/policy';
import type { Deps, OperationContext } from '../deps';
import { lockTenantPolicies } from './hardship-policy-writes';

export interface SetHardshipGuardrailsInput extends OperationContext {
  guardrails: HardshipGuardrailSettings;
}

/**
 * Stores the tenant's next guardrails version (1 for the first), active from now (`activatedAt`), and returns the
 * spec's `commonGuardrails`. Programs that the new version invalidates stay as they are; the overview's
 * `portfolioValid` turns false. Idempotent by `requestKey` (a replay returns the version stored first).
 */
export function setHardshipGuardrails(deps: Deps) {
  return async (input: SetHardshipGuardrailsInput): Promise<CommonGuardrailsView> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      await lockTenantPolicies(tx, input.tenantId);
      if (input.requestKey) {
        const [replayed] = await tx
          .select()
          .from(hardshipGuardrailVersions)
          .where(
            and(
              eq(hardshipGuardrailVersions.tenantId, input.tenantId),
              eq(hardshipGuardrailVersions.requestKey, input.requestKey),
            ),
          );
        if (replayed) return commonGuardrailsViewOf(replayed);
      }
      const current = await activeGuardrails(tx, input.tenantId);
      const now = deps.clock();
      const [created] = await tx
        .insert(hardshipGuardrailVersions)
        .values({
          tenantId: input.tenantId,
          version: (current?.version ?? 0) + 1,
          guardrails: input.guardrails,
          activatedAt: now,
          createdAt: now,
          requestKey: input.requestKey ?? null,
        })
        .returning();
      if (!created) throw new Error('hardship guardrails insert returned no row');
      return commonGuardrailsViewOf(created);
    });
}
