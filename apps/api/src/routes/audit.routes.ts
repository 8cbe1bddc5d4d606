import { OpenAPIHono } from '@hono/zod-openapi';
import { auditOperations as ops } from '@tidings/contracts';
import { listAuditEvents } from '@tidings/core';
import type { AppEnv } from '../env.ts';
import { route } from '../openapi.ts';
import { validationHook } from '../validation-hook.ts';

/**
 * Handler of audit.list declared in @tidings/contracts. A test key in an organization with live data sees only the
 * changes test keys made.
 */
export const auditRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook }).openapi(route(ops.list), async (c) => {
  const principal = c.get('principal');
  const onlyTestChanges = principal.mode === 'test' && principal.isLiveAllowed;
  return c.json(await listAuditEvents(c.get('deps'), c.get('orgId'), c.req.valid('query'), { onlyTestChanges }), 200);
});
