/**
 * Boards one chunk of staged lines of one kind (portfolio boarding, docs/processes.md P3) through the route
 * operations, idempotent by source keys: `boardBoardingChunk`.
 */

import { type Tx, withTenantTransaction } from '../../db/tenant-tx';
import type { BoardingKind } from '../../domain/boarding/batch';
import { type ShapeABody, shapeAOf } from '../../domain/errors';
import { externalFundingOf } from '../../domain/lending/schemas/fundings';
import { chargeDefinitionOf, loanProductDefinitionOf } from '../../domain/lending/schemas/products';
import { externalPaymentOf } from '../../domain/payments/schemas/recorded-payments';
import { createCustomerActivities } from '../customers';
import type { BoardCustomerInput, BoardCustomerResult } from '../customers/board-customer';
import { boardCustomerInTx } from '../customers/board-customer';
import {
  CustomerHistoryBuffer,
  type CustomerWriteBuffers,
  flushCustomerWrites,
  lockCustomers,
} from '../customers/records';
import { verifyPaymentInstrumentInTx } from '../customers/verify-payment-instrument';
import type { Deps } from '../deps';
import { createLendingActivities } from '../lending';
import { type BoardLoanInput, type BoardLoanResult, boardLoanInTx } from '../lending/board-loan';
import {
  flushLoanChunk,
  type LoanChunk,
  type LoanChunkRefs,
  openLoanChunk,
  rollbackToMark,
  savepointMark,
} from '../lending/loan-chunk';
import type { RecordExternalPaymentHistoryResult } from '../lending/record-external-payment-history';
import { OutboxBuffer, withEventOrigin } from '../platform/outbox';
import { boardingRequestKey, lineError, lineShape, loanNotBoarded, underBody } from './line-mappers';
import { type BoardingBody, bodyReferenceError, parseLineBody } from './line-schemas';
import {
  type BoardedRef,
  type LineOutcome,
  readChildLines,
  readLines,
  readSourceRefs,
  refKey,
  type StagedLine,
  writeOutcomes,
} from './lines';
import type { BoardingChunk } from './plan-boarding-chunks';

export interface BoardBoardingChunkInput extends BoardingChunk {
  tenantId: string;
  batchId: number;
  /** charge, loanProduct, customer, restriction, loan (with its fundings and payments) or verification. */
  kind: BoardingKind;
}

/** Lines boarded and failed by one call, per kind (a hint for progress; the batch's counts are recounted). */
export type BoardingCountsDelta = Partial<Record<BoardingKind, { boarded: number; failed: number }>>;

/**
 * Boards one chunk of lines of one kind (portfolio boarding, docs/processes.md P3) through the same
 * operations the routes use (`createActivities` members), in line order:
 * - `charge` → createCharge; `loanProduct` → createLoanProduct (charges by their boarded source refs);
 * - `customer` → createCustomer (externalId default the sourceRef), then addCustomerIdentifier, recordCustomerConsent
 *   and addPaymentInstrument for each item (instrument source refs recorded as kind `paymentInstrument`,
 *   `<customerSourceRef>/<instrumentSourceRef>`);
 * - `restriction` → applyRestriction; `verification` → verifyPaymentInstrument;
 * - `funding` / `payment` lines still PENDING after the loans (their loan boarded by an earlier batch) → by loan,
 *   as below;
 * - `loan` → loan by loan: createLoan (externalId default the sourceRef), approveLoan while SUBMITTED (on
 *   `approval` or else its submittedOnDate for the full principal), recordExternalFunding per funding line (by
 *   fundingDate), then recordExternalPaymentHistory with all its payment lines in chronological order (one
 *   allocation and ledger repost per loan). A loan that fails fails its funding and payment lines with it; a bad
 *   funding or payment fails alone. One loan's failure never stops the chunk.
 *
 * Idempotent by source keys: every operation gets `requestKey` `boarding/<kind>/<sourceRef>` (or is deduplicated by
 * its own key: identifiers by value, instruments by token, fundings and payments by `externalRecordRef`, default the
 * sourceRef), so an activity retried after a crash returns what the first attempt created. A (kind, sourceRef)
 * already in `boarding_source_refs` (a retry, or the same file uploaded again as a new batch) is not boarded again:
 * the line ends BOARDED with the existing `resourceId`. The lines' outcomes and the new source refs are written in
 * one transaction at the end of the chunk. A 4xx DomainError fails its line (Shape A in `error`); any other error
 * fails the call (Temporal retries it).
 *
 * Every event the chunk's operations write is marked `source` `BOARDING` with the batch id (`withEventOrigin`), so
 * that only subscriptions with `includeBoardedHistory` receive the migrated history (workers/outbox-relay.ts).
 */
