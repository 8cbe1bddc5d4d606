import { OpenAPIHono } from '@hono/zod-openapi';
import { messageOperations as ops, type Message } from '@tidings/contracts';
import { cancelMessage, getMessage, getMessageSource, listMessagesJson, sendMessage, sendMessages, type Page } from '@tidings/core';
import { requestContext, type AppEnv } from '../env.ts';
import { jsonText, route } from '../openapi.ts';
import { validationHook } from '../validation-hook.ts';

/** The 202 a send answers with, committed with the messages under the Idempotency-Key when there is one. */
const answer = (key: string | undefined) => (key === undefined ? undefined : { key, status: 202, body: <T>(result: T) => result });

/** Handlers of the message operations declared in @tidings/contracts. A key reads only its own mode's messages. */
export const messageRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  .openapi(route(ops.send), async (c) => c.json(await sendMessage(requestContext(c), c.req.valid('json'), answer(c.get('idempotencyKey')), { validated: true }), 202))
  .openapi(route(ops.sendBatch), async (c) => c.json(await sendMessages(requestContext(c), c.req.valid('json').messages, { answer: answer(c.get('idempotencyKey')) }), 202))
  .openapi(route(ops.list), async (c) =>
    jsonText<Page<Message>>(c, await listMessagesJson(c.get('deps'), c.get('orgId'), { ...c.req.valid('query'), mode: c.get('principal').mode })),
  )
  .openapi(route(ops.get), async (c) => c.json(await getMessage(c.get('deps'), c.get('orgId'), c.req.valid('param').id, c.get('principal').mode), 200))
  .openapi(route(ops.cancel), async (c) => c.json(await cancelMessage(c.get('deps'), c.get('orgId'), c.req.valid('param').id, c.get('principal').mode), 200))
  .openapi(route(ops.getSource), async (c) => {
    const source = await getMessageSource(c.get('deps'), c.get('orgId'), c.req.valid('param').id, c.get('principal').mode);
    return c.body(new Uint8Array(source), 200, { 'content-type': 'message/rfc822' });
  });
