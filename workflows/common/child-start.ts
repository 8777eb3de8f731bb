/**
 * The workflow-side twin of `client-start.ts` (docs/processes.md P0 "one shared helper builds start options"): turns
 * a `WorkflowStartSpec` (domain/workflow-start.ts) into child-workflow options, so a process started as a child
 * (e.g. a payment intent started by `autopayWorkflow`) carries the same id, queue, search attributes, summary and
 * id reuse policy as one started by the API or the start-intent relay. Imports only `@temporalio/common` and
 * `@temporalio/workflow`: safe in the workflow bundle.
 */
import { defineSearchAttributeKey, type SearchAttributePair, SearchAttributeType } from '@temporalio/common';
import { type ChildWorkflowOptions, ParentClosePolicy } from '@temporalio/workflow';
import type { WorkflowStartSpec } from '../../domain/workflow-start';

const keys = {
  TenantId: defineSearchAttributeKey('TenantId', SearchAttributeType.KEYWORD),
  CustomerRef: defineSearchAttributeKey('CustomerRef', SearchAttributeType.KEYWORD),
  CaseId: defineSearchAttributeKey('CaseId', SearchAttributeType.INT),
  LoanId: defineSearchAttributeKey('LoanId', SearchAttributeType.KEYWORD),
} as const;

/**
 * Child options of `spec` for `startChild(spec.workflowType, …)`. The child is ABANDONed when the parent closes
 * or continues as new: it is a process of its own (its lifetime is its business object's), merely started here.
 */
export function childStartOptionsOf<Input>(
  spec: WorkflowStartSpec<Input>,
): ChildWorkflowOptions & { args: [Input] } {
  const pairs: SearchAttributePair[] = [{ key: keys.TenantId, value: spec.tenantId }];
  const { CustomerRef, CaseId, LoanId } = spec.searchAttributes;
  if (CustomerRef !== undefined) pairs.push({ key: keys.CustomerRef, value: CustomerRef });
  if (CaseId !== undefined) pairs.push({ key: keys.CaseId, value: CaseId });
  if (LoanId !== undefined) pairs.push({ key: keys.LoanId, value: LoanId });
  return {
    workflowId: spec.workflowId,
    taskQueue: spec.taskQueue,
    args: [spec.input],
    workflowIdReusePolicy: spec.idReusePolicy,
    typedSearchAttributes: pairs,
    staticSummary: spec.staticSummary,
    parentClosePolicy: ParentClosePolicy.ABANDON,
  };
}
