/**
 * The closed set of error codes the service returns, each with its HTTP status and default
 * user message, and `DomainError`, the one error type business rules throw.
 *
 * Source: docs/design.md §4 Errors (Shape A codes) and §5 Rejections (the other codes, chosen
 * per RFC 9110: a conflict with the current state is 409, a bad value is 400).
 * `api/errors.ts` turns a DomainError into Shape A (or Shape B); workflows turn it into a
 * non-retryable `ApplicationFailure` whose `type` is the code.
 */

/** One field-level cause (Apache Fineract's `ApiParameterError`, docs/design.md §5). */
export interface FieldError {
  /** Dotted path of the offending input, e.g. `charges[0].amount` or `header.Service-Tenant`. */
  parameterName: string;
  /** The offending value (masked for identifiers), or null when absent. */
  value: unknown;
  developerMessage: string;
  defaultUserMessage: string;
  userMessageGlobalisationCode: string;
  args: unknown[];
}

interface CodeInfo {
  status: 400 | 401 | 403 | 404 | 405 | 409 | 413 | 415 | 422 | 428 | 429 | 500 | 503;
  message: string;
}

/** Every code this service can answer with, and its HTTP status. */
export const errorCodes = {
  'validation.msg.validation.errors.exist': { status: 400, message: 'Validation errors exist.' },
  'validation.msg.cursor.query.mismatch': {
    status: 400,
    message: 'The cursor does not belong to this endpoint and query.',
  },
  'error.msg.not.authenticated': { status: 401, message: 'The request is not authenticated.' },
  'error.msg.not.authorized': { status: 403, message: 'The request is not authorized.' },
  'error.msg.resource.not.found': { status: 404, message: 'The requested resource was not found.' },
  /** A known path asked with a method it does not serve (RFC 9110 §15.5.6); the answer carries `Allow`. */
  'error.msg.method.not.allowed': {
    status: 405,
    message: 'This method is not allowed on this resource; see the Allow header.',
  },
  'idempotency.request.in.flight': {
    status: 409,
    message: 'A request with this Idempotency-Key is still being processed.',
  },
  'idempotency.key.payload.mismatch': {
    status: 422,
    message: 'This Idempotency-Key was used with a different request.',
  },
  'error.msg.rate.limited': { status: 429, message: 'Too many requests.' },
  'error.msg.case.invalid.state.transition': {
    status: 409,
    message: 'The case is not in a state that allows this action.',
  },
  'error.msg.case.customer.mismatch': {
    status: 409,
    message: 'The case belongs to another customer than the record that names it.',
  },
  /** A case closed with an outcome its records do not show (PROMISE_KEPT without a kept promise: docs/processes.md P4). */
  'error.msg.case.outcome.not.grounded': {
    status: 409,
    message: "The case's records do not support this outcome code.",
  },
  'error.msg.interaction.customer.mismatch': {
    status: 409,
    message: 'The interaction belongs to another customer than the record that names it.',
  },
  /** docs/processes.md P4: `POST /v1/servicing/admin/case-types` with a code the tenant already has. */
  'error.msg.case.type.duplicate': {
    status: 409,
    message: 'A case type with this code already exists.',
  },
  /** docs/processes.md P4: a form entry naming a publication of another case type than its case's. */
  'error.msg.form.entry.case.type.mismatch': {
    status: 409,
    message: "The publication belongs to another case type than the case's.",
  },
  /** docs/processes.md P4: closing a case whose form entry lacks answers required ON_CLOSE. */
  'error.msg.case.close.required.answers.missing': {
    status: 409,
    message: 'The case cannot close: its form entry lacks answers required before closing (ON_CLOSE).',
  },
  /** docs/processes.md P4: a contact-consent update whose permission the contact point's type cannot take. */
  'error.msg.contact.point.type.mismatch': {
    status: 409,
    message:
      'The contact point cannot take this permission: SMS and voice apply to PHONE contact points, e-mail to EMAIL ones.',
  },
  'error.msg.task.invalid.state.transition': {
    status: 409,
    message: 'The task is not in a state that allows this action.',
  },
  'error.msg.privacy.request.invalid.state.transition': {
    status: 409,
    message: 'The privacy request is not in a state that allows this action.',
  },
  'error.msg.loan.apr.disclosure.unavailable': {
    status: 409,
    message: 'The APR disclosure cannot be produced, so the loan cannot be approved.',
  },
  'error.msg.loan.disbursement.hold.active': {
    status: 409,
    message: 'A DISBURSEMENT_HOLD is active for the borrower or the loan, so no funding can be recorded.',
  },
  'error.msg.loan.funding.exceeds.approved.principal': {
    status: 409,
    message: 'The fundings of the loan would exceed its approved principal.',
  },
  'error.msg.loan.funding.below.disbursement.charges': {
    status: 409,
    message:
      "The loan's first funding must cover the charges due at disbursement, which are withheld from its proceeds.",
  },
  /** docs/design.md §5 Rejections of a payment intent. */
  'error.msg.loan.payment.hold.active': {
    status: 409,
    message: 'A PAYMENT_HOLD is active for the borrower or the loan, so no payment intent can be created.',
  },
  'error.msg.loan.payment.amount.exceeds.outstanding': {
    status: 409,
    message: "The amount plus the loan's payment intents in flight exceeds its total outstanding.",
  },
  'error.msg.payment.instrument.not.eligible': {
    status: 409,
    message: "The instrument is not verified and active, or is not the borrower's or a co-borrower's.",
  },
  /** docs/processes.md P1: cancel after submission, or a rail event the payment's status does not allow. */
  'error.msg.payment.invalid.state.transition': {
    status: 409,
    message: 'The payment is not in a state that allows this action.',
  },
  /** docs/processes.md P1 Autopay: a second ACTIVE enrolment for one loan (cancel the first). */
  'error.msg.loan.autopay.already.active': {
    status: 409,
    message: 'The loan already has an ACTIVE autopay enrolment; cancel it before enrolling again.',
  },
  'validation.msg.payment.currency.mismatch': {
    status: 400,
    message: "The currency differs from the loan's currency.",
  },
  'error.msg.loan.invalid.state.transition': {
    status: 409,
    message: 'The loan is not in a state that allows this action.',
  },
  'error.msg.external.record.ref.conflict': {
    status: 409,
    message: 'This externalRecordRef was already used with other content.',
  },
  /** Fineract `LoanChargeCannotBeWaivedException` ALREADY_WAIVED: a loan charge is waived once. */
  'error.msg.loan.charge.already.waived': {
    status: 409,
    message: 'This loan charge is already waived.',
  },
  /** Fineract `LoanChargeCannotBeWaivedException` ALREADY_PAID: nothing of the charge is left to waive. */
  'error.msg.loan.charge.already.paid': {
    status: 409,
    message: 'This loan charge is already paid.',
  },
  /** Fineract `LoanWritePlatformServiceJpaRepositoryImpl.chargeOff`: a loan is charged off once. */
  'error.msg.loan.is.already.charged.off': {
    status: 409,
    message: 'The loan is already charged off.',
  },
  /** Fineract `undoChargeOff`: there is no charge-off to undo. */
  'error.msg.loan.is.not.charged.off': {
    status: 409,
    message: 'The loan is not charged off.',
  },
  /** Fineract `undoChargeOff`: money moved after the charge-off, so it cannot be undone. */
  'error.msg.loan.charge.off.is.not.the.last.user.transaction': {
    status: 409,
    message: 'The charge-off cannot be undone: a transaction was recorded after it.',
  },
  /** A charge-off externalId already names another transaction. */
  'error.msg.loan.charge.off.external.id.conflict': {
    status: 409,
    message: 'This externalId already belongs to another charge-off transaction.',
  },
  'error.msg.loan.charge.external.id.conflict': {
    status: 409,
    message: 'This externalId already belongs to another loan charge.',
  },
  'error.msg.loan.external.id.conflict': {
    status: 409,
    message: 'This externalId already belongs to another loan.',
  },
  'error.msg.customer.external.id.conflict': {
    status: 409,
    message: 'This externalId already belongs to another customer.',
  },
  'error.msg.customer.identifier.conflict': {
    status: 409,
    message: 'This identifier is already recorded for another customer.',
  },
  'error.msg.payment.instrument.conflict': {
    status: 409,
    message: 'This providerTokenRef is already recorded with other content.',
  },
  'error.msg.restriction.invalid.state.transition': {
    status: 409,
    message: 'The restriction is not in a state that allows this action.',
  },
  'error.msg.reconciliation.exception.invalid.state.transition': {
    status: 409,
    message: 'The reconciliation exception is not open, so it cannot be resolved.',
  },
  'error.msg.channel.gateway.duplicate': {
    status: 409,
    message: 'A channel gateway with this code already exists.',
  },
  /** docs/processes.md P4: a voice dispatch needs an active version of its workflow (activate one first). */
  'error.msg.voice.workflow.no.active.version': {
    status: 409,
    message: 'The voice workflow has no active version, so no call can be dispatched with it.',
  },
  /** docs/processes.md P6: a reported period sent again with another amount or sourceRef, or a sourceRef reused for another period. */
  'error.msg.merchant.sales.period.conflict': {
    status: 409,
    message: 'Sales for this period (or under this sourceRef) were already reported with other content.',
  },
  /** docs/processes.md P6: a period overlapping a reported period of the advance without being it. */
  'error.msg.merchant.period.overlap': {
    status: 409,
    message: 'The period overlaps a period already reported for this merchant advance.',
  },
  /** docs/processes.md P6: a remittance above the outstanding purchased amount. */
  'error.msg.merchant.remittance.exceeds.outstanding': {
    status: 409,
    message: 'The remittance is above the outstanding purchased amount of the merchant advance.',
  },
  'error.msg.merchant.remittance.invalid.state.transition': {
    status: 409,
    message: 'The remittance is not in a state that allows this action.',
  },
  /** docs/processes.md P5: a hardship relief the loan's schedule cannot take (domain/hardship/relief.ts). */
  'error.msg.hardship.relief.not.applicable': {
    status: 409,
    message:
      "The loan's schedule cannot take this relief: too few open installments, nothing left to recover over, or more than remains outstanding.",
  },
  'error.msg.payload.too.large': { status: 413, message: 'The request body is too large.' },
  /** A body in a media type the route does not take (RFC 9110 §15.5.16), e.g. a boarding upload that is not NDJSON. */
  'error.msg.unsupported.media.type': {
    status: 415,
    message: 'The request body is not in a media type this route takes; see the Content-Type it names.',
  },
  /** docs/processes.md P3: pause, resume or cancel of a boarding batch that has ended (or whose process is gone). */
  'error.msg.boarding.batch.invalid.state.transition': {
    status: 409,
    message: 'The boarding batch is not in a state that allows this action.',
  },
  'error.msg.precondition.required': {
    status: 428,
    message: 'This request must be conditional: send If-Match with the ETag of your last read (RFC 6585 §3).',
  },
  'error.msg.webhook.subscription.version.conflict': {
    status: 409,
    message: 'The webhook subscription changed since the version named in If-Match; read it again.',
  },
  /** docs/processes.md P4: an output sent with `If-Match` naming another version of the AI session (Shape B `version_conflict`). */
  'error.msg.ai.session.version.conflict': {
    status: 409,
    message: 'The AI session changed since the version named in If-Match; read it again.',
  },
  'error.msg.webhook.subscription.invalid.state.transition': {
    status: 409,
    message: 'The webhook subscription is not in a state that allows this action.',
  },
  /** The tenant already has its maximum of ACTIVE webhook subscriptions (domain/webhooks/limits.ts; 100 by default). */
  'error.msg.webhook.subscription.limit.reached': {
    status: 409,
    message: 'The tenant has reached its limit of active webhook subscriptions; deactivate one first.',
  },
  'error.msg.service.unavailable': { status: 503, message: 'A dependency is unavailable; retry later.' },
  'error.msg.internal': { status: 500, message: 'An unexpected error occurred.' },
  /** docs/processes.md P5: `POST /v1/servicing/admin/hardship-programs` with a programCode the tenant already has. */
  'error.msg.hardship.program.duplicate': {
    status: 409,
    message: 'A hardship program with this code already exists.',
  },
  /** docs/processes.md P5: a program version that would break the active hardship guardrails. */
  'error.msg.hardship.program.guardrail.violation': {
    status: 409,
    message: 'The hardship program would break the active hardship guardrails.',
  },
  /** docs/processes.md P5: a new version or retirement of a RETIRED hardship program. */
  'error.msg.hardship.program.invalid.state.transition': {
    status: 409,
    message: 'The hardship program is not in a state that allows this action.',
  },
  /** docs/processes.md P5: a hardship program written before the tenant has set its guardrails. */
  'error.msg.hardship.guardrails.missing': {
    status: 409,
    message: 'The tenant has no hardship guardrails yet: set them before creating programs.',
  },
  /** docs/processes.md P5: approving or rejecting a hardship offer that is not PENDING_APPROVAL. */
  'error.msg.hardship.offer.invalid.state.transition': {
    status: 409,
    message: 'The hardship offer is not in a state that allows this action.',
  },
} as const satisfies Record<string, CodeInfo>;

