import { codeForStatus, TidingsError } from './errors.ts';
import { PageIterator, type Page, type QueryParams } from './pagination.ts';
import type { ListOperationId, OperationInput, OperationItem, OperationResult } from './operation-types.ts';
import { operations, type OperationId } from './operations.generated.ts';
import { backoffDelay, DEFAULT_RETRY, isRetryableStatus, parseRetryAfter, type RetryOptions } from './retry.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Options of the client as a whole. */
export type ClientOptions = {
  apiKey: string;
  /** Including `/v1`, e.g. `https://tidings.example.com/v1`. */
  baseUrl: string;
  timeoutMs: number;
  retry: RetryOptions;
  fetch: typeof fetch;
  headers: Record<string, string>;
  sleep: (ms: number) => Promise<void>;
};

/** Per-call options, the last argument of every method. */
export type RequestOptions = {
  /**
   * Sent as `Idempotency-Key`. Operations that accept one get a generated key when this is absent, so the
   * client's own retries never run twice; pass your own to make retries across processes safe too.
   */
  idempotencyKey?: string;
  maxRetries?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
  headers?: Record<string, string>;
};

/** One API operation as a resource method describes it. */
export type RequestSpec = {
  method: HttpMethod;
  /** Below the base URL, with path parameters already encoded. */
  path: string;
  query?: QueryParams;
  body?: unknown;
  /** The operation takes `Idempotency-Key` (message.send, contact.create, ...): one is generated when not given. */
  acceptsIdempotencyKey?: boolean;
};

/** The input of an operation as the transport sees it, untyped: `{name}` path parameters, query and JSON body. */
type RawInput = { params?: Record<string, string>; query?: QueryParams; body?: unknown };

/** `call`'s arguments after the operation id: the input may be left out when nothing in it is required. */
type CallArgs<Id extends OperationId> =
  Partial<OperationInput<Id>> extends OperationInput<Id> ? [input?: OperationInput<Id>, options?: RequestOptions] : [input: OperationInput<Id>, options?: RequestOptions];

type RawResponse = { status: number; headers: Headers; text: string };

/**
 * The request of an operation: its method and path from the table generated from the API's declarations, path
 * parameters encoded, and an Idempotency-Key when the operation takes one.
 * @example operationRequest('message.get', { params: { id: 'msg_1' } }) // { method: 'GET', path: '/messages/msg_1', ... }
 */
export function operationRequest(operationId: OperationId, input: RawInput = {}): RequestSpec {
  const { method, path: template, idempotent } = operations[operationId];
  const filled = template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = input.params?.[name];
    if (value === undefined) throw new TypeError(`${operationId}: missing path parameter ${name}`);
    return encodeURIComponent(value);
  });
  return { method, path: filled, query: input.query, body: input.body, acceptsIdempotencyKey: idempotent };
}

/**
 * The transport under every resource: authentication, JSON, timeouts, retries with backoff, typed errors.
 * @example const page = await client.request<Page<ApiKey>>({ method: 'GET', path: '/api-keys' });
 */
export class HttpClient {
  constructor(readonly options: ClientOptions) {}

  /** Runs one operation, retrying as configured, and returns the parsed body (undefined for 204). */
  async request<T>(spec: RequestSpec, options: RequestOptions = {}): Promise<T> {
    const idempotencyKey = options.idempotencyKey ?? (spec.acceptsIdempotencyKey ? newIdempotencyKey() : undefined);
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...this.options.headers,
      ...options.headers,
      authorization: `Bearer ${this.options.apiKey}`,
    };
    if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
    let body: string | undefined;
    if (spec.body !== undefined) {
      body = JSON.stringify(spec.body);
      headers['content-type'] = 'application/json';
    }
    const url = this.url(spec.path, spec.query);
    const maxRetries = options.maxRetries ?? this.options.retry.maxRetries;
    // A request that never got an answer may still have run: repeat it only when doing so cannot double an effect.
    const isSafeToRepeat = spec.method === 'GET' || idempotencyKey !== undefined;

