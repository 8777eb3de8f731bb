/**
 * Servicing context: case types, cases and their effects, tasks, interactions, evidence and
 * privacy requests (docs/servicing.md "Privacy requests in Temporal", "Promises to pay").
 * Case types carry published field definitions, answered by form entries, and cases record contact-consent
 * updates (docs/servicing.md; docs/processes.md P4).
 * Every table is tenant-owned and protected by row-level security (docs/design.md §3).
 * Effects are append-only: the history of every state change of a case and its privacy requests.
 */
import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  date,
  foreignKey,
  index,
  integer,
  jsonb,
  numeric,
  pgEnum,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import type { AnswerChange, Answers, FieldDefinitions } from '../../../domain/servicing/form-fields';
import {
  createdAt,
  identityId,
  instant,
  tenantId,
  tenantIsolation,
  tenantKey,
  tenantReference,
} from '../columns';
import { contactPoints, customers } from '../customers/customers';
import { documents, loans } from '../lending/lending';

export const caseTypes = pgTable(
  'case_types',
  {
    tenantId: tenantId(),
    code: text().notNull(),
    displayName: text().notNull(),
    createdAt: createdAt(),
    /** Idempotency of `POST /v1/servicing/admin/case-types`: `<clientId>/<Idempotency-Key>` when one was sent. */
    requestKey: text(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.code] }),
    uniqueIndex('case_types_tenant_request_key_idx').on(t.tenantId, t.requestKey),
    tenantIsolation('case_types'),
  ],
).enableRLS();

/**
 * Published versions of a case type's field definitions (docs/processes.md P4), append-only: a `PUT` publishes
 * version `max + 1`; form entries name the publication they answer.
 */
export const caseTypeFieldPublications = pgTable(
  'case_type_field_publications',
  {
    id: identityId(),
    tenantId: tenantId(),
    caseTypeCode: text().notNull(),
    /** 1, 2, … per case type. */
    version: integer().notNull(),
    fieldDefinitions: jsonb().notNull().$type<FieldDefinitions>(),
    actorUsername: text(),
    correlationId: text(),
    publishedAt: createdAt(),
    requestKey: text(),
  },
  (t) => [
    tenantKey('case_type_field_publications', t),
    foreignKey({
      name: 'case_type_field_publications_case_type_fk',
      columns: [t.tenantId, t.caseTypeCode],
      foreignColumns: [caseTypes.tenantId, caseTypes.code],
    }),
    uniqueIndex('case_type_field_publications_version_idx').on(t.tenantId, t.caseTypeCode, t.version),
    uniqueIndex('case_type_field_publications_tenant_request_key_idx').on(t.tenantId, t.requestKey),
    tenantIsolation('case_type_field_publications'),
  ],
).enableRLS();

export const caseStatus = pgEnum('case_status', ['OPEN', 'CLOSED']);

export const cases = pgTable(
  'cases',
  {
    id: identityId(),
    tenantId: tenantId(),
    customerRef: text().notNull(),
    caseTypeCode: text().notNull(),
    summary: text().notNull(),
    status: caseStatus().notNull().default('OPEN'),
    outcomeCode: text(),
    closureReason: text(),
    openedAt: createdAt(),
    closedAt: instant(),
    updatedAt: createdAt(),
    /** Idempotency of the create operation: `<clientId>/<Idempotency-Key>` when one was sent. */
    requestKey: text(),
  },
  (t) => [
    tenantKey('cases', t),
    foreignKey({
      name: 'cases_case_type_fk',
      columns: [t.tenantId, t.caseTypeCode],
      foreignColumns: [caseTypes.tenantId, caseTypes.code],
    }),
    index().on(t.tenantId, t.customerRef),
    uniqueIndex('cases_tenant_request_key_idx').on(t.tenantId, t.requestKey),
    tenantIsolation('cases'),
  ],
).enableRLS();

export const caseEffects = pgTable(
  'case_effects',
  {
    id: identityId(),
    tenantId: tenantId(),
    caseId: bigint({ mode: 'number' }).notNull(),
    /** e.g. CASE_OPENED, CASE_CLOSED, TASK_CREATED, PRIVACY_REQUEST_RECEIVED, PRIVACY_REQUEST_OVERDUE. */
    effectType: text().notNull(),
    subjectType: text().notNull(),
    subjectId: text().notNull(),
    detail: jsonb().notNull().$type<Record<string, unknown>>(),
    actorUsername: text(),
    correlationId: text(),
    occurredAt: createdAt(),
    /** Business key that makes a retried write a no-op, e.g. `privacy-request/7/overdue`. */
    dedupeKey: text().notNull(),
  },
  (t) => [
    tenantReference('case_effects_case_fk', t, t.caseId, cases),
    index().on(t.tenantId, t.caseId, t.id),
    uniqueIndex('case_effects_tenant_dedupe_idx').on(t.tenantId, t.dedupeKey),
    tenantIsolation('case_effects'),
  ],
).enableRLS();

