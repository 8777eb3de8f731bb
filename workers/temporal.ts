/**
 * Process-wide Temporal set-up shared by every entry point (`npm start`, `start:worker`,
 * `start:api`): the SDK runtime's log level and the project's search attributes.
 */
import type { Connection } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import type { Logger } from 'pino';
import { searchAttributes } from '../domain/ids';
import { temporalLogLine } from './logger';

/** Registers the project's search attributes (domain/ids.ts) on `namespace` when missing (best effort). */
export async function ensureSearchAttributes(
  connection: Connection,
  namespace: string,
  logger: Logger,
): Promise<void> {
  const typeIds: Record<string, number> = { Keyword: 2, Int: 3 };
  try {
    const existing = await connection.operatorService.listSearchAttributes({ namespace });
    const missing = Object.entries(searchAttributes).filter(
      ([name]) => !(name in (existing.customAttributes ?? {})),
    );
    if (missing.length === 0) return;
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map(([name, type]) => [name, typeIds[type] ?? 2])),
    });
  } catch (err) {
    logger.warn(
      { err },
      'could not register search attributes; register TenantId, CustomerRef, CaseId, LoanId by hand',
    );
  }
}

/**
 * Keeps the SDK's own log output to warnings and errors, written to standard error as JSON lines by
 * the rules of ours (workers/logger.ts `temporalLogLine`: errors without SQL parameters, 8 KiB a line).
 */
export function installTemporalRuntime(): void {
  try {
    Runtime.install({
      logger: new DefaultLogger('WARN', (entry) => {
        process.stderr.write(temporalLogLine(entry));
      }),
    });
  } catch {
    // A runtime is already installed in this process.
  }
}
