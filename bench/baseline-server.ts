/**
 * The bare baseline of `npm run bench:read`: a Hono + @hono/node-server handler doing one
 * primary-key query on the service's `loans` table through postgres.js (prepared statements, default
 * pool), answering its row as JSON. No authentication, tenant context, rate limit, validation or logging:
 * what the machine can do with the same stack, to which the service's read path is compared.
 *
 * Environment: `DATABASE_URL` (required), `PORT` (required), `API_PROCESSES` (processes behind the port
 * with Node's `cluster`, default 1: the bench gives the baseline as many as the service).
 * Routes: `GET /loans/{id}` → 200 the row (404 `{}` when none), `GET /healthz` → 200 `{"status":"ok"}`.
 * Prints `baseline ready` once every process listens. Not part of the service.
 */
import cluster from 'node:cluster';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import postgres from 'postgres';

const databaseUrl = process.env.DATABASE_URL;
const port = Number(process.env.PORT);
const processes = Number(process.env.API_PROCESSES ?? '1');
if (!databaseUrl || !Number.isInteger(port) || !Number.isInteger(processes) || processes < 1) {
  throw new Error('baseline-server needs DATABASE_URL, PORT and API_PROCESSES ≥ 1');
}

if (processes > 1 && cluster.isPrimary) {
  let ready = 0;
  cluster.on('message', () => {
    if (++ready === processes) process.stdout.write('baseline ready\n');
  });
  for (let i = 0; i < processes; i++) cluster.fork();
  process.on('SIGTERM', () => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
    process.exit(0);
  });
} else {
  const sql = postgres(databaseUrl, { max: 10 });
  const app = new Hono();
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/loans/:id', async (c) => {
    const [row] = await sql`select * from loans where id = ${Number(c.req.param('id'))}`;
    return row ? c.json(row) : c.json({}, 404);
  });
  serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, () => {
    if (cluster.isPrimary) process.stdout.write('baseline ready\n');
    else process.send?.('ready');
  });
  process.on('SIGTERM', () => {
    void sql.end({ timeout: 1 }).finally(() => process.exit(0));
  });
}
