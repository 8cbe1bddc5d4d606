import { Hono } from 'hono';
import { startFakeServer, type FakeServer } from './fake-server.ts';
import { createFakeTelnyxMessageState, telnyxMessageRoutes, type FakeTelnyxMessageState } from './telnyx/messages.routes.ts';
import { telnyxNumberRoutes } from './telnyx/numbers.routes.ts';

export type FakeTelnyx = FakeServer & { state: FakeTelnyxMessageState };

/**
 * A loopback Telnyx that the real `telnyx` SDK talks to (`TELNYX_BASE_URL` / `baseURL`): messaging and the
 * number search, order and management endpoints, recording requests and failing on demand.
 * @example const telnyx = await startFakeTelnyx(); ... new Telnyx({ apiKey: 'KEY', baseURL: `${telnyx.url}/v2` });
 */
export async function startFakeTelnyx(): Promise<FakeTelnyx> {
  const state = createFakeTelnyxMessageState();
  const server = await startFakeServer(new Hono().route('/', telnyxMessageRoutes(state)).route('/', telnyxNumberRoutes(state)));
  return Object.assign(server, { state });
}
