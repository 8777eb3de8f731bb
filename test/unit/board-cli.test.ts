/**
 * The pieces of `npm run board` (scripts/board.ts, docs/processes.md P3) that need no service: the
 * Idempotency-Key derived from the file (same bytes → same key, letters only so the service's identifier guard
 * never refuses it, at most 50 characters), the progress arithmetic, the rejects files (the rejected lines byte
 * for byte from the file by number, which the line schema accepts again once fixed; their errors beside them), the
 * duration text and the Temporal UI link. The CLI against a running service is test/e2e/board-cli.test.ts.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv2020 from 'ajv/dist/2020';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uploadLines } from '../../activities/boarding/stage-batch';
import { type BoardingBatchView, emptyBoardingCounts } from '../../domain/boarding/batch';
import { boardingLineBytesMax, stageLine } from '../../domain/boarding/staging';
import { findSensitiveData } from '../../domain/sensitive-data';
import {
  formatDuration,
  idempotencyKeyOfFile,
  kindsLine,
  progressOf,
  temporalUiLink,
  writeRejects,
} from '../../scripts/board';

/** The line schema (domain/boarding/line.schema.json, draft 2020-12) and the example portfolio's lines. */
const validateLine = new Ajv2020({ strict: true, allowUnionTypes: true, validateFormats: false }).compile(
  JSON.parse(
    readFileSync(fileURLToPath(new URL('../../domain/boarding/line.schema.json', import.meta.url)), 'utf8'),
  ),
);
const exampleLines = readFileSync(
  fileURLToPath(new URL('../../domain/boarding/example-portfolio.ndjson', import.meta.url)),
  'utf8',
)
  .split('\n')
  .filter((l) => l !== '');

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'board-cli-unit-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const shapeA = (message: string) => ({
  developerMessage: message,
  httpStatusCode: '400',
  defaultUserMessage: 'Invalid request.',
  userMessageGlobalisationCode: 'validation.msg.validation.errors.exist',
  errors: [],
});

