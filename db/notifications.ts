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
 * life, and when none was heard for half a heartbeat interval it sends an empty one (a probe,
 * `pg_notify('credential_changes', '')`, through the pool). PostgreSQL delivers notifications in
 * commit order, so hearing one proves every change committed before it was delivered. `isLive()` is
 * false before the first LISTEN, and it turns false when a probe was answered by the pool (committed, or
 * failed) and nothing was heard on the channel within `3 × heartbeatIntervalMs` after it, or when a probe
 * is still unanswered after that long; it turns true again on the next notification heard (the same
 * session: nothing was missed) or the next LISTEN (a new session: `onListen` lets the caller forget what it
 * may have missed). The judgement is made by the heartbeat timer (every half interval, so within 3.5
 * intervals of the probe), never from the clock alone: a process whose event loop stalled (a long GC pause,
 * a starved CPU) has its notifications waiting unread in the socket, not lost, and a probe queued behind
 * busy pooled connections says nothing about the LISTEN connection; before, either made the watcher
 * (and every request's token look-up with it) give up for as long as the stall or the queue lasted.
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
  /** Whether the channel is known to deliver: set by a LISTEN or a notification heard, cleared by the timer. */
  let live = false;
  let heardAt = Number.NEGATIVE_INFINITY;
  /** When the probe in flight was sent (null: none in flight). */
  let probeSentAt: number | null = null;
  /** When the first probe answered by the pool since the last notification heard was answered (null: none). */
  let unheardSince: number | null = null;
  let listenCount = 0;
  const heard = () => {
    heardAt = performance.now();
    unheardSince = null;
    if (listened) live = true;
  };

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
        heard();
        if (payload !== '') handlers.onChange(payload);
      },
      () => {
        if (stopped) return;
        listened = true;
        heard();
        listenCount += 1;
        handlers.onListen();
      },
    )) as unknown as { unlisten(): Promise<void>; state: { pid: number | null } };
  } catch (err) {
    onError(err);
  }

  const timer = setInterval(() => {
    if (stopped) return;
    const now = performance.now();
    if (
      (unheardSince !== null && now - unheardSince > staleAfterMs) ||
      (probeSentAt !== null && now - probeSentAt > staleAfterMs)
    ) {
      live = false;
    }
    if (probeSentAt !== null || now - heardAt < intervalMs / 2) return;
    const sentAt = now;
    probeSentAt = sentAt;
    const answered = () => {
      if (probeSentAt !== sentAt) return;
      probeSentAt = null;
      // Heard meanwhile (its own notification may come first): nothing to wait for.
      if (heardAt < sentAt) unheardSince ??= performance.now();
    };
    db.$client.notify(credentialChangesChannel, '').catch(onError).finally(answered);
  }, intervalMs / 2);
  timer.unref();

  return {
    isLive: () => !stopped && live,
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
