/**
 * Boarding of the loan lines of a chunk and of their funding and payment lines (board-boarding-chunk.ts,
 * docs/processes.md P3): a loan → `boardLoan` (application, approval while SUBMITTED and its money history in one
 * transaction), and after a line error step by step (`createLoan`, `approveLoan`, then
 * `recordExternalPaymentHistory` with its fundings and payments) so that the line reports the step that failed;
 * funding and payment lines of a loan boarded by an earlier batch → `recordExternalPaymentHistory` per loan. A loan
 * that fails fails its funding and payment lines with it; a bad funding or payment fails alone.
 */
import { type ShapeABody, shapeAOf } from '../../domain/errors';
import { externalFundingOf } from '../../domain/lending/schemas/fundings';
import { externalPaymentOf } from '../../domain/payments/schemas/recorded-payments';
import { type BoardLoanInput, type BoardLoanResult, boardLoanInTx } from '../lending/board-loan';
import type { RecordExternalPaymentHistoryResult } from '../payments/record-external-payment-history';
import { type ChunkRun, missingReference, type TogetherPlan } from './chunk-run';
import { lineError, lineShape, loanNotBoarded, underBody } from './line-mappers';
import { type BoardingBody, parseLineBody } from './line-schemas';
import type { StagedLine } from './lines';

/** A loan line's fields but its references and approval. */
type LoanTerms = Omit<
  BoardingBody<'loan'>,
  'customerSourceRef' | 'productSourceRef' | 'charges' | 'approval'
>;

/** The funding and payment lines of the chunk that belong to `loan`. */
const childrenOf = (run: ChunkRun, loan: StagedLine): StagedLine[] =>
  run.children.filter((c) => c.parentSourceRef === loan.sourceRef);

/**
 * The one-transaction boarding of a loan line (`boardLoan`'s input) and how to settle the line and its
 * children from its result, when the loan is not boarded yet and its borrower, product and charges are; else
 * null (the line boards step by step, `boardLoanLine`). Settling writes nothing until it is called.
 */
function loanPlan(
  run: ChunkRun,
  line: StagedLine,
  b: BoardingBody<'loan'>,
  requestKey: string,
): { input: BoardLoanInput; settle: (result: BoardLoanResult) => void } | null {
  const { outcomes } = run;
  const own = childrenOf(run, line);
  const { customerSourceRef, productSourceRef, charges, approval, ...rest } = b;
  const clientId = outcomes.idOf('customer', customerSourceRef);
  const productId = outcomes.idOf('loanProduct', productSourceRef);
  const chargeIds = (charges ?? []).map((c) => outcomes.idOf('charge', c.chargeSourceRef));
  if (
    outcomes.idOf('loan', line.sourceRef) !== undefined ||
    clientId === undefined ||
    productId === undefined ||
    chargeIds.includes(undefined)
  )
    return null;
  const prepared = prepareChildren(run, own);
  return {
    input: {
      loan: applicationOf(run, line, rest, charges, chargeIds as number[], requestKey, clientId, productId),
      approval: approvalOf(rest, approval),
      history: prepared.history,
    },
    settle: (boarded) => {
      outcomes.done(line, boarded.loan.loanId);
      for (const settle of prepared.early) settle();
      if (boarded.history) prepared.apply(boarded.history);
    },
  };
}

/** The application as `createLoan` takes it, once the borrower, product and charges are boarded. */
function applicationOf(
  run: ChunkRun,
  line: StagedLine,
  rest: LoanTerms,
  charges: BoardingBody<'loan'>['charges'],
  chargeIds: number[],
  requestKey: string,
  borrowerId: number,
  loanProductId: number,
) {
  return {
    ...run.context,
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
  };
}

/** The line's approval, else the full principal approved on the submission date. */
function approvalOf(rest: LoanTerms, approval: BoardingBody<'loan'>['approval']) {
  return (
    approval ?? {
      approvedOnDate: rest.submittedOnDate,
      approvedLoanAmount: rest.principal,
      dateFormat: rest.dateFormat ?? null,
      locale: rest.locale ?? null,
    }
  );
}

/**
 * A `loan` line on its own: `boardLoan` (one transaction for the loan, its approval and its history) when it can;
 * after a line error nothing of it is stored and the steps run one by one (createLoan, approveLoan while SUBMITTED,
 * then its children, `boardChildren`), so that the line reports the step that failed (an approval's under
 * `body.approval.`). A loan boarded before boards the children it does not have yet. A loan that fails fails its
 * children not boarded yet. Errors other than a line's are thrown.
 */
