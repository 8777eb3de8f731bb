/**
 * `npm run board -- --tenant <t> --file <path>` and `npm run board -- --attach <batchId> [--tenant <t>] [--file
 * <path>]`: boards a portfolio file through the public API and follows the batch to its end (* docs/processes.md P3 "CLI").
 *
 * 1. Credential: `--client-id`/`--client-secret`, else `SERVICE_CLIENT_ID`/`SERVICE_CLIENT_SECRET`; a
 *    client-credentials token for `lending:read lending:write` (`POST /oauth2/token`, scripts/http-client.ts),
 *    renewed when the service answers 401. Service address: `--base-url`, default `http://127.0.0.1:$PORT`
 *    (`PORT` default 8080). Tenant: `--tenant`, else `SERVICE_TENANT`, else `demo` (the sandbox tenant).
 * 2. Upload (with `--file`, unless `--attach`): `POST /v1/boarding/batches`, the file streamed as the body
 *    (`Content-Type: application/x-ndjson`, never read into memory), with the `Idempotency-Key`
 *    `board-<first 160 bits of the file's SHA-256, written as letters a–p>` (letters only: a hex digest can hold
 *    runs of digits the service refuses as possible account numbers), so running the same file again attaches to
 *    the batch the first run created, and the file's base name as `?fileName=` (the batch summary names it).
 *    → 202 `{batchId, status: "STAGED", records}`.
 * 3. Follow: polls `GET /v1/boarding/batches/{batchId}` every `--poll-ms` (default 1000) until a final status
 *    (COMPLETED, COMPLETED_WITH_ERRORS, CANCELLED). On a terminal (stdout a TTY) a live `cli-progress` bar: lines
 *    handled (boarded + failed, all kinds) of the batch's lines, lines/s, ETA (the service's `etaSeconds`, else
 *    the rate's), status, and a second line with `boarded/total` per kind (and failures). Otherwise one line
 *    `progress: <status> <done>/<total> lines (<pct> %), <rate> lines/s, ETA <eta> | <kind> <boarded>/<total> …`
 *    at the first answer, at every status change and every `--progress-interval` seconds (default 5).
 *    A 5xx or a refused connection while following is reported and retried; a 429 waits for `Retry-After`.
 * 4. Ctrl-C (SIGINT) detaches: the batch keeps running in the service; prints how to re-attach and exits 130.
 * 5. At the end: pages `GET …/errors` (`limit` 500) and, when lines were rejected, writes (`writeRejects`)
 *    `<file>.rejects.ndjson`: the rejected lines in line order, byte for byte as the file holds them (read from the
 *    file by line number, never from the service), so that the file can be fixed and boarded again; and beside it
 *    `<file>.rejects.errors.ndjson`: `{line, sourceRef, error}` per rejected line (its number in the uploaded
 *    file, the service's Shape A error). Without `--file` only `boarding-batch-<batchId>.rejects.errors.ndjson`.
 *    Rejects files left by an earlier run of the same file are removed when nothing is rejected. Then prints the summary: status, lines, the
 *    batch's duration (startedAt → completedAt) and this run's, the counts per kind, the rejects file, and the
 *    Temporal UI link of the workflow `boarding/<tenant>/<batchId>` (`TEMPORAL_UI_URL`, default
 *    `http://127.0.0.1:$TEMPORAL_UI_PORT`, port default 8233; namespace `TEMPORAL_NAMESPACE`, default `default`).
 *
 * Exit codes: 0 every line boarded; 1 any line rejected (failed or malformed) or the batch cancelled; 2 bad
 * arguments, no credential, or the service refused the upload or does not know the batch; 130 detached.
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { finished, pipeline } from 'node:stream/promises';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import cliProgress from 'cli-progress';
import {
  type BoardingBatchView,
  type BoardingKind,
  boardingKinds,
  finalBoardingBatchStatuses,
} from '../domain/boarding/batch';
import { boardingWorkflowId } from '../domain/ids';
import { requestToken } from './http-client';

/** One item of `GET /v1/boarding/batches/{batchId}/errors` (docs/processes.md P3). */
export interface BoardingErrorItem {
  line: number;
  kind: BoardingKind | null;
  sourceRef: string | null;
  error: unknown;
}

