import { OpenAPIHono } from '@hono/zod-openapi';
import { createAuthenticator, createAuthFailureLimiter, type Deps } from '@tidings/core';
import { healthRoutes, requestContext } from '@tidings/runtime';
import { Hono } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from './env.ts';
import { auth } from './middleware/auth.ts';
import { handleError, notFoundOrWrongMethod } from './middleware/errors.ts';
import { jsonBody, limitBody } from './middleware/json-body.ts';
import { rateLimit } from './middleware/rate-limit.ts';
import { apiKeyRoutes } from './routes/api-keys.routes.ts';
import { auditRoutes } from './routes/audit.routes.ts';
import { emailDomainRoutes } from './routes/email-domains.routes.ts';
import { docsRoutes } from './routes/docs.routes.ts';
import { contactRoutes } from './routes/contacts.routes.ts';
import { segmentRoutes } from './routes/segments.routes.ts';
import { topicRoutes } from './routes/topics.routes.ts';
import { verificationRoutes } from './routes/verifications.routes.ts';
import { preferenceRoutes } from './routes/preferences.routes.ts';
import { broadcastRoutes } from './routes/broadcasts.routes.ts';
import { unsubscribeRoutes } from './routes/unsubscribe.routes.ts';
import { trackingRoutes } from './routes/tracking.routes.ts';
import { templateRoutes } from './routes/templates.routes.ts';
import { phoneNumberRoutes } from './routes/phone-numbers.routes.ts';
import { webhookRoutes } from './routes/webhooks.routes.ts';
import { messageRoutes } from './routes/messages.routes.ts';
import { emailRoutes } from './routes/emails.routes.ts';
import { RESEND_ONLY_ROOTS, resendErrors } from './middleware/resend-errors.ts';
import { providerEventRoutes } from './routes/provider-events.routes.ts';
import { buildOpenApiDocument } from './openapi-document.ts';
import { sandboxRoutes } from './routes/sandbox.routes.ts';
import { suppressionRoutes } from './routes/suppressions.routes.ts';
import { validationHook } from './validation-hook.ts';

/** message.send and message.sendBatch, and their Resend-compatible doors: the operations whose bodies may carry attachments. */
const SEND_PATHS = new Set(['/v1/messages', '/v1/messages/batch', '/emails', '/emails/batch']);
const isSendRequest = (method: string, path: string) => method === 'POST' && SEND_PATHS.has(path);

/** Paths under /v1 that answer without an API key (provider callbacks carry the provider's signature instead). */
const isProviderCallback = (path: string) => path.startsWith('/v1/provider-events/');
const isPublicPath = (path: string) => path === '/v1/openapi.json' || isProviderCallback(path);

/**
 * Builds the HTTP API over the given dependencies; `server.ts` runs it, tests call `app.request()`.
 * @example const app = createApp(deps); serve({ fetch: app.fetch, port: deps.config.apiPort });
 */
export function createApp(deps: Deps) {
  const authenticate = createAuthenticator(deps);
  // not strict: `/v1/api-keys/` is `/v1/api-keys`, as clients that join paths expect
  const app = new Hono<AppEnv>({ strict: false });

  app.use('*', async (c, next) => {
    c.set('deps', deps);
    await next();
  });
  app.use('*', requestContext);
  // /metrics is not here: the process serves it on its ops port (server.ts)
  app.route('/', healthRoutes(deps));
  app.route('/', docsRoutes);
  app.route('/', unsubscribeRoutes);
  app.route('/', preferenceRoutes);
  app.route('/', trackingRoutes);

  const v1 = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const authenticated = auth(authenticate, createAuthFailureLimiter(deps));
  v1.use('*', async (c, next) => (isPublicPath(c.req.path) ? next() : authenticated(c, next)));
  v1.use('*', async (c, next) => (isPublicPath(c.req.path) ? next() : rateLimit(c, next)));
  const limitOtherBodies = limitBody(deps.config.bodyLimitBytes);
  const limitSendBodies = limitBody(deps.config.sendBodyLimitBytes);
  const limitBodies = createMiddleware<AppEnv>(async (c, next) => (isSendRequest(c.req.method, c.req.path) ? limitSendBodies(c, next) : limitOtherBodies(c, next)));
  v1.use('*', limitBodies);
  // provider callbacks come in the provider's format (SNS posts text/plain, Twilio a form); their routes read them raw
  v1.use('*', async (c, next) => (isProviderCallback(c.req.path) ? next() : jsonBody(c, next)));
  v1.route('/', apiKeyRoutes);
  v1.route('/', emailDomainRoutes);
  v1.route('/', phoneNumberRoutes);
  v1.route('/', webhookRoutes);
  v1.route('/', contactRoutes);
  v1.route('/', templateRoutes);
  v1.route('/', segmentRoutes);
  v1.route('/', topicRoutes);
  v1.route('/', verificationRoutes);
  v1.route('/', broadcastRoutes);
  v1.route('/', messageRoutes);
  v1.route('/', suppressionRoutes);
  v1.route('/', sandboxRoutes);
  v1.route('/', providerEventRoutes);
  v1.route('/', auditRoutes);

  v1.openAPIRegistry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description: 'An API key: `sk_live_...` or `sk_test_...`.',
  });
  // built on first request, once every route is registered
  let document: ReturnType<typeof buildOpenApiDocument> | undefined;
  v1.get('/openapi.json', (c) => {
    document ??= buildOpenApiDocument(v1);
    return c.json(document);
  });

  // Resend's email endpoints at the root (an app sets RESEND_BASE_URL to this API), behind the same keys, limits
  // and checks as /v1, answering errors in Resend's shape; documented in /v1/openapi.json under their own tag
  for (const middleware of [resendErrors, authenticated, rateLimit, limitBodies, jsonBody]) app.use('/emails/*', middleware);
  app.route('/', emailRoutes);
  // Resend's other routes, which Tidings lacks: their 404 in Resend's shape too, so the SDK reports it as an error
  for (const root of RESEND_ONLY_ROOTS) for (const path of [`/${root}`, `/${root}/*`]) app.use(path, resendErrors);
  for (const definition of emailRoutes.openAPIRegistry.definitions) {
    if (definition.type === 'route') v1.openAPIRegistry.registerPath(definition.route);
  }

  app.route('/v1', v1);
  app.notFound(notFoundOrWrongMethod(app));
  app.onError(handleError);
  return app;
}

export type App = ReturnType<typeof createApp>;
