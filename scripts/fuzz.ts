/**
 * `npm run fuzz`: Schemathesis, from PyPI, against `/v1/openapi.json` of a service it starts,
 * with a valid token, every operation; it prints the counts and exits 1 on any failure.
 *
 * What it does, in order:
 * 1. Installs Schemathesis `schemathesisVersion` (pinned) into the git-ignored venv
 *    `.tools/schemathesis-<version>/` (`python3 -m venv`, then `pip install` from PyPI), reused when present.
 * 2. Starts an embedded PostgreSQL and a Temporal dev server in a temporary DATA_DIR (bench/support.ts
 *    `startBenchStack`) and the service on a free port (`scripts/start.ts`: API and workers in one process), its
 *    log in `<DATA_DIR>/service.log`; it stops each by its pid at the end and removes the folder.
 * 3. Creates the sandbox client of tenant `fuzz` with every scope, `--permissions ALL` and a rate limit of
 *    1,000,000 requests/s (also RATE_LIMIT_PER_SECOND and SEARCH_RATE_LIMIT_PER_SECOND for the service), so
 *    that no 429 hides an answer; it says so in its output.
 * 4. Seeds a little data through the public routes (the servicing and lending demo flows: a case with its
 *    privacy request and evidence, a product, a customer, an ACTIVE loan with three payments), so that generated
 *    ids (small integers) reach existing resources too.
 * 5. Runs `st run <base>/v1/openapi.json` with the hooks of scripts/fuzz_hooks.py (the client-credentials token
 *    as `Authorization: Bearer …`, fetched again before its 3600 s expire, HTTP Basic on the token endpoint; a
 *    well-formed `Service-Tenant` pointed at the tenant `fuzz`, so that a malformed or missing one is still
 *    tested; a well-formed Idempotency-Key made unique; the error-shape check; the counts), every phase
 *    (examples, coverage, fuzzing, stateful), checks `not_a_server_error`, `status_code_conformance`,
 *    `content_type_conformance`, `response_headers_conformance`, `response_schema_conformance`,
 *    `negative_data_rejection`, `missing_required_header`, `unsupported_method`, `use_after_free`,
 *    `ensure_resource_availability`, `ignored_auth` and `error_body_shape` (every 4xx in Shape A, Shape B on the
 *    AI session output routes: docs/design.md §4 Errors). Not `positive_data_acceptance`: it wants a 2xx for every
 *    schema-valid request, and the spec answers 400/409 to business rules no schema states (a product's bounds,
 *    a loan's state, the identifier guard, server-issued cursors).
 *
 * Options: `--requests N` (default 10,000): the least number of responses the run must receive, else it fails;
 * `--max-examples K` (default N / operations, at least 10): examples per operation in the fuzzing and stateful
 * phases (the coverage phase alone sends about 10,000 requests); `--minutes M` (default 30): the time limit, after
 * which the run is interrupted and judged on what it did; `--workers W` (default 2); `--seed S`; `--quick`: the CI
 * pass, `--requests 2000 --minutes 4 --max-examples 3`. The service's log is copied to `.data/fuzz-service.log`,
 * each 4xx/5xx's gist written to `.data/fuzz-errors.jsonl`.
 * Exit code: 0 when every check passed on every response, none was ≥ 500 and N responses were received; 1 otherwise.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createPlatformOperations } from '../activities';
import { startBenchStack, startProcess, stopProcess } from '../bench/support';
import { freePort } from '../db/embedded';
import { scopes } from '../domain/auth';
import { operationDeps, projectRoot } from '../workers/config';
import { runDemoFlow } from './demo-flow';
import { runLendingDemoFlow } from './lending-demo-flow';

/** The Schemathesis release this script drives (its CLI changed across 3.x and 4.x). */
export const schemathesisVersion = '4.32.5';
const tenant = 'fuzz';
const rateLimitPerSecond = 1_000_000;

/** Where the service's log is copied when the run ends. */
const keptLog = path.join(projectRoot, '.data', 'fuzz-service.log');

const { values } = parseArgs({
  options: {
    requests: { type: 'string' },
    minutes: { type: 'string' },
    'max-examples': { type: 'string' },
    workers: { type: 'string' },
    seed: { type: 'string' },
    quick: { type: 'boolean' },
  },
});

/** A whole number ≥ 1 from option `name`, else `fallback`; exits 2 on anything else. */
function whole(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 1) {
    process.stderr.write(`--${name} must be a whole number ≥ 1\n`);
    process.exit(2);
  }
  return n;
}

const quick = values.quick ?? false;
const requestsWanted = whole('requests', values.requests, quick ? 2000 : 10_000);
const minutes = whole('minutes', values.minutes, quick ? 4 : 30);
const workers = whole('workers', values.workers, 2);
const seed = values.seed === undefined ? undefined : whole('seed', values.seed, 1);

