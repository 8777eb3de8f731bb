/**
 * Process configuration (workers/config.ts; docs/operating.md "What runs where"): the additions,
 * `AUTH_BASE_URL` (docs/design.md §4: the token endpoint's address, `{auth_url}` of the spec) and
 * `SEARCH_RATE_LIMIT_PER_SECOND` (docs/design.md §5: search and journal lists 20 req/s).
 */

import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { apiConfigOf, defaultApiPoolSize, loadConfig } from '../../workers/config';

/** Keys given, so that loading touches no file. */
const base = {
  SECRET_PEPPER: 'p'.repeat(64),
  CURSOR_SIGNING_KEY: 'c'.repeat(64),
  DATA_ENCRYPTION_KEY: 'd'.repeat(64),
  TEMPORAL_PAYLOAD_KEYS: `k1:${'e'.repeat(64)}`,
};

describe('loadConfig: AUTH_BASE_URL', () => {
  it('is unset by default: tokens at /oauth2/token of this server', () => {
    expect(loadConfig(base).authBaseUrl).toBeUndefined();
    expect(apiConfigOf(loadConfig(base)).authBaseUrl).toBeUndefined();
  });

  it.each([
    ['https://auth.example.com', 'https://auth.example.com'],
    ['https://auth.example.com/', 'https://auth.example.com'],
    ['https://example.com/identity/', 'https://example.com/identity'],
    ['http://127.0.0.1:9000', 'http://127.0.0.1:9000'],
  ])('takes %j as %j (no trailing slash) and hands it to the API', (value, expected) => {
    const config = loadConfig({ ...base, AUTH_BASE_URL: value });
    expect(config.authBaseUrl).toBe(expected);
    expect(apiConfigOf(config).authBaseUrl).toBe(expected);
  });

  it.each([
    'auth.example.com',
    'ftp://auth.example.com',
    'https://auth.example.com/?x=1',
    'https://a.example#f',
    'https://user:pw@auth.example.com',
  ])('refuses %j', (value) => {
    expect(() => loadConfig({ ...base, AUTH_BASE_URL: value })).toThrow(/AUTH_BASE_URL/);
  });
});

describe('loadConfig: rate limits', () => {
  it('defaults: 25/s sandbox, 100/s production, 20/s for search and journal lists in both', () => {
    expect(loadConfig(base)).toMatchObject({ rateLimitPerSecond: 25, searchRateLimitPerSecond: 20 });
    expect(loadConfig({ ...base, SERVICE_ENVIRONMENT: 'production' })).toMatchObject({
      rateLimitPerSecond: 100,
      searchRateLimitPerSecond: 20,
    });
  });

  it('takes SEARCH_RATE_LIMIT_PER_SECOND (a whole number of at least 1)', () => {
    expect(loadConfig({ ...base, SEARCH_RATE_LIMIT_PER_SECOND: '50' }).searchRateLimitPerSecond).toBe(50);
    expect(
      apiConfigOf(loadConfig({ ...base, SEARCH_RATE_LIMIT_PER_SECOND: '50' })).searchRateLimitPerSecond,
    ).toBe(50);
    expect(() => loadConfig({ ...base, SEARCH_RATE_LIMIT_PER_SECOND: 'x' })).toThrow(
      /SEARCH_RATE_LIMIT_PER_SECOND/,
    );
    expect(() => loadConfig({ ...base, SEARCH_RATE_LIMIT_PER_SECOND: '0' })).toThrow(
      /SEARCH_RATE_LIMIT_PER_SECOND/,
    );
  });
});

describe('loadConfig: TOKEN_CACHE_TTL_MS (api/token-cache.ts)', () => {
  it('defaults to 5000 ms, takes a whole number (0 turns the cache off), and reaches the API config', () => {
    expect(loadConfig(base).tokenCacheTtlMs).toBe(5000);
    expect(apiConfigOf(loadConfig(base)).tokenCacheTtlMs).toBe(5000);
    expect(apiConfigOf(loadConfig({ ...base, TOKEN_CACHE_TTL_MS: '0' })).tokenCacheTtlMs).toBe(0);
    expect(loadConfig({ ...base, TOKEN_CACHE_TTL_MS: '250' }).tokenCacheTtlMs).toBe(250);
    expect(() => loadConfig({ ...base, TOKEN_CACHE_TTL_MS: '5s' })).toThrow(/TOKEN_CACHE_TTL_MS/);
    expect(() => loadConfig({ ...base, TOKEN_CACHE_TTL_MS: '-1' })).toThrow(/TOKEN_CACHE_TTL_MS/);
  });
});

describe('loadConfig: METRICS_TOKEN and WORKER_METRICS_ADDRESS', () => {
  it('are unset by default', () => {
    const config = loadConfig(base);
    expect(config.metricsToken).toBeUndefined();
    expect(config.workerMetricsAddress).toBeUndefined();
    expect(apiConfigOf(config).metricsToken).toBeUndefined();
  });

  it('hands the metrics token to the API and keeps the address', () => {
    const token = 'a1'.repeat(16);
    const config = loadConfig({ ...base, METRICS_TOKEN: token, WORKER_METRICS_ADDRESS: '127.0.0.1:9464' });
    expect(apiConfigOf(config).metricsToken).toBe(token);
    expect(config.workerMetricsAddress).toBe('127.0.0.1:9464');
    expect(loadConfig({ ...base, WORKER_METRICS_ADDRESS: '[::1]:9464' }).workerMetricsAddress).toBe(
      '[::1]:9464',
    );
  });

  it.each(['short', 'with a space inside it', 'x'.repeat(257)])('refuses METRICS_TOKEN %j', (value) => {
    expect(() => loadConfig({ ...base, METRICS_TOKEN: value })).toThrow(/METRICS_TOKEN/);
  });

  it.each(['9464', 'localhost', '127.0.0.1:99999', 'http://127.0.0.1:9464'])(
    'refuses WORKER_METRICS_ADDRESS %j',
    (value) => {
      expect(() => loadConfig({ ...base, WORKER_METRICS_ADDRESS: value })).toThrow(/WORKER_METRICS_ADDRESS/);
    },
  );
});

describe('loadConfig: the API pool (DATABASE_POOL_SIZE, API_PROCESSES)', () => {
  it('defaults to four connections per core shared among the API processes, between 4 and 30', () => {
    expect(defaultApiPoolSize(2, 2)).toBe(4);
    expect(defaultApiPoolSize(2, 1)).toBe(8);
    expect(defaultApiPoolSize(1, 4)).toBe(4);
    expect(defaultApiPoolSize(16, 16)).toBe(4);
    expect(defaultApiPoolSize(16, 1)).toBe(30);
    expect(defaultApiPoolSize(8, 3)).toBe(11);
  });

  it('uses that default for the API only; DATABASE_POOL_SIZE, when set, sizes every pool', () => {
    const cores = availableParallelism();
    const plain = loadConfig({ ...base, API_PROCESSES: '2' });
    expect(plain.apiDatabasePoolSize).toBe(defaultApiPoolSize(cores, 2));
    expect(plain.databasePoolSize).toBe(30);
    const set = loadConfig({ ...base, API_PROCESSES: '2', DATABASE_POOL_SIZE: '12' });
    expect(set.apiDatabasePoolSize).toBe(12);
    expect(set.databasePoolSize).toBe(12);
    expect(() => loadConfig({ ...base, DATABASE_POOL_SIZE: 'many' })).toThrow(/DATABASE_POOL_SIZE/);
  });
});
