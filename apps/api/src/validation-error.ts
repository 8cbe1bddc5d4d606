import type { z } from '@tidings/contracts';

/**
 * One line a person can act on: each problem as `field: what is wrong`, joined by `; `. An unknown key is an
 * "unknown field" of a body, an "unknown query parameter" of a query.
 * @example describeZodError(error, 'query') // 'stauts: unknown query parameter'
 */
export function describeZodError(error: z.ZodError, target: 'query' | 'body' | string = 'body'): string {
  const unknown = target === 'query' ? 'unknown query parameter' : 'unknown field';
  return error.issues
    .map((issue) => {
      if (issue.code === 'unrecognized_keys') {
        return issue.keys.map((key) => `${[...issue.path, key].join('.')}: ${unknown}`).join('; ');
      }
      const field = issue.path.length > 0 ? issue.path.join('.') : 'body';
      return `${field}: ${issue.message}`;
    })
    .join('; ');
}
