/**
 * Opens a close-of-business run (docs/processes.md P7 "The run"; Apache Fineract's Loan COB job started by hand or
 * by its schedule): `POST /v1/cob/runs`, `npm run admin -- cob run` and the daily launcher
 * (workflows/lending/close-of-business/) all come through here.
 */
import { randomBytes } from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';
import { existingLoanIds, type StoredCobRun, storedCobRun } from '../../db/queries/lending/cob-runs';
import { tenantToday } from '../../db/queries/lending/delinquency';
import { cobRuns } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { validationError } from '../../domain/errors';
import {
  type CloseOfBusinessInput,
  closeOfBusinessStartSpec,
  cobDayHasEnded,
} from '../../domain/lending/cob-runs';
import type { Deps } from '../deps';
import { recordStartIntent } from '../platform/start-intents';

/** Input of `openCobRun`. */
export interface OpenCobRunInput {
  tenantId: string;
  /** ISO date D to close; it must have ended in the tenant's time zone. */
  businessDate: string;
  /** The loans to close (positive ids of the tenant's loans), or null/absent for every loan active on D. */
  loanIds?: number[] | null;
}

/** What `openCobRun` did: the run, whether it is new, and the start of its workflow. */
export interface OpenCobRunResult {
  run: StoredCobRun;
  /** False when the whole-tenant run of D already existed (it is answered unchanged). */
  created: boolean;
  workflow: { workflowId: string; input: CloseOfBusinessInput };
}

/** A new opaque run id: `cob_` and 24 hexadecimal digits (96 random bits). */
function newCobRunId(): string {
  return `cob_${randomBytes(12).toString('hex')}`;
}

/**
 * Stores a RUNNING run of day D and the start intent of its workflow (one tenant transaction; the start intent's
 * relay starts it should the caller not, docs/processes.md P0). The whole-tenant run (no `loanIds`) is unique per
 * tenant and day: asked again, it answers the stored run with `created: false` and writes nothing. A run for
 * `loanIds` (deduplicated, ascending) is a new run each time, workflow `close-of-business/<tenant>/<D>/<runId>`.
 * Errors: 400 `validation.msg.validation.errors.exist` naming `businessDate` when D is not before the tenant's today
 * (compliance time zone), or `loanIds` when one names no loan of the tenant.
 */
export function openCobRun(deps: Deps) {
  return async (input: OpenCobRunInput): Promise<OpenCobRunResult> => {
    const now = deps.clock();
    const loanIds = input.loanIds ? [...new Set(input.loanIds)].sort((a, b) => a - b) : null;
    return withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const today = await tenantToday(tx, input.tenantId, now);
      if (!cobDayHasEnded(input.businessDate, today)) {
        throw validationError(
          'businessDate',
          input.businessDate,
          `businessDate must be a day that has ended: before ${today} in the tenant's time zone.`,
        );
      }
      if (loanIds !== null) {
        const known = await existingLoanIds(tx, input.tenantId, loanIds);
        const unknown = loanIds.filter((id) => !known.has(id));
        if (unknown.length > 0) {
          throw validationError(
            'loanIds',
            unknown,
            `loanIds names no loan of the tenant: ${unknown.join(', ')}.`,
          );
        }
      }
      const runId = newCobRunId();
      const workflowInput: CloseOfBusinessInput = {
        tenantId: input.tenantId,
        runId,
        businessDate: input.businessDate,
        loanIds,
      };
      const spec = closeOfBusinessStartSpec(workflowInput);
      const [inserted] = await tx
        .insert(cobRuns)
        .values({
          tenantId: input.tenantId,
          runId,
          businessDate: input.businessDate,
          loanIds,
          workflowId: spec.workflowId,
          startedAt: now,
        })
        .onConflictDoNothing({
          target: [cobRuns.tenantId, cobRuns.businessDate],
          where: isNull(cobRuns.loanIds),
        })
        .returning();
      if (inserted) {
        await recordStartIntent(tx, spec, now);
        return {
          run: storedCobRun(inserted),
          created: true,
          workflow: { workflowId: spec.workflowId, input: workflowInput },
        };
      }
      const [existing] = await tx
        .select()
        .from(cobRuns)
        .where(
          and(
            eq(cobRuns.tenantId, input.tenantId),
            eq(cobRuns.businessDate, input.businessDate),
            isNull(cobRuns.loanIds),
          ),
        );
      if (!existing) throw new Error('the whole-tenant run conflicted but cannot be read');
      const run = storedCobRun(existing);
      return {
        run,
        created: false,
        workflow: {
          workflowId: run.workflowId,
          input: {
            tenantId: input.tenantId,
            runId: run.runId,
            businessDate: run.businessDate,
            loanIds: null,
          },
        },
      };
    });
  };
}
