import { Hono } from 'hono';

/** the /domains endpoints: the email-domains issue. */
export function resendDomainRoutes() {
  return new Hono();
}
