/**
 * Process configuration from the environment (README lists every variable). Secrets the service
 * needs (client-secret pepper, cursor key, data-encryption key) come from the environment; in
 * sandbox without them, they are generated once into the git-ignored data folder so restarts and
 * the admin CLI agree. Production refuses to start without them.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface ServiceConfig {
  environment: 'sandbox' | 'production';
  port: number;
  /** Unset: the embedded PostgreSQL in `dataDir`. */
  databaseUrl: string | undefined;
  embeddedPostgresPort: number;
  /** Unset: a local Temporal dev server. */
  temporalAddress: string | undefined;
  temporalNamespace: string;
  temporalPort: number;
  temporalUiPort: number;
  dataDir: string;
  secretPepper: string;
  cursorSigningKey: string;
  docsUrl: string;
  rateLimitPerSecond: number;
  logLevel: string;
}

interface Keys {
  secretPepper: string;
  cursorSigningKey: string;
}

function loadOrCreateKeys(dataDir: string): Keys {
  const file = path.join(dataDir, 'dev-keys.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as Keys;
  mkdirSync(dataDir, { recursive: true });
  const keys = {
    secretPepper: randomBytes(32).toString('hex'),
    cursorSigningKey: randomBytes(32).toString('hex'),
  };
  writeFileSync(file, JSON.stringify(keys), { mode: 0o600 });
  return keys;
}

function intOf(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  if (!/^[0-9]+$/.test(value)) throw new Error(`${name} must be a whole number`);
  return Number(value);
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): ServiceConfig {
  const environment = env.SERVICE_ENVIRONMENT ?? 'sandbox';
  if (environment !== 'sandbox' && environment !== 'production') {
    throw new Error('SERVICE_ENVIRONMENT must be sandbox or production');
  }
  const dataDir = path.resolve(env.DATA_DIR ?? path.join(projectRoot, '.data'));
  let secretPepper = env.SECRET_PEPPER;
  let cursorSigningKey = env.CURSOR_SIGNING_KEY;
  if (!secretPepper || !cursorSigningKey) {
    if (environment === 'production')
      throw new Error('production needs SECRET_PEPPER and CURSOR_SIGNING_KEY');
    const keys = loadOrCreateKeys(dataDir);
    secretPepper ??= keys.secretPepper;
    cursorSigningKey ??= keys.cursorSigningKey;
  }
  return {
    environment,
    port: intOf(env.PORT, 8080, 'PORT'),
    databaseUrl: env.DATABASE_URL || undefined,
    embeddedPostgresPort: intOf(env.EMBEDDED_POSTGRES_PORT, 54329, 'EMBEDDED_POSTGRES_PORT'),
    temporalAddress: env.TEMPORAL_ADDRESS || undefined,
    temporalNamespace: env.TEMPORAL_NAMESPACE || 'default',
    temporalPort: intOf(env.TEMPORAL_PORT, 7233, 'TEMPORAL_PORT'),
    temporalUiPort: intOf(env.TEMPORAL_UI_PORT, 8233, 'TEMPORAL_UI_PORT'),
    dataDir,
    secretPepper,
    cursorSigningKey,
    docsUrl: env.DOCS_URL ?? 'https://docs.example.invalid/lending',
    rateLimitPerSecond: intOf(
      env.RATE_LIMIT_PER_SECOND,
      environment === 'production' ? 100 : 25,
      'RATE_LIMIT_PER_SECOND',
    ),
    logLevel: env.LOG_LEVEL ?? 'info',
  };
}
