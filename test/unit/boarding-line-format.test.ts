/**
 * The boarding file format (docs/processes.md P3 "Input"): the JSON Schema of a line
 * (domain/boarding/line.schema.json, draft 2020-12, checked with ajv) accepts every line of the example portfolio
 * (domain/boarding/example-portfolio.ndjson) and rejects bad lines; every example body, with its source refs
 * replaced by ids, is a valid body of its public route (the routes' own valibot schemas); the upload's line-shape
 * staging (domain/boarding/staging.ts) and line splitter (activities/boarding/stage-batch.ts `uploadLines`).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Ajv2020 from 'ajv/dist/2020';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { uploadLines } from '../../activities/boarding/stage-batch';
import { type BoardingKind, boardingKinds } from '../../domain/boarding/batch';
import { boardingLineBytesMax, stageLine } from '../../domain/boarding/staging';
import {
  applyRestrictionBody,
  createConsentBody,
  createCustomerBody,
  createIdentifierBody,
  createInstrumentBody,
  verifyInstrumentBody,
} from '../../domain/customers/schemas/customers';
import { recordFundingBody } from '../../domain/lending/schemas/fundings';
import { approveLoanBody, createLoanBody } from '../../domain/lending/schemas/loans';
import { createChargeBody, createLoanProductBody } from '../../domain/lending/schemas/products';
import { recordPaymentBody } from '../../domain/payments/schemas/recorded-payments';

const schema = JSON.parse(
  readFileSync(fileURLToPath(new URL('../../domain/boarding/line.schema.json', import.meta.url)), 'utf8'),
);
const exampleText = readFileSync(
  fileURLToPath(new URL('../../domain/boarding/example-portfolio.ndjson', import.meta.url)),
  'utf8',
);
// biome-ignore lint/suspicious/noExplicitAny: lines are JSON read field by field.
type Line = { kind: BoardingKind; sourceRef: string; body: Record<string, any> };
const example: Line[] = exampleText
  .split('\n')
  .filter((l) => l !== '')
  .map((l) => JSON.parse(l));

const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true, validateFormats: false });
const validateLine = ajv.compile(schema);

function without<T extends Record<string, unknown>>(body: T, ...keys: string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).filter(([k]) => !keys.includes(k)));
}

/** Issues of `body` against `schema` (valibot), as readable text. */
function issuesOf(s: v.GenericSchema, body: unknown): string[] {
  const result = v.safeParse(s, body);
  return result.success ? [] : result.issues.map((i) => `${v.getDotPath(i) ?? ''}: ${i.message}`);
}

/** The public routes' bodies a line stands for, with its source refs replaced by ids (docs/processes.md P3). */
function routeBodiesOf(line: Line): [v.GenericSchema, unknown][] {
  const b = line.body;
  switch (line.kind) {
    case 'charge':
      return [[createChargeBody, b]];
    case 'loanProduct':
      return [
        [
          createLoanProductBody,
          {
            ...without(b, 'chargeSourceRefs'),
            charges: b.chargeSourceRefs.map((_: string, i: number) => ({ id: i + 1 })),
          },
        ],
      ];
    case 'customer':
      return [
        [createCustomerBody, without(b, 'identifiers', 'consents', 'paymentInstruments')],
        ...(b.identifiers ?? []).map((x: unknown) => [createIdentifierBody, x]),
        ...(b.consents ?? []).map((x: unknown) => [createConsentBody, x]),
        ...(b.paymentInstruments ?? []).map((x: Record<string, unknown>) => [
          createInstrumentBody,
          without(x, 'sourceRef'),
        ]),
      ];
    case 'restriction':
      return [[applyRestrictionBody, without(b, 'customerSourceRef')]];
    case 'loan':
      return [
        [
          createLoanBody,
          {
            ...without(b, 'customerSourceRef', 'productSourceRef', 'approval'),
            clientId: 1,
            productId: 1,
            externalId: line.sourceRef,
            charges: (b.charges ?? []).map((c: Record<string, unknown>) => ({
              ...without(c, 'chargeSourceRef'),
              chargeId: 1,
            })),
          },
        ],
        ...(b.approval ? [[approveLoanBody, b.approval] as [v.GenericSchema, unknown]] : []),
      ];
    case 'funding':
      return [[recordFundingBody, { ...without(b, 'loanSourceRef'), externalRecordRef: line.sourceRef }]];
    case 'payment':
      return [[recordPaymentBody, { ...without(b, 'loanSourceRef'), externalRecordRef: line.sourceRef }]];
    case 'verification':
      return [[verifyInstrumentBody, without(b, 'customerSourceRef', 'instrumentSourceRef')]];
  }
}