/** A usage or service problem that ends the CLI with exit code 2 and this message. */
class CliError extends Error {}

const scope = 'lending:read lending:write';
const actor = 'boarding.cli';

/** `board-` + the first 20 bytes of the file's SHA-256 as letters a–p (one per nibble): 46 characters. */
export async function idempotencyKeyOfFile(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  const digest = hash.digest().subarray(0, 20);
  let letters = '';
  for (const byte of digest) letters += String.fromCharCode(97 + (byte >> 4), 97 + (byte & 15));
  return `board-${letters}`;
}

/** `1 h 02 min 03 s`, `4 min 05 s`, `12 s`. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = s % 60;
  if (h > 0) return `${h} h ${String(m).padStart(2, '0')} min ${String(rest).padStart(2, '0')} s`;
  if (m > 0) return `${m} min ${String(rest).padStart(2, '0')} s`;
  return `${rest} s`;
}

/**
 * Lines handled (boarded + failed over every kind, plus the malformed lines that name no kind once the kinds are
 * counted) and lines in the batch (its `records` until counted).
 */
export function progressOf(view: BoardingBatchView): { done: number; total: number } {
  let done = 0;
  let total = 0;
  for (const kind of boardingKinds) {
    const count = view.counts?.[kind];
    if (!count) continue;
    done += count.boarded + count.failed;
    total += count.total;
  }
  // Lines counted under no kind (malformed lines naming none) were handled when staged.
  if (total > 0) done += Math.max(0, (view.records ?? 0) - total);
  return { done, total: Math.max(total, view.records ?? 0) };
}

/** `loan 12/20 payment 200/240 (3 failed) …`: the kinds that have lines. */
export function kindsLine(view: BoardingBatchView): string {
  return boardingKinds
    .filter((kind) => (view.counts?.[kind]?.total ?? 0) > 0)
    .map((kind) => {
      const c = view.counts[kind];
      return `${kind} ${c.boarded}/${c.total}${c.failed > 0 ? ` (${c.failed} failed)` : ''}`;
    })
    .join(' ');
}

/** The service: base URL, tenant, credential and the current token (renewed on 401). */
class ServiceClient {
  private token: string | null = null;
  constructor(
    readonly baseUrl: string,
    readonly tenant: string,
    private readonly credential: { clientId: string; clientSecret: string },
  ) {}

  private async accessToken(renew = false): Promise<string> {
    if (!this.token || renew) {
      this.token = await requestToken(
        this.baseUrl,
        { tenant: this.tenant, ...this.credential },
        scope,
        () => {},
      ).catch((err: Error) => {
        throw new CliError(`No token from ${this.baseUrl}/oauth2/token: ${err.message}`);
      });
    }
    return this.token;
  }

  /** The bearer token (renewed when `renew`), tenant and actor headers of a request. */
  async authHeaders(renew = false): Promise<Record<string, string>> {
    return {
      authorization: `Bearer ${await this.accessToken(renew)}`,
      'service-tenant': this.tenant,
      'service-actor': actor,
    };
  }

