import { OpenAPIHono } from '@hono/zod-openapi';
import { sandboxOperations as ops } from '@tidings/contracts';
import { receiveSandboxInbound } from '@tidings/core';
import type { AppEnv } from '../env.ts';
import { route } from '../openapi.ts';
import { validationHook } from '../validation-hook.ts';

/** Handler of sandbox.inbound, declared in @tidings/contracts. */
export const sandboxRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook }).openapi(route(ops.inbound), async (c) =>
  c.json(await receiveSandboxInbound(c.get('deps'), c.get('orgId'), c.get('principal').mode, c.req.valid('json')), 201),
);
