import type { Hook } from '@hono/zod-openapi';
import { AppError } from '@tidings/core';
import type { AppEnv } from './env.ts';
import { describeZodError } from './validation-error.ts';

/** Every validation failure of every route becomes a 400 whose message names the field. */
export const validationHook: Hook<unknown, AppEnv, string, unknown> = (result) => {
  if (!result.success) throw new AppError('BAD_REQUEST', describeZodError(result.error, result.target));
};