/** The venv's `st`, installed from PyPI when missing or of another version. */
function schemathesisBinary(): string {
  const venv = path.join(projectRoot, '.tools', `schemathesis-${schemathesisVersion}`);
  const st = path.join(venv, 'bin', 'st');
  const installed = () =>
    existsSync(st) &&
    spawnSync(st, ['--version'], { encoding: 'utf8' }).stdout?.includes(schemathesisVersion) === true;
  if (installed()) return st;
  console.log(
    `installing Schemathesis ${schemathesisVersion} from PyPI into ${path.relative(projectRoot, venv)}`,
  );
  const run = (command: string, args: string[]) => {
    const result = spawnSync(command, args, { stdio: 'inherit' });
    if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status})`);
  };
  run('python3', ['-m', 'venv', venv]);
  run(path.join(venv, 'bin', 'pip'), [
    'install',
    '--quiet',
    '--disable-pip-version-check',
    `schemathesis==${schemathesisVersion}`,
  ]);
  if (!installed()) throw new Error(`Schemathesis ${schemathesisVersion} did not install`);
  return st;
}

interface Counts {
  requests: number;
  statuses: Record<string, number>;
  /** By exact status code. */
  codes: Record<string, number>;
  failures: Record<string, number>;
  acceptedFailures: Record<string, number>;
  tokensIssued: number;
  stoppedAtTimeLimit: boolean;
}

/** The running Schemathesis process, if any (a signal interrupts it: it ends with its summary). */
let schemathesis: ChildProcess | null = null;

/** Runs `st` with `args` and `env`, its output on ours; resolves with its exit code. */
function runSchemathesis(st: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(st, args, { env, cwd, stdio: ['ignore', 'inherit', 'inherit'] });
    schemathesis = child;
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      schemathesis = null;
      resolve(code ?? (signal ? 128 : 1));
    });
  });
}

const st = schemathesisBinary();
const stack = await startBenchStack('lending-fuzz-');
// Ctrl-C or SIGTERM: Schemathesis (by its pid) is interrupted and the run ends as usual, counts printed and
// everything started stopped; during the set-up, everything started is stopped and the script exits 130.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    if (schemathesis?.pid !== undefined) {
      schemathesis.kill('SIGINT');
      return;
    }
    void stack.stop().finally(() => process.exit(130));
  });
}
let exitCode = 1;
try {
  const { dataDir, config, db, temporal } = stack;
  const platform = createPlatformOperations(operationDeps(db, config));
  const created = await platform.createClient({
    tenantId: tenant,
    environment: config.environment,
    scopes: [...scopes],
    permissions: ['ALL'],
    rateLimitPerSecond,
    createTenant: true,
    description: 'npm run fuzz',
  });
  const credential = { tenant, clientId: created.clientId, clientSecret: created.clientSecret };

  const port = await freePort();
  const serviceLog = path.join(dataDir, 'service.log');
  await mkdir(path.dirname(keptLog), { recursive: true });
  const service = await startProcess(
    ['scripts/start.ts'],
    {
      ...process.env,
      DATA_DIR: dataDir,
      DATABASE_URL: stack.postgresUrl,
      TEMPORAL_ADDRESS: temporal.address,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_SECOND: String(rateLimitPerSecond),
      SEARCH_RATE_LIMIT_PER_SECOND: String(rateLimitPerSecond),
      // The token endpoint is fuzzed too, all from 127.0.0.1: one source address.
      TOKEN_SOURCE_RATE_LIMIT_PER_SECOND: String(rateLimitPerSecond),
    },
    'engine ready in',
    serviceLog,
  );
  stack.onStop(() => stopProcess(service));
  // Before the folder goes: the service's log is kept in .data/ (git-ignored).
  stack.onStop(() => copyFile(serviceLog, keptLog));
  const baseUrl = `http://127.0.0.1:${port}`;

  await runDemoFlow(baseUrl, credential);
  // Three of twelve installments paid: the loan stays ACTIVE, so payments, fundings and autopay reach their rules.
  await runLendingDemoFlow(baseUrl, credential, () => {}, { historyPayments: 3 });

  const document = (await (await fetch(`${baseUrl}/v1/openapi.json`)).json()) as {
    paths: Record<string, Record<string, unknown>>;
  };
  const methods = new Set(['get', 'put', 'post', 'delete', 'patch']);
  const operations = Object.values(document.paths).reduce(
    (n, item) => n + Object.keys(item).filter((m) => methods.has(m)).length,
    0,
  );
  const maxExamples = whole(
    'max-examples',
    values['max-examples'],
    quick ? 3 : Math.max(10, Math.ceil(requestsWanted / operations)),
  );

  console.log(
    [
      '',
      `npm run fuzz: Schemathesis ${schemathesisVersion} against ${baseUrl}/v1/openapi.json (${operations} operations)`,
      `  client: tenant ${tenant}, scopes "${scopes.join(' ')}", permissions ALL, rate limit raised to ${rateLimitPerSecond.toLocaleString('en')} requests/s (client and service)`,
      `  bounds: at least ${requestsWanted.toLocaleString('en')} responses within ${minutes} min; ${maxExamples} examples per operation and phase; ${workers} workers${seed === undefined ? '' : `; seed ${seed}`}`,
      `  service log: ${path.relative(projectRoot, keptLog)} (at the end); each 4xx/5xx: .data/fuzz-errors.jsonl`,
      '',
    ].join('\n'),
  );

  const countsFile = path.join(dataDir, 'fuzz-counts.json');
  // Every 4xx/5xx answer's gist (operation, status, code, message), one JSON line each, kept in .data/.
  const errorLog = path.join(projectRoot, '.data', 'fuzz-errors.jsonl');
  await writeFile(errorLog, '');
  const checks = [
    'not_a_server_error',
    'status_code_conformance',
    'content_type_conformance',
    'response_headers_conformance',
    'response_schema_conformance',
    'negative_data_rejection',
    'missing_required_header',
    'unsupported_method',
    'use_after_free',
    'ensure_resource_availability',
    'ignored_auth',
    'error_body_shape',
  ];
  const args = [
    'run',
    `${baseUrl}/v1/openapi.json`,
    '--checks',
    checks.join(','),
    '--phases',
    'examples,coverage,fuzzing,stateful',
    '--max-examples',
    String(maxExamples),
    '--workers',
    String(workers),
    '--request-timeout',
    '30',
    '--generation-database',
    'none',
    '--suppress-health-check',
    'all',
    '--no-color',
    ...(seed === undefined ? [] : ['--seed', String(seed)]),
  ];
  await writeFile(countsFile, '');
  const status = await runSchemathesis(
    st,
    args,
    {
      ...process.env,
      PYTHONPATH: path.join(projectRoot, 'scripts'),
      SCHEMATHESIS_HOOKS: 'fuzz_hooks',
      FUZZ_BASE_URL: baseUrl,
      FUZZ_TENANT: tenant,
      FUZZ_CLIENT_ID: credential.clientId,
      FUZZ_CLIENT_SECRET: credential.clientSecret,
      FUZZ_SCOPE: scopes.join(' '),
      FUZZ_COUNTS_FILE: countsFile,
      FUZZ_ERROR_LOG: errorLog,
      FUZZ_TIME_LIMIT_SECONDS: String(minutes * 60),
    },
    dataDir,
  );
  const countsText = await readFile(countsFile, 'utf8');
  if (!countsText) throw new Error(`Schemathesis exited with ${status} before it counted anything`);
  const counts = JSON.parse(countsText) as Counts;
  const serverErrors = counts.statuses['5xx'] ?? 0;
  const failureTotal = Object.values(counts.failures).reduce((a, b) => a + b, 0);
  const enough = counts.requests >= requestsWanted;
  // A run stopped at the time limit exits with Schemathesis' code for an interruption; its failures are in the
  // counts either way. Otherwise a non-zero code (a failure, or an error such as a schema it cannot read) fails.
  const schemathesisFailed = status !== 0 && !counts.stoppedAtTimeLimit;
  const list = (entries: Record<string, number>) =>
    Object.keys(entries).length === 0
      ? '0'
      : Object.entries(entries)
          .map(([name, n]) => `${name} ${n}`)
          .join(', ');
  console.log(
    [
      '',
      'npm run fuzz — counts',
      `  requests:   ${counts.requests.toLocaleString('en')} (wanted ≥ ${requestsWanted.toLocaleString('en')}: ${enough ? 'yes' : 'NO'})`,
      `  statuses:   ${Object.entries(counts.statuses)
        .map(([cls, n]) => `${cls} ${n.toLocaleString('en')}`)
        .join(', ')}`,
      `  by code:    ${Object.entries(counts.codes)
        .map(([code, n]) => `${code} ${n.toLocaleString('en')}`)
        .join(', ')}`,
      `  ≥ 500:      ${serverErrors}`,
      `  failures:   ${list(counts.failures)}`,
      `  accepted:   ${list(counts.acceptedFailures)} (Schemathesis' limitations, scripts/fuzz_hooks.py \`_accepted\`)`,
      `  stopped:    ${counts.stoppedAtTimeLimit ? `at the ${minutes} min time limit` : 'every phase done'}`,
      `  tokens:     ${counts.tokensIssued} issued`,
      `  schemathesis exit code: ${status}`,
    ].join('\n'),
  );
  exitCode = enough && serverErrors === 0 && failureTotal === 0 && !schemathesisFailed ? 0 : 1;
} finally {
  await stack.stop();
}
process.exit(exitCode);
