/**
 * The body limit of the closed connector callbacks (docs/design.md §5 "Inbound channel events": the channel-events callback and the
 * voice-dispatch events), mounted before the ordinary routes' middleware: a larger body is refused with a 413
 * Shape A (`error.msg.payload.too.large`) before it is read or authenticated.
 */
import { bodyLimit } from 'hono/body-limit';
import { DomainError } from '../../domain/errors';
import { sendShapeA } from '../errors';

/** At most `maxBytes` bytes of body; `what` names the body in the message, e.g. `A voice callback body`. */
export function callbackBodyLimit(maxBytes: number, what: string) {
  return bodyLimit({
    maxSize: maxBytes,
    onError: (c) =>
      sendShapeA(c, new DomainError('error.msg.payload.too.large', `${what} is at most ${maxBytes} bytes.`)),
  });
}
