/**
 * Structured JSON logs (pino) with secrets, tokens and identifiers redacted (docs/design.md §4 Logs), errors reduced to
 * what may be logged (db/loggable-error.ts `loggableError`: never SQL parameters or values), and every line capped at
 * `logLineBytesMax` bytes (one error line was 5.4 MB).
 */
import pino, { type DestinationStream, type Logger } from 'pino';
import { loggableError } from '../db/loggable-error';

/** The longest log line written, in bytes of UTF-8 including the newline. */
export const logLineBytesMax = 8192;

/** Top-level fields a shortened line keeps as they are (when they are short). */
const keptFields = [
  'level',
  'time',
  'pid',
  'hostname',
  'service',
  'requestId',
  'tenantId',
  'route',
  'status',
];
const fieldCharsMax = 512;

const byteLength = (text: string): number => Buffer.byteLength(text, 'utf8');

/** `text` cut to `max` characters, with the cut marked. */
function shorten(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… [truncated ${text.length - max} chars]` : text;
}

/**
 * A log line (pino's JSON plus newline) of at most `maxBytes` bytes: a longer one is rewritten as JSON whose
 * long strings are cut and whose large objects are replaced by a marker, with `truncated: true` and
 * `originalBytes`; if that is still too long, only the fields of `keptFields` and a cut `msg` remain.
 */
export function capLogLine(line: string, maxBytes = logLineBytesMax): string {
  const originalBytes = byteLength(line);
  if (originalBytes <= maxBytes) return line;
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    entry = { msg: line };
  }
  const shortened: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(entry)) {
    if (typeof value === 'string') shortened[name] = shorten(value, fieldCharsMax);
    else if (value !== null && typeof value === 'object') {
      const json = JSON.stringify(value);
      shortened[name] = json.length > fieldCharsMax ? `[truncated object of ${json.length} chars]` : value;
    } else shortened[name] = value;
  }
  const marked = { ...shortened, truncated: true, originalBytes };
  let out = `${JSON.stringify(marked)}\n`;
  if (byteLength(out) <= maxBytes) return out;
  const minimal: Record<string, unknown> = {};
  for (const name of keptFields) {
    const value = entry[name];
    if (typeof value === 'number' || (typeof value === 'string' && value.length <= 128))
      minimal[name] = value;
  }
  minimal.msg = shorten(String(entry.msg ?? ''), 256);
  out = `${JSON.stringify({ ...minimal, truncated: true, originalBytes })}\n`;
  return byteLength(out) <= maxBytes ? out : `${JSON.stringify({ truncated: true, originalBytes })}\n`;
}

/**
 * The service's logger at `level`, writing to `destination` (default standard output). Errors under `err` or
 * `error` are serialized by `loggableError`; lines are capped by `capLogLine`.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: 'lending-servicing-engine' },
    serializers: { err: loggableError, error: loggableError },
    hooks: { streamWrite: (line: string) => capLogLine(line) },
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
        'taskToken',
        '*.taskToken',
        'governmentId',
        '*.governmentId',
        'accountNumber',
        '*.accountNumber',
        'parameters',
        '*.parameters',
        'params',
        '*.params',
      ],
      censor: '[redacted]',
    },
  };
  return pino(options, destination ?? bufferedStandardOutput());
}

/** How long a log line may wait in the standard-output buffer before it is written, in milliseconds. */
export const logFlushIntervalMs = 250;

/**
 * Standard output, written asynchronously in batches ("async logging"; a synchronous write per line
 * is one system call per request on the read path): lines are buffered up to 4 KiB and written by sonic-boom
 * without blocking the event loop, at the latest every `logFlushIntervalMs`, and flushed synchronously when the
 * process exits (`exit` also follows an uncaught exception and `process.exit`). A process killed with SIGKILL
 * loses at most the last `logFlushIntervalMs` of lines. One per process.
 */
let standardOutput: DestinationStream | null = null;
function bufferedStandardOutput(): DestinationStream {
  if (standardOutput) return standardOutput;
  const stream = pino.destination({ dest: 1, sync: false, minLength: 4096 });
  setInterval(() => {
    try {
      stream.flush();
    } catch {
      // A destroyed or busy stream is flushed by its own next write or at exit.
    }
  }, logFlushIntervalMs).unref();
  process.on('exit', () => {
    try {
      stream.flushSync();
    } catch {
      // Nothing more can be done for a log line at exit.
    }
  });
  standardOutput = stream;
  return stream;
}

/** The parts of a Temporal SDK log entry (`@temporalio/worker` `LogEntry`) the formatter reads. */
export interface TemporalLogEntry {
  level: string;
  message: string;
  /** Nanoseconds since the epoch. */
  timestampNanos: bigint;
  meta?: Record<string, unknown>;
}

/**
 * One JSON log line for a Temporal SDK log entry (the worker runtime's own warnings, such as a failed
 * activity): `{level, time (ISO), service, msg, ...meta}` with every error in `meta` reduced by
 * `loggableError`, capped by `capLogLine`, so the SDK's lines follow the same rules as ours.
 */
export function temporalLogLine(entry: TemporalLogEntry): string {
  const meta: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(entry.meta ?? {})) {
    meta[name] =
      value instanceof Error ? loggableError(value) : typeof value === 'bigint' ? String(value) : value;
  }
  let json: string;
  try {
    json = JSON.stringify({
      level: entry.level.toLowerCase(),
      time: new Date(Number(entry.timestampNanos / 1_000_000n)).toISOString(),
      service: 'lending-servicing-engine',
      source: 'temporal-sdk',
      msg: entry.message,
      ...meta,
    });
  } catch {
    json = JSON.stringify({ level: entry.level.toLowerCase(), source: 'temporal-sdk', msg: entry.message });
  }
  return capLogLine(`${json}\n`);
}
