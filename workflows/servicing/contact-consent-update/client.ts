/**
 * The typed port to the contact-consent-update process (docs/processes.md P0 "one folder per process"; P4): the API
 * reaches `contactConsentUpdateWorkflow` only through this. Start options come from `contactConsentUpdateStartSpec`
 * (the same spec `recordContactConsentUpdate` stores as its start intent) via `workflows/common/client-start.ts`.
 * Imports `@temporalio/client`: never part of the workflow bundle.
 */
import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import { DomainError } from '../../../domain/errors';
import { contactConsentUpdateWorkflowId } from '../../../domain/ids';
import { contactConsentUpdateStartSpec } from '../../../domain/servicing/contact-consent';
import { toDomainError } from '../../common/client-errors';
import { startWorkflowOf } from '../../common/client-start';
import { getProgressQuery } from './messages';
import type { ContactConsentUpdateProgress, ContactConsentUpdateWorkflowInput } from './types';
import type { contactConsentUpdateWorkflow } from './workflow';

export interface ContactConsentUpdateClient {
  /**
   * Starts the timer of a scheduled update (id `contact-consent-update/<tenant>/<updateId>`); a no-op when it
   * already runs or ran. Errors: 503 when Temporal is unreachable.
   */
  start(input: ContactConsentUpdateWorkflowInput): Promise<void>;
  /** The process's progress (query `getProgress`). Errors: 404 when no such workflow exists; 503. */
  progress(ref: { tenantId: string; updateId: number }): Promise<ContactConsentUpdateProgress>;
}

/** The contact-consent-update port over one Temporal client (api/processes.ts). */
export function createContactConsentUpdateClient(client: Client): ContactConsentUpdateClient {
  return {
    async start(input) {
      await startWorkflowOf(client, contactConsentUpdateStartSpec(input));
    },
    async progress(ref) {
      try {
        return await client.workflow
          .getHandle<typeof contactConsentUpdateWorkflow>(
            contactConsentUpdateWorkflowId(ref.tenantId, ref.updateId),
          )
          .query(getProgressQuery);
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) {
          throw new DomainError(
            'error.msg.resource.not.found',
            `Contact-consent update ${ref.updateId} has no process.`,
          );
        }
        throw toDomainError(err);
      }
    },
  };
}