export type ErrorCode = keyof typeof errorCodes;

/** HTTP status of a code (500 for a code this table does not know). */
export function statusOfCode(code: string): number {
  return (errorCodes as Record<string, CodeInfo>)[code]?.status ?? 500;
}

/** True when `code` is one of ours. */
export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(errorCodes, code);
}

/**
 * A rejected business rule or request. `code` decides the HTTP status (table above);
 * `developerMessage` explains it to the integrator; `errors` lists field causes.
 */
export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly errors: FieldError[];
  /** Seconds the caller should wait before retrying (409 in flight, 429, 503). */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    code: ErrorCode,
    developerMessage?: string,
    options: { errors?: FieldError[]; retryAfterSeconds?: number } = {},
  ) {
    super(developerMessage ?? errorCodes[code].message);
    this.name = 'DomainError';
    this.code = code;
    this.errors = options.errors ?? [];
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  get status(): number {
    return errorCodes[this.code].status;
  }
}

/** Builds one field error with the validation code family (`validation.msg.<resource>.<field>.<rule>`). */
export function fieldError(
  parameterName: string,
  value: unknown,
  developerMessage: string,
  code = 'validation.msg.validation.errors.exist',
  args: unknown[] = [],
): FieldError {
  return {
    parameterName,
    value: value === undefined ? null : value,
    developerMessage,
    defaultUserMessage: developerMessage,
    userMessageGlobalisationCode: code,
    args,
  };
}