  /**
   * One request with the bearer token, tenant and actor. A request without a body: renews the token once on 401,
   * waits out a 429 (`Retry-After`), gives up after 30 s (throws).
   */
  async request(method: string, urlPath: string, init: RequestInit = {}): Promise<Response> {
    for (let attempt = 1; ; attempt++) {
      const response = await fetch(`${this.baseUrl}${urlPath}`, {
        // A read that hangs (e.g. a progress query while no worker runs) is given up after 30 s and retried.
        ...(init.body === undefined ? { signal: AbortSignal.timeout(30_000) } : {}),
        ...init,
        method,
        headers: {
          ...(init.headers as Record<string, string>),
          authorization: `Bearer ${await this.accessToken()}`,
          'service-tenant': this.tenant,
          'service-actor': actor,
        },
      });
      // A streamed body cannot be sent twice: only bodiless requests are retried.
      if (response.status === 401 && attempt === 1 && init.body === undefined) {
        await response.body?.cancel();
        await this.accessToken(true);
        continue;
      }
      if (response.status === 429 && attempt < 10 && init.body === undefined) {
        await response.body?.cancel();
        const seconds = Number(response.headers.get('retry-after'));
        await sleep((seconds > 0 ? seconds : 1) * 1000);
        continue;
      }
      return response;
    }
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function bodyText(response: Response): Promise<string> {
  const text = await response.text().catch(() => '');
  return text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
}

/** What a streamed upload answered: status, headers and the body text. */
interface UploadAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/**
 * POSTs `file` to `url` through Node's own HTTP client, piped from the file with backpressure, so the CLI's memory
 * stays flat whatever the file's size (a `fetch` with a streamed body reads the whole file ahead of the socket on
 * Node 20: 450 MiB for a 400 MB file, against 73 MiB piped). Rejects on a network error.
 */
async function postFile(url: URL, headers: Record<string, string>, file: string): Promise<UploadAnswer> {
  const transport = url.protocol === 'https:' ? https : http;
  const request = transport.request(url, { method: 'POST', headers });
  const answered = new Promise<UploadAnswer>((resolve, reject) => {
    request.once('error', reject);
    request.once('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.once('error', reject);
      response.once('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
  });
  // A service that answers before reading the whole body (401, 429, 415) ends the upload early: not an error here.
  await pipeline(createReadStream(file), request).catch(() => {});
  return answered;
}

/**
 * Uploads `file` (streamed, constant memory) → the batch id and its line count. A 401 renews the token and a 429
 * waits out its `Retry-After`, then the file is sent again from its start under the same Idempotency-Key.
 */
async function upload(client: ServiceClient, file: string): Promise<{ batchId: number; records: number }> {
  const key = await idempotencyKeyOfFile(file);
  const url = new URL(
    `${client.baseUrl}/v1/boarding/batches?fileName=${encodeURIComponent(path.basename(file))}`,
  );
  let answer: UploadAnswer | null = null;
  let renew = false;
  for (let attempt = 1; attempt <= 10; attempt++) {
    answer = await postFile(
      url,
      {
        ...(await client.authHeaders(renew)),
        'content-type': 'application/x-ndjson',
        'idempotency-key': key,
      },
      file,
    ).catch((err: Error) => {
      throw new CliError(`The upload to ${client.baseUrl} failed: ${err.message}`);
    });
    renew = answer.status === 401 && !renew;
    if (renew) continue;
    if (answer.status === 429) {
      const seconds = Number(answer.headers['retry-after']);
      await sleep((seconds > 0 ? seconds : 1) * 1000);
      continue;
    }
    break;
  }
  if (!answer) throw new CliError('The upload was not sent.');
  const excerpt = answer.text.length > 2000 ? `${answer.text.slice(0, 2000)}…` : answer.text;
  if (answer.status === 404)
    throw new CliError(
      `POST ${client.baseUrl}/v1/boarding/batches answered 404: this service has no boarding route. ${excerpt}`,
    );
  if (answer.status !== 202 && answer.status !== 200 && answer.status !== 201)
    throw new CliError(`POST /v1/boarding/batches answered ${answer.status}: ${excerpt}`);
  const body = JSON.parse(answer.text) as { batchId: number; records: number; status: string };
  return { batchId: body.batchId, records: body.records };
}

/** What following the batch ended with. */
type FollowOutcome =
  | { kind: 'final'; view: BoardingBatchView }
  | { kind: 'detached'; view: BoardingBatchView | null };

/** Polls the batch until a final status, showing progress (module note, step 3), or until Ctrl-C. */
async function follow(
  client: ServiceClient,
  batchId: number,
  options: { pollMs: number; progressIntervalMs: number; tty: boolean },
): Promise<FollowOutcome> {
  let detached = false;
  let wake: (() => void) | null = null;
  const onSigint = () => {
    detached = true;
    wake?.();
  };
  process.on('SIGINT', onSigint);

  /** Samples (time, done) of the last 30 s, for the rate. */
  const samples: { at: number; done: number }[] = [];
  let last: BoardingBatchView | null = null;
  let lastPrinted = 0;
  let lastStatus = '';
  let multibar: cliProgress.MultiBar | null = null;
  let bar: cliProgress.SingleBar | null = null;
  let kindsBar: cliProgress.SingleBar | null = null;

  const rateOf = (now: number, done: number) => {
    samples.push({ at: now, done });
    while (samples.length > 2 && now - samples[0]!.at > 30_000) samples.shift();
    const first = samples[0]!;
    return now > first.at ? ((done - first.done) * 1000) / (now - first.at) : 0;
  };

  try {
    for (;;) {
      if (detached) return { kind: 'detached', view: last };
      let response: Response;
      try {
        response = await client.request('GET', `/v1/boarding/batches/${batchId}`);
      } catch (err) {
        if (err instanceof CliError) throw err;
        process.stderr.write(`progress: the service did not answer (${(err as Error).message}); retrying\n`);
        await pause(options.pollMs * 2);
        continue;
      }
      if (response.status === 404)
        throw new CliError(`Batch ${batchId} is not known to tenant ${client.tenant} (404).`);
      if (response.status !== 200) {
        const text = await bodyText(response);
        if (response.status >= 500) {
          process.stderr.write(`progress: the service answered ${response.status}; retrying\n`);
          await pause(options.pollMs * 2);
          continue;
        }
        throw new CliError(`GET /v1/boarding/batches/${batchId} answered ${response.status}: ${text}`);
      }
      const view = (await response.json()) as BoardingBatchView;
      last = view;
      const now = Date.now();
      const { done, total } = progressOf(view);
      const rate = rateOf(now, done);
      const etaSeconds =
        view.etaSeconds ?? (rate > 0 && total > done ? Math.round((total - done) / rate) : null);
      const eta = etaSeconds === null ? '?' : formatDuration(etaSeconds);
      const final = (finalBoardingBatchStatuses as readonly string[]).includes(view.status);

      if (options.tty) {
        if (!multibar) {
          multibar = new cliProgress.MultiBar(
            {
              format: ' {bar} {percentage}% | {value}/{total} lines | {rate} lines/s | ETA {eta} | {status}',
              hideCursor: true,
              stream: process.stdout,
              forceRedraw: true,
              autopadding: true,
            },
            cliProgress.Presets.shades_classic,
          );
          bar = multibar.create(Math.max(total, 1), done, { rate: '0.0', eta, status: view.status });
          kindsBar = multibar.create(1, 0, { kinds: '' }, { format: ' {kinds}' });
        }
        bar!.setTotal(Math.max(total, 1));
        bar!.update(done, { rate: rate.toFixed(1), eta, status: view.status });
        kindsBar!.update(0, { kinds: kindsLine(view) });
      } else if (view.status !== lastStatus || now - lastPrinted >= options.progressIntervalMs || final) {
        const pct = total > 0 ? ((done * 100) / total).toFixed(1) : '0.0';
        process.stdout.write(
          `progress: ${view.status} ${done}/${total} lines (${pct} %), ${rate.toFixed(1)} lines/s, ETA ${eta} | ${kindsLine(view)}\n`,
        );
        lastPrinted = now;
      }
      lastStatus = view.status;
      if (final) return { kind: 'final', view };
      await pause(options.pollMs);
    }
  } finally {
    multibar?.stop();
    process.off('SIGINT', onSigint);
  }

  /** Sleeps `ms`, or less when Ctrl-C is pressed. */
  function pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        wake = null;
        resolve();
      }, ms);
      wake = () => {
        clearTimeout(timer);
        wake = null;
        resolve();
      };
    });
  }
}

