/**
 * api/middleware/request-context.ts `accessLoggerOf`: the access line skips pino's redaction pass, yet is the line the
 * service's redacting logger (workers/logger.ts `createLogger`) writes for the same fields, at its level, through its
 * line cap.
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { accessLoggerOf } from '../../api/middleware/request-context';
import { createLogger, logLineBytesMax } from '../../workers/logger';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, stream };
}

const accessFields = {
  requestId: '5f0c1e9a-1b2c-4d3e-8f90-123456789abc',
  method: 'GET',
  route: '/v1/loans/:loanId/summary',
  status: 200,
  latencyMs: 1.3,
  tenant: 'acme',
  client: 'cl_0123456789',
};

describe('accessLoggerOf', () => {
  it('writes the redacting logger’s line for the access fields, and is made once per logger', () => {
    const redacting = capture();
    const access = capture();
    const logger = createLogger('info', redacting.stream);
    const accessLogger = accessLoggerOf(createLogger('info', access.stream));
    logger.info(accessFields, 'request');
    accessLogger.info(accessFields, 'request');
    const withoutTime = (line: string) => ({ ...JSON.parse(line), time: 0 });
    expect(access.lines).toHaveLength(1);
    expect(withoutTime(access.lines[0]!)).toEqual(withoutTime(redacting.lines[0]!));
    expect(JSON.parse(access.lines[0]!)).toMatchObject({
      ...accessFields,
      msg: 'request',
      service: 'lending-servicing-engine',
    });
    expect(accessLoggerOf(logger)).toBe(accessLoggerOf(logger));
  });

  it('keeps the logger’s level and line cap', () => {
    const silent = capture();
    accessLoggerOf(createLogger('warn', silent.stream)).info(accessFields, 'request');
    expect(silent.lines).toHaveLength(0);
    const capped = capture();
    accessLoggerOf(createLogger('info', capped.stream)).info(
      { ...accessFields, route: 'x'.repeat(20_000) },
      'request',
    );
    expect(Buffer.byteLength(capped.lines[0]!)).toBeLessThanOrEqual(logLineBytesMax);
    expect(JSON.parse(capped.lines[0]!)).toMatchObject({ truncated: true });
  });
});
