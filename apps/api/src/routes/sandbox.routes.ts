import { OpenAPIHono } from '@hono/zod-openapi';
import { Message, SandboxInboundBody } from '@tidings/contracts';
import { receiveSandboxInbound } from '@tidings/core';
import type { AppEnv } from '../env.ts';
import { operation } from '../openapi.ts';
import { validationHook } from '../validation-hook.ts';

const json = <T>(schema: T) => ({ content: { 'application/json': { schema } } });

const inbound = operation({
  operationId: 'sandbox.inbound',
  method: 'post',
  path: '/sandbox/inbound',
  tags: ['Sandbox'],
  summary: 'Receive a message in the sandbox',
  description:
    'For `sk_test_` keys only (a live key is 403): a person writes to you, and it arrives exactly as a provider\'s inbound would - a message with `direction: inbound`, `message.received`, and SMS keywords (STOP, START, HELP...) acting as in production.',
  request: { body: { required: true, ...json(SandboxInboundBody) } },
  responses: { 201: { description: 'The inbound message', ...json(Message) } },
});

/** sandbox.inbound. */
export const sandboxRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook }).openapi(inbound, async (c) =>
  c.json(await receiveSandboxInbound(c.var.deps, c.var.orgId, c.var.principal.mode, c.req.valid('json')), 201),
);
