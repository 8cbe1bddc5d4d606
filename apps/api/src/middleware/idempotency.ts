import { AppError, beginIdempotentRequest, completeIdempotentRequest, holdIdempotentRequest, releaseIdempotentRequest, requestFingerprint } from '@tidings/core';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../env.ts';

/**
 * `Idempotency-Key` for the operations that take it: the first response (2xx or 4xx) is stored for 24 h and replayed
 * with `Idempotent-Replayed: true`; the same key with another body, or while the first still runs, is 409. Keys are
 * kept per organization and key mode, so a live request never replays a test key's answer.
 * A 5xx frees the key so the caller's retry runs again. The reservation is a lease renewed while the request runs, so
 * a key whose request died with its process is free again within `IDEMPOTENCY_LEASE_MS`. A handler whose work is one statement stores its answer in
 * that statement (`c.get('idempotencyKey')`); completing here is then a no-op.
 */
export const idempotent = createMiddleware<AppEnv>(async (c, next) => {
  const key = c.req.header('idempotency-key');
  if (key === undefined) return next();
  if (key.length < 1 || key.length > 255) throw new AppError('BAD_REQUEST', 'Idempotency-Key: must be 1 to 255 characters');
  const deps = c.get('deps');
  const orgId = c.get('orgId');
  const { mode } = c.get('principal');
  const keyId = { orgId, mode, key };
  const fingerprint = requestFingerprint(c.req.method, c.req.path, await c.req.text());
  const outcome = await beginIdempotentRequest(deps, keyId, fingerprint);
  if (outcome.kind === 'replay') {
    return c.body(outcome.body, outcome.status as 200, { 'Content-Type': 'application/json', 'Idempotent-Replayed': 'true' });
  }
  c.set('idempotencyKey', key);
  // renewed until the answer is stored or the key freed, which may wait out a database outage
  const stopRenewing = holdIdempotentRequest(deps, keyId, outcome.reservedAt);
  try {
    try {
      await next();
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) {
        await releaseIdempotentRequest(deps, keyId, outcome.reservedAt);
        throw error;
      }
      // A refusal (4xx) is the answer to this request: store it like any other, then let the error handler answer.
      await completeIdempotentRequest(deps, keyId, error.status, JSON.stringify({ code: error.code, message: error.message }));
      throw error;
    }
    if (c.res.status >= 500) {
      await releaseIdempotentRequest(deps, keyId, outcome.reservedAt);
      return;
    }
    await completeIdempotentRequest(deps, keyId, c.res.status, await c.res.clone().text());
  } finally {
    stopRenewing();
  }
});
