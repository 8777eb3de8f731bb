/**
 * `<DATA_DIR>/runtime.json`: how to reach the service that `npm start` runs. The stack
 * (workers/stack.ts) writes it once it serves and removes it when it stops; the command-line tools
 * (`npm run admin`, `npm run demo`) read it, so that they reach the running service's database
 * whatever `DATABASE_URL`, `EMBEDDED_POSTGRES_PORT` or `PORT` it was started with, instead of
 * starting a second, empty PostgreSQL whose credentials the service would refuse.
 *
 * The rule (`serviceDatabase`): `DATABASE_URL` when set; otherwise the database named in the runtime
 * file of `DATA_DIR`, when the process that wrote it still runs and uses the same secret pepper;
 * otherwise a `NoServiceDatabaseError` saying what is missing (the tools exit 2). Never an embedded
 * server of their own.
 *
 * The file holds the database URL with its password, so it is written with mode 0600 beside
 * `dev-keys.json`, in the git-ignored data folder.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { hmacSha256Hex } from '../domain/hash';
import type { ServiceConfig } from './config';

/** What `npm start` records about itself. */
export interface RuntimeInfo {
  /** Process id of `npm start`'s node process. */
  pid: number;
  /** ISO 8601 instant the stack was ready. */
  startedAt: string;
  environment: 'sandbox' | 'production';
  /** `postgres://user:password@host:port/database` of the service's database. */
  databaseUrl: string;
  /** Base URL the API listens on, e.g. `http://127.0.0.1:8080`. */
  baseUrl: string;
  /** Where tokens are issued (`<AUTH_BASE_URL or baseUrl>/oauth2/token`). */
  tokenUrl: string;
  /** `pepperCheck` of the service's secret pepper (never the pepper itself). */
  secretPepperCheck: string;
  /** `host:port` of the Temporal frontend the service uses (its own dev server's, or `TEMPORAL_ADDRESS`). */
  temporalAddress?: string;
  /** The Temporal namespace its processes run in. */
  temporalNamespace?: string;
}

/** The runtime file of a data folder. */
export function runtimeFilePath(dataDir: string): string {
  return path.join(dataDir, 'runtime.json');
}

/** A one-way check value of a secret pepper: equal values mean equal peppers; the pepper cannot be recovered. */
export function pepperCheck(secretPepper: string): string {
  return hmacSha256Hex(secretPepper, 'lending-runtime-file/secret-pepper-check');
}

/** Writes the runtime file atomically (temporary file, then rename), readable by the owner only. */
export async function writeRuntimeFile(dataDir: string, info: RuntimeInfo): Promise<void> {
  await mkdir(dataDir, { recursive: true });
  const file = runtimeFilePath(dataDir);
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
  await rename(temporary, file);
}

/** Removes the runtime file if it still names process `pid` (a newer start keeps its own). */
export async function removeRuntimeFile(dataDir: string, pid: number): Promise<void> {
  if (readRuntimeFile(dataDir)?.pid === pid) await rm(runtimeFilePath(dataDir), { force: true });
}

/** The runtime file's content, or null when there is none or it cannot be read as one. */
export function readRuntimeFile(dataDir: string): RuntimeInfo | null {
  const file = runtimeFilePath(dataDir);
  if (!existsSync(file)) return null;
  try {
    const info = JSON.parse(readFileSync(file, 'utf8')) as Partial<RuntimeInfo>;
    if (typeof info.pid !== 'number' || typeof info.databaseUrl !== 'string') return null;
    return info as RuntimeInfo;
  } catch {
    return null;
  }
}

/** True while a process with this id exists (signal 0 checks without signalling). */
export function isProcessRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** No database to use: the message says what the command needs. */
export class NoServiceDatabaseError extends Error {}

/** The database a command-line tool uses, and where it came from. */
export interface ServiceDatabase {
  databaseUrl: string;
  /** Set when the database came from the runtime file of a running service. */
  runtime: RuntimeInfo | null;
}

/**
 * The database of the running service (the rule in this file's header).
 * Errors: `NoServiceDatabaseError` without `DATABASE_URL` when the runtime file is missing or
 * unreadable, names a process that has ended, or records another secret pepper.
 */
export function serviceDatabase(config: ServiceConfig): ServiceDatabase {
  if (config.databaseUrl) return { databaseUrl: config.databaseUrl, runtime: null };
  const file = runtimeFilePath(config.dataDir);
  const needs =
    'It needs the database of the running service: start the service with `npm start` (it writes that file) and run this command with the same DATA_DIR, or set DATABASE_URL to the service’s database.';
  const runtime = readRuntimeFile(config.dataDir);
  if (!runtime) {
    throw new NoServiceDatabaseError(
      `No running service found: ${file} ${existsSync(file) ? 'cannot be read' : 'does not exist'} and DATABASE_URL is not set. ${needs}`,
    );
  }
  if (!isProcessRunning(runtime.pid)) {
    throw new NoServiceDatabaseError(
      `No running service found: ${file} names process ${runtime.pid}, which is not running (it stopped without removing the file). ${needs}`,
    );
  }
  if (runtime.secretPepperCheck !== pepperCheck(config.secretPepper)) {
    throw new NoServiceDatabaseError(
      `The running service (process ${runtime.pid}) uses another SECRET_PEPPER than this command, so it would refuse the secrets this command makes. Run it with the service's SECRET_PEPPER (or, in sandbox, with neither set: both then use ${path.join(config.dataDir, 'dev-keys.json')}).`,
    );
  }
  return { databaseUrl: runtime.databaseUrl, runtime };
}

/**
 * Where the service's Temporal is, as the tools find it (`npm run admin`, `npm run demo`): `TEMPORAL_ADDRESS` and
 * `TEMPORAL_NAMESPACE` when set; else what the running `npm start` recorded in `<DATA_DIR>/runtime.json` (its own
 * dev server's address); else `127.0.0.1:<TEMPORAL_PORT>` and the configured namespace.
 */
export function serviceTemporal(config: ServiceConfig): { address: string; namespace: string } {
  if (config.temporalAddress) return { address: config.temporalAddress, namespace: config.temporalNamespace };
  const runtime = readRuntimeFile(config.dataDir);
  return {
    address: runtime?.temporalAddress ?? `127.0.0.1:${config.temporalPort}`,
    namespace: runtime?.temporalNamespace ?? config.temporalNamespace,
  };
}
