/**
 * 405 Method Not Allowed for a known path (RFC 9110 §15.5.6): when no route answers a request, the app's
 * `notFound` asks `allowedMethodsOf` whether some route serves the path with another method; if so the answer is
 * 405 Shape A `error.msg.method.not.allowed` with an `Allow` header listing those methods (RFC 9110 §10.2.1),
 * else 404. Derived from the app's own route table once, so every route is covered without listing any.
 */
import type { Hono } from 'hono';
import { TrieRouter } from 'hono/router/trie-router';

/** Methods Hono answers for every GET route without a route of their own. */
const implied: Record<string, string[]> = { GET: ['HEAD'] };

/**
 * A lookup from a path to the methods the app serves it with (sorted, `HEAD` wherever `GET`), empty when no
 * route matches the path at all. Middleware (`use`, method `ALL`) does not count. Built on first use, when every
 * route is registered.
 */
export function allowedMethodsOf(app: Pick<Hono, 'routes'>): (path: string) => string[] {
  let table: { router: TrieRouter<true>; methods: string[] } | null = null;
  return (path) => {
    if (table === null) {
      const router = new TrieRouter<true>();
      const methods = new Set<string>();
      for (const route of app.routes) {
        if (route.method === 'ALL') continue;
        router.add(route.method, route.path, true);
        methods.add(route.method);
      }
      table = { router, methods: [...methods] };
    }
    const allowed = new Set<string>();
    for (const method of table.methods) {
      const [matches] = table.router.match(method, path);
      if (matches.length === 0) continue;
      allowed.add(method);
      for (const extra of implied[method] ?? []) allowed.add(extra);
    }
    return [...allowed].sort();
  };
}