/** A GET that is tried up to 5 times when the service does not answer or answers 5xx (2 s apart). */
async function pageWithRetries(client: ServiceClient, urlPath: string): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    const response = await client.request('GET', urlPath).catch((err: Error) => {
      if (err instanceof CliError || attempt >= 5) throw err;
      return null;
    });
    if (response && (response.status < 500 || attempt >= 5)) return response;
    await response?.body?.cancel();
    await sleep(2000);
  }
}

/** Every error item of the batch, in pages of 500. */
async function allErrors(client: ServiceClient, batchId: number): Promise<BoardingErrorItem[]> {
  const items: BoardingErrorItem[] = [];
  for (let offset = 0; ; ) {
    const response = await pageWithRetries(
      client,
      `/v1/boarding/batches/${batchId}/errors?limit=500&offset=${offset}`,
    );
    if (response.status !== 200)
      throw new CliError(
        `GET /v1/boarding/batches/${batchId}/errors answered ${response.status}: ${await bodyText(response)}`,
      );
    const page = (await response.json()) as { items: BoardingErrorItem[]; hasMore?: boolean };
    items.push(...page.items);
    offset += page.items.length;
    if (
      page.items.length === 0 ||
      page.hasMore === false ||
      (page.hasMore === undefined && page.items.length < 500)
    )
      break;
  }
  return items;
}

