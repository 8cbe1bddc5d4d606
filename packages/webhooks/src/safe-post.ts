import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { checkWebhookUrl, UnsafeUrlError, type CheckedTarget, type UrlPolicy } from './safe-url.ts';

/** Defaults of API.md: 15 s for the whole exchange, at most 64 KiB of the answer read and kept. */
export const DEFAULT_TIMEOUT_MS = 15_000;
export const MAX_RESPONSE_BYTES = 64 * 1024;

export type PostResult = {
  /** True only for 2xx. A 3xx is a failure: redirects are never followed. */
  ok: boolean;
  /** Null when no response arrived (refused target, connection error, timeout). */
  statusCode: number | null;
  durationMs: number;
  /** The first MAX_RESPONSE_BYTES of the body, as text. */
  responseBody: string | null;
  /** What went wrong, for a person; never contains the secret or the signature. */
  error: string | null;
  /** The `Retry-After` the endpoint asked for, in ms, when it gave one. */
  retryAfterMs: number | null;
  /** True when the URL was refused before any connection (SSRF policy). */
  refused: boolean;
};

export type PostOptions = UrlPolicy & {
  body: string;
  headers: Record<string, string>;
  timeoutMs?: number;
  maxResponseBytes?: number;
  /** Trusted certificate authorities instead of the system's (tests with their own CA). */
  ca?: string;
};

/** How long an idle connection is kept for the next delivery to the same endpoint: below the usual servers' keep-alive
 * timeouts (5 s for Node and Apache), so a socket is rarely reused just as the server closes it. */
const IDLE_SOCKET_MS = 1_000;

/**
 * Keeps connections open between deliveries, pooled by the address they were dialled to as well as by host name,
 * port and TLS options: a request reuses only a socket to an address its own check has just allowed, as a fresh
 * connection would dial (a connection per delivery was a third of the webhook-worker's CPU on a busy endpoint).
 */
function pinnedAgent<A extends http.Agent>(AgentClass: new (options: http.AgentOptions) => A): A {
  const agent = new AgentClass({ keepAlive: true, timeout: IDLE_SOCKET_MS, scheduling: 'lifo' });
  const nameOf = agent.getName.bind(agent);
  agent.getName = (options) => `${nameOf(options)}|${(options as { pinnedAddresses?: string }).pinnedAddresses ?? ''}`;
  return agent;
}
const agents = { http: pinnedAgent(http.Agent), https: pinnedAgent(https.Agent) };

/** A lookup that answers with the already-checked addresses, so the socket dials exactly what was checked. */
export function pinnedLookup(target: CheckedTarget): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, target.addresses);
    else callback(null, target.addresses[0]!.address, target.addresses[0]!.family);
  }) as LookupFunction;
}

/** Parses `Retry-After` (seconds or an HTTP date) into ms from `now`; null when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/**
 * POSTs a webhook body SSRF-safely: checks the URL and every resolved address (see checkWebhookUrl), then connects
 * to the checked address only (the name is never resolved again, so DNS rebinding cannot switch it), follows no
 * redirect, gives up after `timeoutMs`, and reads at most `maxResponseBytes` of the answer. Never throws: every
 * outcome is a PostResult, so the caller records it as an attempt.
 * @example
 * const result = await postWebhook(url, { body, headers, allowLoopback: false, requireHttps: true });
 * if (!result.ok) console.log(result.statusCode, result.error);
 */
export async function postWebhook(rawUrl: string, options: PostOptions): Promise<PostResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const failure = (error: string, extra: Partial<PostResult> = {}): PostResult => ({
    ok: false,
    statusCode: null,
    durationMs: elapsed(),
    responseBody: null,
    error,
    retryAfterMs: null,
    refused: false,
    ...extra,
  });

  let target: CheckedTarget;
  try {
    target = await checkWebhookUrl(rawUrl, options);
  } catch (error) {
    if (error instanceof UnsafeUrlError) return failure(`refused: ${error.message}`, { refused: true });
    return failure('refused: the URL could not be checked', { refused: true });
  }

  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = options.maxResponseBytes ?? MAX_RESPONSE_BYTES;
  const body = Buffer.from(options.body, 'utf8');
  const isHttps = target.url.protocol === 'https:';
  const client = isHttps ? https : http;

  // read by the agents' getName (Node hands it the request's options)
  const pinnedTo = { pinnedAddresses: target.addresses.map((a) => a.address).join(',') };

  return new Promise<PostResult>((resolve) => {
    let settled = false;
    // a connection whose answer was read to its end goes back to the pool; any other is closed
    const finish = (result: PostResult, isReadToEnd = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (!isReadToEnd) request.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => finish(failure(`timeout: no complete answer within ${timeoutMs} ms`)), timeoutMs);

    const request = client.request(
      target.url,
      {
        method: 'POST',
        lookup: pinnedLookup(target),
        // The certificate is checked against the host name (SNI too), while the socket goes to the pinned address.
        ...(options.ca ? { ca: options.ca } : {}),
        agent: isHttps ? agents.https : agents.http,
        ...pinnedTo,
        headers: {
          ...options.headers,
          'content-type': 'application/json',
          'content-length': String(body.length),
          'user-agent': 'Tidings-Webhooks/1.0',
        },
      },
      (response) => {
        const statusCode = response.statusCode ?? 0;
        const chunks: Buffer[] = [];
        let size = 0;
        const done = (isReadToEnd: boolean) => {
          const ok = statusCode >= 200 && statusCode < 300;
          const retryAfterMs = parseRetryAfter(response.headers['retry-after'] as string | undefined);
          let error: string | null = null;
          if (statusCode >= 300 && statusCode < 400) error = `redirect (${statusCode}) not followed`;
          else if (!ok) error = `HTTP ${statusCode}`;
          finish({ ok, statusCode, durationMs: elapsed(), responseBody: Buffer.concat(chunks).toString('utf8'), error, retryAfterMs, refused: false }, isReadToEnd);
        };
        response.on('data', (chunk: Buffer) => {
          const room = maxBytes - size;
          if (room > 0) chunks.push(chunk.subarray(0, room));
          size += chunk.length;
          // Enough read: stop here rather than download whatever the endpoint sends.
          if (size >= maxBytes) done(false);
        });
        response.on('end', () => done(true));
        response.on('error', (error) => finish(failure(`response error: ${error.message}`, { statusCode })));
      },
    );
    request.on('error', (error: NodeJS.ErrnoException) => finish(failure(`connection error: ${error.code ?? error.message}`)));
    request.end(body);
  });
}
