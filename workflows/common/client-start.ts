/**
 * The one helper that turns a `WorkflowStartSpec` (domain/workflow-start.ts) into Temporal start
 * options (docs/processes.md P0; docs/conventions.md §9): deterministic id, task queue, `TenantId` always plus
 * the other search attributes, a readable `staticSummary`, the id reuse policy. Used by each
 * process's `client.ts` and by the start-intent relay. Imports `@temporalio/client`: never
 * imported by a `workflow.ts` (.dependency-cruiser.cjs keeps it out of the workflow bundle).
 */
import { type Client, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import {
  defineSearchAttributeKey,
  type SearchAttributePair,
  SearchAttributeType,
  type TypedSearchAttributes,
} from '@temporalio/common';
import type { WorkflowStartSpec } from '../../domain/workflow-start';
import { toDomainError } from './client-errors';

/** Typed keys of the search attributes registered on the server (names and types: domain/ids.ts). */
export const searchAttributeKeys = {
  TenantId: defineSearchAttributeKey('TenantId', SearchAttributeType.KEYWORD),
  CustomerRef: defineSearchAttributeKey('CustomerRef', SearchAttributeType.KEYWORD),
  CaseId: defineSearchAttributeKey('CaseId', SearchAttributeType.INT),
  LoanId: defineSearchAttributeKey('LoanId', SearchAttributeType.KEYWORD),
} as const;

/** The typed search attributes of `spec`: `TenantId` always, the others when given. */
export function typedSearchAttributesOf(spec: WorkflowStartSpec): SearchAttributePair[] {
  const pairs: SearchAttributePair[] = [{ key: searchAttributeKeys.TenantId, value: spec.tenantId }];
  const { CustomerRef, CaseId, LoanId } = spec.searchAttributes;
  if (CustomerRef !== undefined) pairs.push({ key: searchAttributeKeys.CustomerRef, value: CustomerRef });
  if (CaseId !== undefined) pairs.push({ key: searchAttributeKeys.CaseId, value: CaseId });
  if (LoanId !== undefined) pairs.push({ key: searchAttributeKeys.LoanId, value: LoanId });
  return pairs;
}

/** Start options of `spec` for `client.workflow.start` and `WithStartWorkflowOperation`. */
export function workflowStartOptions<Input>(spec: WorkflowStartSpec<Input>) {
  return {
    workflowId: spec.workflowId,
    taskQueue: spec.taskQueue,
    args: [spec.input] as [Input],
    workflowIdReusePolicy: spec.idReusePolicy,
    typedSearchAttributes: typedSearchAttributesOf(spec) as SearchAttributePair[] | TypedSearchAttributes,
    staticSummary: spec.staticSummary,
  };
}

/**
 * Starts the workflow of `spec` by type name. Idempotent: a workflow already running or run
 * under the same id counts as started (deterministic ids). Returns true when this call started it, false when it
 * already existed. Errors: DomainError 503 when Temporal is unreachable (`toDomainError`).
 */
export async function startWorkflowOf(client: Client, spec: WorkflowStartSpec): Promise<boolean> {
  try {
    await client.workflow.start(spec.workflowType, workflowStartOptions(spec));
    return true;
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return false;
    throw toDomainError(err);
  }
}

/** True when the Temporal frontend answers (`GetSystemInfo`). */
export async function pingTemporal(client: Client): Promise<boolean> {
  try {
    await client.workflowService.getSystemInfo({});
    return true;
  } catch {
    return false;
  }
}
