import { AppError, assertMayChangeSharedConfiguration } from '@tidings/core';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../env.ts';

/** Refuses `sending` keys: they may only send, list, read and cancel messages (as Resend's sending keys). */
export const requireFullPermission = createMiddleware<AppEnv>(async (c, next) => {
  if (c.get('principal').permission !== 'full') {
    throw new AppError(
      'FORBIDDEN',
      'This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource',
    );
  }
  await next();
});

/** Refuses a test key's change to shared configuration that live sends read (see assertMayChangeSharedConfiguration). */
export const refuseTestKeyChanges = createMiddleware<AppEnv>(async (c, next) => {
  assertMayChangeSharedConfiguration(c.get('principal'));
  await next();
});
