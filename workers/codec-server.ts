/**
 * The codec endpoint of Temporal's "codec server" protocol (Temporal docs, "Codec Server"): the Temporal Web UI
 * (and `temporal workflow show --codec-endpoint … --codec-auth …`) sends the payloads of a history it displays to
 * `POST <endpoint>/decode` and shows what comes back, so encrypted payloads (workers/payload-codec.ts) are readable
 * to an operator while Temporal's store holds only ciphertext. `POST <endpoint>/encode` is the reverse (the UI uses
 * it for signals and queries typed in by hand).
 *
 * Body and answer: `{"payloads": [{"metadata": {"<key>": "<base64>"}, "data": "<base64>"}]}` (the proto3 JSON form of
 * `temporal.api.common.v1.Payload`). CORS lets the Temporal UI's origin call it from the browser (preflight
 * `OPTIONS` answered with `POST` and the headers asked for, by default `Content-Type`, `X-Namespace`, `Authorization`).
 *
 * Served by the worker process (`npm run start:worker`) and by `npm start`, on an address of its own, never on the
 * public API's port: the worker processes already hold the payload keys, and a decrypting endpoint beside the
 * tenant-facing API would be one mistake away from a decryption oracle open to tenants.
 *
 * Guard, one of:
 * - a bearer token (`token`): every call must carry `Authorization: Bearer <token>` (compared in constant time), else
 *   401 — required in production and on any non-loopback address (workers/config.ts);
 * - loopback only (no token; sandbox): the server listens on a loopback address and refuses (403) any call whose
 *   peer is not a loopback address.
 * In both, a call whose `Origin` is not an allowed origin is refused (403), so another web page open in the
 * operator's browser cannot use it. Errors are answered in the API's error shape (Shape A).
 */
import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Payload, PayloadCodec } from '@temporalio/common';

/** Largest request body accepted, in bytes (Temporal's default blob size limit is 2 MiB a payload). */
export const codecBodyLimitBytes = 8 * 1024 * 1024;

/** A `temporal.api.common.v1.Payload` in proto3 JSON form: bytes as base64 (standard or URL-safe alphabet). */
export interface JsonPayload {
  metadata?: Record<string, string> | null;
  data?: string | null;
}

const base64Pattern = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** Bytes of a proto3 JSON `bytes` value; throws a `TypeError` on anything but a base64 string. */
function bytesOf(value: unknown, where: string): Uint8Array {
  if (typeof value !== 'string' || !base64Pattern.test(value)) throw new TypeError(`${where} must be base64`);
  return new Uint8Array(Buffer.from(value, 'base64'));
}

/**
 * A payload from its proto3 JSON form (the codec server protocol's body). Throws a `TypeError` when it is not an
 * object, or its metadata values or data are not base64 strings. (The SDK's own `payloadToJSON`/`JSONToPayload`
 * in `@temporalio/common/lib/proto-utils` fail in this install on duplicate protobufjs copies, so the two-field
 * mapping is done here.)
 */
export function payloadFromJson(json: unknown): Payload {
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new TypeError('payload must be an object');
  const { metadata, data } = json as JsonPayload;
  if (
    metadata !== undefined &&
    metadata !== null &&
    (typeof metadata !== 'object' || Array.isArray(metadata))
  )
    throw new TypeError('payload metadata must be an object');
  return {
    metadata: Object.fromEntries(
      Object.entries(metadata ?? {}).map(([key, value]) => [key, bytesOf(value, `metadata ${key}`)]),
    ),
    data: data === undefined || data === null ? new Uint8Array() : bytesOf(data, 'data'),
  };
}

/** The proto3 JSON form of a payload: metadata values and data in standard base64. */
export function payloadToJson(payload: Payload): JsonPayload {
  return {
    metadata: Object.fromEntries(
      Object.entries(payload.metadata ?? {}).map(([key, value]) => [
        key,
        Buffer.from(value ?? new Uint8Array()).toString('base64'),
      ]),
    ),
    data: Buffer.from(payload.data ?? new Uint8Array()).toString('base64'),
  };
}

export interface CodecServer {
  /** `http://host:port`: the value of the UI's codec endpoint. */
  url: string;
  stop(): Promise<void>;
}

