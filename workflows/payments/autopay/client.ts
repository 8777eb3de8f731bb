/**
 * The typed port to a loan's autopay process (docs/processes.md P0 "one folder per process"; P1 Autopay): the API
 * reaches `autopayWorkflow` only through this. Start options come from `autopayStartSpec` (the same spec
 * `enrolAutopay` stores as its start intent) via `workflows/common/client-start.ts`. Imports `@temporalio/client`:
 * never part of the workflow bundle.
 */
import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import { DomainError } from '../../../domain/errors';
import { autopayWorkflowId } from '../../../domain/ids';
import {
  type AutopayState,
  type AutopayWorkflowInput,
  autopayStartSpec,
} from '../../../domain/payments/autopay';
import { toDomainError } from '../../common/client-errors';
import { workflowStartOptions } from '../../common/client-start';
import { enrolmentChangedSignal, getStateQuery } from './messages';
import type { autopayWorkflow } from './workflow';

/** Which loan's process. */
export interface AutopayProcessRef {
  tenantId: string;
  loanId: number;
}

/** What the API may ask of a loan's autopay process. */
export interface AutopayClient {
  /**
   * Starts the loan's process for a new enrolment (id `autopay/<tenant>/<loanId>`) with signal-with-start: a run
   * still open (a cancelled enrolment's, not yet ended) takes the signal `enrolmentChanged` and re-plans onto the
   * new enrolment instead. Errors: 503 when Temporal is unreachable.
   */
  start(input: AutopayWorkflowInput): Promise<void>;
  /** Tells the process the enrolment changed (signal `enrolmentChanged`); a loan without a running process is a no-op. Errors: 503. */
  enrolmentChanged(ref: AutopayProcessRef): Promise<void>;
  /** The process's state (query `getState`). Errors: 404 when no such workflow exists; 503. */
  state(ref: AutopayProcessRef): Promise<AutopayState>;
}

/** The autopay port over one Temporal client (api/processes.ts). */
export function createAutopayClient(client: Client): AutopayClient {
  const handleOf = (ref: AutopayProcessRef) =>
    client.workflow.getHandle<typeof autopayWorkflow>(autopayWorkflowId(ref.tenantId, ref.loanId));
  return {
    async start(input) {
      try {
        await client.workflow.signalWithStart<typeof autopayWorkflow, []>('autopayWorkflow', {
          ...workflowStartOptions(autopayStartSpec(input)),
          signal: enrolmentChangedSignal,
          signalArgs: [],
        });
      } catch (err) {
        throw toDomainError(err);
      }
    },
    async enrolmentChanged(ref) {
      try {
        await handleOf(ref).signal(enrolmentChangedSignal);
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) return;
        throw toDomainError(err);
      }
    },
    async state(ref) {
      try {
        return await handleOf(ref).query(getStateQuery);
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) {
          throw new DomainError('error.msg.resource.not.found', `Loan ${ref.loanId} has no autopay process.`);
        }
        throw toDomainError(err);
      }
    },
  };
}
