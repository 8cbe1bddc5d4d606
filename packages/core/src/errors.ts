import type { ErrorCode } from '@tidings/contracts';

/** The HTTP status of each error code: one table, used by every layer that answers a request. */
export const statusOfCode: Record<ErrorCode, number> = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  TOO_MANY_REQUESTS: 429,
  // a limit on what is sent rather than on requests: Verify's per-recipient caps, the SMS fraud guard's prefix velocity
  RATE_LIMITED: 429,
  INTERNAL_SERVER_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
};

/**
 * An error meant for the caller: its message is shown as is, so it names the field or resource and never internals.
 * `status` overrides the code's usual status where HTTP has a more precise one (405, 413, 415).
 * @example throw new AppError('NOT_FOUND', 'Contact not found');
 */
export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    status?: number,
  ) {
    super(message);
    this.name = 'AppError';
    this.status = status ?? statusOfCode[code];
  }
}

/** Throws NOT_FOUND naming the resource kind when `value` is null or undefined. */
export function foundOr404<T>(value: T | null | undefined, kind: string): T {
  if (value === null || value === undefined) throw new AppError('NOT_FOUND', `${kind} not found`);
  return value;
}

/**
 * A refusal that says when to come back (a 429 by default, RATE_LIMITED for a sending limit, a 503 for an unavailable
 * dependency): the API answers it
 * with `Retry-After`.
 * @example throw new RetryLaterError('Too many codes sent to this recipient; retry in 30 s', 30);
 */
export class RetryLaterError extends AppError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
    code: 'TOO_MANY_REQUESTS' | 'RATE_LIMITED' | 'SERVICE_UNAVAILABLE' = 'TOO_MANY_REQUESTS',
  ) {
    super(code, message);
    this.name = 'RetryLaterError';
  }
}