describe('the example portfolio', () => {
  it('has every kind, in boarding order, with the counts docs/migrating.md describes', () => {
    const kinds = example.map((l) => l.kind);
    const order = kinds.map((k) => boardingKinds.indexOf(k));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    const count = (k: BoardingKind) => kinds.filter((x) => x === k).length;
    expect(boardingKinds.map(count)).toEqual([2, 2, 3, 1, 3, 3, 10, 1]);
    expect(new Set(example.map((l) => l.sourceRef)).size).toBe(example.length);
  });

  it('every line is valid against the JSON Schema of a line', () => {
    for (const line of example) {
      const ok = validateLine(line);
      expect(ok, `${line.sourceRef}: ${JSON.stringify(validateLine.errors)}`).toBe(true);
    }
  });

  it('every body, source refs replaced by ids, is a valid body of its public route', () => {
    for (const line of example) {
      for (const [routeSchema, body] of routeBodiesOf(line)) {
        expect(issuesOf(routeSchema, body), line.sourceRef).toEqual([]);
      }
    }
  });

  it('every source ref a line names is the sourceRef of an earlier line of the right kind', () => {
    const seen = new Map<string, string>();
    for (const line of example) {
      const b = line.body;
      const refs: [string, string][] = [
        ...(b.chargeSourceRefs ?? []).map((r: string) => [r, 'charge']),
        ...(b.customerSourceRef ? [[b.customerSourceRef, 'customer']] : []),
        ...(b.productSourceRef ? [[b.productSourceRef, 'loanProduct']] : []),
        ...(b.loanSourceRef ? [[b.loanSourceRef, 'loan']] : []),
        ...(line.kind === 'loan'
          ? b.charges.map((c: { chargeSourceRef: string }) => [c.chargeSourceRef, 'charge'])
          : []),
        ...(b.instrumentSourceRef ? [[b.instrumentSourceRef, 'instrument']] : []),
      ];
      for (const [ref, kind] of refs) expect(seen.get(ref), `${line.sourceRef} → ${ref}`).toBe(kind);
      seen.set(line.sourceRef, line.kind);
      for (const instrument of b.paymentInstruments ?? []) seen.set(instrument.sourceRef, 'instrument');
    }
  });

  it('every line stages PENDING with its parent source ref', () => {
    for (const [i, line] of example.entries()) {
      const staged = stageLine(i + 1, JSON.stringify(line));
      expect(staged.state, JSON.stringify(staged.error)).toBe('PENDING');
      expect(staged.kind).toBe(line.kind);
      expect(staged.sourceRef).toBe(line.sourceRef);
      const parent = line.body.loanSourceRef ?? line.body.customerSourceRef ?? null;
      expect(staged.parentSourceRef).toBe(parent);
    }
  });
});

describe('the JSON Schema of a line rejects', () => {
  const good = example.find((l) => l.kind === 'loan') as Line;
  const cases: [string, unknown][] = [
    ['a missing kind', { sourceRef: 'x', body: {} }],
    ['an unknown kind', { kind: 'mortgage', sourceRef: 'x', body: {} }],
    ['a missing sourceRef', { kind: 'charge', body: {} }],
    ['an empty sourceRef', { kind: 'charge', sourceRef: '', body: {} }],
    ['a sourceRef over 128 characters', { kind: 'charge', sourceRef: 'r'.repeat(129), body: {} }],
    ['a sourceRef with a control character', { kind: 'charge', sourceRef: 'a\tb', body: {} }],
    ['a body that is not an object', { kind: 'charge', sourceRef: 'x', body: [1] }],
    ['a field besides kind, sourceRef and body', { kind: 'charge', sourceRef: 'x', body: {}, extra: 1 }],
    ['a loan without productSourceRef', { ...good, body: without(good.body, 'productSourceRef') }],
    ['a loan with clientId', { ...good, body: { ...good.body, clientId: 7 } }],
    [
      'a loan charge without chargeSourceRef',
      { ...good, body: { ...good.body, charges: [{ amount: '1' }] } },
    ],
    ['a product without chargeSourceRefs', { kind: 'loanProduct', sourceRef: 'p', body: { name: 'P' } }],
    ['a restriction without customerSourceRef', { kind: 'restriction', sourceRef: 'r', body: {} }],
    ['a funding without loanSourceRef', { kind: 'funding', sourceRef: 'f', body: { amount: '1' } }],
    ['a payment without loanSourceRef', { kind: 'payment', sourceRef: 'p', body: { amount: '1' } }],
    [
      'a verification without instrumentSourceRef',
      { kind: 'verification', sourceRef: 'v', body: { customerSourceRef: 'c' } },
    ],
  ];
  for (const [what, line] of cases) {
    it(what, () => {
      expect(validateLine(line)).toBe(false);
    });
  }
});

