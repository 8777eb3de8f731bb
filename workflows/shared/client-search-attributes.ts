/**
 * Typed search-attribute keys every process client sets at start (DESIGN §1: `TenantId` always,
 * `LoanId` / `CustomerRef` / `CaseId` where relevant), registered on the server as
 * `domain/ids.ts` `searchAttributes` lists them. Client-side only: never imported by a workflow.
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

export const tenantIdKey = defineSearchAttributeKey('TenantId', SearchAttributeType.KEYWORD);
export const customerRefKey = defineSearchAttributeKey('CustomerRef', SearchAttributeType.KEYWORD);
export const caseIdKey = defineSearchAttributeKey('CaseId', SearchAttributeType.INT);
export const loanIdKey = defineSearchAttributeKey('LoanId', SearchAttributeType.KEYWORD);
