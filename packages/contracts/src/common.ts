import { getOpenApiMetadata } from '@asteasolutions/zod-to-openapi';
import { unstorableText } from './storable-text.ts';
import { z } from './z.ts';

export { unstorableText };

export const ErrorCode = z.enum([
  'UNAUTHORIZED',
  'FORBIDDEN',
  'BAD_REQUEST',
  'NOT_FOUND',
  'CONFLICT',
  'TOO_MANY_REQUESTS',
  'RATE_LIMITED',
  'INTERNAL_SERVER_ERROR',
  'SERVICE_UNAVAILABLE',
]);
export type ErrorCode = z.infer<typeof ErrorCode>;

export const ErrorBody = z
  .object({
    code: ErrorCode,
    message: z.string().openapi({ example: 'name: Too small: expected string to have >=1 characters' }),
  })
  .openapi('Error');
export type ErrorBody = z.infer<typeof ErrorBody>;

/**
 * A string the API may store: every caller-given text (fields, names, tags, map keys, query values) uses it, so text
 * Postgres cannot hold is a 400 naming the field, never a database error.
 * @example z.strictObject({ name: storableText().trim().min(1).max(100) })
 */
export const storableText = () =>
  z.string().superRefine((value, ctx) => {
    const problem = unstorableText(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

/**
 * Why `value` is not a JSON value Postgres can store in jsonb (text as `unstorableText` says, keys too, finite
 * numbers, at most `maxDepth` levels of nesting), or null; a problem inside names its path.
 * @example storableJsonProblem({ a: ['\ud800'] }) // 'a.0: must not contain a lone surrogate ...'
 */
export function storableJsonProblem(value: unknown, maxDepth = 5): string | null {
  const walk = (item: unknown, path: string[]): string | null => {
    const at = (problem: string) => (path.length ? `${path.join('.')}: ${problem}` : problem);
    if (item === null || typeof item === 'boolean') return null;
    if (typeof item === 'number') return Number.isFinite(item) ? null : at('numbers must be finite');
    if (typeof item === 'string') {
      const problem = unstorableText(item);
      return problem && at(problem);
    }
    if (typeof item !== 'object') return at('must be a JSON value');
    if (path.length >= maxDepth) return at(`nests deeper than ${maxDepth} levels`);
    for (const [key, child] of Object.entries(item)) {
      const keyProblem = unstorableText(key);
      if (keyProblem) return at(`keys ${keyProblem}`);
      const problem = walk(child, [...path, key]);
      if (problem) return problem;
    }
    return null;
  };
  return walk(value, []);
}

/** The earliest and latest instants the API accepts (years 1 to 9999): Postgres has no year 0, JavaScript dates end sooner than Postgres's. */
const EARLIEST = Date.parse('0001-01-01T00:00:00.000Z');
const LATEST = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * An ISO-8601 date-time given by a caller (offset allowed), between the years 0001 and 9999, so it can be stored and
 * compared by Postgres (year 0000 and the far ends of JavaScript's range are a 400 naming the field).
 * @example z.object({ createdAfter: StorableDateTime.optional() })
 */
export const StorableDateTime = z.iso.datetime({ offset: true }).refine((value) => {
  const time = new Date(value).getTime();
  return time >= EARLIEST && time <= LATEST;
}, 'must be a date-time between the years 0001 and 9999');

/** An ISO-8601 UTC timestamp as the API returns it. */
export const Timestamp = z.iso.datetime().openapi({ example: '2026-11-23T08:00:00.000Z' });

/**
 * `limit`, `offset` and `cursor`, shared by every list operation. Strict, like every query: an unknown parameter
 * (`?stauts=failed`) is a 400 naming it, never a silently unfiltered list.
 */
export const ListQuery = z
  .strictObject({
    limit: z.coerce.number().int().min(1).max(100).default(20).openapi({ description: 'Items per page, 1..100.' }),
    offset: z.coerce.number().int().min(0).max(1_000_000).default(0).openapi({ description: 'Items to skip. Not together with `cursor`.' }),
    cursor: storableText().min(1).max(500).optional().openapi({ description: 'The `nextCursor` of the previous page (keyset pagination; stable while items are added).' }),
  })
  .refine((q) => !(q.cursor && q.offset > 0), { message: 'offset and cursor cannot be used together', path: ['cursor'] });
export type ListQuery = z.infer<typeof ListQuery>;

/** The envelope of every list response; its example is built from the item's, so each list shows one. */
export function listOf<T extends z.ZodTypeAny>(item: T, name: string) {
  const itemExample = getOpenApiMetadata(item).example;
  return z
    .object({
      data: z.array(item),
      hasMore: z.boolean(),
      nextCursor: z.string().nullable().openapi({ description: 'Pass as `cursor` for the next page; null on the last page.' }),
    })
    .openapi(name, itemExample === undefined ? {} : { example: { data: [itemExample], hasMore: true, nextCursor: 'eyJ0IjoiMjAyNi0xMS0yM1QwODowMDowMC4wMDBaIn0' } });
}

/** A path parameter `id` with its type prefix. */
export function idParam(prefix: string) {
  return z.object({
    id: z
      .string()
      .min(1)
      .max(64)
      // text Postgres cannot hold is bad input, not a database error
      .refine((v) => unstorableText(v) === null, 'must not contain the NUL character or a lone surrogate')
      .openapi({ param: { name: 'id', in: 'path' }, example: `${prefix}_01JD8Z5Q9X4N7W2M3K6P0R1T5V` }),
  });
}
