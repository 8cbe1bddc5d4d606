import type { MiddlewareHandler } from 'hono';
import { setFlash } from '../auth/cookies.ts';
import type { DashEnv } from '../env.ts';
import { TWO_FACTOR_ENROLMENT_PATH } from '../pages/account.page.tsx';

// What a person who must enrol may still reach: the enrolment page, signing out, and switching to another organization.
const OPEN_PATHS = [TWO_FACTOR_ENROLMENT_PATH, '/sign-out', '/organization'];

/**
 * Sends a signed-in person without a second factor to enrol, before anything else, while the organization they are
 * looking at requires one of every member (its owner's setting).
 */
export const enrolWhenRequired: MiddlewareHandler<DashEnv> = async (c, next) => {
  const signedIn = c.var.signedIn;
  if (!signedIn || signedIn.hasTwoFactor || !signedIn.membership.requiresTwoFactor || OPEN_PATHS.includes(c.req.path)) return next();
  setFlash(c, `${signedIn.membership.orgName} requires two-factor sign-in of every member: turn it on to continue.`);
  return c.redirect(TWO_FACTOR_ENROLMENT_PATH, 303);
};