export const taskStatus = pgEnum('task_status', ['OPEN', 'COMPLETED', 'CANCELLED']);

export const tasks = pgTable(
  'tasks',
  {
    id: identityId(),
    tenantId: tenantId(),
    caseId: bigint({ mode: 'number' }),
    /** e.g. PRIVACY_REVIEW, PRIVACY_DEADLINE_REMINDER, PRIVACY_ESCALATION. */
    taskType: text().notNull(),
    title: text().notNull(),
    status: taskStatus().notNull().default('OPEN'),
    subjectType: text(),
    subjectId: text(),
    dueAt: instant(),
    createdAt: createdAt(),
    completedAt: instant(),
    completedBy: text(),
    completionNote: text(),
    dedupeKey: text().notNull(),
  },
  (t) => [
    tenantKey('tasks', t),
    tenantReference('tasks_case_fk', t, t.caseId, cases),
    index().on(t.tenantId, t.caseId, t.status, t.id),
    index().on(t.tenantId, t.status, t.id),
    uniqueIndex('tasks_tenant_dedupe_idx').on(t.tenantId, t.dedupeKey),
    tenantIsolation('tasks'),
  ],
).enableRLS();

export const interactionChannel = pgEnum('interaction_channel', [
  'PHONE',
  'SMS',
  'EMAIL',
  'CHAT',
  'LETTER',
  'VOICE',
]);
export const interactionDirection = pgEnum('interaction_direction', ['INBOUND', 'OUTBOUND']);

export const interactions = pgTable(
  'interactions',
  {
    id: identityId(),
    tenantId: tenantId(),
    customerRef: text().notNull(),
    caseId: bigint({ mode: 'number' }),
    channel: interactionChannel().notNull(),
    direction: interactionDirection().notNull(),
    summary: text().notNull(),
    actorUsername: text(),
    occurredAt: createdAt(),
    requestKey: text(),
  },
  (t) => [
    tenantKey('interactions', t),
    tenantReference('interactions_case_fk', t, t.caseId, cases),
    index().on(t.tenantId, t.customerRef),
    uniqueIndex('interactions_tenant_request_key_idx').on(t.tenantId, t.requestKey),
    tenantIsolation('interactions'),
  ],
).enableRLS();

export const evidence = pgTable(
  'evidence',
  {
    id: identityId(),
    tenantId: tenantId(),
    caseId: bigint({ mode: 'number' }).notNull(),
    evidenceType: text().notNull(),
    description: text().notNull(),
    documentId: bigint({ mode: 'number' }),
    actorUsername: text(),
    createdAt: createdAt(),
    requestKey: text(),
  },
  (t) => [
    tenantKey('evidence', t),
    tenantReference('evidence_case_fk', t, t.caseId, cases),
    tenantReference('evidence_document_fk', t, t.documentId, documents),
    index().on(t.tenantId, t.caseId),
    uniqueIndex('evidence_tenant_request_key_idx').on(t.tenantId, t.requestKey),
    tenantIsolation('evidence'),
  ],
).enableRLS();

export const privacyRequestStatus = pgEnum('privacy_request_status', [
  'RECEIVED',
  'ACKNOWLEDGED',
  'IN_PROGRESS',
  'EXTENDED',
  'OVERDUE',
  'FULFILLED',
  'PARTIALLY_FULFILLED',
  'DENIED',
  'DENIED_EXEMPT',
  'WITHDRAWN',
]);

export const privacyRequests = pgTable(
  'privacy_requests',
  {
    id: identityId(),
    tenantId: tenantId(),
    customerRef: text().notNull(),
    requestType: text().notNull(),
    regime: text().notNull(),
    summary: text().notNull(),
    caseId: bigint({ mode: 'number' }).notNull(),
    sourceInteractionId: bigint({ mode: 'number' }).notNull(),
    status: privacyRequestStatus().notNull().default('RECEIVED'),
    receivedAt: instant().notNull(),
    /** ISO date of the due day in `timeZone`. */
    dueDate: text().notNull(),
    statutoryDueAt: instant().notNull(),
    /** The due time as rendered to the integrator, with the zone's offset. */
    statutoryDueAtText: text().notNull(),
    reminderAt: instant().notNull(),
    timeZone: text().notNull(),
    /** Set in the same transaction that creates the request. */
    reviewTaskId: bigint({ mode: 'number' }),
    outcome: text(),
    outcomeReason: text(),
    fulfilledAt: instant(),
    workflowId: text().notNull(),
    /** Set by the workflow's first step (informational; missed starts are the start intents' job). */
    workflowStartedAt: instant(),
    updatedAt: createdAt(),
    requestKey: text(),
  },
  (t) => [
    tenantKey('privacy_requests', t),
    tenantReference('privacy_requests_case_fk', t, t.caseId, cases),
    tenantReference('privacy_requests_interaction_fk', t, t.sourceInteractionId, interactions),
    tenantReference('privacy_requests_review_task_fk', t, t.reviewTaskId, tasks),
    index().on(t.tenantId, t.caseId),
    uniqueIndex('privacy_requests_tenant_request_key_idx').on(t.tenantId, t.requestKey),
    tenantIsolation('privacy_requests'),
  ],
).enableRLS();

