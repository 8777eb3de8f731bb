/**
 * CSV output for exports: RFC 4180 records with the OWASP "CSV Injection" defence. No CSV library is installed,
 * and writing (never parsing) needs only this much.
 *
 * - RFC 4180 §2: records end in CRLF; a field holding a comma, a double quote, CR or LF is enclosed in double
 *   quotes and each double quote inside it is doubled; other fields are written as they are. A null or undefined
 *   value is an empty field.
 * - OWASP CSV Injection (https://owasp.org/www-community/attacks/CSV_Injection): a field that a spreadsheet would
 *   read as a formula, i.e. whose text starts with `=`, `+`, `-`, `@`, a tab (U+0009) or a carriage return
 *   (U+000D), is prefixed with a single quote `'`, so it is shown as text, never evaluated. Values of ours that
 *   could legitimately start with one of these (a negative amount) are never written bare into a cell: amounts
 *   travel inside the `detail` JSON.
 */

const formulaTrigger = /^[=+\-@\t\r]/;
const needsQuotes = /[",\r\n]/;

/** One CSV field (module note): neutralized when it starts like a formula, quoted when RFC 4180 requires it. */
export function csvField(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (formulaTrigger.test(text)) text = `'${text}`;
  return needsQuotes.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One CSV record of `values`, fields joined by commas and ended by CRLF (RFC 4180 §2.1, §2.4). */
export function csvRecord(values: readonly (string | number | null | undefined)[]): string {
  return `${values.map(csvField).join(',')}\r\n`;
}
