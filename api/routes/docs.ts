/**
 * `GET /docs`: the interactive API reference (Scalar) over `GET /v1/openapi.json`, working offline
 *. Its script is the standalone browser bundle of the installed `@scalar/api-reference`
 * package, served by this service at `GET /docs/assets/scalar-standalone.js` — never a CDN — and the page is
 * configured so it reaches nothing but this service: no default fonts (fonts.scalar.com), no telemetry, no
 * request proxy (proxy.scalar.com), no AI agent, no developer toolbar. Neither route is part of the OpenAPI
 * document (api/app.ts excludes them).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { gzipSync } from 'node:zlib';
import { Scalar } from '@scalar/hono-api-reference';
import { factory } from '../env';

/** Where the page loads the bundle from (a path of this service). */
export const scalarAssetPath = '/docs/assets/scalar-standalone.js';

/** The bundle's bytes, gzip copy and strong ETag (RFC 9110 §8.8.3): read once, on first use. */
interface ScalarBundle {
  body: Uint8Array<ArrayBuffer>;
  gzipped: Uint8Array<ArrayBuffer>;
  etag: string;
}

let bundle: ScalarBundle | undefined;

/**
 * The installed standalone bundle (`@scalar/api-reference/browser/standalone.js`, resolved from this module
 * through node_modules, so it works from sources under tsx and from `npm run build`'s dist/ alike). Throws
 * when the package is not installed (a deployment defect, answered 500).
 */
function scalarBundle(): ScalarBundle {
  if (bundle) return bundle;
  const file = createRequire(import.meta.url).resolve('@scalar/api-reference/browser/standalone.js');
  const body = readFileSync(file);
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  bundle = { body: new Uint8Array(body), gzipped: new Uint8Array(gzipSync(body)), etag };
  return bundle;
}

/** True when `If-None-Match` (RFC 9110 §13.1.2) names `etag` or is `*`. */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === '*' || tag === etag);
}

let page: ReturnType<typeof Scalar> | undefined;

/**
 * The page's handler, built on first use. The script URL carries the bundle's ETag as `?v=`, so an upgraded
 * package is a new URL and the bundle itself can be cached as immutable.
 */
function referencePage(): ReturnType<typeof Scalar> {
  page ??= Scalar({
    url: '/v1/openapi.json',
    pageTitle: 'Lending and Servicing API',
    cdn: `${scalarAssetPath}?v=${scalarBundle().etag.slice(1, 13)}`,
    // Each of these would reach a Scalar host: fonts.scalar.com, telemetry, the AI agent, the toolbar.
    withDefaultFonts: false,
    telemetry: false,
    showDeveloperTools: 'never',
    agent: { disabled: true },
    // No `proxyUrl`: the "Test Request" client sends from the browser to this service, never through proxy.scalar.com.
  });
  return page;
}

export const docsRoutes = factory
  .createApp()
  /** The reference page (HTML). */
  .get('/', (c, next) => referencePage()(c as never, next))
  /**
   * The standalone bundle: `application/javascript; charset=utf-8`, gzip when accepted, strong ETag with 304 on
   * a matching `If-None-Match`, `Cache-Control: public, max-age=31536000, immutable` (the page's URL changes
   * with the ETag).
   */
  .get('/assets/scalar-standalone.js', (c) => {
    const { body, gzipped, etag } = scalarBundle();
    const headers: Record<string, string> = {
      'Content-Type': 'application/javascript; charset=utf-8',
      'Cache-Control': 'public, max-age=31536000, immutable',
      ETag: etag,
      Vary: 'Accept-Encoding',
    };
    if (matches(c.req.header('if-none-match'), etag)) return c.body(null, 304, headers);
    const gzip = /\bgzip\b/i.test(c.req.header('accept-encoding') ?? '');
    const bytes = gzip ? gzipped : body;
    if (gzip) headers['Content-Encoding'] = 'gzip';
    headers['Content-Length'] = String(bytes.length);
    return c.body(bytes, 200, headers);
  });