describe('stageLine', () => {
  const names = (text: string) => (stageLine(7, text).error?.errors ?? []).map((e) => e.parameterName);

  it('fails what is not JSON, or not a JSON object, naming line', () => {
    for (const text of ['{"kind":', 'not json', '[1,2]', '"text"', 'null', '42']) {
      const staged = stageLine(7, text);
      expect(staged.state).toBe('FAILED');
      expect(staged.error).toMatchObject({
        httpStatusCode: '400',
        userMessageGlobalisationCode: 'validation.msg.validation.errors.exist',
      });
      expect(names(text)).toEqual(['line']);
    }
  });

  it('names kind, sourceRef and body when they are wrong, keeping what is right', () => {
    expect(names('{"sourceRef":"a","body":{}}')).toEqual(['kind']);
    expect(names('{"kind":"mortgage","sourceRef":"a","body":{}}')).toEqual(['kind']);
    expect(names('{"kind":"charge","body":{}}')).toEqual(['sourceRef']);
    expect(names(`{"kind":"charge","sourceRef":"${'r'.repeat(129)}","body":{}}`)).toEqual(['sourceRef']);
    expect(names('{"kind":"charge","sourceRef":"a\\u0007b","body":{}}')).toEqual(['sourceRef']);
    expect(names('{"kind":"charge","sourceRef":"ssn 078-05-1120","body":{}}')).toEqual(['sourceRef']);
    // A source ref is a reference (the default externalId / externalRecordRef): no spaces, slashes or other marks,
    // in the staging rule and in the published JSON Schema alike.
    for (const ref of ['cust 1', 'cust/1', '-cust', 'cust#1', 'SSN 536-22-8417 acct 000123456789']) {
      expect(names(`{"kind":"charge","sourceRef":${JSON.stringify(ref)},"body":{}}`), ref).toEqual([
        'sourceRef',
      ]);
      expect(validateLine({ kind: 'charge', sourceRef: ref, body: {} }), ref).toBe(false);
    }
    for (const ref of ['cust-1', 'LN:42', 'a_b.c']) {
      expect(names(`{"kind":"charge","sourceRef":${JSON.stringify(ref)},"body":{}}`), ref).toEqual([]);
    }
    expect(names('{"kind":"charge","sourceRef":"a","body":"x"}')).toEqual(['body']);
    expect(names('{"kind":"charge","sourceRef":"a","body":{"name":"\\u0000"}}')).toEqual(['body']);
    expect(names('{"kind":"x","body":[]}')).toEqual(['kind', 'sourceRef', 'body']);
    const staged = stageLine(3, '{"kind":"payment","sourceRef":"p-1","body":null}');
    expect(staged).toMatchObject({
      state: 'FAILED',
      kind: 'payment',
      sourceRef: 'p-1',
      parentSourceRef: null,
    });
  });
});

describe('uploadLines', () => {
  async function* chunksOf(...parts: string[]) {
    for (const p of parts) yield new TextEncoder().encode(p);
  }
  async function linesOf(maxBytes: number, ...parts: string[]) {
    const out: { lineNo: number; text: string; overlong: boolean }[] = [];
    for await (const l of uploadLines(chunksOf(...parts), createHash('sha256'), maxBytes)) {
      out.push({ lineNo: l.lineNo, text: new TextDecoder().decode(l.bytes), overlong: l.overlong });
    }
    return out;
  }

  it('splits on LF across chunk boundaries, numbering every line from 1, the last without LF', async () => {
    expect(await linesOf(100, 'ab', 'c\nd', 'e\r\n\n', 'f')).toEqual([
      { lineNo: 1, text: 'abc', overlong: false },
      { lineNo: 2, text: 'de\r', overlong: false },
      { lineNo: 3, text: '', overlong: false },
      { lineNo: 4, text: 'f', overlong: false },
    ]);
  });

  it('marks a line past the limit overlong, keeping only its first bytes, and goes on', async () => {
    const lines = await linesOf(4, 'abcdefgh', 'ij\nok\n');
    expect(lines.map((l) => [l.lineNo, l.overlong])).toEqual([
      [1, true],
      [2, false],
    ]);
    expect(lines[1]?.text).toBe('ok');
    expect(boardingLineBytesMax).toBe(1024 * 1024);
  });

  it('hashes every byte', async () => {
    const hash = createHash('sha256');
    for await (const _ of uploadLines(chunksOf('a\n', 'b'), hash, 10)) {
      // drain
    }
    expect(hash.digest('hex')).toBe(createHash('sha256').update('a\nb').digest('hex'));
  });
});