export function boardBoardingChunk(deps: Deps) {
  const ops = { ...createLendingActivities(deps), ...createCustomerActivities(deps) };
  return (input: BoardBoardingChunkInput): Promise<BoardingCountsDelta> =>
    withEventOrigin({ source: 'BOARDING', boardingBatchId: input.batchId }, () => boardChunk(input));

  async function boardChunk(input: BoardBoardingChunkInput): Promise<BoardingCountsDelta> {
    const where = { tenantId: input.tenantId, batchId: input.batchId };
    const actor = `boarding-batch-${input.batchId}`;
    const context = { tenantId: input.tenantId, actor };
    const lines = await withTenantTransaction(deps.db, input.tenantId, (tx) =>
      readLines(tx, {
        ...where,
        dataEncryptionKey: deps.dataEncryptionKey,
        kind: input.kind,
        afterLine: input.afterLine,
        throughLine: input.throughLine,
      }),
    );
    const children =
      input.kind === 'loan'
        ? await withTenantTransaction(deps.db, input.tenantId, (tx) =>
            readChildLines(tx, {
              ...where,
              kinds: ['funding', 'payment'],
              parentSourceRefs: lines.map((l) => l.sourceRef),
            }),
          )
        : [];
    const allLines = [...lines, ...children];
    const known = await withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const refs: { kind: string; sourceRef: string }[] = allLines.map((l) => ({
        kind: l.kind,
        sourceRef: l.sourceRef,
      }));
      for (const line of lines) {
        if ((line.kind === 'funding' || line.kind === 'payment') && line.parentSourceRef) {
          refs.push({ kind: 'loan', sourceRef: line.parentSourceRef });
        }
        const body = line.body as Record<string, unknown> | undefined;
        for (const ref of (body?.chargeSourceRefs as string[] | undefined) ?? [])
          refs.push({ kind: 'charge', sourceRef: ref });
        if (typeof body?.nsfChargeSourceRef === 'string')
          refs.push({ kind: 'charge', sourceRef: body.nsfChargeSourceRef });
        for (const c of (body?.charges as { chargeSourceRef?: string }[] | undefined) ?? []) {
          if (typeof c?.chargeSourceRef === 'string')
            refs.push({ kind: 'charge', sourceRef: c.chargeSourceRef });
        }
        if (typeof body?.customerSourceRef === 'string')
          refs.push({ kind: 'customer', sourceRef: body.customerSourceRef });
        if (typeof body?.productSourceRef === 'string')
          refs.push({ kind: 'loanProduct', sourceRef: body.productSourceRef });
        if (input.kind === 'verification' && typeof body?.instrumentSourceRef === 'string') {
          refs.push({
            kind: 'paymentInstrument',
            sourceRef: `${body.customerSourceRef}/${body.instrumentSourceRef}`,
          });
        }
      }
      return readSourceRefs(tx, input.tenantId, refs);
    });
    const outcomes: LineOutcome[] = [];
    const boarded: BoardedRef[] = [];
    const idOf = (kind: string, ref: string): number | undefined => known.get(refKey(kind, ref));
    const done = (line: StagedLine, resourceId: number, extra: BoardedRef[] = []) => {
      outcomes.push({ lineNo: line.lineNo, state: 'BOARDED', resourceId, error: null });
      boarded.push({ kind: line.kind, sourceRef: line.sourceRef, resourceId }, ...extra);
      known.set(refKey(line.kind, line.sourceRef), resourceId);
    };
    const fail = (line: StagedLine, error: ShapeABody) =>
      outcomes.push({ lineNo: line.lineNo, state: 'FAILED', resourceId: null, error });
    const missing = (field: string, ref: string, what: string) =>
      bodyReferenceError(field, ref, `${field} ${ref}: the ${what} was not boarded.`);

    const boardOne = async (line: StagedLine): Promise<void> => {
      const existing = idOf(line.kind, line.sourceRef);
      // A boarded loan still boards the fundings and payments it does not have yet (boardLoan).
      if (existing !== undefined && line.kind !== 'loan') {
        outcomes.push({ lineNo: line.lineNo, state: 'BOARDED', resourceId: existing, error: null });
        return;
      }
      const parsed = parseLineBody(line.kind, line.body);
      if (!parsed.ok) return void fail(line, shapeAOf(parsed.error));
      const requestKey = boardingRequestKey(line.kind, line.sourceRef);
      switch (line.kind) {
        case 'charge': {
          const b = parsed.value as BoardingBody<'charge'>;
          const r = await ops.createCharge({ ...context, requestKey, ...chargeDefinitionOf(b) });
          return done(line, r.chargeId);
        }
        case 'loanProduct': {
          const { chargeSourceRefs, nsfChargeSourceRef, ...b } = parsed.value as BoardingBody<'loanProduct'>;
          const charges: { id: number }[] = [];
          for (const [i, ref] of chargeSourceRefs.entries()) {
            const id = idOf('charge', ref);
            if (id === undefined)
              return void fail(line, shapeAOf(missing(`chargeSourceRefs[${i}]`, ref, 'charge')));
            charges.push({ id });
          }
          const nsfChargeId = nsfChargeSourceRef === undefined ? null : idOf('charge', nsfChargeSourceRef);
          if (nsfChargeSourceRef !== undefined && nsfChargeId === undefined)
            return void fail(line, shapeAOf(missing('nsfChargeSourceRef', nsfChargeSourceRef, 'charge')));
          const r = await ops.createLoanProduct({
            ...context,
            requestKey,
            ...loanProductDefinitionOf(b),
            charges,
            nsfChargeId: nsfChargeId ?? null,
          });
          return done(line, r.productId);
        }
        case 'customer': {
          const { identifiers, consents, paymentInstruments, ...b } =
            parsed.value as BoardingBody<'customer'>;
          // One transaction for the customer and its items (boardCustomer); after a line error, nothing of it is
          // stored and the operations below run one by one, so that the line reports the item that failed.
          const plan = customerPlan(line, parsed.value as BoardingBody<'customer'>, requestKey);
          try {
            return plan.settle(await ops.boardCustomer(plan.input));
          } catch (err) {
            if (!lineError(err)) throw err;
          }
          const r = await ops.createCustomer({
            ...context,
            requestKey,
            ...b,
            externalId: b.externalId ?? line.sourceRef,
          });
          const customerId = r.customerId;
          const extra: BoardedRef[] = [];
          let error: ShapeABody | null = null;
          const step = async (prefix: string, fn: () => Promise<unknown>) => {
            if (error) return;
            try {
              await fn();
            } catch (err) {
              const bad = lineError(err);
              if (!bad) throw err;
              error = lineShape(bad, prefix);
            }
          };
          for (const [i, item] of identifiers.entries()) {
            await step(`identifiers[${i}].`, () =>
              ops.addCustomerIdentifier({ ...context, customerId, ...item }),
            );
          }
          for (const [i, item] of consents.entries()) {
            await step(`consents[${i}].`, () =>
              ops.recordCustomerConsent({
                ...context,
                requestKey: `${requestKey}/consent/${i}`,
                customerId,
                ...item,
              }),
            );
          }
          for (const [i, { sourceRef, ...item }] of paymentInstruments.entries()) {
            await step(`paymentInstruments[${i}].`, async () => {
              const created = await ops.addPaymentInstrument({ ...context, customerId, ...item });
              if (sourceRef) {
                const ref = `${line.sourceRef}/${sourceRef}`;
                extra.push({ kind: 'paymentInstrument', sourceRef: ref, resourceId: created.instrumentId });
                known.set(refKey('paymentInstrument', ref), created.instrumentId);
              }
            });
          }
          if (error) {
            // The customer exists (its loans and holds still board); the line reports the item that failed.
            fail(line, error);
            boarded.push({ kind: 'customer', sourceRef: line.sourceRef, resourceId: customerId }, ...extra);
            known.set(refKey('customer', line.sourceRef), customerId);
            return;
          }
          return done(line, customerId, extra);
        }
        case 'restriction': {
          const { customerSourceRef, ...b } = parsed.value as BoardingBody<'restriction'>;
          const customerId = idOf('customer', customerSourceRef);
          if (customerId === undefined)
            return void fail(line, shapeAOf(missing('customerSourceRef', customerSourceRef, 'customer')));
          const r = await ops.applyRestriction({ ...context, requestKey, customerId, ...b });
          return done(line, r.restrictionId);
        }
        case 'verification': {
          const { customerSourceRef, instrumentSourceRef, ...b } =
            parsed.value as BoardingBody<'verification'>;
          const customerId = idOf('customer', customerSourceRef);
          const instrumentId = idOf('paymentInstrument', `${customerSourceRef}/${instrumentSourceRef}`);
          if (customerId === undefined)
            return void fail(line, shapeAOf(missing('customerSourceRef', customerSourceRef, 'customer')));
          if (instrumentId === undefined)
            return void fail(
              line,
              shapeAOf(missing('instrumentSourceRef', instrumentSourceRef, 'payment instrument')),
            );
          const r = await ops.verifyPaymentInstrument({ ...context, customerId, instrumentId, ...b });
          return done(line, r.instrumentId);
        }
        case 'loan':
          return boardLoan(line, parsed.value as BoardingBody<'loan'>, requestKey);
        default:
          return void fail(
            line,
            shapeAOf(bodyReferenceError('kind', line.kind, `${line.kind} lines board with their loan.`)),
          );
      }
    };

    /** The one-transaction boarding of a customer line (`boardCustomer`'s input) and how to settle it from the result. */
    const customerPlan = (
      line: StagedLine,
      parsed: BoardingBody<'customer'>,
      requestKey: string,
    ): { input: BoardCustomerInput; settle: (result: BoardCustomerResult) => void } => {
      const { identifiers, consents, paymentInstruments, ...b } = parsed;
      return {
        input: {
          customer: { ...context, requestKey, ...b, externalId: b.externalId ?? line.sourceRef },
          identifiers,
          consents: consents.map((item, i) => ({ ...item, requestKey: `${requestKey}/consent/${i}` })),
          instruments: paymentInstruments.map(({ sourceRef: _ref, ...item }) => item),
        },
        settle: (boarded) => {
          const extra: BoardedRef[] = [];
          for (const [i, { sourceRef }] of paymentInstruments.entries()) {
            const instrumentId = boarded.instrumentIds[i];
            if (!sourceRef || instrumentId === undefined) continue;
            const ref = `${line.sourceRef}/${sourceRef}`;
            extra.push({ kind: 'paymentInstrument', sourceRef: ref, resourceId: instrumentId });
            known.set(refKey('paymentInstrument', ref), instrumentId);
          }
          done(line, boarded.customerId, extra);
        },
      };
    };

    /**
     * The one-transaction boarding of a loan line (`boardLoan`'s input) and how to settle the line and its
     * children from its result, when the loan is not boarded yet and its borrower, product and charges are; else
     * null (the line boards step by step, `boardLoan` below). Settling writes nothing until it is called.
     */
    const loanPlan = (
      line: StagedLine,
      b: BoardingBody<'loan'>,
      requestKey: string,
    ): { input: BoardLoanInput; settle: (result: BoardLoanResult) => void } | null => {
      const own = children.filter((c) => c.parentSourceRef === line.sourceRef);
      const { customerSourceRef, productSourceRef, charges, approval, ...rest } = b;
      const clientId = idOf('customer', customerSourceRef);
      const productId = idOf('loanProduct', productSourceRef);
      const chargeIds = (charges ?? []).map((c) => idOf('charge', c.chargeSourceRef));
      if (
        idOf('loan', line.sourceRef) !== undefined ||
        clientId === undefined ||
        productId === undefined ||
        chargeIds.includes(undefined)
      )
        return null;
      const prepared = prepareChildren(own);
      return {
        input: {
          loan: applicationOf(line, rest, charges, chargeIds as number[], requestKey, clientId, productId),
          approval: approvalOf(rest, approval),
          history: prepared.history,
        },
        settle: (boarded) => {
          done(line, boarded.loan.loanId);
          for (const settle of prepared.early) settle();
          if (boarded.history) prepared.apply(boarded.history);
        },
      };
    };

    /** The application as `createLoan` takes it, once the borrower, product and charges are boarded. */
    const applicationOf = (
      line: StagedLine,
      rest: Omit<BoardingBody<'loan'>, 'customerSourceRef' | 'productSourceRef' | 'charges' | 'approval'>,
      charges: BoardingBody<'loan'>['charges'],
      chargeIds: number[],
      requestKey: string,
      borrowerId: number,
      loanProductId: number,
    ) => ({
      ...context,
      requestKey,
      ...rest,
      boarded: true,
      clientId: borrowerId,
      productId: loanProductId,
      externalId: rest.externalId ?? line.sourceRef,
      charges: (charges ?? []).map((c, i) => ({
        chargeId: chargeIds[i] as number,
        amount: c.amount,
        dueDate: c.dueDate,
      })),
    });
    /** The line's approval, else the full principal approved on the submission date. */
    const approvalOf = (
      rest: Omit<BoardingBody<'loan'>, 'customerSourceRef' | 'productSourceRef' | 'charges' | 'approval'>,
      approval: BoardingBody<'loan'>['approval'],
    ) =>
      approval ?? {
        approvedOnDate: rest.submittedOnDate,
        approvedLoanAmount: rest.principal,
        dateFormat: rest.dateFormat ?? null,
        locale: rest.locale ?? null,
      };

    const boardLoan = async (
      line: StagedLine,
      b: BoardingBody<'loan'>,
      requestKey: string,
    ): Promise<void> => {
      const own = children.filter((c) => c.parentSourceRef === line.sourceRef);
      const failChildren = (error: ShapeABody) => {
        for (const child of own) {
          const existing = idOf(child.kind, child.sourceRef);
          if (existing === undefined) fail(child, error);
          else outcomes.push({ lineNo: child.lineNo, state: 'BOARDED', resourceId: existing, error: null });
        }
      };
      const { customerSourceRef, productSourceRef, charges, approval, ...rest } = b;
      const clientId = idOf('customer', customerSourceRef);
      const productId = idOf('loanProduct', productSourceRef);
      const chargeIds = (charges ?? []).map((c) => idOf('charge', c.chargeSourceRef));
      let loanId = idOf('loan', line.sourceRef);
      const approvalInput = approvalOf(rest, approval);
      // One transaction for the loan, its approval and its history (boardLoan); after a line error, nothing of it
      // is stored and the steps below run one by one, so that the line reports the step that failed.
      const plan = loanPlan(line, b, requestKey);
      if (plan) {
        try {
          return plan.settle(await ops.boardLoan(plan.input));
        } catch (err) {
          if (!lineError(err)) throw err;
        }
      }
      try {
        if (loanId === undefined) {
          if (clientId === undefined) throw missing('customerSourceRef', customerSourceRef, 'customer');
          if (productId === undefined) throw missing('productSourceRef', productSourceRef, 'loan product');
          const badCharge = chargeIds.indexOf(undefined);
          if (badCharge >= 0) {
            const ref = charges?.[badCharge]?.chargeSourceRef ?? '';
            throw missing(`charges[${badCharge}].chargeSourceRef`, ref, 'charge');
          }
          const created = await ops.createLoan(
            applicationOf(line, rest, charges, chargeIds as number[], requestKey, clientId, productId),
          );
          if (created.status === 'SUBMITTED') {
            try {
              await ops.approveLoan({
                ...context,
                loanId: created.loanId,
                ...approvalInput,
              });
            } catch (err) {
              const bad = lineError(err);
              if (!bad) throw err;
              fail(line, lineShape(bad, 'approval.'));
              failChildren(loanNotBoarded(line));
              return;
            }
          }
          loanId = created.loanId;
          done(line, loanId);
        } else {
          outcomes.push({ lineNo: line.lineNo, state: 'BOARDED', resourceId: loanId, error: null });
        }
      } catch (err) {
        const bad = lineError(err);
        if (!bad) throw err;
        fail(line, lineShape(bad));
        failChildren(loanNotBoarded(line));
        return;
      }

      await boardChildren(loanId, own);
    };

    /**
     * The funding and payment lines of a loan, ready for `recordExternalPaymentHistory`: lines already boarded and
     * lines whose body does not parse are settled by `early` (run once by the caller); the others are in value-date
     * order (fundings by fundingDate, payments by effectiveDate, line order on ties).
     */
    const prepareChildren = (own: StagedLine[]) => {
      const early: (() => void)[] = [];
      const fundingLines = own.filter((c) => c.kind === 'funding');
      const parsedFundings = fundingLines
        .map((l) => ({ line: l, parsed: parseLineBody('funding', l.body) }))
        .sort((x, y) => {
          const dx = x.parsed.ok ? (x.parsed.value.fundingDate ?? '') : '';
          const dy = y.parsed.ok ? (y.parsed.value.fundingDate ?? '') : '';
          return dx === dy ? x.line.lineNo - y.line.lineNo : dx < dy ? -1 : 1;
        });
      const fundings: { line: StagedLine; body: BoardingBody<'funding'> }[] = [];
      for (const { line: f, parsed } of parsedFundings) {
        const existing = idOf('funding', f.sourceRef);
        if (existing !== undefined) {
          early.push(() =>
            outcomes.push({ lineNo: f.lineNo, state: 'BOARDED', resourceId: existing, error: null }),
          );
          continue;
        }
        if (!parsed.ok) {
          const error = shapeAOf(parsed.error);
          early.push(() => fail(f, error));
          continue;
        }
        fundings.push({ line: f, body: parsed.value });
      }
      const payments: { line: StagedLine; body: BoardingBody<'payment'> }[] = [];
      for (const p of own.filter((c) => c.kind === 'payment')) {
        const existing = idOf('payment', p.sourceRef);
        if (existing !== undefined) {
          early.push(() =>
            outcomes.push({ lineNo: p.lineNo, state: 'BOARDED', resourceId: existing, error: null }),
          );
          continue;
        }
        const parsed = parseLineBody('payment', p.body);
        if (!parsed.ok) {
          const error = shapeAOf(parsed.error);
          early.push(() => fail(p, error));
        } else payments.push({ line: p, body: parsed.value });
      }
      payments.sort((x, y) =>
        x.body.effectiveDate === y.body.effectiveDate
          ? x.line.lineNo - y.line.lineNo
          : x.body.effectiveDate < y.body.effectiveDate
            ? -1
            : 1,
      );
      /** The history input (fundings and payments), or null when there is nothing to record. */
      const history =
        payments.length === 0 && fundings.length === 0
          ? null
          : {
              fundings: fundings.map(({ line: f, body }) =>
                externalFundingOf({ ...body, externalRecordRef: body.externalRecordRef ?? f.sourceRef }),
              ),
              payments: payments.map(({ line: p, body }) =>
                externalPaymentOf({ ...body, externalRecordRef: body.externalRecordRef ?? p.sourceRef }),
              ),
            };
      /** Settles the prepared lines from the history's outcomes (input order). */
      const apply = (result: RecordExternalPaymentHistoryResult) => {
        for (const [i, outcome] of result.fundingOutcomes.entries()) {
          const f = fundings[i]?.line;
          if (!f) continue;
          if (outcome.ok) done(f, outcome.funding.fundingId);
          else fail(f, underBody(outcome.error));
        }
        for (const [i, outcome] of result.outcomes.entries()) {
          const p = payments[i]?.line;
          if (!p) continue;
          if (outcome.ok) done(p, outcome.payment.paymentId);
          else fail(p, underBody(outcome.error));
        }
      };
      return { early, history, apply };
    };

    /**
     * The fundings (by fundingDate) and the payment history of a boarded loan, recorded together
     * (`recordExternalPaymentHistory` with its fundings: one transaction, one repost of the loan).
     */
    const boardChildren = async (loanId: number, own: StagedLine[]): Promise<void> => {
      const prepared = prepareChildren(own);
      for (const settle of prepared.early) settle();
      if (!prepared.history) return;
      prepared.apply(await ops.recordExternalPaymentHistory({ ...context, loanId, ...prepared.history }));
    };

    if (input.kind === 'funding' || input.kind === 'payment') {
      // Lines of loans boarded before (an upload of later history): grouped by their loan, in line order.
      const byLoan = new Map<string, StagedLine[]>();
      for (const line of lines) {
        const parent = line.parentSourceRef ?? '';
        byLoan.set(parent, [...(byLoan.get(parent) ?? []), line]);
      }
      for (const [loanRef, own] of byLoan) {
        const loanId = idOf('loan', loanRef);
        if (loanId === undefined) {
          const error = shapeAOf(missing('loanSourceRef', loanRef, 'loan'));
          for (const line of own) fail(line, error);
          continue;
        }
        await boardChildren(loanId, own);
      }
    }
    const perLine = async (line: StagedLine): Promise<void> => {
      try {
        await boardOne(line);
      } catch (err) {
        const bad = lineError(err);
        if (!bad) throw err;
        fail(line, lineShape(bad));
      }
    };

    /** How a line boards inside the chunk's transaction (`planTogether`); null when it must board on its own. */
    type TogetherPlan = {
      /** The borrower to lock first (loans). */
      customerId: number | null;
      /** The `externalRecordRef`s of the loan's fundings and payments (loans). */
      refs: LoanChunkRefs;
      /** Boards the line in `tx`: a loan with the chunk's `chunk`, a customer with its `customers` buffers. */
      run: (
        tx: Tx,
        now: Date,
        chunk: LoanChunk | null,
        customers: CustomerWriteBuffers | null,
      ) => Promise<() => void>;
    };
    /**
     * The one-step boarding of a `customer`, `loan` or `verification` line, when it can board with others; else
     * null.
     */
    const planTogether = (line: StagedLine): TogetherPlan | null => {
      if (line.kind !== 'customer' && line.kind !== 'loan' && line.kind !== 'verification') return null;
      if (line.kind !== 'loan' && idOf(line.kind, line.sourceRef) !== undefined) return null;
      const parsed = parseLineBody(line.kind, line.body);
      if (!parsed.ok) return null;
      const requestKey = boardingRequestKey(line.kind, line.sourceRef);
      if (line.kind === 'verification') {
        const { customerSourceRef, instrumentSourceRef, ...b } = parsed.value as BoardingBody<'verification'>;
        const customerId = idOf('customer', customerSourceRef);
        const instrumentId = idOf('paymentInstrument', `${customerSourceRef}/${instrumentSourceRef}`);
        if (customerId === undefined || instrumentId === undefined) return null;
        return {
          // Locked with the chunk's other customers, in id order, before the first line.
          customerId,
          refs: { fundingRefs: [], paymentRefs: [] },
          run: async (tx, _now, _chunk, customers) => {
            const r = await verifyPaymentInstrumentInTx(
              deps,
              tx,
              { ...context, customerId, instrumentId, ...b },
              { customerLocked: true, ...(customers ? { buffers: customers } : {}) },
            );
            return () => done(line, r.instrumentId);
          },
        };
      }
      if (line.kind === 'customer') {
        const plan = customerPlan(line, parsed.value as BoardingBody<'customer'>, requestKey);
        return {
          customerId: null,
          refs: { fundingRefs: [], paymentRefs: [] },
          run: async (tx, _now, _chunk, customers) => {
            const result = await boardCustomerInTx(deps, tx, plan.input, customers ?? undefined);
            return () => plan.settle(result);
          },
        };
      }
      const plan = loanPlan(line, parsed.value as BoardingBody<'loan'>, requestKey);
      if (!plan) return null;
      return {
        customerId: plan.input.loan.clientId,
        refs: {
          fundingRefs: (plan.input.history?.fundings ?? []).map((f) => f.externalRecordRef),
          paymentRefs: (plan.input.history?.payments ?? []).map((p) => p.externalRecordRef),
        },
        run: async (tx, now, chunk) => {
          const result = await boardLoanInTx(tx, plan.input, now, chunk ?? undefined);
          return () => plan.settle(result);
        },
      };
    };

    /**
     * The chunk's customers, loans or verifications boarded together: consecutive lines that can board in one step
     * (`planTogether`: `boardCustomer`, `boardLoan`, `verifyPaymentInstrument`) are boarded in ONE tenant
     * transaction, each under a savepoint (`boardCustomerInTx`, `boardLoanInTx`, `verifyPaymentInstrumentInTx`), the
     * loans' borrowers and the verified instruments' customers locked first in id order (`lockCustomers`) so that
     * parallel chunks sharing a customer wait instead of deadlocking. Customers and verifications hold their history
     * entries and events back for the transaction (customers/records.ts `CustomerWriteBuffers`), as loans do. The
     * loans share one `LoanChunk` (activities/lending/loan-chunk.ts: the product, charge and calendar reads made once, the chart of accounts
     * ensured once, their history entries and events written by one multi-row statement each before the commit; a
     * loan whose savepoint rolled back leaves nothing in those buffers). The first line that cannot (already
     * boarded, not parsing, a missing reference, a line error rolled back to its savepoint) ends the transaction,
     * which commits the lines before it; that line then boards on its own (`perLine`: the step-by-step path reports
     * the step that failed), and the next transaction starts after it. The lines are settled only once their
     * transaction committed, so a transaction retried after a serialization failure or a deadlock settles nothing
     * twice.
     */
    const boardTogether = async (): Promise<void> => {
      let next = 0;
      while (next < lines.length) {
        const from = next;
        const segment = await withTenantTransaction(deps.db, input.tenantId, async (tx) => {
          const now = deps.clock();
          const plans: TogetherPlan[] = [];
          const seen = new Set<string>();
          let stop = from;
          for (; stop < lines.length; stop++) {
            const line = lines[stop] as StagedLine;
            if (seen.has(line.sourceRef)) break;
            const plan = planTogether(line);
            if (!plan) break;
            seen.add(line.sourceRef);
            plans.push(plan);
          }
          const borrowerIds = plans.flatMap((p) => (p.customerId === null ? [] : [p.customerId]));
          // Loans share the chunk's reads, locks and write buffers (activities/lending/loan-chunk.ts).
          const chunk =
            input.kind === 'loan' && plans.length > 0 && deps.boardingLoanChunks !== false
              ? await openLoanChunk(tx, input.tenantId, now, borrowerIds, {
                  fundingRefs: plans.flatMap((p) => p.refs.fundingRefs),
                  paymentRefs: plans.flatMap((p) => p.refs.paymentRefs),
                  loans: plans.length,
                })
              : null;
          if (!chunk) await lockCustomers(tx, input.tenantId, borrowerIds);
          // Customers hold their history entries and events back the same way (customers/records.ts).
          const customers: CustomerWriteBuffers | null =
            (input.kind === 'customer' || input.kind === 'verification') && deps.boardingLoanChunks !== false
              ? { history: new CustomerHistoryBuffer(), outbox: new OutboxBuffer() }
              : null;
          const settled: (() => void)[] = [];
          let stoppedAt = stop;
          for (const [i, plan] of plans.entries()) {
            const mark = chunk ? savepointMark(chunk) : null;
            const customersMark = customers
              ? { history: customers.history.mark(), outbox: customers.outbox.mark() }
              : null;
            try {
              settled.push(await tx.transaction((savepoint) => plan.run(savepoint, now, chunk, customers)));
            } catch (err) {
              if (!lineError(err)) throw err;
              if (chunk && mark) rollbackToMark(chunk, mark);
              if (customers && customersMark) {
                customers.history.truncate(customersMark.history);
                customers.outbox.truncate(customersMark.outbox);
              }
              stoppedAt = from + i;
              break;
            }
          }
          if (chunk) await flushLoanChunk(tx, chunk);
          if (customers) await flushCustomerWrites(tx, customers);
          return { settled, stoppedAt };
        });
        for (const settle of segment.settled) settle();
        if (segment.stoppedAt >= lines.length) break;
        await perLine(lines[segment.stoppedAt] as StagedLine);
        next = segment.stoppedAt + 1;
      }
    };

    if (input.kind === 'loan' || input.kind === 'customer' || input.kind === 'verification')
      await boardTogether();
    else if (input.kind !== 'funding' && input.kind !== 'payment')
      for (const line of lines) await perLine(line);
    await withTenantTransaction(deps.db, input.tenantId, (tx) => writeOutcomes(tx, where, outcomes, boarded));
    const delta: BoardingCountsDelta = {};
    const kindOfLine = new Map(allLines.map((l) => [l.lineNo, l.kind]));
    for (const o of outcomes) {
      const kind = kindOfLine.get(o.lineNo);
      if (!kind) continue;
      const d = delta[kind] ?? { boarded: 0, failed: 0 };
      if (o.state === 'FAILED') d.failed += 1;
      else d.boarded += 1;
      delta[kind] = d;
    }
    return delta;
  }
}
