import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startWebhookReceiver, type WebhookReceiver } from '@tidings/testing';
import { checkWebhookUrl, postWebhook, UnsafeUrlError, type Resolver } from '../src/index.ts';

let receiver: WebhookReceiver;
let internal: WebhookReceiver; // a second receiver on another loopback address, standing for an internal service
beforeAll(async () => {
  receiver = await startWebhookReceiver();
  // same port as `receiver`, so a request that went to the wrong address would land here and be seen
  internal = await startWebhookReceiver({ host: '127.0.0.2', port: receiver.port });
});
afterEach(() => {
  receiver.reset();
  internal.reset();
});
afterAll(async () => {
  await receiver.close();
  await internal.close();
});

const local = { allowLoopback: true, requireHttps: false };
const post = (url: string, extra: Partial<Parameters<typeof postWebhook>[1]> = {}) =>
  postWebhook(url, { ...local, body: '{"hello":"world"}', headers: { 'webhook-id': 'evt_1' }, ...extra });
/** A DNS stand-in: names map to fixed answers. */
const dns =
  (answers: Record<string, string[]>): Resolver =>
  async (name) =>
    (answers[name] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

describe('postWebhook against a real receiver', () => {
  it('2xx succeeds; the exact body and headers arrive', async () => {
    const result = await post(`${receiver.url}/hook?x=1`);
    expect(result).toMatchObject({ ok: true, statusCode: 200, error: null, responseBody: '{"ok":true}', refused: false });
    expect(receiver.requests).toHaveLength(1);
    expect(receiver.requests[0]).toMatchObject({ method: 'POST', path: '/hook?x=1', body: '{"hello":"world"}' });
    expect(receiver.requests[0]!.headers).toMatchObject({ 'webhook-id': 'evt_1', 'content-type': 'application/json' });
  });

  it('500 is a failure with the status, body and Retry-After recorded', async () => {
    receiver.replyNext({ kind: 'status', status: 500, body: 'boom', headers: { 'retry-after': '120' } });
    const result = await post(receiver.url);
    expect(result).toMatchObject({ ok: false, statusCode: 500, responseBody: 'boom', error: 'HTTP 500', retryAfterMs: 120_000 });
  });

  it('a redirect is a failure and is not followed, even to another allowed receiver', async () => {
    receiver.replyNext({ kind: 'redirect', location: `${internal.url}/stolen`, status: 307 });
    const result = await post(receiver.url);
    // postWebhook has answered: a followed redirect would have reached `internal` before that answer
    expect(result).toMatchObject({ ok: false, statusCode: 307, error: 'redirect (307) not followed' });
    expect(internal.requests).toHaveLength(0);
  });

  it('a slow receiver times out', async () => {
    receiver.replyNext({ kind: 'slow', delayMs: 2_000 });
    const result = await post(receiver.url, { timeoutMs: 300 });
    expect(result).toMatchObject({ ok: false, statusCode: null, error: 'timeout: no complete answer within 300 ms' });
    expect(result.durationMs).toBeGreaterThanOrEqual(290);
    expect(result.durationMs).toBeLessThan(1_500);
  });

  it('reads at most 64 KiB of a huge body', async () => {
    receiver.replyNext({ kind: 'huge', bytes: 5 * 1024 * 1024 });
    const result = await post(receiver.url);
    expect(result.ok).toBe(true);
    expect(result.responseBody).toHaveLength(64 * 1024);
  });

  it('a closed port is a connection error, not a throw', async () => {
    const closed = await startWebhookReceiver();
    const url = closed.url;
    await closed.close();
    const result = await post(url);
    expect(result).toMatchObject({ ok: false, statusCode: null, error: 'connection error: ECONNREFUSED' });
  });
});

describe('SSRF: refused targets never receive a request', () => {
  it.each([
    ['http://169.254.169.254/latest/meta-data/', 'cloud metadata'],
    ['http://10.0.0.1/hook', 'private'],
    ['http://192.168.0.10/hook', 'private'],
    ['http://100.64.1.1/hook', 'carrierGradeNat'],
    ['http://[fd00::1]/hook', 'uniqueLocal'],
    ['http://[fe80::1]/hook', 'linkLocal'],
    ['http://[::ffff:10.0.0.1]/hook', 'private'],
    ['http://0.0.0.0/hook', 'unspecified'],
  ])('%s is refused (%s) before any connection', async (url, reason) => {
    const result = await post(url);
    expect(result).toMatchObject({ ok: false, refused: true, statusCode: null });
    expect(result.error).toContain(reason);
    await expect(checkWebhookUrl(url, local)).rejects.toThrow(UnsafeUrlError);
  });

  it('loopback is refused without WEBHOOK_ALLOW_LOOPBACK: the internal receiver gets nothing', async () => {
    const result = await post(`${internal.url}/admin`, { allowLoopback: false });
    expect(result).toMatchObject({ ok: false, refused: true, error: expect.stringContaining('loopback') });
    const viaName = await post(`http://localhost:${internal.port}/admin`, { allowLoopback: false });
    expect(viaName.refused).toBe(true);
    expect(internal.requests).toHaveLength(0);
  });

  it('numeric spellings of loopback (decimal, short, hex) are normalized and refused too', async () => {
    for (const host of ['2130706433', '127.1', '0x7f000002', '[::ffff:7f00:2]']) {
      const result = await post(`http://${host}:${internal.port}/`, { allowLoopback: false });
      expect(result).toMatchObject({ refused: true, error: expect.stringContaining('loopback') });
    }
    expect(internal.requests).toHaveLength(0);
  });

  it('a name resolving to an allowed AND a private address is refused as a whole', async () => {
    const resolve = dns({ 'mixed.test': ['127.0.0.2', '10.0.0.7'] });
    const result = await post(`http://mixed.test:${internal.port}/`, { resolve });
    expect(result).toMatchObject({ refused: true, error: expect.stringContaining('private') });
    expect(internal.requests).toHaveLength(0);
  });

  it('names resolving to metadata or a ULA are refused', async () => {
    const resolve = dns({ 'meta.test': ['169.254.169.254'], 'ula.test': ['fd12::5'] });
    expect((await post('http://meta.test/', { resolve })).error).toContain('cloud metadata');
    expect((await post('http://ula.test/', { resolve })).error).toContain('uniqueLocal');
  });

  it('pins the checked address: a DNS answer that changes after the check (rebinding) is never dialled', async () => {
    let calls = 0;
    // first answer: the public-facing receiver; any later answer: the internal one
    const rebinding: Resolver = async () => [{ address: calls++ === 0 ? '127.0.0.1' : '127.0.0.2', family: 4 }];
    const result = await post(`http://rebind.test:${receiver.port}/`, { resolve: rebinding });
    expect(result.ok).toBe(true);
    expect(calls).toBe(1);
    expect(receiver.requests).toHaveLength(1);
    expect(internal.requests).toHaveLength(0);
  });

  it('reuses a connection only to the address its own check allowed: a name that now resolves elsewhere gets a new one', async () => {
    const connections: string[] = [];
    const listen = async (host: string, port: number) => {
      const server = http.createServer((_req, res) => res.end('ok'));
      server.on('connection', () => connections.push(host));
      await new Promise<void>((listening) => server.listen(port, host, listening));
      return server;
    };
    const first = await listen('127.0.0.1', 0);
    const port = (first.address() as AddressInfo).port;
    const servers = [first, await listen('127.0.0.2', port)];
    try {
      let answer = '127.0.0.1';
      const resolve: Resolver = async () => [{ address: answer, family: 4 }];
      const url = `http://reuse.test:${port}/`;
      expect((await post(url, { resolve })).ok).toBe(true);
      expect((await post(url, { resolve })).ok).toBe(true);
      expect(connections).toEqual(['127.0.0.1']);
      answer = '127.0.0.2';
      expect((await post(url, { resolve })).ok).toBe(true);
      expect(connections).toEqual(['127.0.0.1', '127.0.0.2']);
    } finally {
      for (const server of servers) server.closeAllConnections();
      await Promise.all(servers.map((server) => new Promise((closed) => server.close(closed))));
    }
  });

  it('https is required when asked (production)', async () => {
    const result = await post(receiver.url, { requireHttps: true });
    expect(result).toMatchObject({ refused: true, error: 'refused: url: must use https' });
    expect(receiver.requests).toHaveLength(0);
  });

  it('refuses non-http schemes, credentials and names that do not resolve', async () => {
    await expect(checkWebhookUrl('ftp://example.com/', local)).rejects.toThrow('url: must use http or https');
    await expect(checkWebhookUrl('not a url', local)).rejects.toThrow('url: must be an absolute http(s) URL');
    await expect(checkWebhookUrl('http://user:pw@example.com/', local)).rejects.toThrow('url: must not contain credentials');
    await expect(checkWebhookUrl('http://nowhere.test/', { ...local, resolve: dns({}) })).rejects.toThrow('does not resolve');
  });
});
