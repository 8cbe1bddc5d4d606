import { Hono } from 'hono';

/** POST /v2/messages: the message pipeline's issue. */
export function telnyxMessageRoutes() {
  return new Hono();
}