/** Where `writeRejects` puts the rejected lines and their errors. */
export interface RejectsPaths {
  /** The rejected lines exactly as sent (`<file>.rejects.ndjson`); not written without the file. */
  linesPath: string;
  /** `{line, sourceRef, error}` per rejected line, in line order (`<file>.rejects.errors.ndjson`). */
  errorsPath: string;
}

/** What `writeRejects` wrote. */
export interface RejectsWritten {
  /** Rejected lines (one errors record each). */
  rejected: number;
  /** Of those, the lines copied from the file into `linesPath` (0 without the file; none → no lines file). */
  copied: number;
}

/**
 * Writes the rejects of a batch (module note, step 5) so that the migration team can fix them and board them again:
 * - `paths.linesPath`: each rejected line of `file`, in line order, byte for byte as the file holds it (the bytes
 *   before its LF, a CR included; the file's bytes, never the service's copy, which may be encrypted or purged),
 *   each ended by LF. Lines are counted as the upload counts them (activities/boarding/stage-batch.ts
 *   `uploadLines`: split on LF, numbered from 1, blank lines counted, the last line need not end in LF), so the
 *   file is read as bytes, in constant memory but for the rejected lines. Every line of it is a line of the boarding
 *   format as it was sent, so after fixing it the file uploads again (`npm run board -- --file <linesPath>`).
 *   Not written without `file`, nor when no rejected line is in it (a stale one is removed).
 * - `paths.errorsPath`: one JSON object per rejected line, in line order: `{line, sourceRef, error}`, `line` its
 *   number in the uploaded file (from 1), `sourceRef` as the service read it (null when the line had none),
 *   `error` the service's Shape A error (an array of them when it reported several for the line).
 * Resolves with the counts; rejects with the file-system error when a file cannot be read or written.
 */
export async function writeRejects(
  items: BoardingErrorItem[],
  file: string | null,
  paths: RejectsPaths,
): Promise<RejectsWritten> {
  const byLine = new Map<number, BoardingErrorItem[]>();
  for (const item of items) byLine.set(item.line, [...(byLine.get(item.line) ?? []), item]);
  const lineNumbers = [...byLine.keys()].sort((a, b) => a - b);

  let copied = 0;
  if (file && lineNumbers.length > 0) {
    const out = createWriteStream(paths.linesPath);
    const write = (bytes: Uint8Array) =>
      out.write(bytes) ? undefined : new Promise<void>((r) => out.once('drain', () => r()));
    let lineNo = 1;
    let parts: Buffer[] = [];
    const endLine = async () => {
      if (byLine.has(lineNo)) {
        await write(Buffer.concat([...parts, Buffer.from('\n')]));
        copied++;
      }
      parts = [];
      lineNo++;
    };
    const last = lineNumbers[lineNumbers.length - 1] as number;
    let pending = false;
    for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
      let start = 0;
      for (;;) {
        const lf = chunk.indexOf(0x0a, start);
        // Only the bytes of a rejected line are kept (copied: the stream may reuse its buffers).
        if (lf === -1) {
          if (start < chunk.length && byLine.has(lineNo)) parts.push(Buffer.from(chunk.subarray(start)));
          pending = pending || start < chunk.length;
          break;
        }
        if (byLine.has(lineNo)) parts.push(Buffer.from(chunk.subarray(start, lf)));
        await endLine();
        pending = false;
        start = lf + 1;
      }
      if (lineNo > last) break;
    }
    // The last line without its LF (the upload counts it when it holds bytes).
    if (pending && lineNo <= last) await endLine();
    out.end();
    await finished(out);
    if (copied === 0) await rm(paths.linesPath, { force: true });
  } else {
    await rm(paths.linesPath, { force: true });
  }

  const errors = createWriteStream(paths.errorsPath);
  for (const line of lineNumbers) {
    const rejected = byLine.get(line) as BoardingErrorItem[];
    const record = {
      line,
      sourceRef: rejected.find((r) => r.sourceRef !== null)?.sourceRef ?? null,
      error: rejected.length === 1 ? rejected[0]?.error : rejected.map((r) => r.error),
    };
    if (!errors.write(`${JSON.stringify(record)}\n`))
      await new Promise<void>((r) => errors.once('drain', () => r()));
  }
  errors.end();
  await finished(errors);
  return { rejected: lineNumbers.length, copied };
}

