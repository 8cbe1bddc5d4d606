import pino, { type Logger } from 'pino';

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
 * JSON logs, one line per event. Callers add `requestId`, `orgId`, `messageId` as fields, never a secret.
 * @example const logger = createLogger({ level: 'info', name: 'api' });
 */
export function createLogger(options: { level: string; name: string }): Logger {
  return pino({ level: options.level, name: options.name, redact: { paths: redactedPaths, censor: '[redacted]' } });
}
