/**
 * The synthetic portfolio generator (scripts/portfolio-generate.ts; docs/processes.md P3): the same
 * seed gives the same bytes, the lines per kind are as designed, every line is `{kind, sourceRef, body}` with a
 * body the public route accepts once its source refs are replaced by ids (the routes' own valibot schemas are the
 * oracle), every source ref names a line written before it, no text carries an identifier or account number
 * (domain/sensitive-data.ts), and each loan's history is dated in order, never before its funding nor after
 * `asOf`, with no more payments than installments due.
 */
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as v from 'valibot';
import { afterAll, describe, expect, it } from 'vitest';
import { boardingKinds, isBoardingKind } from '../../domain/boarding/batch';
import { addMonths } from '../../domain/calendar';
import {
  applyRestrictionBody,
  createConsentBody,
  createCustomerBody,
  createIdentifierBody,
  createInstrumentBody,
  verifyInstrumentBody,
} from '../../domain/customers/schemas/customers';
import { recordFundingBody } from '../../domain/lending/schemas/fundings';
import { createLoanBody } from '../../domain/lending/schemas/loans';
import { createChargeBody, createLoanProductBody } from '../../domain/lending/schemas/products';
import { recordPaymentBody } from '../../domain/payments/schemas/recorded-payments';
import { findSensitiveData } from '../../domain/sensitive-data';
import {
  emptyPortfolioCounts,
  type PortfolioOptions,
  portfolioLines,
  writePortfolio,
} from '../../scripts/portfolio-generate';

const asOf = '2026-11-24';
const options: PortfolioOptions = { loans: 300, paymentsPerLoan: 12, seed: 42, asOf };
const files: string[] = [];
const tmpFile = (name: string) => {
  const file = path.join(tmpdir(), `portfolio-${process.pid}-${files.length}-${name}.ndjson`);
  files.push(file);
  return file;
};

afterAll(async () => {
  for (const file of files) await rm(file, { force: true });
});

// biome-ignore lint/suspicious/noExplicitAny: parsed JSON lines, checked field by field below
type Line = { kind: string; sourceRef: string; body: Record<string, any> };
const parsed = (): Line[] => [...portfolioLines(options)].map((text) => JSON.parse(text) as Line);

