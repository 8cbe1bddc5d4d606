import { serveHttp } from './http-server.ts';

export type ProxiedRequest = { method: string; path: string; headers: Record<string, string>; body: string; forwarded: boolean };

/** How the next request is failed: before it reaches the target (never ran), or after (it ran, its answer is lost). */
export type ProxyFault = { status: number; when: 'before-forwarding' | 'after-forwarding'; headers?: Record<string, string> };

export type FaultProxy = {
  url: string;
  requests: ProxiedRequest[];
  /** The next `count` requests get `fault` instead of the target's answer. */
  failNext(count: number, fault: ProxyFault): void;
  close(): Promise<void>;
};

/**
 * An HTTP proxy in front of a real server that can answer 5xx in its place, the way a load balancer or gateway
 * does: for testing a client's retries against the real thing behind it.
 * @example const proxy = await startFaultProxy(api.url); proxy.failNext(1, { status: 503, when: 'after-forwarding' });
 */
export async function startFaultProxy(targetUrl: string): Promise<FaultProxy> {
  const requests: ProxiedRequest[] = [];
  const faults: ProxyFault[] = [];
  const server = await serveHttp(async (request) => {
    const url = new URL(request.url);
    const body = await request.text();
    const headers = Object.fromEntries(request.headers);
    const fault = faults.shift();
    const recorded: ProxiedRequest = { method: request.method, path: url.pathname + url.search, headers, body, forwarded: false };
    requests.push(recorded);
    const failure = () => new Response(JSON.stringify({ error: 'injected' }), { status: fault!.status, headers: { 'content-type': 'application/json', ...fault!.headers } });
    if (fault?.when === 'before-forwarding') return failure();
    const { host: _host, 'content-length': _length, connection: _connection, ...forwardHeaders } = headers;
    const upstream = await fetch(targetUrl + url.pathname + url.search, {
      method: request.method,
      headers: forwardHeaders,
      body: request.method === 'GET' || request.method === 'HEAD' ? undefined : body,
    });
    recorded.forwarded = true;
    const upstreamBody = await upstream.arrayBuffer();
    if (fault) return failure();
    const responseHeaders = new Headers(upstream.headers);
    responseHeaders.delete('content-encoding');
    responseHeaders.delete('content-length');
    return new Response(upstream.status === 204 ? null : upstreamBody, { status: upstream.status, headers: responseHeaders });
  });
  return {
    url: server.url,
    requests,
    failNext(count, fault) {
      for (let i = 0; i < count; i += 1) faults.push(fault);
    },
    close: () => server.close(),
  };
}