export async function boardLoanLine(
  run: ChunkRun,
  line: StagedLine,
  b: BoardingBody<'loan'>,
  requestKey: string,
): Promise<void> {
  const { ops, context, outcomes } = run;
  const own = childrenOf(run, line);
  const failChildren = (error: ShapeABody) => {
    for (const child of own) {
      const existing = outcomes.idOf(child.kind, child.sourceRef);
      if (existing === undefined) outcomes.fail(child, error);
      else outcomes.boardedBefore(child, existing);
    }
  };
  const { customerSourceRef, productSourceRef, charges, approval, ...rest } = b;
  const clientId = outcomes.idOf('customer', customerSourceRef);
  const productId = outcomes.idOf('loanProduct', productSourceRef);
  const chargeIds = (charges ?? []).map((c) => outcomes.idOf('charge', c.chargeSourceRef));
  let loanId = outcomes.idOf('loan', line.sourceRef);
  const approvalInput = approvalOf(rest, approval);
  // One transaction for the loan, its approval and its history (boardLoan); after a line error, nothing of it
  // is stored and the steps below run one by one, so that the line reports the step that failed.
  const plan = loanPlan(run, line, b, requestKey);
  if (plan) {
    try {
      return plan.settle(await ops.boardLoan(plan.input));
    } catch (err) {
      if (!lineError(err)) throw err;
    }
  }
  try {
    if (loanId === undefined) {
      if (clientId === undefined) throw missingReference('customerSourceRef', customerSourceRef, 'customer');
      if (productId === undefined)
        throw missingReference('productSourceRef', productSourceRef, 'loan product');
      const badCharge = chargeIds.indexOf(undefined);
      if (badCharge >= 0) {
        const ref = charges?.[badCharge]?.chargeSourceRef ?? '';
        throw missingReference(`charges[${badCharge}].chargeSourceRef`, ref, 'charge');
      }
      const created = await ops.createLoan(
        applicationOf(run, line, rest, charges, chargeIds as number[], requestKey, clientId, productId),
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
          outcomes.fail(line, lineShape(bad, 'approval.'));
          failChildren(loanNotBoarded(line));
          return;
        }
      }
      loanId = created.loanId;
      outcomes.done(line, loanId);
    } else {
      outcomes.boardedBefore(line, loanId);
    }
  } catch (err) {
    const bad = lineError(err);
    if (!bad) throw err;
    outcomes.fail(line, lineShape(bad));
    failChildren(loanNotBoarded(line));
    return;
  }

  await boardChildren(run, loanId, own);
}

/** A `loan` line boarded in the chunk's transaction (`boardLoanInTx` with the chunk's `LoanChunk`); null as `loanPlan`. */
export function loanTogether(
  run: ChunkRun,
  line: StagedLine,
  b: BoardingBody<'loan'>,
  requestKey: string,
): TogetherPlan | null {
  const plan = loanPlan(run, line, b, requestKey);
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
}

/**
 * The funding and payment lines of a loan, ready for `recordExternalPaymentHistory`: lines already boarded and
 * lines whose body does not parse are settled by `early` (run once by the caller); the others are in value-date
 * order (fundings by fundingDate, payments by effectiveDate, line order on ties).
 */
function prepareChildren(run: ChunkRun, own: StagedLine[]) {
  const { outcomes } = run;
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
    const existing = outcomes.idOf('funding', f.sourceRef);
    if (existing !== undefined) {
      early.push(() => outcomes.boardedBefore(f, existing));
      continue;
    }
    if (!parsed.ok) {
      const error = shapeAOf(parsed.error);
      early.push(() => outcomes.fail(f, error));
      continue;
    }
    fundings.push({ line: f, body: parsed.value });
  }
  const payments: { line: StagedLine; body: BoardingBody<'payment'> }[] = [];
  for (const p of own.filter((c) => c.kind === 'payment')) {
    const existing = outcomes.idOf('payment', p.sourceRef);
    if (existing !== undefined) {
      early.push(() => outcomes.boardedBefore(p, existing));
      continue;
    }
    const parsed = parseLineBody('payment', p.body);
    if (!parsed.ok) {
      const error = shapeAOf(parsed.error);
      early.push(() => outcomes.fail(p, error));
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
      if (outcome.ok) outcomes.done(f, outcome.funding.fundingId);
      else outcomes.fail(f, underBody(outcome.error));
    }
    for (const [i, outcome] of result.outcomes.entries()) {
      const p = payments[i]?.line;
      if (!p) continue;
      if (outcome.ok) outcomes.done(p, outcome.payment.paymentId);
      else outcomes.fail(p, underBody(outcome.error));
    }
  };
  return { early, history, apply };
}

/**
 * The fundings (by fundingDate) and the payment history of a boarded loan, recorded together
 * (`recordExternalPaymentHistory` with its fundings: one transaction, one repost of the loan).
 */
async function boardChildren(run: ChunkRun, loanId: number, own: StagedLine[]): Promise<void> {
  const prepared = prepareChildren(run, own);
  for (const settle of prepared.early) settle();
  if (!prepared.history) return;
  prepared.apply(await run.ops.recordExternalPaymentHistory({ ...run.context, loanId, ...prepared.history }));
}

/**
 * A `funding` or `payment` chunk: lines of loans boarded before (an upload of later history), grouped by their
 * loan in line order, each loan's lines boarded together (`boardChildren`); the lines of a loan not boarded fail
 * (400 naming `loanSourceRef`).
 */
export async function boardLaterHistoryLines(run: ChunkRun, lines: StagedLine[]): Promise<void> {
  const byLoan = new Map<string, StagedLine[]>();
  for (const line of lines) {
    const parent = line.parentSourceRef ?? '';
    byLoan.set(parent, [...(byLoan.get(parent) ?? []), line]);
  }
  for (const [loanRef, own] of byLoan) {
    const loanId = run.outcomes.idOf('loan', loanRef);
    if (loanId === undefined) {
      const error = shapeAOf(missingReference('loanSourceRef', loanRef, 'loan'));
      for (const line of own) run.outcomes.fail(line, error);
      continue;
    }
    await boardChildren(run, loanId, own);
  }
}