/** The summary printed at the end. */
function summary(
  view: BoardingBatchView,
  options: {
    tenant: string;
    runSeconds: number;
    rejected: number;
    /** The rejected lines as sent, or null when none was copied (no file). */
    rejectsPath: string | null;
    /** Their errors, or null when nothing was rejected. */
    errorsPath: string | null;
    uiLink: string;
  },
): string {
  const { done, total } = progressOf(view);
  const batchSeconds =
    view.startedAt && view.completedAt
      ? (Date.parse(view.completedAt) - Date.parse(view.startedAt)) / 1000
      : null;
  const rows = boardingKinds
    .filter((kind) => (view.counts?.[kind]?.total ?? 0) > 0)
    .map((kind) => {
      const c = view.counts[kind];
      return `  ${kind.padEnd(14)}${String(c.total).padStart(10)}${String(c.boarded).padStart(10)}${String(c.failed).padStart(10)}`;
    });
  return [
    '',
    `Batch ${view.batchId} ${view.status}: ${done}/${total} lines handled, ${options.rejected} rejected${view.malformed ? ` (${view.malformed} malformed)` : ''}.`,
    `Duration: ${batchSeconds === null ? 'unknown' : formatDuration(batchSeconds)} in the service (this run ${formatDuration(options.runSeconds)}).`,
    `  ${'kind'.padEnd(14)}${'total'.padStart(10)}${'boarded'.padStart(10)}${'failed'.padStart(10)}`,
    ...rows,
    options.rejectsPath
      ? `Rejected lines: ${options.rejected}, written to ${options.rejectsPath} as sent (fix them and board that file), their errors to ${options.errorsPath}`
      : options.errorsPath
        ? `Rejected lines: ${options.rejected}, their errors written to ${options.errorsPath} (board with --file to get the lines themselves)`
        : 'Rejected lines: none.',
    `Temporal UI: ${options.uiLink}`,
    '',
  ].join('\n');
}

/** The Temporal UI address of the batch's workflow (as scripts/demo.ts builds UI links). */
export function temporalUiLink(
  tenant: string,
  batchId: number,
  env: NodeJS.ProcessEnv = process.env,
): string {
  const ui = env.TEMPORAL_UI_URL || `http://127.0.0.1:${env.TEMPORAL_UI_PORT || 8233}`;
  const namespace = env.TEMPORAL_NAMESPACE || 'default';
  return `${ui}/namespaces/${namespace}/workflows/${encodeURIComponent(boardingWorkflowId(tenant, batchId))}`;
}

const usage = [
  'Usage: npm run board -- --tenant <t> --file <path> [--client-id <id> --client-secret <secret>] [--base-url <url>]',
  '       npm run board -- --attach <batchId> [--tenant <t>] [--file <path>]',
  'Options: --poll-ms <ms> (1000), --progress-interval <s> (5). Credential also from SERVICE_CLIENT_ID / SERVICE_CLIENT_SECRET.',
].join('\n');

