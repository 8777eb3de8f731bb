/**
 * End to end (docs/processes.md P3 "CLI"): `npm run board` (scripts/board.ts) against the service
 * started exactly as `npm start` starts it (./boot.ts), with a credential from the admin CLI. The file is a small
 * generated portfolio (scripts/portfolio-generate.ts: 20 loans, 3 payments each) with two deliberately bad lines
 * inserted: one that is not JSON (malformed, claiming no kind) and one payment whose amount has three fraction
 * digits (USD has two: rejected by the payment route's own schema, domain/validation/money.ts). Every other line is
 * good, so the batch ends COMPLETED_WITH_ERRORS with exactly those two lines rejected.
 *
 * Oracle: the counts per kind come from the file as written here (not from the service); the rejects file must
 * hold exactly the two bad lines as written here, and the errors file their line numbers and errors; the CLI exits 1. Run off
 * a TTY, the CLI prints `progress:` lines (never the bar). A second run of the same file attaches to the same
 * batch (the Idempotency-Key is derived from the file's bytes) and ends the same way.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boardingKinds } from '../../domain/boarding/batch';
import { portfolioLines, todayUtc } from '../../scripts/portfolio-generate';
import { projectRoot } from '../../workers/config';
import { type AdminCredential, type BootedService, bootService, createClientWithAdminCli } from './boot';

const run = promisify(execFile);
const tsx = path.join(projectRoot, 'node_modules', '.bin', 'tsx');
const tenant = `boardcli${Date.now().toString(36)}`;

let booted: BootedService | undefined;
let credential: AdminCredential;
let workDir: string;
let file: string;
/** The file's lines (text), numbered from 1 at index 0. */
let lines: string[];
let malformedLine: number;
let badPaymentLine: number;

beforeAll(async () => {
  booted = await bootService('lending-e2e-board-');
  credential = await createClientWithAdminCli(booted, tenant, 'lending:read lending:write', 'ALL');
  workDir = await mkdtemp(path.join(tmpdir(), 'lending-e2e-board-file-'));
  file = path.join(workDir, 'portfolio.ndjson');
  const good = [...portfolioLines({ loans: 20, paymentsPerLoan: 3, seed: 9, asOf: todayUtc() })];
  const goodPayment = JSON.parse(good.find((l) => l.includes('"kind":"payment"'))!) as {
    body: { loanSourceRef: string };
  };
  const badPayment = JSON.stringify({
    kind: 'payment',
    sourceRef: `${goodPayment.body.loanSourceRef}-pmtextra`,
    body: {
      loanSourceRef: goodPayment.body.loanSourceRef,
      amount: '10.005',
      currency: 'USD',
      effectiveDate: todayUtc(),
      externalRecordRef: `${goodPayment.body.loanSourceRef}-pmtextra`,
      source: 'IMPORT',
    },
  });
  // Not JSON, so it claims no kind.
  const malformed = 'this line is not JSON';
  // The bad lines go in the middle of the file, after the lines they would refer to.
  lines = [...good.slice(0, 40), malformed, ...good.slice(40, 80), badPayment, ...good.slice(80)];
  malformedLine = 41;
  badPaymentLine = 82;
  expect(lines[malformedLine - 1]).toBe(malformed);
  expect(lines[badPaymentLine - 1]).toBe(badPayment);
  await writeFile(file, `${lines.join('\n')}\n`);
}, 180_000);

afterAll(async () => {
  await booted?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
}, 60_000);