/** A 400 with one field cause. */
export function validationError(parameterName: string, value: unknown, message: string): DomainError {
  return new DomainError('validation.msg.validation.errors.exist', message, {
    errors: [fieldError(parameterName, value, message)],
  });
}

/** A 404 that says nothing about whether the resource exists in another tenant (docs/design.md §4 "Scopes and permissions"). */
export function notFound(resource: string, id: string | number): DomainError {
  return new DomainError('error.msg.resource.not.found', `${resource} ${id} was not found.`);
}

/**
 * A 404 for a resource named in a request body (e.g. `caseId`, `documentId`) that is absent or
 * outside the tenant (docs/design.md §4 "Scopes and permissions": another tenant's resource behaves as unavailable),
 * with one field error naming the parameter.
 */
export function referenceNotFound(parameterName: string, value: unknown, resource: string): DomainError {
  // A number names the resource; a text ref is not repeated (it may be identifier-like; docs/design.md §5 Error details).
  const message =
    typeof value === 'number'
      ? `${parameterName}: ${resource} ${value} was not found.`
      : `${parameterName}: the ${resource.toLowerCase()} it names was not found.`;
  return new DomainError('error.msg.resource.not.found', message, {
    errors: [fieldError(parameterName, value, message, 'error.msg.resource.not.found')],
  });
}

/** RFC 6749 §5.2 error codes of the token endpoint. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unsupported_grant_type'
  | 'invalid_scope';

/**
 * A rejected token request, answered as `{error, error_description}` (RFC 6749 §5.2):
 * 401 for `invalid_client` (with `WWW-Authenticate: Basic`), 400 otherwise.
 */
export class OAuthError extends Error {
  readonly error: OAuthErrorCode;
  constructor(error: OAuthErrorCode, description: string) {
    super(description);
    this.name = 'OAuthError';
    this.error = error;
  }
  get status(): 400 | 401 {
    return this.error === 'invalid_client' ? 401 : 400;
  }
}

/** The spec's error Shape A (docs/design.md §4 Errors), as the API answers it and the boarding error report stores it. */
export interface ShapeABody {
  developerMessage: string;
  httpStatusCode: string;
  defaultUserMessage: string;
  userMessageGlobalisationCode: string;
  errors: FieldError[];
}

/** Shape A body of a DomainError. */
export function shapeAOf(err: DomainError): ShapeABody {
  return {
    developerMessage: err.message,
    httpStatusCode: String(err.status),
    defaultUserMessage: errorCodes[err.code].message,
    userMessageGlobalisationCode: err.code,
    errors: err.errors,
  };
}
