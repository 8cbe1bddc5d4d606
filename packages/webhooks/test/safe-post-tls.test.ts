import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { makeTestCertificate } from '@tidings/testing';
import { postWebhook, type Resolver } from '../src/index.ts';

// A throwaway certificate for `hooks.test`, made for this run (no key is kept in the repository).
const { cert, key } = makeTestCertificate('hooks.test');

const received: { servername: string | undefined; body: string }[] = [];
const server = https.createServer({ cert, key }, (req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    received.push({ servername: (req.socket as { servername?: string }).servername, body });
    res.writeHead(200).end('ok');
  });
});
let port = 0;
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => {
    server.close(resolve);
    server.closeAllConnections();
  });
});

const resolve: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
const options = { allowLoopback: true, requireHttps: true, resolve, body: '{"a":1}', headers: {}, ca: cert };

describe('postWebhook over https', () => {
  it('dials the pinned address while checking the certificate (and SNI) against the host name', async () => {
    const result = await postWebhook(`https://hooks.test:${port}/hook`, options);
    expect(result).toMatchObject({ ok: true, statusCode: 200, error: null });
    expect(received.at(-1)).toEqual({ servername: 'hooks.test', body: '{"a":1}' });
  });

  it('a certificate that does not match the host name fails, and nothing is posted', async () => {
    const before = received.length;
    const result = await postWebhook(`https://other.test:${port}/hook`, options);
    expect(result).toMatchObject({ ok: false, statusCode: null, error: 'connection error: ERR_TLS_CERT_ALTNAME_INVALID' });
    expect(received).toHaveLength(before);
  });
});
