/**
 * Credential-change notifications (docs/design.md §4 Tokens): the triggers of migration
 * `0016_notify_credential_changes` send `pg_notify('credential_changes', <client id>)` when a row of
 * `api_clients` or `access_tokens` is updated or deleted (`*` on TRUNCATE: every client), at commit and
 * in commit order. The token-grant cache of every API process (api/token-cache.ts) watches them here.
 *
 * postgres.js LISTENs on one dedicated connection per pool and, when that connection closes, connects
 * and LISTENs again (with backoff, until it succeeds), calling `onListen` each time; but it tells no one
 * that the connection dropped, and a connection that hangs without closing goes unnoticed. So the
 * watcher proves the connection alive itself: every notification on the channel counts as a sign of
 * life, and when none was heard for half a heartbeat interval it sends an empty one
 * (`pg_notify('credential_changes', '')`, through the pool). PostgreSQL delivers notifications in
 * commit order, so hearing one proves every change committed before it was delivered. `isLive()` is
 * false before the first LISTEN and whenever nothing was heard for `3 × heartbeatIntervalMs`; it turns
 * true again on the next notification heard (the same session: nothing was missed) or the next LISTEN
 * (a new session: `onListen` lets the caller forget what it may have missed).
 *
 * A change made through the same pool is also announced in-process, synchronously, after its commit
 * (`announceCredentialChange`), so the process that disables a client (tests, `npm start`) refuses its
 * tokens from its very next request, without waiting for the notification's round trip.
 */
import type { Db } from './client';

/** The channel of the credential triggers (migration 0016_notify_credential_changes). */
export const credentialChangesChannel = 'credential_changes';

/** Payload meaning every client (TRUNCATE of `api_clients` or `access_tokens`). */
export const everyClient = '*';

export interface CredentialChangeHandlers {
  /** The client's grants changed (disabled, updated, deleted, a token updated or deleted); `*`: every client's. */
  onChange(clientId: string): void;
  /** LISTEN is in place (first time or again, e.g. after a reconnect): changes may have been missed before it. */
  onListen(): void;
}

export interface CredentialChangeWatcher {
  /** True while changes are known to reach the handlers: LISTEN in place and the channel heard from lately. */
  isLive(): boolean;
  /** How many times LISTEN was (re-)established. */
  listens(): number;
  /** Backend process id of the LISTEN connection (`pg_stat_activity.pid`); null before the first LISTEN. */
  listenerPid(): number | null;
  /** Stops the heartbeat and the handlers, and UNLISTENs. */
  stop(): Promise<void>;
}

type LocalSubscriber = (clientId: string) => void;

/** In-process subscribers per pool (`db.$client`): keyed weakly, so a closed pool leaves nothing behind. */
const localSubscribers = new WeakMap<object, Set<LocalSubscriber>>();

/**
 * Tells this process's watchers on the same pool that `clientId`'s credentials changed (call it after
 * the change commits). Other processes learn it from the trigger's notification.
 */
export function announceCredentialChange(db: Db, clientId: string): void {
  for (const subscriber of localSubscribers.get(db.$client) ?? []) subscriber(clientId);
}

/**
 * Watches credential changes on `db`: LISTEN on `credential_changes` with a heartbeat every
 * `heartbeatIntervalMs` (default 1000 ms). Resolves once the first LISTEN succeeded or failed; a failed
 * one is reported to `onError` (so are failed heartbeats), and postgres.js keeps trying to LISTEN
 * (`isLive()` stays false meanwhile).
 */
export async function watchCredentialChanges(
  db: Db,
  handlers: CredentialChangeHandlers,
  options: { heartbeatIntervalMs?: number; onError?: (err: unknown) => void } = {},
): Promise<CredentialChangeWatcher> {
  const intervalMs = options.heartbeatIntervalMs ?? 1000;
  const staleAfterMs = 3 * intervalMs;
  const onError = options.onError ?? (() => {});
  let stopped = false;
  let listened = false;
  let heardAt = Number.NEGATIVE_INFINITY;
  let heartbeatInFlight = false;
  let listenCount = 0;

  const local: LocalSubscriber = (clientId) => {
    if (!stopped) handlers.onChange(clientId);
  };
  const subscribers = localSubscribers.get(db.$client) ?? new Set<LocalSubscriber>();
  localSubscribers.set(db.$client, subscribers);
  subscribers.add(local);

  // postgres.js passes these two callbacks on to every LISTEN it makes again after a reconnect.
  let handle: { unlisten(): Promise<void>; state: { pid: number | null } } | null = null;
  try {
    handle = (await db.$client.listen(
      credentialChangesChannel,
      (payload) => {
        if (stopped) return;
        heardAt = performance.now();
        if (payload !== '') handlers.onChange(payload);
      },
      () => {
        if (stopped) return;
        listened = true;
        heardAt = performance.now();
        listenCount += 1;
        handlers.onListen();
      },
    )) as unknown as { unlisten(): Promise<void>; state: { pid: number | null } };
  } catch (err) {
    onError(err);
  }

  const timer = setInterval(() => {
    if (stopped || heartbeatInFlight || performance.now() - heardAt < intervalMs / 2) return;
    heartbeatInFlight = true;
    db.$client
      .notify(credentialChangesChannel, '')
      .catch(onError)
      .finally(() => {
        heartbeatInFlight = false;
      });
  }, intervalMs);
  timer.unref();

  return {
    isLive: () => !stopped && listened && performance.now() - heardAt <= staleAfterMs,
    listens: () => listenCount,
    // The state object is the LISTEN connection's, updated when it reconnects.
    listenerPid: () => handle?.state.pid ?? null,
    async stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      localSubscribers.get(db.$client)?.delete(local);
      // Bounded: on a dead connection UNLISTEN would wait for postgres.js's connect timeout; closing
      // the pool ends the LISTEN connection anyway.
      const unlisten = handle?.unlisten().catch(onError);
      await Promise.race([unlisten, new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
    },
  };
}
