import { Hono } from 'hono';
import { startFakeServer, type FakeServer } from './fake-server.ts';
import { resendDomainRoutes } from './resend/domains.routes.ts';
import { resendEmailRoutes } from './resend/emails.routes.ts';

/**
 * A loopback Resend that the real `resend` SDK talks to (`RESEND_BASE_URL` / `baseUrl`): the endpoints the SDK calls
 * for sending and for domains, recording requests and failing on demand.
 * @example const resend = await startFakeResend(); ... new Resend('re_test', { baseUrl: resend.url });
 */
export async function startFakeResend(): Promise<FakeServer> {
  return startFakeServer(new Hono().route('/', resendEmailRoutes()).route('/', resendDomainRoutes()));
}
