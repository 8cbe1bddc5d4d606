import { Hono } from 'hono';

/** POST /emails (send) and POST /emails/batch: the message pipeline's issue. */
export function resendEmailRoutes() {
  return new Hono();
}
