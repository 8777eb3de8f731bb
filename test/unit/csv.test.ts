/**
 * The CSV writer of the exports (api/csv.ts): RFC 4180 quoting and the OWASP CSV-injection prefix. A small
 * RFC 4180 reader here parses what the writer wrote, so quoting is checked by round trip, not only by example.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { csvField, csvRecord } from '../../api/csv';

/** Parses RFC 4180 text (CRLF records, quoted fields with doubled quotes) into records of fields. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let i = 0;
  let quoted = false;
  while (i < text.length) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
      } else if (ch === '"') {
        quoted = false;
        i++;
      } else {
        field += ch;
        i++;
      }
    } else if (ch === '"' && field === '') {
      quoted = true;
      i++;
    } else if (ch === ',') {
      record.push(field);
      field = '';
      i++;
    } else if (ch === '\r' && text[i + 1] === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      i += 2;
    } else {
      field += ch;
      i++;
    }
  }
  if (field !== '' || record.length > 0) throw new Error('the text does not end with CRLF');
  return records;
}

describe('csvField', () => {
  it('writes plain text as it is and null as an empty field', () => {
    expect(csvField('SETTLED_NOT_POSTED')).toBe('SETTLED_NOT_POSTED');
    expect(csvField(42)).toBe('42');
    expect(csvField('')).toBe('');
    expect(csvField(null)).toBe('');
    expect(csvField(undefined)).toBe('');
  });

  it('quotes commas, quotes, CR and LF and doubles inner quotes (RFC 4180 §2.6, §2.7)', () => {
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('line1\nline2')).toBe('"line1\nline2"');
    expect(csvField('a\rb')).toBe('"a\rb"');
    expect(csvField('{"providerRef":"x","reason":"y"}')).toBe('"{""providerRef"":""x"",""reason"":""y""}"');
  });

  it('prefixes a would-be formula with a single quote (OWASP CSV Injection)', () => {
    expect(csvField('=HYPERLINK("http://evil.example","click")')).toBe(
      '"\'=HYPERLINK(""http://evil.example"",""click"")"',
    );
    expect(csvField('+1+2')).toBe("'+1+2");
    expect(csvField('-2+3')).toBe("'-2+3");
    expect(csvField('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvField('\t=1')).toBe("'\t=1");
    expect(csvField('\r=1')).toBe('"\'\r=1"');
    expect(csvField('a=1')).toBe('a=1');
  });
});

describe('csvRecord', () => {
  it('joins fields with commas and ends with CRLF', () => {
    expect(csvRecord(['a', 1, null, 'b,c'])).toBe('a,1,,"b,c"\r\n');
  });

  it('round-trips any text through an RFC 4180 reader (formula triggers aside)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.string({ unit: 'grapheme-ascii' }), { minLength: 1, maxLength: 6 }), {
          minLength: 1,
          maxLength: 5,
        }),
        (rows) => {
          const text = rows.map((row) => csvRecord(row)).join('');
          const expected = rows.map((row) =>
            row.map((cell) => (/^[=+\-@\t\r]/.test(cell) ? `'${cell}` : cell)),
          );
          expect(parseCsv(text)).toEqual(expected);
        },
      ),
    );
  });
});