describe('board CLI', () => {
  it('derives the same letters-only Idempotency-Key from the same bytes, another from other bytes', async () => {
    const [a, b, c] = ['a', 'b', 'c'].map((n) => path.join(dir, `${n}.ndjson`)) as [string, string, string];
    await writeFile(a, '{"kind":"charge"}\n');
    await writeFile(b, '{"kind":"charge"}\n');
    await writeFile(c, '{"kind":"charge"} \n');
    const [ka, kb, kc] = await Promise.all([a, b, c].map(idempotencyKeyOfFile));
    expect(ka).toBe(kb);
    expect(ka).not.toBe(kc);
    expect(ka).toMatch(/^board-[a-p]{40}$/);
    expect(ka!.length).toBeLessThanOrEqual(50);
    expect(findSensitiveData(ka!)).toBeNull();
  });

  it('counts lines handled over every kind, malformed lines without a kind once the kinds are counted', () => {
    const counts = emptyBoardingCounts();
    const view: BoardingBatchView = {
      batchId: 3,
      status: 'STAGED',
      records: 10,
      malformed: 1,
      counts,
      startedAt: null,
      completedAt: null,
      etaSeconds: null,
    };
    // Staged, nothing counted yet: 0 of the records.
    expect(progressOf(view)).toEqual({ done: 0, total: 10 });
    counts.loan = { total: 4, boarded: 2, failed: 1 };
    counts.payment = { total: 5, boarded: 1, failed: 0 };
    // 4 handled of 9 counted, and the one line that names no kind.
    expect(progressOf({ ...view, status: 'RUNNING' })).toEqual({ done: 5, total: 10 });
    expect(kindsLine(view)).toBe('loan 2/4 (1 failed) payment 1/5');
  });

  it('writes the rejected lines byte for byte as the file holds them, their errors beside them, in line order', async () => {
    const file = path.join(dir, 'portfolio.ndjson');
    // As the upload counts them: split on LF, numbered from 1, the blank line 3 counted, line 6 without its LF.
    const lines = [
      '{"kind":"charge","sourceRef":"chg-a","body":{"name":"Fee"}}',
      'not JSON at all',
      '',
      // Key order, spacing, escapes and a CR before the LF: all kept as sent.
      '{ "sourceRef" : "ln-1", "kind":"loan",  "body":{"principal":"-1","note":"Caf\u00e9 ☕"}}\r',
      '{"kind":"loan","sourceRef":"ln-2","body":{}}',
      '{"kind":"payment","sourceRef":"ln-2-pmt1","body":{"loanSourceRef":"ln-2","amount":"1.005"}}',
    ];
    await writeFile(file, lines.join('\n'));
    const paths = {
      linesPath: path.join(dir, 'portfolio.ndjson.rejects.ndjson'),
      errorsPath: path.join(dir, 'portfolio.ndjson.rejects.errors.ndjson'),
    };
    const written = await writeRejects(
      [
        { line: 6, kind: 'payment', sourceRef: 'ln-2-pmt1', error: shapeA('amount') },
        { line: 4, kind: 'loan', sourceRef: 'ln-1', error: shapeA('principal') },
        { line: 2, kind: null, sourceRef: null, error: shapeA('not JSON') },
      ],
      file,
      paths,
    );
    expect(written).toEqual({ rejected: 3, copied: 3 });
    // Exactly the bytes of lines 2, 4 and 6 of the file (line 4 with its CR), each ended by LF.
    expect(await readFile(paths.linesPath)).toEqual(Buffer.from(`${lines[1]}\n${lines[3]}\n${lines[5]}\n`));
    const errors = (await readFile(paths.errorsPath, 'utf8'))
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(errors).toEqual([
      { line: 2, sourceRef: null, error: shapeA('not JSON') },
      { line: 4, sourceRef: 'ln-1', error: shapeA('principal') },
      { line: 6, sourceRef: 'ln-2-pmt1', error: shapeA('amount') },
    ]);
  });

  it('a rejects file, fixed, is accepted again by the line schema and the upload, the other bytes untouched', async () => {
    const file = path.join(dir, 'refix.ndjson');
    const good = exampleLines.slice(0, 14);
    const [bad1, bad2] = exampleLines.filter((l) => l.includes('"kind":"payment"')) as [string, string];
    const badPayment = bad1.replace(/"amount":"[^"]*"/, '"amount":"444.245"');
    const badSecond = bad2.replace(/"effectiveDate":"[^"]*"/, '"effectiveDate":"2025-02-30"');
    await writeFile(file, `${[...good, badPayment, badSecond].join('\n')}\n`);
    const linesPath = `${file}.rejects.ndjson`;
    await writeRejects(
      [
        { line: 15, kind: 'payment', sourceRef: 'pay-ada-1-01', error: shapeA('amount') },
        { line: 16, kind: 'payment', sourceRef: 'pay-ada-1-02', error: shapeA('effectiveDate') },
      ],
      file,
      { linesPath, errorsPath: `${file}.rejects.errors.ndjson` },
    );
    const rejects = await readFile(linesPath, 'utf8');
    expect(rejects).toBe(`${badPayment}\n${badSecond}\n`);
    // The team fixes the two values and boards the rejects file again.
    const fixed = rejects.replace('"444.245"', '"444.24"').replace('"2025-02-30"', '"2025-03-15"');
    const staged: string[] = [];
    const upload = (async function* () {
      yield Buffer.from(fixed);
    })();
    for await (const line of uploadLines(upload, createHash('sha256'), boardingLineBytesMax)) {
      const text = Buffer.from(line.bytes).toString('utf8');
      expect(validateLine(JSON.parse(text)), JSON.stringify(validateLine.errors)).toBe(true);
      const result = stageLine(line.lineNo, text);
      expect(result.error).toBeNull();
      staged.push(`${result.state} ${result.kind} ${result.sourceRef}`);
    }
    expect(staged).toEqual(['PENDING payment pay-ada-1-01', 'PENDING payment pay-ada-1-02']);
    // Only the fixed values differ from the original lines.
    expect(fixed).toBe(`${bad1}\n${bad2}\n`);
  });

  it('without the file, writes only the errors (the service holds no original bytes to give back)', async () => {
    const paths = {
      linesPath: path.join(dir, 'boarding-batch-7.rejects.ndjson'),
      errorsPath: path.join(dir, 'boarding-batch-7.rejects.errors.ndjson'),
    };
    await writeFile(paths.linesPath, 'stale\n');
    const written = await writeRejects(
      [{ line: 7, kind: 'payment', sourceRef: 'ln-1-pmt1', error: shapeA('amount') }],
      null,
      paths,
    );
    expect(written).toEqual({ rejected: 1, copied: 0 });
    expect(existsSync(paths.linesPath)).toBe(false);
    expect(JSON.parse(await readFile(paths.errorsPath, 'utf8'))).toEqual({
      line: 7,
      sourceRef: 'ln-1-pmt1',
      error: shapeA('amount'),
    });
  });

  it('formats durations and links the batch workflow in the Temporal UI', () => {
    expect(formatDuration(12.4)).toBe('12 s');
    expect(formatDuration(245)).toBe('4 min 05 s');
    expect(formatDuration(3723)).toBe('1 h 02 min 03 s');
    expect(temporalUiLink('demo', 12, {})).toBe(
      'http://127.0.0.1:8233/namespaces/default/workflows/boarding%2Fdemo%2F12',
    );
    expect(
      temporalUiLink('acme', 5, { TEMPORAL_UI_URL: 'http://ui.example', TEMPORAL_NAMESPACE: 'lending' }),
    ).toBe('http://ui.example/namespaces/lending/workflows/boarding%2Facme%2F5');
  });
});
