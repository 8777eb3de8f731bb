/** Barrel of every bounded context's tables; drizzle-kit and db/client.ts read it. */
export * from './ai-sessions';
export * from './boarding';
export * from './channels';
export * from './customers';
export * from './hardship';
export * from './lending';
export * from './merchant-advances';
export * from './platform';
export * from './rate-limits';
export * from './reconciliation';
export * from './restrictions';
export * from './sandbox';
export * from './servicing';
export * from './statements';
export * from './voice';
export * from './webhook-admission';
export * from './webhooks';
