/**
 * What the production entry points share (`start:api`, `start:worker`): the external services
 * they need, stated clearly when missing, and a graceful stop on SIGINT/SIGTERM (exit 0).
 */
import type { ServiceConfig } from '../workers/config';

/**
 * The PostgreSQL URL and Temporal address of a process started apart. Unlike `npm start`, these
 * entry points never start embedded servers: without `DATABASE_URL` or `TEMPORAL_ADDRESS` they
 * print what is missing (and the values `npm start` uses in development) and exit with code 2.
 */
export function externalServices(
  config: ServiceConfig,
  entry: string,
): { databaseUrl: string; temporalAddress: string } {
  const missing = [
    config.databaseUrl ? null : 'DATABASE_URL',
    config.temporalAddress ? null : 'TEMPORAL_ADDRESS',
  ].filter((name): name is string => name !== null);
  if (missing.length > 0) {
    process.stderr.write(
      [
        `${entry} runs against an existing PostgreSQL and Temporal; set ${missing.join(' and ')}.`,
        'With `npm start` running in development (its embedded servers), use:',
        `  DATABASE_URL=postgres://postgres:postgres@127.0.0.1:${config.embeddedPostgresPort}/lending TEMPORAL_ADDRESS=127.0.0.1:${config.temporalPort}`,
        '',
      ].join('\n'),
    );
    process.exit(2);
  }
  return { databaseUrl: config.databaseUrl!, temporalAddress: config.temporalAddress! };
}

/** Calls `stop` once on the first SIGINT or SIGTERM, then exits 0 (1 when stopping failed). */
export function stopOnSignals(
  stop: () => Promise<void>,
  log: (message: string, err?: unknown) => void,
): void {
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      log(`stopping on ${signal}`);
      stop()
        .then(() => process.exit(0))
        .catch((err) => {
          log('stop failed', err);
          process.exit(1);
        });
    });
  }
}
