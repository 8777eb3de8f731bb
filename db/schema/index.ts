/** Barrel of every bounded context's tables; drizzle-kit and db/client.ts read it. */

export * from './boarding/boarding';
export * from './channels/channels';
export * from './customers/customers';
export * from './customers/restrictions';
export * from './hardship/hardship';
export * from './lending/cob-runs';
export * from './lending/delinquency';
export * from './lending/delinquency-actions';
export * from './lending/delinquency-configuration';
export * from './lending/lending';
export * from './lending/merchant-advances';
export * from './lending/statements';
export * from './payments/payments';
export * from './payments/reconciliation';
export * from './payments/sandbox';
export * from './platform/platform';
export * from './platform/rate-limits';
export * from './servicing/ai-sessions';
export * from './servicing/servicing';
export * from './servicing/voice';
export * from './webhooks/admission';
export * from './webhooks/webhooks';
