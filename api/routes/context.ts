import type { Context } from 'hono';
import type { OperationContext } from '../../activities/deps';
import type { AppEnv } from '../env';
import { idempotencyKeyOf, requestKeyOf } from '../middleware/idempotency';

/** Who asks and under which key: the context every operation takes. */
export function operationContext(c: Context<AppEnv>): OperationContext {
  return {
    tenantId: c.get('tenantId'),
    actor: c.get('actor'),
    requestKey: requestKeyOf(c.get('auth').clientId, idempotencyKeyOf(c.req.header('idempotency-key'))),
    correlationId: c.get('requestId'),
  };
}