const errorCodes: Record<number, string> = {
  400: 'validation.msg.validation.errors.exist',
  401: 'error.msg.not.authenticated',
  403: 'error.msg.not.authorized',
  404: 'error.msg.resource.not.found',
  405: 'error.msg.method.not.allowed',
  413: 'validation.msg.validation.errors.exist',
  500: 'error.msg.platform.service.unavailable',
};

function isLoopbackPeer(address: string | undefined): boolean {
  if (!address) return false;
  const ip = address.replace(/^::ffff:/, '');
  return ip === '::1' || /^127\./.test(ip);
}

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Starts the codec endpoint on `address` (`host:port`; port 0 picks a free one). `allowedOrigins` are the origins
 * (`scheme://host:port`) of the Temporal UI allowed to call it from a browser. Without `token`, `address` must be a
 * loopback address (throws otherwise). Resolves once it listens.
 */
export async function startCodecServer(options: {
  address: string;
  codec: PayloadCodec;
  token?: string | undefined;
  allowedOrigins: string[];
}): Promise<CodecServer> {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):([0-9]{1,5})$/.exec(options.address);
  if (!match) throw new Error(`codec endpoint address must be host:port, not ${options.address}`);
  const host = (match[1] ?? match[2]) as string;
  const port = Number(match[3]);
  if (!options.token && !(host === 'localhost' || host === '::1' || /^127\./.test(host)))
    throw new Error('a codec endpoint without a token must listen on a loopback address');
  const origins = new Set(options.allowedOrigins);

  const answer = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const refuse = (res: ServerResponse, status: number, message: string) =>
    answer(res, status, {
      developerMessage: message,
      httpStatusCode: String(status),
      defaultUserMessage: message,
      userMessageGlobalisationCode: errorCodes[status] ?? 'error.msg.platform.service.unavailable',
      errors: [],
    });

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const origin = req.headers.origin;
    if (origin !== undefined && !origins.has(origin))
      return refuse(res, 403, `origin ${origin} may not call the codec endpoint`);
    if (origin !== undefined) {
      res.setHeader('access-control-allow-origin', origin);
      res.setHeader('access-control-allow-credentials', 'true');
      res.setHeader('vary', 'Origin');
    }
    if (!options.token && !isLoopbackPeer(req.socket.remoteAddress))
      return refuse(res, 403, 'the codec endpoint answers loopback callers only');
    const path = (req.url ?? '/').replace(/\?.*$/, '');
    if (path !== '/decode' && path !== '/encode') return refuse(res, 404, `no codec operation at ${path}`);
    if (req.method === 'OPTIONS') {
      res.writeHead(204, {
        'access-control-allow-methods': 'POST, OPTIONS',
        // The headers the UI asks for (its origin is allowed), else the ones it is known to send.
        'access-control-allow-headers':
          req.headers['access-control-request-headers'] ?? 'Content-Type, X-Namespace, Authorization',
        'access-control-max-age': '600',
      });
      return res.end();
    }
    if (req.method !== 'POST') return refuse(res, 405, `${req.method} is not allowed; use POST`);
    if (options.token) {
      const auth = req.headers.authorization ?? '';
      const given = /^Bearer (.+)$/.exec(auth)?.[1];
      if (!given || !sameToken(given, options.token))
        return refuse(res, 401, 'the codec endpoint needs Authorization: Bearer <TEMPORAL_CODEC_TOKEN>');
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > codecBodyLimitBytes)
        return refuse(res, 413, `body larger than ${codecBodyLimitBytes} bytes`);
      chunks.push(chunk);
    }
    let payloads: Payload[];
    try {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { payloads?: unknown };
      if (!Array.isArray(body?.payloads)) throw new Error('no payloads');
      payloads = body.payloads.map(payloadFromJson);
    } catch {
      return refuse(
        res,
        400,
        'body must be {"payloads": [{"metadata": {"<key>": "<base64>"}, "data": "<base64>"}, ...]}',
      );
    }
    let result: JsonPayload[];
    try {
      const coded =
        path === '/decode' ? await options.codec.decode(payloads) : await options.codec.encode(payloads);
      result = coded.map(payloadToJson);
    } catch (err) {
      // The codec's message names a key id or says authentication failed; it never carries a key.
      return refuse(res, 400, `could not ${path.slice(1)} the payloads: ${(err as Error).message}`);
    }
    return answer(res, 200, { payloads: result });
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) refuse(res, 500, 'codec endpoint error');
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = server.address() as AddressInfo;
  const urlHost = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
  return {
    url: `http://${urlHost}:${bound.port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