/** Runs the CLI with `argv`; resolves with the exit code. */
export async function runBoardCli(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const runStarted = Date.now();
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args: argv,
      options: {
        tenant: { type: 'string' },
        file: { type: 'string' },
        attach: { type: 'string' },
        'client-id': { type: 'string' },
        'client-secret': { type: 'string' },
        'base-url': { type: 'string' },
        'poll-ms': { type: 'string' },
        'progress-interval': { type: 'string' },
        help: { type: 'boolean' },
      },
    }).values;
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${usage}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  try {
    const file = values.file as string | undefined;
    const attach = values.attach as string | undefined;
    if (!file && !attach) throw new CliError('Give --file <path> to board a file or --attach <batchId>.');
    if (attach !== undefined && !/^[1-9][0-9]{0,15}$/.test(attach))
      throw new CliError('--attach must be a batch id (a positive integer).');
    if (file && !attach) {
      const info = await stat(file).catch(() => null);
      if (!info?.isFile()) throw new CliError(`No such file: ${file}`);
    }
    const clientId = (values['client-id'] as string | undefined) ?? env.SERVICE_CLIENT_ID;
    const clientSecret = (values['client-secret'] as string | undefined) ?? env.SERVICE_CLIENT_SECRET;
    if (!clientId || !clientSecret)
      throw new CliError(
        'No credential: give --client-id and --client-secret or set SERVICE_CLIENT_ID and SERVICE_CLIENT_SECRET (npm run admin -- clients create …).',
      );
    const tenant = (values.tenant as string | undefined) ?? env.SERVICE_TENANT ?? 'demo';
    const baseUrl = (
      (values['base-url'] as string | undefined) ?? `http://127.0.0.1:${env.PORT || 8080}`
    ).replace(/\/+$/, '');
    const pollMs = Number(values['poll-ms'] ?? 1000);
    const progressIntervalMs = Number(values['progress-interval'] ?? 5) * 1000;
    if (!(pollMs >= 100) || !(progressIntervalMs >= 0))
      throw new CliError('--poll-ms must be ≥ 100 and --progress-interval ≥ 0.');
    const client = new ServiceClient(baseUrl, tenant, { clientId, clientSecret });

    let batchId: number;
    if (attach) {
      batchId = Number(attach);
      process.stdout.write(`Attached to batch ${batchId} of tenant ${tenant} at ${baseUrl}.\n`);
    } else {
      process.stdout.write(`Uploading ${file} to ${baseUrl} (tenant ${tenant})…\n`);
      const uploaded = await upload(client, file!);
      batchId = uploaded.batchId;
      process.stdout.write(
        `Batch ${batchId}: ${uploaded.records} lines staged (${formatDuration((Date.now() - runStarted) / 1000)}). Ctrl-C detaches; the batch keeps running.\n`,
      );
    }
    const uiLink = temporalUiLink(tenant, batchId, env);
    const outcome = await follow(client, batchId, {
      pollMs,
      progressIntervalMs,
      tty: Boolean(process.stdout.isTTY),
    });
    if (outcome.kind === 'detached') {
      process.stdout.write(
        [
          '',
          `Detached from batch ${batchId}${outcome.view ? ` (${outcome.view.status})` : ''}; it keeps running in the service.`,
          `Re-attach: npm run board -- --attach ${batchId} --tenant ${tenant}${file ? ` --file ${file}` : ''}${values['base-url'] ? ` --base-url ${baseUrl}` : ''}`,
          `Temporal UI: ${uiLink}`,
          '',
        ].join('\n'),
      );
      return 130;
    }
    const { view } = outcome;
    const errors = await allErrors(client, batchId);
    const base = file ?? `boarding-batch-${batchId}`;
    const paths: RejectsPaths = {
      linesPath: `${base}.rejects.ndjson`,
      errorsPath: `${base}.rejects.errors.ndjson`,
    };
    let written: RejectsWritten = { rejected: 0, copied: 0 };
    if (errors.length > 0) {
      written = await writeRejects(errors, file ?? null, paths);
    } else {
      // Files left by an earlier run of the same file.
      for (const stale of [paths.linesPath, paths.errorsPath]) if (existsSync(stale)) await rm(stale);
    }
    const rejected = written.rejected;
    process.stdout.write(
      summary(view, {
        tenant,
        runSeconds: (Date.now() - runStarted) / 1000,
        rejected,
        rejectsPath: written.copied > 0 ? paths.linesPath : null,
        errorsPath: rejected > 0 ? paths.errorsPath : null,
        uiLink,
      }),
    );
    return rejected > 0 || view.status !== 'COMPLETED' ? 1 : 0;
  } catch (err) {
    if (err instanceof CliError) {
      process.stderr.write(`${err.message}\n`);
      return 2;
    }
    throw err;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const code = await runBoardCli(process.argv.slice(2));
  process.exitCode = code;
  // Ends the process even if an idle connection lingers (the timer itself keeps nothing alive).
  setTimeout(() => process.exit(code), 5000).unref();
}
