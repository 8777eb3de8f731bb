/**
 * Ends a server this process started when this process ends, however it ends (SIGKILL included, which no handler
 * of ours can see). `npm start` and the test run start PostgreSQL and the Temporal dev server as children; on an
 * orderly stop they stop them themselves, but a killed parent used to leave them running (PostgreSQL for ever,
 * the dev server until it next wrote to its broken output pipe).
 *
 * A watchdog is a tiny `bash` process, started in a session of its own (so a signal to the parent's process group
 * does not end it first), that polls the parent's pid every 0.5 s. Once the parent is gone it signals the watched
 * server (its whole process group when the server leads one), waits up to 15 s for it to exit, then SIGKILLs it,
 * and exits. An orderly stop calls `release()` first, which ends the watchdog, so it never signals a pid that
 * the system may have reused. Only the pids handed to it are ever signalled (never a name pattern).
 */
import { spawn } from 'node:child_process';

/** What a watchdog ends, and how. */
export interface WatchedProcess {
  /** The server's pid. */
  pid: number;
  /** The signal of an orderly shutdown: SIGTERM for the Temporal CLI, SIGINT (fast shutdown) for PostgreSQL. */
  signal: 'SIGTERM' | 'SIGINT';
  /** True when the server leads its own process group (spawned `detached`): the whole group is signalled. */
  group: boolean;
}

/** A running watchdog; `release()` ends it without touching the watched process. */
export interface Watchdog {
  pid: number | undefined;
  release(): void;
}

// $1 parent pid, $2 target (pid, or -pgid for a group), $3 signal name. `kill -0` on the target tells when it exited.
const script = `
parent=$1; target=$2; sig=$3
while kill -0 "$parent" 2>/dev/null; do sleep 0.5; done
kill -s "$sig" -- "$target" 2>/dev/null || exit 0
i=0
while kill -0 -- "$target" 2>/dev/null; do
  i=$((i+1))
  if [ "$i" -ge 30 ]; then kill -s KILL -- "$target" 2>/dev/null; exit 0; fi
  sleep 0.5
done
`;

/**
 * Starts a watchdog that ends `watched` once the current process (`process.pid`) has exited. Returns at once; the
 * watchdog does not keep this process alive (unref'd, no pipes).
 */
export function endWithThisProcess(watched: WatchedProcess): Watchdog {
  const target = watched.group ? `-${watched.pid}` : String(watched.pid);
  const signalName = watched.signal.replace(/^SIG/, '');
  const child = spawn('bash', ['-c', script, 'watchdog', String(process.pid), target, signalName], {
    detached: true,
    stdio: 'ignore',
  });
  child.on('error', () => {});
  child.unref();
  return {
    pid: child.pid,
    release() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}
