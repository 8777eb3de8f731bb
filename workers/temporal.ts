/**
 * Process-wide Temporal set-up shared by every entry point (`npm start`, `start:worker`,
 * `start:api`): the SDK runtime's log level, its Prometheus metrics exporter, and the
 * project's search attributes.
 */
import { createServer } from 'node:net';
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

let sdkMetricsUrl: string | null = null;

/**
 * `http://<address>/metrics` of the SDK's Prometheus exporter when `installTemporalRuntime` started one in this
 * process, else null (no runtime yet, one installed without it, or installed elsewhere first).
 */
export function temporalSdkMetricsUrl(): string | null {
  return sdkMetricsUrl;
}

/**
 * Installs the SDK's process-wide runtime; must run before any worker or `NativeConnection` is created (a later
 * call, or one after the SDK made its default runtime, changes nothing). Keeps the SDK's own log output to warnings
 * and errors, written to standard error as JSON lines by the rules of ours (workers/logger.ts `temporalLogLine`:
 * errors without SQL parameters, 8 KiB a line). With `prometheusBindAddress` (`host:port`; a loopback address, as
 * the service re-exports the text: api/metrics.ts `renderMetrics`), the SDK's core also serves its worker metrics
 * (`temporal_*`: task slots, poll and schedule-to-start latencies, workflow and activity outcomes) there in the
 * Prometheus format, counters with `_total`, durations in seconds with their unit in the name.
 */
export function installTemporalRuntime(options: { prometheusBindAddress?: string } = {}): void {
  try {
    Runtime.install({
      logger: new DefaultLogger('WARN', (entry) => {
        process.stderr.write(temporalLogLine(entry));
      }),
      ...(options.prometheusBindAddress
        ? {
            telemetryOptions: {
              metrics: {
                prometheus: {
                  bindAddress: options.prometheusBindAddress,
                  countersTotalSuffix: true,
                  unitSuffix: true,
                  useSecondsForDurations: true,
                },
              },
            },
          }
        : {}),
    });
    if (options.prometheusBindAddress) sdkMetricsUrl = `http://${options.prometheusBindAddress}/metrics`;
  } catch {
    // A runtime is already installed in this process.
  }
}

/** A free TCP port on 127.0.0.1 (for the SDK's loopback metrics exporter). */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export { temporalChannelArgs } from './temporal-channel';
