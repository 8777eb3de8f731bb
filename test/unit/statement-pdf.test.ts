/**
 * The printable statement (api/statement-pdf.ts; docs/processes.md P6 "a PDF the borrower can read"): rendered and
 * read back as text with unpdf: the parties, masked account number, figures, warning and transactions; never more
 * than two pages, however many transactions the period has.
 */
import { extractText, getDocumentProxy } from 'unpdf';
import { describe, expect, it } from 'vitest';
import { credit, renderStatementPdf } from '../../api/statement-pdf';
import type { StatementView } from '../../db/queries/lending/statements';
import type { StatementTransaction } from '../../domain/lending/statements';

const statement = (
  transactions: StatementTransaction[],
  figures: Partial<StatementView['figures']> = {},
): StatementView => ({
  statementId: 4,
  loanId: 9,
  loanRef: 'LN-000987',
  statementDate: '2026-03-10',
  periodStart: '2026-02-08',
  periodEnd: '2026-03-10',
  dueDate: '2026-03-31',
  createdAt: '2026-03-10T12:00:00.000Z',
  figures: {
    currency: 'USD',
    periodStart: '2026-02-08',
    periodEnd: '2026-03-10',
    dueDate: '2026-03-31',
    installmentNumber: 2,
    previousBalance: '5010.00',
    disbursements: '0.00',
    payments: '444.24',
    otherCredits: '0.00',
    interestCharged: '49.24',
    feesCharged: '25.00',
    newBalance: '4640.00',
    pastDue: '0.00',
    currentDue: '444.24',
    amountDue: '444.24',
    annualPercentageRate: '12.68',
    lateFee: '25.00',
    latePaymentWarning:
      'Late payment warning: if we do not receive your payment of 444.24 USD by 2026-03-31, you may have to pay a late fee of up to 25.00 USD.',
    transactions,
    ...figures,
  },
});

const payment = (n: number): StatementTransaction => ({
  date: '2026-02-28',
  type: 'PAYMENT',
  description: 'Payment received, thank you',
  reference: `payment/${n}`,
  amount: '-444.24',
});

/** The PDF's pages and its text with every run of whitespace (line breaks of wrapped text) as one space. */
async function textOf(pdf: Buffer) {
  const { totalPages, text } = await extractText(await getDocumentProxy(new Uint8Array(pdf)), {
    mergePages: true,
  });
  return { totalPages, text: text.replace(/\s+/g, ' ') };
}

describe('renderStatementPdf', () => {
  it('prints the parties, the masked account, the figures, the APR and the warning on one page', async () => {
    const { totalPages, text } = await textOf(
      await renderStatementPdf(statement([payment(1)]), {
        lenderName: 'Acme Lending',
        borrowerName: 'Ada Lovelace',
      }),
    );
    expect(totalPages).toBe(1);
    for (const line of [
      'Acme Lending',
      'Borrower Ada Lovelace',
      'Account number *****0987',
      'Statement period 2026-02-08 to 2026-03-10',
      'Amount due 444.24 USD',
      'Payment due date 2026-03-31',
      'Previous balance 5010.00 USD',
      'Interest charged 49.24 USD',
      'Fees charged 25.00 USD',
      'New balance 4640.00 USD',
      'Annual percentage rate (APR) 12.68%',
      'late fee of up to 25.00 USD',
      '2026-02-28 Payment received, thank you -444.24 USD',
    ]) {
      expect(text).toContain(line);
    }
    expect(text).not.toContain('LN-000987');
  });

  it('stays within two pages with many transactions and says how many are not printed', async () => {
    const many = Array.from({ length: 80 }, (_, i) => payment(i + 1));
    const { totalPages, text } = await textOf(
      await renderStatementPdf(statement(many), { lenderName: 'Acme Lending', borrowerName: 'Ada Lovelace' }),
    );
    expect(totalPages).toBe(2);
    expect(text).toContain('Transactions (continued)');
    expect(text).toContain('and 36 more transactions');
  });

  it('prints a zero credit without a sign: never -0.00, anywhere in the PDF', async () => {
    // the fixture's otherCredits is 0.00 (no waiver in the period); a period without payments has 0.00 payments
    const { text } = await textOf(
      await renderStatementPdf(statement([], { payments: '0.00' }), {
        lenderName: 'Acme Lending',
        borrowerName: 'Ada Lovelace',
      }),
    );
    expect(text).toContain('Other credits 0.00 USD');
    expect(text).toContain('Payments 0.00 USD');
    expect(text).not.toMatch(/-0(\.0+)?(?![0-9.])/);
    // a credit is printed negative; a negative stored credit (the balance rose) positive, not "--"
    const credits = await textOf(
      await renderStatementPdf(statement([payment(1)], { otherCredits: '-5.00' }), {
        lenderName: 'Acme Lending',
        borrowerName: 'Ada Lovelace',
      }),
    );
    expect(credits.text).toContain('Payments -444.24 USD');
    expect(credits.text).toContain('Other credits 5.00 USD');
    expect(credits.text).not.toContain('--');
  });

  it('credit() negates a stored decimal string without a negative zero', () => {
    expect(credit('444.24')).toBe('-444.24');
    expect(credit('0.00')).toBe('0.00');
    expect(credit('0')).toBe('0');
    expect(credit('-5.00')).toBe('5.00');
    expect(credit('0.01')).toBe('-0.01');
  });
});
