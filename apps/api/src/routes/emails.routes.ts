import { OpenAPIHono } from '@hono/zod-openapi';
import { resendCompatibleOperations as ops } from '@tidings/contracts';
import { cancelResendEmail, getResendEmail, rescheduleResendEmail, sendResendEmail, sendResendEmails } from '@tidings/core';
import { requestContext, type AppEnv } from '../env.ts';
import { resendRoute } from '../openapi.ts';
import { validationHook } from '../validation-hook.ts';

/**
 * Resend's email endpoints at the API's root, over the same core operations as /v1/messages; `app.ts` puts the
 * keys, rate limit, body checks and Resend's error shape in front of them.
 */
export const emailRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  .openapi(resendRoute(ops.send), async (c) => c.json(await sendResendEmail(requestContext(c), c.req.valid('json'), c.get('idempotencyKey')), 200))
  .openapi(resendRoute(ops.sendBatch), async (c) => {
    const isStrict = c.req.valid('header')['x-batch-validation'] !== 'permissive';
    return c.json(await sendResendEmails(requestContext(c), c.req.valid('json'), { isStrict, idempotencyKey: c.get('idempotencyKey') }), 200);
  })
  .openapi(resendRoute(ops.get), async (c) => c.json(await getResendEmail(c.get('deps'), c.get('orgId'), c.req.valid('param').id, c.get('principal').mode), 200))
  .openapi(resendRoute(ops.update), async (c) => c.json(await rescheduleResendEmail(requestContext(c), c.req.valid('param').id, c.req.valid('json').scheduled_at), 200))
  .openapi(resendRoute(ops.cancel), async (c) => c.json(await cancelResendEmail(c.get('deps'), c.get('orgId'), c.req.valid('param').id, c.get('principal').mode), 200));
