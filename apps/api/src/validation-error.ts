import type { z } from '@tidings/contracts';

/** One line a person can act on: each problem as `field: what is wrong`, joined by `; `. */
export function describeZodError(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      if (issue.code === 'unrecognized_keys') {
        return issue.keys.map((key) => `${[...issue.path, key].join('.')}: unknown field`).join('; ');
      }
      const field = issue.path.length > 0 ? issue.path.join('.') : 'body';
      return `${field}: ${issue.message}`;
    })
    .join('; ');
}
