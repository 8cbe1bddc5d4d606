import { Hono } from 'hono';
import { startFakeServer, type FakeServer } from './fake-server.ts';
import { resendDomainRoutes } from './resend/domains.routes.ts';
import { createFakeResendEmailState, resendEmailRoutes, type FakeResendEmailState } from './resend/emails.routes.ts';

export type FakeResend = FakeServer & { state: FakeResendEmailState };

/**
 * A loopback Resend that the real `resend` SDK talks to (`RESEND_BASE_URL` / `baseUrl`): the endpoints the SDK calls
 * for sending and for domains, recording requests and failing on demand. `state.emails` holds what was accepted.
 * @example const resend = await startFakeResend(); ... new Resend('re_test', { baseUrl: resend.url });
 */
export async function startFakeResend(): Promise<FakeResend> {
  const state = createFakeResendEmailState();
  const server = await startFakeServer(new Hono().route('/', resendEmailRoutes(state)).route('/', resendDomainRoutes()));
  return Object.assign(server, { state });
}