/** Runs `npm run board -- …args` off a TTY; resolves with its exit code and output, whatever the code. */
async function board(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(tsx, ['scripts/board.ts', ...args], {
      cwd: projectRoot,
      env: {
        ...process.env,
        SERVICE_CLIENT_ID: credential.clientId,
        SERVICE_CLIENT_SECRET: credential.clientSecret,
        TEMPORAL_UI_PORT: booted!.env.TEMPORAL_UI_PORT,
        TEMPORAL_UI_URL: undefined,
        TEMPORAL_NAMESPACE: undefined,
      },
      timeout: 240_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const failed = err as Error & { code?: number; stdout?: string; stderr?: string };
    if (typeof failed.code !== 'number') throw err;
    return { code: failed.code, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/** Lines per kind in the file (the malformed line counts under no kind). */
function expectedCounts(): Record<string, number> {
  const counts: Record<string, number> = Object.fromEntries(boardingKinds.map((k) => [k, 0]));
  for (const [index, text] of lines.entries()) {
    if (index + 1 === malformedLine) continue;
    counts[(JSON.parse(text) as { kind: string }).kind]! += 1;
  }
  return counts;
}

describe('npm run board', () => {
  let firstBatchId: string;

  it('uploads the file, prints progress and the summary, writes exactly the bad lines to the rejects file, exits 1', async () => {
    const { code, stdout, stderr } = await board([
      '--tenant',
      tenant,
      '--file',
      file,
      '--base-url',
      booted!.baseUrl,
      '--poll-ms',
      '250',
      '--progress-interval',
      '1',
    ]);
    const context = `stdout:\n${stdout}\nstderr:\n${stderr}\nservice:\n${booted!.output().slice(-4000)}`;
    expect(stderr, context).not.toMatch(/answered 404/);
    const staged = /^Batch (\d+): (\d+) lines staged/m.exec(stdout);
    expect(staged, context).not.toBeNull();
    firstBatchId = staged![1]!;
    expect(Number(staged![2])).toBe(lines.length);

    // Progress off a TTY: `progress:` lines, the last one at 100 % with the final status.
    const progress = stdout.split('\n').filter((l) => l.startsWith('progress: '));
    expect(progress.length, context).toBeGreaterThan(0);
    for (const l of progress)
      expect(l).toMatch(
        /^progress: (STAGED|VALIDATING|RUNNING|PAUSED|COMPLETED|COMPLETED_WITH_ERRORS|CANCELLED) \d+\/\d+ lines \(\d+\.\d %\), \d+\.\d lines\/s, ETA \S+/,
      );
    expect(progress.at(-1)).toMatch(
      new RegExp(`^progress: COMPLETED_WITH_ERRORS ${lines.length}/${lines.length} lines \\(100\\.0 %\\)`),
    );
    expect(stdout).not.toContain('\u001b['); // no terminal control sequences off a TTY

    // The summary: status, handled and rejected lines, the counts per kind, the rejects file and the UI link.
    expect(stdout).toMatch(
      new RegExp(
        `^Batch ${firstBatchId} COMPLETED_WITH_ERRORS: ${lines.length}/${lines.length} lines handled, 2 rejected`,
        'm',
      ),
    );
    expect(stdout).toMatch(/^Duration: .+ in the service \(this run .+\)\.$/m);
    const counts = expectedCounts();
    for (const kind of boardingKinds) {
      if (counts[kind] === 0) continue;
      const failed = kind === 'payment' ? 1 : 0;
      expect(stdout, kind).toMatch(
        new RegExp(`^ {2}${kind} +${counts[kind]} +${counts[kind]! - failed} +${failed}$`, 'm'),
      );
    }
    expect(counts.loan).toBe(20);
    const rejectsPath = `${file}.rejects.ndjson`;
    expect(stdout).toContain(`Rejected lines: 2, written to ${rejectsPath}`);
    expect(stdout).toContain(
      `Temporal UI: http://127.0.0.1:${booted!.env.TEMPORAL_UI_PORT}/namespaces/default/workflows/boarding%2F${tenant}%2F${firstBatchId}`,
    );

    // The rejects file: exactly the two bad lines, in line order, as the file holds them; their errors beside it.
    expect(await readFile(rejectsPath, 'utf8')).toBe(
      `${lines[malformedLine - 1]}\n${lines[badPaymentLine - 1]}\n`,
    );
    const errorsPath = `${file}.rejects.errors.ndjson`;
    expect(stdout).toContain(`their errors to ${errorsPath}`);
    const errors = (await readFile(errorsPath, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { line: number; sourceRef: string | null; error: unknown });
    expect(errors.map((r) => r.line)).toEqual([malformedLine, badPaymentLine]);
    expect(errors[1]!.sourceRef).toBe(JSON.parse(lines[badPaymentLine - 1]!).sourceRef);
    for (const { error } of errors) {
      expect(error).toMatchObject({
        developerMessage: expect.any(String),
        httpStatusCode: expect.any(String),
        userMessageGlobalisationCode: expect.any(String),
      });
    }
    expect(JSON.stringify(errors[1]!.error)).toContain('amount');
    expect(code, context).toBe(1);
  }, 300_000);

  it('a second run of the same file attaches to the same batch and ends the same way', async () => {
    expect(firstBatchId).toBeDefined();
    const { code, stdout } = await board([
      '--tenant',
      tenant,
      '--file',
      file,
      '--base-url',
      booted!.baseUrl,
      '--poll-ms',
      '250',
    ]);
    expect(stdout).toMatch(new RegExp(`^Batch ${firstBatchId}: ${lines.length} lines staged`, 'm'));
    expect(stdout).toMatch(new RegExp(`^Batch ${firstBatchId} COMPLETED_WITH_ERRORS: .* 2 rejected`, 'm'));
    expect(code).toBe(1);
  }, 300_000);
});
