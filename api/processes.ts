/**
 * The durable processes as the API sees them: one typed port per process, each from its
 * `workflows/<context>/<process>/client.ts` (docs/processes.md P0), and the background health monitor over
 * PostgreSQL and Temporal. Entry points and tests build these once per process.
 */
import type { Client } from '@temporalio/client';
import type { Db } from '../db/client';
import { pingDatabase } from '../db/queries/platform/clients';
import { type BoardingClient, createBoardingClient } from '../workflows/boarding/boarding-batch/client';
import {
  type ChannelEventClient,
  createChannelEventClient,
} from '../workflows/channels/channel-event/client';
import { pingTemporal } from '../workflows/common/client-start';
import {
  createHardshipOfferClient,
  type HardshipOfferClient,
} from '../workflows/hardship/hardship-offer/client';
import {
  type CloseOfBusinessClient,
  createCloseOfBusinessClient,
} from '../workflows/lending/close-of-business/client';
import { type AutopayClient, createAutopayClient } from '../workflows/payments/autopay/client';
import {
  createPaymentIntentClient,
  type PaymentIntentClient,
} from '../workflows/payments/payment-intent/client';
import {
  type ContactConsentUpdateClient,
  createContactConsentUpdateClient,
} from '../workflows/servicing/contact-consent-update/client';
import {
  createPrivacyRequestClient,
  type PrivacyRequestClient,
} from '../workflows/servicing/privacy-request/client';
import { createPromiseClient, type PromiseClient } from '../workflows/servicing/promise/client';
import { createHealthMonitor, type HealthMonitor } from './health-monitor';

export interface ProcessClients {
  privacyRequests: PrivacyRequestClient;
  channelEvents: ChannelEventClient;
  paymentIntents: PaymentIntentClient;
  autopay: AutopayClient;
  contactConsentUpdates: ContactConsentUpdateClient;
  promises: PromiseClient;
  boarding: BoardingClient;
  hardshipOffers: HardshipOfferClient;
  closeOfBusiness: CloseOfBusinessClient;
}

/** Every process's client port over one Temporal client. */
export function createProcessClients(client: Client): ProcessClients {
  return {
    privacyRequests: createPrivacyRequestClient(client),
    channelEvents: createChannelEventClient(client),
    paymentIntents: createPaymentIntentClient(client),
    autopay: createAutopayClient(client),
    contactConsentUpdates: createContactConsentUpdateClient(client),
    promises: createPromiseClient(client),
    boarding: createBoardingClient(client),
    hardshipOffers: createHardshipOfferClient(client),
    closeOfBusiness: createCloseOfBusinessClient(client),
  };
}

/** The health monitor of the API's two dependencies (not started; call `start()` to add the timer). */
export function createDependencyHealth(db: Db, client: Client, intervalMs?: number): HealthMonitor {
  return createHealthMonitor({
    checks: { database: () => pingDatabase(db), temporal: () => pingTemporal(client) },
    ...(intervalMs === undefined ? {} : { intervalMs }),
  });
}
