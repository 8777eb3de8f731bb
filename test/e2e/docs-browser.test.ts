/**
 * End to end: `GET /docs` renders the API reference in a real headless Chromium (Debian's
 * `/usr/bin/chromium` driven by playwright-core) with every request the page makes answered by this service:
 * any request to another host is aborted and fails the test. The app is wired as `npm start` wires it
 * (test/support/context.ts) and served over real HTTP on a free port. The test opens the payment-intent and
 * privacy-request groups, checks that their operations render, and saves a screenshot to
 * `.data/test-output/docs.png` (git-ignored; the path is printed).
 * Without `/usr/bin/chromium` the test is skipped with a message, except under CI (`CI` set), where it fails.
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { serve } from '@hono/node-server';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../workers/config';
import { createTestContext, type TestContext } from '../support/context';

const chromiumPath = '/usr/bin/chromium';
const hasChromium = existsSync(chromiumPath);
if (!hasChromium && !process.env.CI)
  process.stderr.write(`docs-browser: ${chromiumPath} is missing (apt-get install chromium); skipped.\n`);

const screenshotPath = path.join(projectRoot, '.data', 'test-output', 'docs.png');

let ctx: TestContext;
let server: ReturnType<typeof serve> | undefined;
let baseUrl: string;
let browser: Browser | undefined;

beforeAll(async () => {
  if (!hasChromium) return;
  ctx = await createTestContext({ worker: false });
  server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: ctx.app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await chromium.launch({
    executablePath: chromiumPath,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
});

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await ctx?.close();
});

describe('GET /docs in headless Chromium', () => {
  it('requires Chromium under CI', () => {
    if (process.env.CI && !hasChromium)
      throw new Error(`${chromiumPath} is missing: CI must install Debian's chromium package (.ci/run).`);
  });

  it.skipIf(!hasChromium)(
    'renders the operations offline, every request answered by the service itself',
    async () => {
      const page = await browser!.newPage({ viewport: { width: 1400, height: 1000 } });
      const origin = new URL(baseUrl).origin;
      const requested: string[] = [];
      const external: string[] = [];
      await page.route('**/*', async (route) => {
        const url = route.request().url();
        requested.push(url);
        // data: and blob: URLs never leave the browser; anything else must be this service.
        if (/^(data|blob):/.test(url) || new URL(url).origin === origin) return route.continue();
        external.push(url);
        return route.abort('blockedbyclient');
      });
      const pageErrors: string[] = [];
      page.on('pageerror', (err) => pageErrors.push(err.message));

      const response = await page.goto(`${baseUrl}/docs`);
      expect(response?.status()).toBe(200);
      // The document is loaded and rendered: the title, then the tag groups in the sidebar.
      await page.getByRole('heading', { name: 'Lending and Servicing API' }).waitFor({ timeout: 30_000 });
      for (const group of ['Lending: payment intents', 'Servicing: privacy requests']) {
        await page.getByText(group, { exact: true }).first().click();
      }
      for (const title of [
        'Create a payment intent',
        'Read a payment with its status history',
        'Receive a privacy request',
        'Fulfil a privacy request',
      ]) {
        await expect.poll(() => page.getByText(title, { exact: true }).first().isVisible()).toBe(true);
      }
      // The operation itself, scrolled into view: its heading on screen and painted, its path in the example.
      await page.getByText('Create a payment intent', { exact: true }).first().click();
      const heading = page.getByRole('heading', { name: 'Create a payment intent', exact: true });
      await expect
        .poll(
          async () => {
            const box = await heading.boundingBox();
            return box !== null && box.y >= 0 && box.y + box.height <= 1000;
          },
          { timeout: 15_000 },
        )
        .toBe(true);
      await page.waitForLoadState('networkidle');
      await expect
        .poll(() =>
          heading.evaluate((element) => {
            const box = element.getBoundingClientRect();
            const hit = element.ownerDocument.elementFromPoint(box.x + 5, box.y + box.height / 2);
            return hit !== null && element.contains(hit);
          }),
        )
        .toBe(true);
      expect(await page.getByText('/v1/loans/').first().isVisible()).toBe(true);
      await mkdir(path.dirname(screenshotPath), { recursive: true });
      await page.screenshot({ path: screenshotPath });
      process.stdout.write(`docs-browser: screenshot saved to ${screenshotPath}\n`);

      expect(external).toEqual([]);
      expect(pageErrors).toEqual([]);
      // The bundle came from the service, with its cache headers.
      const bundle = requested.find((url) => url.includes('/docs/assets/scalar-standalone.js'));
      expect(bundle).toBeDefined();
      expect(requested.some((url) => url.endsWith('/v1/openapi.json'))).toBe(true);
    },
  );
});
