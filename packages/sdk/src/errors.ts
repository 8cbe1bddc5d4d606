import type { Schemas } from './operation-types.ts';

type ErrorCode = Schemas['Error']['code'];

/**
 * Codes a TidingsError can carry: the API's own (`NOT_FOUND`, `TOO_MANY_REQUESTS`, ...) and the ones the client
 * raises itself when no API answer exists.
 */
export type TidingsErrorCode = ErrorCode | 'CONNECTION_ERROR' | 'TIMEOUT' | 'INVALID_RESPONSE' | 'INVALID_SIGNATURE';

/**
 * Every failure the SDK reports: an API error (`status` is the HTTP status) or a client-side one (`status` 0).
 * @example
 * try { await tidings.apiKeys.disable('key_x'); }
 * catch (e) { if (e instanceof TidingsError && e.code === 'NOT_FOUND') ...; }
 */
export class TidingsError extends Error {
  override readonly name = 'TidingsError';
  readonly code: TidingsErrorCode;
  readonly status: number;
  /** The API's `X-Request-Id`; quote it when reporting a problem. Undefined when no response arrived. */
  readonly requestId: string | undefined;
  /** Response headers of the failed request, when there was one (`Retry-After`, `RateLimit-*`). */
  readonly headers: Headers | undefined;

  constructor(init: { code: TidingsErrorCode; message: string; status: number; requestId?: string; headers?: Headers; cause?: unknown }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.code = init.code;
    this.status = init.status;
    this.requestId = init.requestId;
    this.headers = init.headers;
  }
}

const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  429: 'TOO_MANY_REQUESTS',
  503: 'SERVICE_UNAVAILABLE',
};

/**
 * The error code for a status whose body was not the API's `{code, message}` (a proxy's 502 page, say).
 * @example codeForStatus(502) // 'INTERNAL_SERVER_ERROR'
 */
export function codeForStatus(status: number): ErrorCode {
  return CODE_BY_STATUS[status] ?? (status >= 500 ? 'INTERNAL_SERVER_ERROR' : 'BAD_REQUEST');
}
