/**
 * The status `/healthz` reports, refreshed in the background (docs/processes.md P0 "Health"): a
 * flood of health checks must not call PostgreSQL and Temporal each time. The first read waits for
 * the first check; later reads answer from the last result at once, and a read finding it older
 * than `intervalMs` starts one refresh in the background (never two at a time). `start()` also
 * refreshes on a timer (entry points call it; `stop()` ends it).
 */

export type DependencyState = 'up' | 'down';

export interface HealthStatus {
  database: DependencyState;
  temporal: DependencyState;
  /** When the checks behind this status finished. */
  checkedAt: Date;
}

export interface HealthMonitor {
  /** The latest status (waits only for the very first check). */
  current(): Promise<HealthStatus>;
  /** Refreshes every `intervalMs` until `stop()`; the timer does not keep the process alive. */
  start(): void;
  stop(): void;
}

/**
 * `checks` answer true when their dependency is up; a check that throws or takes longer than
 * `timeoutMs` (default 2 000) counts as down. `intervalMs` defaults to 5 000.
 */
export function createHealthMonitor(options: {
  checks: { database: () => Promise<boolean>; temporal: () => Promise<boolean> };
  intervalMs?: number;
  timeoutMs?: number;
}): HealthMonitor {
  const intervalMs = options.intervalMs ?? 5_000;
  const timeoutMs = options.timeoutMs ?? 2_000;
  let last: HealthStatus | null = null;
  let inFlight: Promise<HealthStatus> | null = null;
  let timer: NodeJS.Timeout | null = null;

  const probe = async (check: () => Promise<boolean>): Promise<DependencyState> => {
    let timeout: NodeJS.Timeout | undefined;
    const timedOut = new Promise<boolean>((resolve) => {
      timeout = setTimeout(() => resolve(false), timeoutMs);
      timeout.unref();
    });
    try {
      return (await Promise.race([check().catch(() => false), timedOut])) ? 'up' : 'down';
    } finally {
      clearTimeout(timeout);
    }
  };

  const refresh = (): Promise<HealthStatus> => {
    inFlight ??= (async () => {
      const [database, temporal] = await Promise.all([
        probe(options.checks.database),
        probe(options.checks.temporal),
      ]);
      last = { database, temporal, checkedAt: new Date() };
      return last;
    })().finally(() => {
      inFlight = null;
    });
    return inFlight;
  };

  return {
    async current() {
      if (!last) return refresh();
      if (Date.now() - last.checkedAt.getTime() >= intervalMs) void refresh();
      return last;
    },
    start() {
      if (timer) return;
      void refresh();
      timer = setInterval(() => void refresh(), intervalMs);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = null;
    },
  };
}
