/** Structured JSON logs (pino) with secrets, tokens and identifiers redacted (DESIGN §4 Logs). */
import pino, { type Logger } from 'pino';

export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'lending-servicing-engine' },
    redact: {
      paths: [
        'authorization',
        '*.authorization',
        'headers.authorization',
        '*.headers.authorization',
        'clientSecret',
        '*.clientSecret',
        'access_token',
        '*.access_token',
        'token',
        '*.token',
        'secret',
        '*.secret',
        'governmentId',
        '*.governmentId',
        'accountNumber',
        '*.accountNumber',
      ],
      censor: '[redacted]',
    },
  });
}