export const privacyRequestEvidence = pgTable(
  'privacy_request_evidence',
  {
    tenantId: tenantId(),
    requestId: bigint({ mode: 'number' }).notNull(),
    evidenceId: bigint({ mode: 'number' }).notNull(),
    attachedAt: createdAt(),
  },
  (t) => [
    tenantReference('privacy_request_evidence_request_fk', t, t.requestId, privacyRequests),
    tenantReference('privacy_request_evidence_evidence_fk', t, t.evidenceId, evidence),
    primaryKey({ columns: [t.tenantId, t.requestId, t.evidenceId] }),
    tenantIsolation('privacy_request_evidence'),
  ],
).enableRLS();

/** Answers of a case to one publication of its case type's fields (docs/processes.md P4 Form entries). */
export const formEntries = pgTable(
  'form_entries',
  {
    id: identityId(),
    tenantId: tenantId(),
    caseId: bigint({ mode: 'number' }).notNull(),
    publicationId: bigint({ mode: 'number' }).notNull(),
    /** Field key → answer (domain/servicing/form-fields.ts: strings, booleans; never a float). */
    answers: jsonb().notNull().$type<Answers>(),
    actorUsername: text(),
    createdAt: createdAt(),
    updatedAt: createdAt(),
    requestKey: text(),
  },
  (t) => [
    tenantKey('form_entries', t),
    tenantReference('form_entries_case_fk', t, t.caseId, cases),
    tenantReference('form_entries_publication_fk', t, t.publicationId, caseTypeFieldPublications),
    index().on(t.tenantId, t.caseId, t.id),
    uniqueIndex('form_entries_tenant_request_key_idx').on(t.tenantId, t.requestKey),
    tenantIsolation('form_entries'),
  ],
).enableRLS();

/** Append-only history of a form entry's answers (docs/servicing.md "Case types, field definitions and form entries"; docs/design.md §3). */
export const formEntryHistory = pgTable(
  'form_entry_history',
  {
    id: identityId(),
    tenantId: tenantId(),
    entryId: bigint({ mode: 'number' }).notNull(),
    /** ANSWERS_CREATED, ANSWERS_UPDATED. */
    action: text().notNull(),
    publicationId: bigint({ mode: 'number' }).notNull(),
    changes: jsonb().notNull().$type<AnswerChange[]>(),
    reason: text(),
    actorUsername: text(),
    correlationId: text(),
    occurredAt: createdAt(),
    /** Makes a retried update a no-op: `<clientId>/<Idempotency-Key>` when one was sent. */
    requestKey: text(),
  },
  (t) => [
    tenantReference('form_entry_history_entry_fk', t, t.entryId, formEntries),
    tenantReference('form_entry_history_publication_fk', t, t.publicationId, caseTypeFieldPublications),
    index().on(t.tenantId, t.entryId, t.id),
    uniqueIndex('form_entry_history_tenant_request_key_idx').on(t.tenantId, t.requestKey),
    tenantIsolation('form_entry_history'),
  ],
).enableRLS();

export const contactConsentOperation = pgEnum('contact_consent_operation', [
  'UPDATE_SMS_PERMISSION',
  'UPDATE_EMAIL_PERMISSION',
  'UPDATE_VOICE_PERMISSION',
]);
export const contactConsentUpdateStatus = pgEnum('contact_consent_update_status', [
  'SCHEDULED',
  'COMPLETED',
  'SUPERSEDED',
]);

/**
 * Contact-consent updates (spec `POST /v1/servicing/cases/{caseId}/contact-consent-updates`; docs/processes.md P4):
 * one row per accepted update of one permission (SMS, e-mail, voice) of one contact point, recorded on a case.
 * SCHEDULED until `effective_at` (its workflow `contact-consent-update/<tenant>/<id>` applies it), then COMPLETED,
 * or SUPERSEDED when a newer instruction for the same permission was applied first (domain/servicing/contact-consent.ts).
 */
