/**
 * The pieces of `npm run board` (scripts/board.ts; issue 9 §3, DESIGN-processes P3) that need no service: the
 * Idempotency-Key derived from the file (same bytes → same key, letters only so the service's identifier guard
 * never refuses it, at most 50 characters), the progress arithmetic, the rejects file (the original lines by
 * number with the error beside them), the duration text and the Temporal UI link. The CLI against a running
 * service is test/e2e/board-cli.test.ts.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BoardingBatchView, emptyBoardingCounts } from '../../domain/boarding/batch';
import { findSensitiveData } from '../../domain/sensitive-data';
import {
  formatDuration,
  idempotencyKeyOfFile,
  kindsLine,
  progressOf,
  temporalUiLink,
  writeRejects,
} from '../../scripts/board';

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

  it('writes the rejected lines from the file by number, with the error beside them, in line order', async () => {
    const file = path.join(dir, 'portfolio.ndjson');
    const lines = [
      '{"kind":"charge","sourceRef":"chg-a","body":{"name":"Fee"}}',
      'not JSON at all',
      '{"kind":"loan","sourceRef":"ln-1","body":{"principal":"-1"}}',
      '{"kind":"loan","sourceRef":"ln-2","body":{}}',
    ];
    await writeFile(file, `${lines.join('\n')}\n`);
    const out = path.join(dir, 'portfolio.ndjson.rejects.ndjson');
    const written = await writeRejects(
      [
        { line: 3, kind: 'loan', sourceRef: 'ln-1', error: shapeA('principal') },
        { line: 2, kind: null, sourceRef: null, error: shapeA('not JSON') },
      ],
      file,
      out,
    );
    expect(written).toBe(2);
    const rejects = (await readFile(out, 'utf8'))
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rejects).toEqual([
      { line: 2, text: 'not JSON at all', error: shapeA('not JSON') },
      { ...JSON.parse(lines[2]!), line: 3, error: shapeA('principal') },
    ]);
  });

  it('without the file, writes what the service said about each rejected line', async () => {
    const out = path.join(dir, 'batch.rejects.ndjson');
    await writeRejects(
      [{ line: 7, kind: 'payment', sourceRef: 'ln-1-pmt1', error: shapeA('amount') }],
      null,
      out,
    );
    expect(JSON.parse(await readFile(out, 'utf8'))).toEqual({
      line: 7,
      kind: 'payment',
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