/** Every string anywhere in `value`. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value && typeof value === 'object') return Object.values(value).flatMap(strings);
  return [];
}

const expectValid = (schema: v.GenericSchema, body: unknown, what: string) => {
  const result = v.safeParse(schema, body);
  expect(result.success ? [] : result.issues.map((i) => `${what}: ${i.message}`)).toEqual([]);
};

describe('portfolio generator', () => {
  it('writes the same bytes for the same seed and other bytes for another seed', async () => {
    const [a, b, c] = [tmpFile('a'), tmpFile('b'), tmpFile('c')];
    await writePortfolio(options, a);
    await writePortfolio(options, b);
    await writePortfolio({ ...options, seed: 43 }, c);
    const [bytesA, bytesB, bytesC] = await Promise.all([readFile(a), readFile(b), readFile(c)]);
    expect(bytesA.length).toBeGreaterThan(100_000);
    expect(bytesA.equals(bytesB)).toBe(true);
    expect(bytesA.equals(bytesC)).toBe(false);
    // The file is exactly the lines, one per line, each ended by a newline.
    expect(bytesA.toString('utf8')).toBe(`${[...portfolioLines(options)].join('\n')}\n`);
  });

  it('counts lines per kind as designed and reports them', async () => {
    const counts = await writePortfolio(options, tmpFile('counts'));
    const lines = parsed();
    const actual = emptyPortfolioCounts();
    for (const line of lines) actual[line.kind as keyof typeof actual]++;
    expect(counts).toEqual(actual);
    expect(counts.charge).toBe(3);
    expect(counts.loanProduct).toBe(4);
    expect(counts.loan).toBe(300);
    expect(counts.funding).toBe(300);
    // Every tenth loan is a second loan of an existing customer.
    expect(counts.customer).toBe(270);
    // A few percent restricted, most instruments verified.
    expect(counts.restriction).toBeGreaterThan(0);
    expect(counts.restriction).toBeLessThan(30);
    expect(counts.verification).toBeGreaterThan(200);
    expect(counts.verification).toBeLessThanOrEqual(270);
    // At most 12 per loan; most loans are old and long enough for all 12.
    expect(counts.payment).toBeLessThanOrEqual(300 * 12);
    expect(counts.payment).toBeGreaterThan(300 * 8);
  });

  it('writes the P3 line shape, bodies the routes accept, refs to earlier lines and no sensitive text', () => {
    const seen = new Map<string, Line>();
    const instruments = new Set<string>();
    const ssns = new Set<string>();
    let lineNo = 0;
    for (const line of parsed()) {
      lineNo++;
      const where = `line ${lineNo} (${line.kind} ${line.sourceRef})`;
      expect(Object.keys(line)).toEqual(['kind', 'sourceRef', 'body']);
      expect(isBoardingKind(line.kind), where).toBe(true);
      expect(line.sourceRef).toMatch(/^[a-z][a-z0-9-]{0,127}$/);
      expect(line.sourceRef, where).not.toMatch(/[0-9]{8}/);
      expect(seen.has(line.sourceRef), `${where} repeats a sourceRef`).toBe(false);
      const { body } = line;
      // Nothing but the SSN itself may look like an identifier or account number.
      const texts = strings({ ...body, identifiers: undefined });
      for (const text of texts) expect(findSensitiveData(text), `${where}: ${text}`).toBeNull();
      const ref = (field: string, kind: string) => {
        const target = seen.get(body[field]);
        expect(target?.kind, `${where}: ${field} ${body[field]}`).toBe(kind);
      };
      switch (line.kind) {
        case 'charge':
          expectValid(createChargeBody, body, where);
          break;
        case 'loanProduct': {
          const { chargeSourceRefs, ...rest } = body;
          for (const chargeRef of chargeSourceRefs as string[])
            expect(seen.get(chargeRef)?.kind).toBe('charge');
          expectValid(
            createLoanProductBody,
            { ...rest, charges: chargeSourceRefs.map(() => ({ id: 1 })) },
            where,
          );
          break;
        }
        case 'customer': {
          const { identifiers, consents, paymentInstruments, ...customer } = body;
          expectValid(createCustomerBody, customer, where);
          expect(customer.externalId).toBe(line.sourceRef);
          for (const identifier of identifiers) {
            expectValid(createIdentifierBody, identifier, where);
            expect(ssns.has(identifier.value), `${where}: SSN repeated`).toBe(false);
            ssns.add(identifier.value);
          }
          for (const consent of consents) expectValid(createConsentBody, consent, where);
          for (const { sourceRef, ...instrument } of paymentInstruments) {
            expectValid(createInstrumentBody, instrument, where);
            instruments.add(`${line.sourceRef}/${sourceRef}`);
          }
          break;
        }
        case 'restriction': {
          ref('customerSourceRef', 'customer');
          const { customerSourceRef: _, ...restriction } = body;
          expectValid(applyRestrictionBody, restriction, where);
          expect(['COMMUNICATION_HOLD', 'COLLECTIONS_HOLD']).toContain(restriction.restrictionType);
          break;
        }
        case 'loan': {
          ref('customerSourceRef', 'customer');
          ref('productSourceRef', 'loanProduct');
          const { customerSourceRef: _c, productSourceRef: _p, charges, ...loan } = body;
          for (const charge of charges) expect(seen.get(charge.chargeSourceRef)?.kind).toBe('charge');
          expectValid(
            createLoanBody,
            { ...loan, clientId: 1, productId: 1, charges: charges.map(() => ({ chargeId: 1 })) },
            where,
          );
          expect(loan.externalId).toBe(line.sourceRef);
          expect(loan.numberOfRepayments).toBeGreaterThanOrEqual(6);
          expect(loan.numberOfRepayments).toBeLessThanOrEqual(60);
          break;
        }
        case 'funding':
        case 'payment': {
          ref('loanSourceRef', 'loan');
          const { loanSourceRef: _, ...money } = body;
          expectValid(line.kind === 'funding' ? recordFundingBody : recordPaymentBody, money, where);
          expect(money.externalRecordRef).toBe(line.sourceRef);
          expect(money.amount).toMatch(/^[0-9]+\.[0-9]{2}$/);
          break;
        }
        case 'verification': {
          ref('customerSourceRef', 'customer');
          expect(instruments.has(`${body.customerSourceRef}/${body.instrumentSourceRef}`), where).toBe(true);
          const { customerSourceRef: _c, instrumentSourceRef: _i, ...verification } = body;
          expectValid(verifyInstrumentBody, verification, where);
          break;
        }
      }
      seen.set(line.sourceRef, line);
    }
    expect(new Set([...seen.values()].map((l) => l.kind))).toEqual(new Set(boardingKinds));
  });

  it('dates each loan chronologically: funding on the submission date, payments in order, after it, by asOf', () => {
    const loans = new Map<string, { loan: Line; funding?: Line; payments: Line[] }>();
    for (const line of parsed()) {
      if (line.kind === 'loan') loans.set(line.sourceRef, { loan: line, payments: [] });
      if (line.kind === 'funding') loans.get(line.body.loanSourceRef)!.funding = line;
      if (line.kind === 'payment') loans.get(line.body.loanSourceRef)!.payments.push(line);
    }
    expect(loans.size).toBe(300);
    let late = 0;
    let partial = 0;
    for (const { loan, funding, payments } of loans.values()) {
      const disbursed = loan.body.submittedOnDate as string;
      expect(funding?.body.fundingDate).toBe(disbursed);
      expect(funding?.body.amount).toBe(loan.body.principal);
      expect(disbursed < asOf).toBe(true);
      const dueByAsOf = Array.from({ length: loan.body.numberOfRepayments }, (_, k) =>
        addMonths(disbursed, k + 1),
      ).filter((due) => due <= asOf).length;
      expect(payments.length).toBeLessThanOrEqual(Math.min(12, dueByAsOf));
      let previous = disbursed;
      for (const [k, payment] of payments.entries()) {
        const date = payment.body.effectiveDate as string;
        expect(date > previous, `${payment.sourceRef} ${date} after ${previous}`).toBe(true);
        expect(date <= asOf).toBe(true);
        if (date !== addMonths(disbursed, k + 1)) late++;
        if ((payment.body.rationale as string).includes('partly')) partial++;
        previous = date;
      }
    }
    expect(late).toBeGreaterThan(0);
    expect(partial).toBeGreaterThan(0);
  });
});