export const contactConsentUpdates = pgTable(
  'contact_consent_updates',
  {
    id: identityId(),
    tenantId: tenantId(),
    caseId: bigint({ mode: 'number' }).notNull(),
    customerId: bigint({ mode: 'number' }).notNull(),
    customerRef: text().notNull(),
    contactPointId: bigint({ mode: 'number' }).notNull(),
    contactPointRef: text().notNull(),
    operation: contactConsentOperation().notNull(),
    /** The value the permission takes (the body's `canReceiveSms`, `canReceiveEmail` or `canReceiveVoice`). */
    permission: boolean().notNull(),
    effectiveAt: instant().notNull(),
    reason: text().notNull(),
    status: contactConsentUpdateStatus().notNull(),
    /** When it was applied (COMPLETED) or found superseded (SUPERSEDED). */
    resolvedAt: instant(),
    /** What superseded it: `contact-consent-update/<id>` or `consent/<id>` (an SMS opt-out recorded later). */
    supersededBy: text(),
    /** The workflow that applies a SCHEDULED update; null for one applied at once. */
    workflowId: text(),
    actorUsername: text(),
    correlationId: text(),
    createdAt: createdAt(),
    updatedAt: createdAt(),
    requestKey: text(),
  },
  (t) => [
    tenantKey('contact_consent_updates', t),
    tenantReference('contact_consent_updates_case_fk', t, t.caseId, cases),
    tenantReference('contact_consent_updates_customer_fk', t, t.customerId, customers),
    // By (tenant, ref): the contact point's unique key (its id has no tenant-scoped unique key).
    foreignKey({
      name: 'contact_consent_updates_contact_point_fk',
      columns: [t.tenantId, t.contactPointRef],
      foreignColumns: [contactPoints.tenantId, contactPoints.contactPointRef],
    }),
    index('contact_consent_updates_point_operation_idx').on(t.tenantId, t.contactPointId, t.operation, t.id),
    index().on(t.tenantId, t.caseId, t.id),
    uniqueIndex('contact_consent_updates_tenant_request_key_idx').on(t.tenantId, t.requestKey),
    tenantIsolation('contact_consent_updates'),
  ],
).enableRLS();

export const promiseStatus = pgEnum('promise_status', ['PENDING', 'KEPT', 'PARTIALLY_KEPT', 'BROKEN']);

/**
 * Promises to pay (docs/processes.md P4; domain/servicing/promise.ts): an amount promised on a loan by a date,
 * taken on a case. Money is `numeric(19,6)` as in the lending tables; the watch window (value dates
 * `window_start_date`..`window_end_date`) and the deadline are fixed at intake in the tenant's time zone.
 * `paid_amount` and `resolved_at` are written once, by the resolution (PENDING → KEPT | PARTIALLY_KEPT | BROKEN).
 */
export const promises = pgTable(
  'promises',
  {
    id: identityId(),
    tenantId: tenantId(),
    caseId: bigint({ mode: 'number' }).notNull(),
    loanId: bigint({ mode: 'number' }).notNull(),
    amount: numeric({ precision: 19, scale: 6 }).notNull(),
    currencyCode: text().notNull(),
    promisedDate: date({ mode: 'string' }).notNull(),
    channel: interactionChannel().notNull(),
    status: promiseStatus().notNull().default('PENDING'),
    /** Sum of the loan's POSTED payments in the window at resolution; 0 while PENDING. */
    paidAmount: numeric({ precision: 19, scale: 6 }).notNull().default('0'),
    /** ISO dates: the first and last value date that count. */
    windowStartDate: date({ mode: 'string' }).notNull(),
    windowEndDate: date({ mode: 'string' }).notNull(),
    deadlineAt: instant().notNull(),
    /** The deadline as rendered to the integrator, with the zone's offset. */
    deadlineAtText: text().notNull(),
    timeZone: text().notNull(),
    workflowId: text().notNull(),
    actorUsername: text(),
    createdAt: createdAt(),
    resolvedAt: instant(),
    /** Set when resolved for an outcome other than KEPT: the case's follow-up task. */
    followUpTaskId: bigint({ mode: 'number' }),
    updatedAt: createdAt(),
    requestKey: text(),
  },
  (t) => [
    tenantKey('promises', t),
    tenantReference('promises_case_fk', t, t.caseId, cases),
    tenantReference('promises_loan_fk', t, t.loanId, loans),
    tenantReference('promises_follow_up_task_fk', t, t.followUpTaskId, tasks),
    index().on(t.tenantId, t.caseId, t.id),
    /** The PENDING promises of a loan: whom a posted payment signals. */
    index('promises_pending_loan_idx').on(t.tenantId, t.loanId).where(sql`status = 'PENDING'`),
    uniqueIndex('promises_tenant_request_key_idx').on(t.tenantId, t.requestKey),
    tenantIsolation('promises'),
  ],
).enableRLS();