    for (let attempt = 0; ; attempt += 1) {
      let response: RawResponse;
      try {
        response = await this.attempt(url, { method: spec.method, headers, body }, options);
      } catch (error) {
        if (options.signal?.aborted || !(error instanceof TidingsError)) throw error;
        if (attempt < maxRetries && isSafeToRepeat) {
          await this.options.sleep(backoffDelay(attempt, this.options.retry));
          continue;
        }
        throw error;
      }
      if (response.status < 300) return parseBody<T>(response);
      const error = apiError(response);
      if (attempt < maxRetries && isRetryableStatus(response.status)) {
        const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
        if (retryAfterMs === undefined || retryAfterMs <= this.options.retry.maxRetryAfterMs) {
          await this.options.sleep(retryAfterMs ?? backoffDelay(attempt, this.options.retry));
          continue;
        }
      }
      throw error;
    }
  }

  /**
   * Calls an operation of the API by its id: method and path come from the API's declarations, and the input and
   * the result are typed from the served document (path parameters, query and body the operation takes; its answer).
   * @example const message = await client.call('message.get', { params: { id } }); // a MessageWithEvents
   */
  call<Id extends OperationId>(operationId: Id, ...[input, options]: CallArgs<Id>): Promise<OperationResult<Id>> {
    return this.request<OperationResult<Id>>(operationRequest(operationId, input as RawInput | undefined), options);
  }

  /**
   * A list operation: one page with `.page()`, or every item with `for await`.
   * @example for await (const contact of client.list('contact.list', { query: { limit: 100 } })) ...
   */
  list<Id extends ListOperationId>(
    operationId: Id,
    input: Omit<OperationInput<Id>, 'body'> = {} as Omit<OperationInput<Id>, 'body'>,
    options: RequestOptions = {},
  ): PageIterator<OperationItem<Id>> {
    const { params, query } = input as RawInput;
    const page = (pageQuery: QueryParams) => this.request<Page<OperationItem<Id>>>(operationRequest(operationId, { params, query: pageQuery }), options);
    return new PageIterator<OperationItem<Id>>(page, query ?? {});
  }

  private url(path: string, query: QueryParams = {}): string {
    const url = new URL(this.options.baseUrl.replace(/\/+$/, '') + path);
    for (const [name, value] of Object.entries(query)) {
      if (value === undefined || value === null) continue;
      const values = Array.isArray(value) ? value : [value];
      for (const v of values) url.searchParams.append(name, v instanceof Date ? v.toISOString() : String(v));
    }
    return url.toString();
  }

  /** One HTTP exchange within the timeout, body included; a failure to get an answer is a TidingsError. */
  private async attempt(url: string, init: RequestInit, options: RequestOptions): Promise<RawResponse> {
    // an already-aborted signal fires no 'abort' event any more: check it before each attempt (retries included)
    options.signal?.throwIfAborted();
    const timeoutMs = options.timeoutMs ?? this.options.timeoutMs;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onAbort = () => controller.abort(options.signal?.reason);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const response = await this.options.fetch(url, { ...init, signal: controller.signal });
      return { status: response.status, headers: response.headers, text: await response.text() };
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason ?? error;
      if (timedOut) throw new TidingsError({ code: 'TIMEOUT', message: `No answer within ${timeoutMs} ms`, status: 0, cause: error });
      throw new TidingsError({ code: 'CONNECTION_ERROR', message: `Could not reach the Tidings API: ${(error as Error).message}`, status: 0, cause: error });
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    }
  }
}

/** A random UUID v4; `randomUUID` is missing where Web Crypto is limited (browsers outside secure contexts). */
function newIdempotencyKey(): string {
  if (typeof globalThis.crypto.randomUUID === 'function') return globalThis.crypto.randomUUID();
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function parseBody<T>(response: RawResponse): T {
  if (response.status === 204 || response.text === '') return undefined as T;
  // an email's source or a CSV export: the text as it came
  const type = response.headers.get('content-type') ?? '';
  if (type !== '' && !type.includes('json')) return response.text as T;
  try {
    return JSON.parse(response.text) as T;
  } catch (cause) {
    throw new TidingsError({
      code: 'INVALID_RESPONSE',
      message: `The API answered ${response.status} with a body that is not JSON`,
      status: response.status,
      requestId: response.headers.get('x-request-id') ?? undefined,
      headers: response.headers,
      cause,
    });
  }
}

/** The API's `{code, message}` as a TidingsError; anything else (a proxy's error page) by its status. */
function apiError(response: RawResponse): TidingsError {
  let code = codeForStatus(response.status);
  let message = `HTTP ${response.status}`;
  try {
    const body = JSON.parse(response.text) as { code?: unknown; message?: unknown };
    if (typeof body.code === 'string') code = body.code as typeof code;
    if (typeof body.message === 'string') message = body.message;
  } catch {
    // not the API's JSON (a gateway's page, say): the status alone tells what happened
    if (response.text) message = `HTTP ${response.status}: ${response.text.slice(0, 200)}`;
  }
  return new TidingsError({ code, message, status: response.status, requestId: response.headers.get('x-request-id') ?? undefined, headers: response.headers });
}

/**
 * The default wait between retries.
 * @example await defaultSleep(500);
 */
export const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export { DEFAULT_RETRY };
