import { AppError, assertMayChangeSharedConfiguration } from '@tidings/core';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../env.ts';

/** Refuses `sending` keys: they may only call message.send, message.list and message.get. */
export const requireFullPermission = createMiddleware<AppEnv>(async (c, next) => {
  if (c.get('principal').permission !== 'full') {
    throw new AppError('FORBIDDEN', 'This API key has sending permission only: it may call message.send, message.list and message.get');
  }
  await next();
});

/** Refuses a test key's change to shared configuration that live sends read (see assertMayChangeSharedConfiguration). */
export const refuseTestKeyChanges = createMiddleware<AppEnv>(async (c, next) => {
  assertMayChangeSharedConfiguration(c.get('principal'));
  await next();
});
