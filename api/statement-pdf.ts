/**
 * The printable statement (docs/processes.md P6 "Statements": `GET /v1/loans/{loanId}/statements/{statementId}/pdf`,
 * "a PDF the borrower can read"): one US Letter page (a second when the period has many transactions) made with
 * pdfkit and its built-in Helvetica (PDF 1.3 standard fonts, so nothing is embedded and any reader shows it):
 * lender, borrower, masked account number, period, balance summary, amount due and due date, APR, the
 * late-payment warning and the period's transactions. Amounts are printed as stored (decimal strings), never
 * re-computed.
 */
import PDFDocument from 'pdfkit';
import type { StatementView } from '../db/queries/lending/statements';
import { maskAccountNumber } from '../domain/lending/statements';

/** Who the statement is from and to. */
export interface StatementPdfParties {
  lenderName: string;
  borrowerName: string;
}

/** Transactions printed on the first page; the rest continue on a second page. */
const firstPageTransactions = 14;
/** Transactions printed at most (two pages); beyond, one line says how many more the JSON statement lists. */
const printedTransactionsMax = 44;

/**
 * Renders `statement` as a PDF and resolves to its bytes. `createdAt` of the document is the statement's issue
 * instant, so the same statement renders the same text. Errors: pdfkit's (none expected for valid input).
 */
export function renderStatementPdf(statement: StatementView, parties: StatementPdfParties): Promise<Buffer> {
  const f = statement.figures;
  const doc = new PDFDocument({
    size: 'LETTER',
    margin: 54,
    info: {
      Title: `Loan statement ${statement.statementDate}`,
      Author: parties.lenderName,
      Subject: `Statement for the payment due ${f.dueDate}`,
      CreationDate: new Date(statement.createdAt),
    },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  const money = (amount: string) => `${amount} ${f.currency}`;
  /** A credit (an amount that lowers the balance) printed with a minus sign: `credit` below. */
  const creditMoney = (amount: string) => money(credit(amount));
  const left = 54;
  const width = 612 - 2 * 54;
  const row = (label: string, value: string, bold = false) => {
    const y = doc.y;
    doc.font(bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(10);
    doc.text(label, left, y, { width: width * 0.6 });
    const labelEnd = doc.y;
    doc.text(value, left + width * 0.6, y, { width: width * 0.4, align: 'right' });
    // A wrapped label is taller than its value: the next row starts below the taller of the two.
    doc.x = left;
    doc.y = Math.max(labelEnd, doc.y);
    doc.moveDown(0.3);
  };

  doc.font('Helvetica-Bold').fontSize(16).text(parties.lenderName, left);
  doc.font('Helvetica').fontSize(12).text('Loan statement');
  doc.moveDown();
  doc.fontSize(10);
  row('Borrower', parties.borrowerName);
  row('Account number', maskAccountNumber(statement.loanRef));
  row('Statement date', statement.statementDate);
  row('Statement period', `${statement.periodStart} to ${statement.periodEnd}`);
  doc.moveDown();

  doc.font('Helvetica-Bold').fontSize(12).text('Payment information', left);
  doc.moveDown(0.4);
  row('Amount due', money(f.amountDue), true);
  row('Payment due date', f.dueDate, true);
  row(`Current installment (no. ${f.installmentNumber})`, money(f.currentDue));
  row('Past due amount', money(f.pastDue));
  doc.moveDown(0.4);
  doc.font('Helvetica-Oblique').fontSize(9).text(f.latePaymentWarning, left, doc.y, { width });
  doc.moveDown();

  doc.font('Helvetica-Bold').fontSize(12).text('Account summary', left);
  doc.moveDown(0.4);
  row('Previous balance', money(f.previousBalance));
  row('Disbursements', money(f.disbursements));
  row('Payments', creditMoney(f.payments));
  row('Other credits', creditMoney(f.otherCredits));
  row('Interest charged', money(f.interestCharged));
  row('Fees charged', money(f.feesCharged));
  row('New balance', money(f.newBalance), true);
  row(
    'Annual percentage rate (APR)',
    f.annualPercentageRate === null ? 'not disclosed' : `${f.annualPercentageRate}%`,
  );
  doc.moveDown();

  doc.font('Helvetica-Bold').fontSize(12).text('Transactions', left);
  doc.moveDown(0.4);
  if (f.transactions.length === 0) {
    doc.font('Helvetica').fontSize(10).text('No transactions in this period.', left);
  }
  f.transactions.slice(0, printedTransactionsMax).forEach((t, index) => {
    if (index === firstPageTransactions) {
      doc.addPage();
      doc.font('Helvetica-Bold').fontSize(12).text('Transactions (continued)', left);
      doc.moveDown(0.4);
    }
    row(`${t.date}  ${t.description}`, money(t.amount));
  });
  if (f.transactions.length > printedTransactionsMax) {
    doc
      .font('Helvetica-Oblique')
      .fontSize(9)
      .text(
        `… and ${f.transactions.length - printedTransactionsMax} more transactions in this period (listed in the statement's data).`,
        left,
      );
  }
  doc.moveDown();
  doc
    .font('Helvetica')
    .fontSize(8)
    .fillColor('#555555')
    .text(
      `Balances are as of the end of ${statement.periodEnd}. The new balance is what pays the loan off on that day, interest accrued to it included, less any credit held for you. Questions about this statement: contact ${parties.lenderName}.`,
      left,
      doc.y,
      { width },
    );
  doc.end();
  return done;
}

/**
 * A decimal string (as stored, e.g. `"444.24"`) negated for print as a credit: `"-444.24"`; zero stays unsigned
 * (`"0.00"`, never `"-0.00"`) and a negative amount (a credit that raised the balance) prints positive
 * (`"-5.00"` → `"5.00"`, never `"--5.00"`). Pure text: the digits are kept exactly, never re-computed.
 */
export function credit(amount: string): string {
  if (amount.startsWith('-')) return amount.slice(1);
  if (/^[0.]*$/.test(amount)) return amount;
  return `-${amount}`;
}
