import pino, { type DestinationStream, type Logger } from 'pino';
import { traceFields, tracingOn } from './tracing.ts';

export type { Logger };

/** Paths that may hold a secret; pino replaces them before a line is written. */
const redactedPaths = [
  'authorization',
  'headers.authorization',
  'req.headers.authorization',
  '*.apiKey',
  '*.key',
  '*.secret',
  '*.password',
  '*.passwordHash',
  'apiKey',
  'key',
  'secret',
  'password',
];

/**
 * JSON logs, one line per event, `time` as an ISO-8601 UTC timestamp. Callers add `requestId`, `orgId`, `messageId`
 * as fields, never a secret. While tracing, a line written inside a span carries its `traceId` and `spanId`.
 * `destination` is stdout unless given.
 * @example const logger = createLogger({ level: 'info', name: 'api' });
 */
export function createLogger(options: { level: string; name: string }, destination?: DestinationStream): Logger {
  const settings = {
    level: options.level,
    name: options.name,
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: redactedPaths, censor: '[redacted]' },
    // only while tracing: off, a line costs nothing more
    ...(tracingOn() ? { mixin: traceFields } : {}),
  };
  return destination ? pino(settings, destination) : pino(settings);
}
